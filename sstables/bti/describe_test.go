package bti

import (
	"bytes"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/sstables"
)

// TestDescribeManyPages: the layout describer of a Partitions.db trie of
// many pages counts every key once, finds pages beyond the first, and a
// key's lookup path runs from the root to a payload node; Index walks the
// partitions in order with their Data.db positions.
func TestDescribeManyPages(t *testing.T) {
	const n = 20_000
	table := parseTable(t, "CREATE TABLE ks.t (pk text PRIMARY KEY, v int)", dht.Murmur3)
	parts := textPartitions(table, dht.Murmur3, n)
	desc := writeAll(t, "da", table, parts, t.TempDir())
	r, err := Open(desc, nil, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pt, err := r.PartitionsTrie()
	if err != nil {
		t.Fatal(err)
	}
	if pt.Payloads != n {
		t.Fatalf("%d keys in the trie, want %d", pt.Payloads, n)
	}
	pSize, rSize, err := r.IndexSizes()
	if err != nil {
		t.Fatal(err)
	}
	if pt.Pages < 2 || int64(pt.Pages) > (pSize+4095)/4096 {
		t.Fatalf("%d pages for a Partitions.db of %d bytes", pt.Pages, pSize)
	}
	if rSize != 0 {
		t.Fatalf("Rows.db of %d bytes for one-row partitions", rSize)
	}
	total := 0
	for _, c := range pt.Types {
		total += c
	}
	if total != pt.Nodes {
		t.Fatalf("node types sum to %d, trie has %d nodes", total, pt.Nodes)
	}
	path, err := r.PartitionPath(parts[n/2].Key)
	if err != nil {
		t.Fatal(err)
	}
	if len(path) < 2 || path[0].Pos != pt.Root || !path[len(path)-1].Payload {
		t.Fatalf("lookup path %+v (root %d)", path, pt.Root)
	}
	i := 0
	last := int64(-1)
	err = r.Index(func(e *IndexEntry) error {
		if !bytes.Equal(e.Key, parts[i].Key) || e.Position <= last || e.RowIndex != nil {
			t.Fatalf("entry %d: key %q at %d (row index %v), want %q after %d", i, e.Key, e.Position, e.RowIndex, parts[i].Key, last)
		}
		last = e.Position
		i++
		return nil
	})
	if err != nil || i != n {
		t.Fatalf("Index walked %d entries: %v", i, err)
	}
}
