package big

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// mcWriteCase is a folder of testdata/mc-write.
type mcWriteCase struct {
	name, dir string
	caseTxt   string
	expected  map[string]string // file name -> sha256
}

func mcWriteCases(t testing.TB) []mcWriteCase {
	t.Helper()
	root := testdata.Path(t, "mc-write")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []mcWriteCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c := mcWriteCase{name: e.Name(), dir: filepath.Join(root, e.Name()), expected: map[string]string{}}
		b, err := os.ReadFile(filepath.Join(c.dir, "case.txt"))
		if err != nil {
			t.Fatal(err)
		}
		c.caseTxt = string(b)
		f, err := os.Open(filepath.Join(c.dir, "expected.sha256"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) == 2 {
				c.expected[fields[1]] = fields[0]
			}
		}
		f.Close()
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatal("no mc-write cases")
	}
	return out
}

// table parses the case's schema.cql and returns its (only) table.
func (c mcWriteCase) table(t testing.TB) *schema.Table {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(c.dir, "schema.cql"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := cql.ParseSchema(string(src))
	if err != nil {
		t.Fatalf("%s: schema.cql: %v", c.name, err)
	}
	if len(s.Tables) != 1 {
		t.Fatalf("%s: schema.cql declares %d tables", c.name, len(s.Tables))
	}
	return s.Tables[0]
}

func (c mcWriteCase) partitions(t testing.TB, table *schema.Table) []*mutation.Partition {
	t.Helper()
	f, err := os.Open(filepath.Join(c.dir, "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parts, _, err := jsondump.DecodeAll(f, table, jsondump.DecodeOptions{})
	if err != nil {
		t.Fatalf("%s: data.json: %v", c.name, err)
	}
	return parts
}

// writerOptions are the options the case needs: the header stats as
// Cassandra's memtable computes them from the data, every column in the
// header when case.txt has a header-columns line, ScyllaDB's shadowable
// encoding when case.txt asks for it.
func (c mcWriteCase) writerOptions(table *schema.Table, parts []*mutation.Partition, dir string) sstables.WriterOptions {
	stats := mutation.NewStats(table)
	for _, p := range parts {
		stats.AddPartition(p)
	}
	enc := stats.EncodingStats()
	return sstables.WriterOptions{
		Dir:                dir,
		Generation:         1,
		ExpectedPartitions: int64(len(parts)),
		Stats: sstables.DataStats{
			Known:                true,
			MinTimestamp:         enc.MinTimestamp,
			MinLocalDeletionTime: enc.MinLocalDeletionTime,
			MinTTL:               enc.MinTTL,
			// Non-nil even when empty: nil would mean every column.
			Columns: stats.Columns([]*schema.Column{}),
		},
		HeaderAllColumns: strings.Contains(c.caseTxt, "\nheader-columns:"),
		ScyllaShadowable: strings.Contains(c.caseTxt, "ScyllaDB-style shadowable"),
	}
}

func sha256File(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestMCWriteCases is the writer's acceptance test: for every mc-write
// case, schema.cql and data.json written as generation 1 must give the
// Data.db, Index.db, Digest.crc32 and Filter.db of expected.sha256. Only
// expected.sha256 is read, so it works for folders without binaries. The
// other components it lists are compared informationally.
func TestMCWriteCases(t *testing.T) {
	exact := []string{"Data.db", "Index.db", "Digest.crc32", "Filter.db"}
	for _, c := range mcWriteCases(t) {
		t.Run(c.name, func(t *testing.T) {
			table := c.table(t)
			parts := c.partitions(t, table)
			opts := c.writerOptions(table, parts, t.TempDir())
			w, err := NewWriter(vmc, table, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				if err := w.Append(p); err != nil {
					w.Abort()
					t.Fatal(err)
				}
			}
			res, err := w.Finish()
			if err != nil {
				w.Abort()
				t.Fatal(err)
			}
			for _, comp := range exact {
				name := "mc-1-big-" + comp
				want, ok := c.expected[name]
				if !ok {
					t.Fatalf("expected.sha256 has no %s", name)
				}
				if got := sha256File(t, res.Descriptor.Path(sstables.Component(comp))); got != want {
					t.Errorf("%s: sha256 %s, want %s", comp, got, want)
				}
			}
			var names []string
			for name := range c.expected {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				comp := strings.TrimPrefix(name, "mc-1-big-")
				if comp == "TOC.txt" || containsString(exact, comp) {
					continue
				}
				path := res.Descriptor.Path(sstables.Component(comp))
				if _, err := os.Stat(path); err != nil {
					t.Logf("informational: %s not written", comp)
					continue
				}
				if sha256File(t, path) == c.expected[name] {
					t.Logf("informational: %s identical", comp)
					continue
				}
				t.Logf("informational: %s differs", comp)
				ref, err := os.ReadFile(filepath.Join(c.dir, name))
				if comp != "Statistics.db" || err != nil {
					continue
				}
				got, _ := os.ReadFile(path)
				gst, err1 := sstables.DecodeStatistics(got, vmc, path)
				rst, err2 := sstables.DecodeStatistics(ref, vmc, name)
				if err1 == nil && err2 == nil {
					t.Logf("informational: Statistics.db fields that differ from the reference: %v", statisticsDiff(gst, rst))
				}
			}
		})
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dumpCanonical dumps an SSTable as canonical JSON with partition
// positions.
func dumpCanonical(t testing.TB, r sstables.Reader) []byte {
	t.Helper()
	var out bytes.Buffer
	enc := jsondump.NewEncoder(&out, r.Table(), jsondump.EncodeOptions{Format: jsondump.FormatCanonical})
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.BeginPartition(p, sc.Position()); err != nil {
			t.Fatal(err)
		}
		for {
			row, m, err := sc.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil && m == nil {
				break
			}
			if row != nil {
				err = enc.Row(row)
			} else {
				err = enc.Marker(m)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.EndPartition(); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestDumpMCWriteReferences dumps every mc-write reference SSTable with
// the schema of its schema.cql and requires the canonical JSON to equal
// data.json (positions included); then writes that content again and
// requires the dump of the new SSTable to be the same (dump → write → dump).
func TestDumpMCWriteReferences(t *testing.T) {
	for _, c := range mcWriteCases(t) {
		if _, err := os.Stat(filepath.Join(c.dir, "mc-1-big-Data.db")); err != nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			table := c.table(t)
			desc := sstables.Descriptor{Dir: c.dir, Version: vmc, Generation: 1}
			r, err := Format(vmc).Open(desc, table, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			dump := dumpCanonical(t, r)
			want, err := os.ReadFile(filepath.Join(c.dir, "data.json"))
			if err != nil {
				t.Fatal(err)
			}
			if d, err := jsondump.DiffBytes(table, dump, want, jsondump.DiffOptions{ComparePositions: true}); err != nil || d != "" {
				t.Fatalf("dump differs from data.json: %s %v", d, err)
			}

			// dump -> write -> dump.
			parts, _, err := jsondump.DecodeAll(bytes.NewReader(dump), table, jsondump.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			opts := c.writerOptions(table, parts, t.TempDir())
			w, err := NewWriter(vmc, table, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				if err := w.Append(p); err != nil {
					w.Abort()
					t.Fatal(err)
				}
			}
			res, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			r2, err := Format(vmc).Open(res.Descriptor, table, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r2.Close()
			if err := r2.Verify(); err != nil {
				t.Fatal(err)
			}
			if d, err := jsondump.DiffBytes(table, dumpCanonical(t, r2), dump, jsondump.DiffOptions{ComparePositions: true}); err != nil || d != "" {
				t.Fatalf("dump of the rewritten SSTable differs: %s %v", d, err)
			}
		})
	}
}

// TestDumpExpectedJSON dumps every cassandra/3.x/uncompressed folder that
// has an expected.json, without a schema (the table comes from the
// serialization header), and compares.
func TestDumpExpectedJSON(t *testing.T) {
	n := 0
	for _, ref := range refSSTables(t, false) {
		exp := filepath.Join(ref.dir, "expected.json")
		want, err := os.ReadFile(exp)
		if err != nil {
			continue
		}
		n++
		t.Run(ref.name, func(t *testing.T) {
			r := openRef(t, ref)
			defer r.Close()
			dump := dumpCanonical(t, r)
			if d, err := jsondump.DiffBytes(r.Table(), dump, want, jsondump.DiffOptions{ComparePositions: true}); err != nil || d != "" {
				t.Fatalf("dump differs from expected.json: %s %v", d, err)
			}
		})
	}
	if n != 8 {
		t.Fatalf("found %d folders with expected.json, want 8", n)
	}
}
