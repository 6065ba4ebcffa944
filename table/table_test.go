package table_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
	"github.com/castable-db/castable/table"
)

var now = time.Unix(1800000000, 0)

func quiet() *cli.Env { return &cli.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Quiet: true} }

// writeCQL writes statements with castable write into dir in version v
// and returns the SSTables written.
func writeCQL(t *testing.T, schemaFile string, stmts []string, v, dir string, gen int) []sstables.Descriptor {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cqlFile := filepath.Join(dir, fmt.Sprintf("data-%d.cql", gen))
	if err := os.WriteFile(cqlFile, []byte(strings.Join(stmts, ";\n")+";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sstables")
	if _, err := cli.Write(context.Background(), quiet(), cli.WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: out, Format: v, Generation: gen, Now: now}); err != nil {
		t.Fatal(err)
	}
	descs, err := sstables.ListSSTables(sstables.OSFS, out)
	if err != nil {
		t.Fatal(err)
	}
	var mine []sstables.Descriptor
	for _, d := range descs {
		if d.Generation == gen {
			mine = append(mine, d)
		}
	}
	return mine
}

// liveDump is the canonical dump of the SSTables at dir after a compaction
// that purges every tombstone (gc grace 0 at a time past every TTL): only
// live data, whatever form the deletions took.
func liveDump(t *testing.T, rs []sstables.Reader, tab *schema.Table, rules mutation.Rules) string {
	t.Helper()
	out := t.TempDir()
	res, err := compaction.Compact(context.Background(), rs, tab, compaction.Options{Out: out, Generation: 1, Now: now.Add(400 * 24 * time.Hour), GCGraceSeconds: 0, Rules: &rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) == 0 {
		return "[]"
	}
	var b bytes.Buffer
	if err := cli.Dump(&cli.Env{Stdout: &b, Stderr: io.Discard}, cli.DumpOptions{SSTable: res.Outputs[0].Descriptor.Path(sstables.ComponentData), Canonical: true}); err != nil {
		t.Fatal(err)
	}
	return normalizeDump(b.String())
}

var (
	listPath = regexp.MustCompile(`"path": \["[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}"\]`)
	position = regexp.MustCompile(`, "position": [0-9]+`)
)

// normalizeDump removes from a canonical dump what differs between two
// writes of the same statements: the timeuuids castable draws for list
// elements (their order within a list is kept) and the partitions'
// positions, which follow from them.
func normalizeDump(s string) string {
	s = listPath.ReplaceAllString(s, `"path": ["<list element>"]`)
	return position.ReplaceAllString(s, "")
}

func openAll(t *testing.T, descs []sstables.Descriptor, tab *schema.Table) []sstables.Reader {
	t.Helper()
	var rs []sstables.Reader
	for _, d := range descs {
		r, err := sstables.OpenAny(d, tab, sstables.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		rs = append(rs, r)
	}
	return rs
}

// TestMergeEqualsOneMemtable: a random workload (every type, ties, TTLs,
// every kind of deletion) split at random into 4 SSTables of mixed
// versions (la excepted: the workload has 3.x-only types), merged by the
// table package, holds after a full purge exactly the live data of the
// same statements written through one memtable (merged on apply), under
// the same reconciliation rules.
func TestMergeEqualsOneMemtable(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6}
	if testing.Short() {
		seeds = seeds[:3]
	}
	versions := []string{"mc", "nb", "oa", "da", "me"}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			dir := t.TempDir()
			w := workload.Generate("ks", workload.Options{Seed: seed, Statements: 400, Partitions: 15})
			schemaFile := filepath.Join(dir, "schema.cql")
			if err := os.WriteFile(schemaFile, []byte(w.Schema()), 0o644); err != nil {
				t.Fatal(err)
			}
			whole := writeCQL(t, schemaFile, w.Statements, "nb", filepath.Join(dir, "whole"), 1)
			r := rand.New(rand.NewPCG(seed, 99))
			parts := make([][]string, 4)
			for _, s := range w.Statements {
				k := r.IntN(len(parts))
				parts[k] = append(parts[k], s)
			}
			var pieces []sstables.Descriptor
			for i, p := range parts {
				pieces = append(pieces, writeCQL(t, schemaFile, p, versions[(int(seed)+i)%len(versions)], filepath.Join(dir, "pieces"), i+1)...)
			}
			tab := loadTable(t, schemaFile)
			a := liveDump(t, openAll(t, whole, tab), tab, mutation.Rules3)
			b := liveDump(t, openAll(t, pieces, tab), tab, mutation.Rules3)
			if a != b {
				t.Errorf("merged pieces differ from one memtable:\n%s", firstLineDiff(a, b))
			}
		})
	}
}

