package livenode

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/internal/node"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/sstables"
)

// hostID returns the node's host id (system.local), the originating host
// id its SSTables record.
func hostID(t *testing.T, n *node.Node) []byte {
	t.Helper()
	res, err := n.Query("SELECT host_id FROM system.local", 0)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("host id: %v %v", res, err)
	}
	return res.Rows[0][0]
}

// flushBatches runs w's statements on the node in batches, flushing after
// each, and returns copies of the SSTables flushed (in dir).
func flushBatches(t *testing.T, n *node.Node, w *workload.Workload, batches int, dir string) []string {
	t.Helper()
	ks := w.Keyspace
	if err := n.ExecInOrder(fmt.Sprintf("ALTER TABLE %s.%s WITH compaction = {'class': 'SizeTieredCompactionStrategy'}", ks, w.Table)); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Nodetool("disableautocompaction", ks, w.Table); err != nil {
		t.Fatal(err)
	}
	per := (len(w.Statements) + batches - 1) / batches
	for i := 0; i < len(w.Statements); i += per {
		if err := n.Exec(w.Statements[i:min(i+per, len(w.Statements))]...); err != nil {
			t.Fatal(err)
		}
		if err := n.Flush(ks, w.Table); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for _, p := range nodeSSTables(t, n, ks, w.Table) {
		out = append(out, copySSTable(t, p, dir))
	}
	return out
}

// compactedByNode major-compacts ks.table and returns a copy of the one
// SSTable the compaction wrote (in dir).
func compactedByNode(t *testing.T, n *node.Node, ks, table string, before []string, dir string) string {
	t.Helper()
	if err := n.Compact(ks, table); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range before {
		names = append(names, filepath.Base(p))
	}
	var out []string
	for _, p := range nodeSSTables(t, n, ks, table) {
		if !containsString(names, filepath.Base(p)) {
			out = append(out, p)
		}
	}
	if len(out) != 1 {
		t.Fatalf("the node's major compaction wrote %v", out)
	}
	return copySSTable(t, out[0], dir)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// openAll opens the SSTables of Data.db paths with the schema file's table.
func openAll(t *testing.T, paths []string) []sstables.Reader {
	t.Helper()
	var rs []sstables.Reader
	for _, p := range paths {
		d, _, _, err := sstables.ParseDescriptor(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sstables.OpenAny(d, nil, sstables.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		rs = append(rs, r)
	}
	return rs
}

// TestCompactionMatchesTheNode: random workloads (every type, TTLs, every
// kind of deletion, overlapping keys in three flushes; counters; vectors
// on 5.0) flushed by the node, then major-compacted by the node and by
// castable (compaction.Compact over copies of the same flushed SSTables):
// the outputs are byte-identical in every component.
func TestCompactionMatchesTheNode(t *testing.T) {
	node.Start(node.Cassandra311, node.Cassandra50, node.Cassandra50BTI)
	for _, f := range []*node.Flavour{node.Cassandra311, node.Cassandra50, node.Cassandra50BTI} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			n := node.Get(t, f)
			host := hostID(t, n)
			for _, kind := range []string{"all", "counters"} {
				t.Run(kind, func(t *testing.T) {
					ks := n.Keyspace(t)
					w := workload.Generate(ks, workload.Options{Seed: 11, Counters: kind == "counters", Statements: 300, Vectors: f.Release == "5.0"})
					createTypes(t, n, w)
					create(t, n, w, w.Table)
					dir := keepDir(t, "compact-"+f.Name+"-"+kind)
					inputs := flushBatches(t, n, w, 3, filepath.Join(dir, "flushed"))
					want := compactedByNode(t, n, ks, w.Table, inputs, filepath.Join(dir, "node"))
					wantDesc, _, _, err := sstables.ParseDescriptor(want)
					if err != nil {
						t.Fatal(err)
					}
					rs := openAll(t, inputs)
					out := filepath.Join(dir, "castable")
					res, err := compaction.Compact(context.Background(), rs, rs[0].Table(), compaction.Options{
						Out: out, Generation: wantDesc.Generation, Now: time.Now(), GCGraceSeconds: -1, HostID: host,
						ReproduceLostComplexDeletions: f.Release == "5.0"})
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Outputs) != 1 {
						t.Fatalf("castable wrote %d SSTables", len(res.Outputs))
					}
					got := res.Outputs[0].Descriptor.Path(sstables.ComponentData)
					d := sameComponents(t, got, want)
					if len(d) > 0 {
						t.Errorf("castable's compaction differs from the node's in %s", strings.Join(d, ", "))
					}
				})
			}
		})
	}
}

// TestPurgingCompactionMatchesTheNode: as TestCompactionMatchesTheNode, on
// a table with gc_grace_seconds = 0 whose TTLs (2–3 s) have all run out
// when the node compacts: both compactions purge every deletion and
// expired cell (and drop SSTables that hold nothing else) and write the
// same bytes.
func TestPurgingCompactionMatchesTheNode(t *testing.T) {
	node.Start(node.Cassandra311, node.Cassandra50)
	for _, f := range []*node.Flavour{node.Cassandra311, node.Cassandra50} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			n := node.Get(t, f)
			host := hostID(t, n)
			ks := n.Keyspace(t)
			w := workload.Generate(ks, workload.Options{Seed: 13, Statements: 300, TTL: 2, TTLSpread: 2, Vectors: f.Release == "5.0"})
			createTypes(t, n, w)
			create(t, n, w, w.Table)
			if err := n.ExecInOrder(fmt.Sprintf("ALTER TABLE %s.%s WITH gc_grace_seconds = 0", ks, w.Table)); err != nil {
				t.Fatal(err)
			}
			dir := keepDir(t, "purge-"+f.Name)
			inputs := flushBatches(t, n, w, 3, filepath.Join(dir, "flushed"))
			// Every TTL (at most 3 s) and deletion is past by a margin when
			// both compact: no purge decision falls between their clocks.
			time.Sleep(6 * time.Second)
			now := time.Now()
			want := compactedByNode(t, n, ks, w.Table, inputs, filepath.Join(dir, "node"))
			wantDesc, _, _, err := sstables.ParseDescriptor(want)
			if err != nil {
				t.Fatal(err)
			}
			rs := openAll(t, inputs)
			res, err := compaction.Compact(context.Background(), rs, rs[0].Table(), compaction.Options{
				Out: filepath.Join(dir, "castable"), Generation: wantDesc.Generation, Now: now, GCGraceSeconds: 0, HostID: host,
				ReproduceLostComplexDeletions: f.Release == "5.0"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Outputs) != 1 {
				t.Fatalf("castable wrote %d SSTables (expired inputs %v)", len(res.Outputs), res.Expired)
			}
			d := sameComponents(t, res.Outputs[0].Descriptor.Path(sstables.ComponentData), want)
			if len(d) > 0 {
				t.Errorf("castable's purging compaction differs from the node's in %s", strings.Join(d, ", "))
			}
		})
	}
}
