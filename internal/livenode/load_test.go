package livenode

import (
	"fmt"
	"testing"

	"github.com/castable-db/castable/internal/node"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
	"github.com/castable-db/castable/sstables/version"
)

// readBy lists the versions castable writes that a node of release
// reads and loads (the version table's ReadBy).
func readBy(release string) []version.Version {
	var out []version.Version
	for _, f := range sstables.Formats(true) {
		if v := f.Version(); v.ReadBy(release) {
			out = append(out, v)
		}
	}
	return out
}

// TestNodeLoadsWhatCastableWrites: for each release, random workloads
// (every type, collections frozen and not, UDTs, statics, TTLs, every
// kind of deletion; a counter table; vectors in the versions that hold
// them) are written by castable in every version the release reads, loaded into the live node (5.0 nodetool
// import, 3.11 refresh), and SELECT * of each equals SELECT * of a table
// the same statements were sent to over CQL.
func TestNodeLoadsWhatCastableWrites(t *testing.T) {
	node.Start(node.Cassandra311, node.Cassandra50)
	for _, f := range []*node.Flavour{node.Cassandra311, node.Cassandra50} {
		t.Run(f.Release, func(t *testing.T) {
			t.Parallel()
			n := node.Get(t, f)
			seeds := []uint64{1, 2}
			if testing.Short() {
				seeds = seeds[:1]
			}
			for _, seed := range seeds {
				for _, kind := range []string{"all", "counters", "legacy", "vectors"} {
					versions := readBy(f.Release)
					var o workload.Options
					switch kind {
					case "counters":
						o.Counters = true
					case "vectors":
						o.Vectors = true
						versions = nil
						for _, v := range readBy(f.Release) {
							if v.HasVectorType() && !v.LegacyCells() {
								versions = append(versions, v)
							}
						}
					case "legacy":
						o.Legacy = true
						versions = nil
						for _, v := range readBy(f.Release) {
							if v.LegacyCells() {
								versions = append(versions, v)
							}
						}
					}
					if kind == "all" {
						var modern []version.Version
						for _, v := range versions {
							if !v.LegacyCells() {
								modern = append(modern, v)
							}
						}
						versions = modern
					}
					if len(versions) == 0 {
						continue
					}
					if kind == "counters" && testing.Short() {
						// make test: counters in the first and the last
						// version only.
						versions = []version.Version{versions[0], versions[len(versions)-1]}
					}
					o.Seed = seed
					t.Run(fmt.Sprintf("%s/seed=%d", kind, seed), func(t *testing.T) {
						ks := n.Keyspace(t)
						w := workload.Generate(ks, o)
						createTypes(t, n, w)
						create(t, n, w, "ref")
						if err := n.Exec(w.For("ref")...); err != nil {
							t.Fatal(err)
						}
						want, err := n.Query(fmt.Sprintf("SELECT * FROM %s.ref", ks), 0)
						if err != nil {
							t.Fatal(err)
						}
						if len(want.Rows) == 0 {
							t.Fatal("the workload left no rows")
						}
						for _, v := range versions {
							table := "t_" + v.String()
							create(t, n, w, table)
							dir := write(t, w, table, v.String())
							if err := n.Load(ks, table, dir); err != nil {
								t.Fatalf("%s: %v", v, err)
							}
							got, err := n.Query(fmt.Sprintf("SELECT * FROM %s.%s", ks, table), 0)
							if err != nil {
								t.Fatal(err)
							}
							sameRows(t, fmt.Sprintf("%s %s", f.Name, v), got, want)
						}
					})
				}
			}
		})
	}
}
