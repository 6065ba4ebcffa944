package table_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

// TestOrderedMergeMatchesSimple: random workloads (every type, every kind
// of deletion, TTLs some of which have expired at the merge time,
// counters) split at random into overlapping SSTables of mixed versions
// plus a memtable, scanned twice — the ordered merge and the simple
// reference (table.SimpleMerge) — give the same stream of partitions,
// rows and markers.
func TestOrderedMergeMatchesSimple(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	versions := []string{"nb", "mc", "oa", "da", "me"}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			dir := t.TempDir()
			o := workload.Options{Seed: seed, Statements: 800, Partitions: 10, Clusterings: 40, Counters: seed%4 == 0}
			if seed%3 == 1 {
				o.TTL, o.TTLSpread = 50, 200 // some expired at the merge time
			}
			w := workload.Generate("ks", o)
			schemaFile := filepath.Join(dir, "schema.cql")
			if err := os.WriteFile(schemaFile, []byte(w.Schema()), 0o644); err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(seed, 5))
			parts := make([][]string, 2+r.IntN(5))
			for _, s := range w.Statements {
				k := r.IntN(len(parts))
				parts[k] = append(parts[k], s)
			}
			tab := loadTable(t, schemaFile)
			var rs []sstables.Reader
			for i, p := range parts[:len(parts)-1] {
				rs = append(rs, openAll(t, writeCQL(t, schemaFile, p, versions[(int(seed)+i)%len(versions)], dir, i+1), tab)...)
			}
			// The last part in a memtable.
			sch, err := cql.ParseSchema(w.Schema())
			if err != nil {
				t.Fatal(err)
			}
			mt := memtable.New(tab, memtable.Options{Now: func() time.Time { return now }})
			ms, err := cql.NewBuilder(sch, cql.Options{Now: now}).Exec(strings.Join(parts[len(parts)-1], ";\n") + ";")
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				if err := mt.Apply(m.Partition); err != nil {
					t.Fatal(err)
				}
			}
			set, err := table.NewSet(rs, mt.Freeze(), table.Options{Table: tab, Now: now.Add(150 * time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			dump := func(simple bool) string {
				sc, err := set.Scan()
				if err != nil {
					t.Fatal(err)
				}
				defer sc.Close()
				if simple {
					table.SimpleMerge(sc)
				}
				var b strings.Builder
				for {
					p, err := sc.NextPartition()
					if err == io.EOF {
						return b.String()
					}
					if err != nil {
						t.Fatal(err)
					}
					fmt.Fprintf(&b, "partition %x %v static %s\n", p.Key, p.Deletion, dumpRow(&p.Static))
					for {
						r, m, err := sc.Next()
						if err != nil {
							t.Fatal(err)
						}
						if r == nil && m == nil {
							break
						}
						if r != nil {
							fmt.Fprintf(&b, "  row %s\n", dumpRow(r))
						} else {
							fmt.Fprintf(&b, "  marker %v %x %v %v\n", m.Kind, [][]byte(m.Clustering), m.Close, m.Open)
						}
					}
				}
			}
			got, want := dump(false), dump(true)
			if got != want {
				t.Fatalf("ordered merge differs from the simple one: %s", firstLineDiff(want, got))
			}
			// The SSTables alone (a memtable cannot seek), each partition
			// entered at the clustering of its middle row: the ordered
			// merge's order must follow the seeks.
			sstSet, err := table.NewSet(rs, nil, table.Options{Table: tab, Now: now.Add(150 * time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			seekAt := map[string]mutation.Clustering{}
			seekDump := func(simple bool) string {
				sc, err := sstSet.Scan()
				if err != nil {
					t.Fatal(err)
				}
				defer sc.Close()
				if simple {
					table.SimpleMerge(sc)
				}
				var b strings.Builder
				for {
					p, err := sc.NextPartition()
					if err == io.EOF {
						return b.String()
					}
					if err != nil {
						t.Fatal(err)
					}
					fmt.Fprintf(&b, "partition %x\n", p.Key)
					if ck, ok := seekAt[string(p.Key)]; ok {
						if err := sc.SeekClustering(ck); err != nil {
							t.Fatal(err)
						}
					}
					var rows []mutation.Clustering
					for {
						r, m, err := sc.Next()
						if err != nil {
							t.Fatal(err)
						}
						if r == nil && m == nil {
							break
						}
						if r != nil {
							rows = append(rows, append(mutation.Clustering(nil), r.Clustering...))
							fmt.Fprintf(&b, "  row %s\n", dumpRow(r))
						} else {
							fmt.Fprintf(&b, "  marker %v %x %v %v\n", m.Kind, [][]byte(m.Clustering), m.Close, m.Open)
						}
					}
					if _, ok := seekAt[string(p.Key)]; !ok && len(rows) > 2 {
						seekAt[string(append([]byte(nil), p.Key...))] = rows[len(rows)/2]
					}
				}
			}
			seekDump(true) // fills seekAt
			if len(seekAt) == 0 {
				t.Fatal("no partition to seek in")
			}
			if got, want := seekDump(false), seekDump(true); got != want {
				t.Fatalf("after SeekClustering the ordered merge differs from the simple one: %s", firstLineDiff(want, got))
			}
			if !o.Counters && !strings.Contains(want, "marker") || strings.Count(want, "  row") < 40 {
				t.Fatalf("the workload merged to too little: %d rows, %d markers", strings.Count(want, "  row"), strings.Count(want, "  marker"))
			}
		})
	}
}

func dumpRow(r *mutation.Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%x %+v %v %v %v", [][]byte(r.Clustering), r.Liveness, r.Deletion, r.DeletionShadowable, r.ShadowableDeletion)
	for _, c := range r.Cells {
		fmt.Fprintf(&b, " [%s %x %d %d %d %x]", c.Column.Name, c.Path, c.Timestamp, c.TTL, c.LocalDeletionTime, c.Value)
	}
	for _, cd := range r.ComplexDeletions {
		fmt.Fprintf(&b, " {%s %v}", cd.Column.Name, cd.Deletion)
	}
	return b.String()
}
