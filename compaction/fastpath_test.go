package compaction_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
)

// TestPurgeFastPathMatchesCopies: random workloads (every type, every kind
// of deletion, TTLs, counters) split at random into overlapping SSTables
// of mixed versions, compacted at times that leave everything, expire some
// TTLs, or purge every tombstone, give byte-identical outputs whether rows
// the purge leaves alone are written as merged (the fast path) or, as
// before, copied and purged (compaction.CopyAllRows).
func TestPurgeFastPathMatchesCopies(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	base := time.Unix(1_800_000_000, 0)
	versions := []string{"nb", "mc", "oa", "da", "me"}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			dir := t.TempDir()
			o := workload.Options{Seed: seed, Statements: 600, Partitions: 10, Clusterings: 30, Counters: seed%4 == 0, TTL: 100, TTLSpread: 400}
			w := workload.Generate("ks", o)
			schemaFile := filepath.Join(dir, "schema.cql")
			if err := os.WriteFile(schemaFile, []byte(w.Schema()), 0o644); err != nil {
				t.Fatal(err)
			}
			sch, err := cql.ParseSchema(w.Schema())
			if err != nil {
				t.Fatal(err)
			}
			tab := sch.Table("ks.t")
			r := rand.New(rand.NewPCG(seed, 3))
			parts := make([][]string, 2+r.IntN(3))
			for _, s := range w.Statements {
				k := r.IntN(len(parts))
				parts[k] = append(parts[k], s)
			}
			in := filepath.Join(dir, "in")
			for i, p := range parts {
				cqlFile := filepath.Join(dir, fmt.Sprintf("part-%d.cql", i))
				if err := os.WriteFile(cqlFile, []byte(strings.Join(p, ";\n")+";\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := cli.Write(context.Background(), &cli.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Quiet: true},
					cli.WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: in, Format: versions[(int(seed)+i)%len(versions)], Generation: i + 1, Now: base}); err != nil {
					t.Fatal(err)
				}
			}
			descs, err := sstables.ListSSTables(sstables.OSFS, in)
			if err != nil {
				t.Fatal(err)
			}
			var readers []sstables.Reader
			for _, d := range descs {
				rd, err := sstables.OpenAny(d, tab, sstables.ReaderOptions{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { rd.Close() })
				readers = append(readers, rd)
			}
			for _, c := range []struct {
				name  string
				now   time.Time
				grace int64
			}{
				{"nothing due", base, -1},
				{"some expired", base.Add(300 * time.Second), -1},
				{"all purged", base.Add(1000 * time.Second), 0},
			} {
				compact := func(copyAll bool) *compaction.Result {
					opts := compaction.Options{Out: filepath.Join(dir, fmt.Sprintf("%s-%v", c.name, copyAll)), Generation: 1, Now: c.now, GCGraceSeconds: c.grace}
					if copyAll {
						compaction.CopyAllRows(&opts)
					}
					res, err := compaction.Compact(context.Background(), readers, tab, opts)
					if err != nil {
						t.Fatal(err)
					}
					return res
				}
				fast, ref := compact(false), compact(true)
				if len(fast.Outputs) != len(ref.Outputs) || fast.Rows != ref.Rows || fast.Partitions != ref.Partitions {
					t.Fatalf("%s: %d outputs, %d partitions, %d rows; copying: %d, %d, %d", c.name, len(fast.Outputs), fast.Partitions, fast.Rows, len(ref.Outputs), ref.Partitions, ref.Rows)
				}
				if c.name == "nothing due" && fast.Rows < 30 {
					t.Fatalf("only %d rows", fast.Rows)
				}
				for i := range fast.Outputs {
					for _, comp := range fast.Outputs[i].Components {
						a, err := os.ReadFile(fast.Outputs[i].Descriptor.Path(comp))
						if err != nil {
							t.Fatal(err)
						}
						b, err := os.ReadFile(ref.Outputs[i].Descriptor.Path(comp))
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(a, b) {
							t.Fatalf("%s: %s: %s", c.name, comp, testdata.FirstDiff(a, b))
						}
					}
				}
			}
		})
	}
}