func loadTable(t *testing.T, schemaFile string) *schema.Table {
	t.Helper()
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := cql.ParseSchema(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return s.Table("ks.t")
}

func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			lo := max(0, i-3)
			return fmt.Sprintf("line %d:\none memtable: %s\nmerged:      %s\n(context: %s)", i, la[i], lb[i], strings.Join(la[lo:i], " | "))
		}
	}
	return fmt.Sprintf("%d lines against %d", len(la), len(lb))
}

// TestGetEqualsScan: every partition Get finds through the indexes (newest
// SSTable first, skipping by timestamp) equals the one the merged scan
// returns, with a frozen memtable in the set too; absent keys are absent.
func TestGetEqualsScan(t *testing.T) {
	dir := t.TempDir()
	w := workload.Generate("ks", workload.Options{Seed: 8, Statements: 400, Partitions: 25})
	schemaFile := filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(w.Schema()), 0o644); err != nil {
		t.Fatal(err)
	}
	sch, err := cql.ParseSchema(w.Schema())
	if err != nil {
		t.Fatal(err)
	}
	tab := sch.Table("ks.t")
	third := len(w.Statements) / 3
	var descs []sstables.Descriptor
	descs = append(descs, writeCQL(t, schemaFile, w.Statements[:third], "oa", dir, 1)...)
	descs = append(descs, writeCQL(t, schemaFile, w.Statements[third:2*third], "mc", dir, 2)...)
	// The last third in a memtable.
	mt := memtable.New(tab, memtable.Options{Now: func() time.Time { return now }})
	b := cql.NewBuilder(sch, cql.Options{Now: now})
	ms, err := b.Exec(strings.Join(w.Statements[2*third:], ";\n") + ";")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if err := mt.Apply(m.Partition); err != nil {
			t.Fatal(err)
		}
	}
	set, err := table.Open(descs, mt.Freeze(), table.Options{Table: tab, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	sc, err := set.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	n := 0
	for {
		head, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		want := wholeOf(t, sc, head)
		got, st, err := set.GetWith(want.Key)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			t.Fatalf("Get(%x) found nothing", want.Key)
		}
		if g, wv := dumpPartition(t, tab, got), dumpPartition(t, tab, want); g != wv {
			t.Fatalf("Get(%x) differs from the scan:\n%s\n%s", want.Key, g, wv)
		}
		if st.Consulted+st.SkippedByTimestamp != 2 {
			t.Fatalf("stats %+v", st)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d partitions", n)
	}
	if p, _, err := set.GetWith([]byte{0, 0, 0x7f, 0xff}); err != nil || p != nil {
		t.Fatalf("an absent key: %v %v", p, err)
	}
}

func wholeOf(t *testing.T, sc *table.Scanner, head *mutation.Partition) *mutation.Partition {
	t.Helper()
	p := &mutation.Partition{Key: append([]byte(nil), head.Key...), Token: head.Token, Deletion: head.Deletion, Static: cloneRow(head.Static)}
	for {
		r, m, err := sc.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r != nil:
			p.Rows = append(p.Rows, cloneRow(*r))
		case m != nil:
			c := *m
			c.Clustering = cloneClustering(m.Clustering)
			p.Markers = append(p.Markers, c)
		default:
			return p
		}
	}
}

func cloneClustering(c mutation.Clustering) mutation.Clustering {
	var out mutation.Clustering
	for _, v := range c {
		out = append(out, append([]byte(nil), v...))
	}
	return out
}

func cloneRow(r mutation.Row) mutation.Row {
	r.Clustering = cloneClustering(r.Clustering)
	cells := make([]mutation.Cell, len(r.Cells))
	for i, c := range r.Cells {
		c.Value = append([]byte(nil), c.Value...)
		c.Path = append([]byte(nil), c.Path...)
		cells[i] = c
	}
	r.Cells = cells
	r.ComplexDeletions = append([]mutation.ComplexDeletion(nil), r.ComplexDeletions...)
	return r
}

func dumpPartition(t *testing.T, tab *schema.Table, p *mutation.Partition) string {
	t.Helper()
	return fmt.Sprintf("%+v", *p)
}
