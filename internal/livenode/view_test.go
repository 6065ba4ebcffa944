package livenode

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/internal/node"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

// viewRows reads the live rows of the SSTables (Data.db paths) merged, as
// export.View shows them at now.
func viewRows(t *testing.T, w *workload.Workload, paths []string, now time.Time) *node.Result {
	t.Helper()
	var descs []sstables.Descriptor
	for _, p := range paths {
		d, _, _, err := sstables.ParseDescriptor(p)
		if err != nil {
			t.Fatal(err)
		}
		descs = append(descs, d)
	}
	sch, err := cql.ParseSchema(w.Schema())
	if err != nil {
		t.Fatal(err)
	}
	set, err := table.Open(descs, nil, table.Options{Now: now, Table: sch.Table(w.Keyspace + "." + w.Table)})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	sc, err := set.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	v := export.NewView(sc, set.Table(), export.ViewOptions{Now: now})
	res := &node.Result{}
	for _, c := range v.Columns() {
		res.Columns = append(res.Columns, node.Column{Name: c.Name})
	}
	for {
		r, err := v.Next()
		if err == io.EOF {
			return res
		}
		if err != nil {
			t.Fatal(err)
		}
		row := make([][]byte, len(r.Values))
		for i, x := range r.Values {
			if x != nil {
				row[i] = append([]byte{}, x...)
			}
		}
		res.Rows = append(res.Rows, row)
	}
}

// TestViewEqualsNodeSelect: what castable shows of the SSTables a node
// flushed (three overlapping flushes read merged, then the node's major
// compaction of them) equals the node's SELECT * of the table, row by row
// and byte by byte: every type, collections, UDTs, statics, TTLs, every
// kind of deletion, counters, vectors on 5.0.
func TestViewEqualsNodeSelect(t *testing.T) {
	node.Start(node.Cassandra311, node.Cassandra50)
	for _, f := range []*node.Flavour{node.Cassandra311, node.Cassandra50} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			n := node.Get(t, f)
			for _, kind := range []string{"all", "counters"} {
				t.Run(kind, func(t *testing.T) {
					ks := n.Keyspace(t)
					w := workload.Generate(ks, workload.Options{Seed: 21, Counters: kind == "counters", Statements: 400, Vectors: f.Release == "5.0"})
					createTypes(t, n, w)
					create(t, n, w, w.Table)
					dir := keepDir(t, "view-"+f.Name+"-"+kind)
					inputs := flushBatches(t, n, w, 3, filepath.Join(dir, "flushed"))
					want, err := n.Query(fmt.Sprintf("SELECT * FROM %s.%s", ks, w.Table), 0)
					if err != nil {
						t.Fatal(err)
					}
					now := time.Now()
					got := viewRows(t, w, inputs, now)
					if len(got.Columns) != len(want.Columns) {
						t.Fatalf("columns %v, the node's %v", got.Columns, want.Columns)
					}
					for i := range got.Columns {
						if got.Columns[i].Name != want.Columns[i].Name {
							t.Fatalf("column %d: %s, the node's %s", i, got.Columns[i].Name, want.Columns[i].Name)
						}
					}
					sameRows(t, "three flushes merged", got, want)
					compacted := compactedByNode(t, n, ks, w.Table, inputs, filepath.Join(dir, "node"))
					sameRows(t, "the node's compaction", viewRows(t, w, []string{compacted}, now), want)
				})
			}
		})
	}
}
