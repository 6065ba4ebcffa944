package livenode

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/node"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/sstables"
)

// writePieces writes w's statements split at random into one SSTable per
// version (generations 1, 2, …) in dir/in and returns the schema file and
// the Data.db paths.
func writePieces(t *testing.T, w *workload.Workload, dir string, seed uint64, versions ...string) (string, []string) {
	t.Helper()
	schemaFile := filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(w.Schema()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 5))
	parts := make([][]string, len(versions))
	for _, s := range w.Statements {
		k := r.IntN(len(parts))
		parts[k] = append(parts[k], s)
	}
	var paths []string
	for i, v := range versions {
		cqlFile := filepath.Join(dir, fmt.Sprintf("part-%d.cql", i))
		if err := os.WriteFile(cqlFile, []byte(strings.Join(parts[i], ";\n")+";\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := cli.Write(context.Background(), quiet(), cli.WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: filepath.Join(dir, "in"), Format: v, Generation: i + 1})
		if err != nil {
			t.Fatalf("castable write --format %s: %v", v, err)
		}
		for _, res := range sum.Results {
			paths = append(paths, res.Descriptor.Path(sstables.ComponentData))
		}
	}
	return schemaFile, paths
}

// selectAll is SELECT * of ks.table.
func selectAll(t *testing.T, n *node.Node, ks, table string) *node.Result {
	t.Helper()
	res, err := n.Query(fmt.Sprintf("SELECT * FROM %s.%s", ks, table), 0)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// loadEach loads each directory into a table of its own (created with w's
// schema) and returns their SELECT * results concatenated in the order
// given: for directories holding consecutive token ranges, the whole
// table's SELECT *, which is in token order.
func loadEach(t *testing.T, n *node.Node, w *workload.Workload, name string, dirs []string) *node.Result {
	t.Helper()
	out := &node.Result{}
	for i, d := range dirs {
		table := fmt.Sprintf("%s_%d", name, i)
		create(t, n, w, table)
		if ents, _ := os.ReadDir(d); len(ents) > 0 {
			if err := n.Load(w.Keyspace, table, d); err != nil {
				t.Fatalf("loading %s: %v", d, err)
			}
		}
		res := selectAll(t, n, w.Keyspace, table)
		out.Columns = res.Columns
		out.Rows = append(out.Rows, res.Rows...)
	}
	return out
}

// TestTableCommandsOnTheNode: a random workload (every type, collections,
// UDTs, statics, TTLs, every kind of deletion) written by castable as three
// SSTables of mixed versions the release reads is, through castable's
// table commands, what the node holds when the same statements are sent
// over CQL: castable's merged view of the three (export.View) equals the
// node's SELECT *; the node loads castable compact's output (purging, and
// --no-purge into another version) and serves that SELECT; filter by token
// range and its --exclude, loaded into two tables, give its two halves in
// token order; split --ranges 3 (into another version), each range loaded
// into a table of its own, gives it range by range; every output verifies.
func TestTableCommandsOnTheNode(t *testing.T) {
	node.Start(node.Cassandra311, node.Cassandra50)
	for _, tc := range []struct {
		f        *node.Flavour
		versions []string
		to       string
	}{
		{node.Cassandra311, []string{"mc", "md", "me"}, "ma"},
		{node.Cassandra50, []string{"me", "nb", "oa"}, "nb"},
	} {
		t.Run(tc.f.Name, func(t *testing.T) {
			t.Parallel()
			n := node.Get(t, tc.f)
			ks := n.Keyspace(t)
			w := workload.Generate(ks, workload.Options{Seed: 31, Statements: 400})
			createTypes(t, n, w)
			create(t, n, w, "ref")
			if err := n.Exec(w.For("ref")...); err != nil {
				t.Fatal(err)
			}
			want := selectAll(t, n, ks, "ref")
			if len(want.Rows) == 0 {
				t.Fatal("the workload left no rows")
			}
			dir := keepDir(t, "tables-"+tc.f.Name)
			schemaFile, inputs := writePieces(t, w, dir, 31, tc.versions...)
			ctx := context.Background()
			check := func(what string, res *compaction.Result) []string {
				t.Helper()
				var paths []string
				for _, o := range res.Outputs {
					paths = append(paths, o.Descriptor.Path(sstables.ComponentData))
				}
				if err := cli.Verify(quiet(), cli.VerifyOptions{SSTables: paths, Schema: schemaFile, Strict: true}); err != nil {
					t.Fatalf("%s: verify: %v", what, err)
				}
				return paths
			}

			// The merged view of the three pieces.
			sameRows(t, "castable's merged view", viewRows(t, w, inputs, time.Now()), want)

			// compact (purging at the schema's grace: nothing is old
			// enough) and --no-purge into another version.
			set := cli.SetOptions{SSTables: inputs, Schema: schemaFile}
			o := set
			o.Out = filepath.Join(dir, "compact")
			res, err := cli.Compact(ctx, quiet(), cli.CompactOptions{SetOptions: o})
			if err != nil {
				t.Fatal(err)
			}
			check("compact", res)
			sameRows(t, "compact loaded", loadEach(t, n, w, "compacted", []string{o.Out}), want)
			o.Out, o.To = filepath.Join(dir, "compact-nopurge"), tc.to
			res, err = cli.Compact(ctx, quiet(), cli.CompactOptions{SetOptions: o, NoPurge: true})
			if err != nil {
				t.Fatal(err)
			}
			check("compact --no-purge", res)
			sameRows(t, "compact --no-purge --to "+tc.to+" loaded", loadEach(t, n, w, "nopurge", []string{o.Out}), want)

			// filter: a token range and its --exclude.
			var halves []string
			for _, exclude := range []bool{false, true} {
				o := set
				o.Out = filepath.Join(dir, fmt.Sprintf("filter-%v", exclude))
				res, err := cli.Filter(ctx, quiet(), cli.FilterOptions{SetOptions: o, TokenRanges: []string{"(-9223372036854775808, 0]"}, Exclude: exclude})
				if err != nil {
					t.Fatal(err)
				}
				check("filter", res)
				halves = append(halves, o.Out)
			}
			sameRows(t, "filter and filter --exclude loaded", loadEach(t, n, w, "filtered", halves), want)

			// split --ranges 3 --to.
			o = set
			o.Out, o.To = filepath.Join(dir, "split"), tc.to
			res, err = cli.Split(ctx, quiet(), cli.SplitOptions{SetOptions: o, Ranges: 3})
			if err != nil {
				t.Fatal(err)
			}
			check("split", res)
			var dirs []string
			for _, rr := range res.Ranges {
				dirs = append(dirs, rr.Dir)
			}
			sameRows(t, "split --ranges 3 loaded range by range", loadEach(t, n, w, "split", dirs), want)
		})
	}
}
