package bti

import (
	"encoding/binary"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// TestWriteAllocations: once its buffers have grown, the writer allocates
// nothing per partition, the Partitions.db and Rows.db tries included (the
// sink's goroutine counts: allocations are counted process-wide).
func TestWriteAllocations(t *testing.T) {
	const n = 200_000
	for _, part := range []dht.Partitioner{dht.Murmur3, dht.ByteOrdered} {
		table := parseTable(t, "CREATE TABLE ks.t (pk text PRIMARY KEY, v int)", part)
		parts := textPartitions(table, part, n)
		w, err := NewWriter(version.MustParse("da"), table, sstables.WriterOptions{Dir: t.TempDir(), Generation: 1, Jobs: 1,
			Compression: &compress.Params{Codec: compress.LZ4}, ExpectedPartitions: n})
		if err != nil {
			t.Fatal(err)
		}
		warm := n / 10
		for _, p := range parts[:warm] {
			if err := w.Append(p); err != nil {
				t.Fatal(err)
			}
		}
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		for _, p := range parts[warm:] {
			if err := w.Append(p); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&ms1)
		if _, err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		per := float64(ms1.Mallocs-ms0.Mallocs) / float64(n-warm)
		t.Logf("%s: %.4f allocations per partition", part.Name(), per)
		if per > 0.01 {
			t.Errorf("%s: %.4f allocations per partition", part.Name(), per)
		}
	}
}

// TestWriteAllocationsRowIndex: partitions large enough for Rows.db (a
// row index of several blocks each) cost no allocation per row or per
// partition either.
func TestWriteAllocationsRowIndex(t *testing.T) {
	table := parseTable(t, "CREATE TABLE ks.t (pk int, ck int, v text, PRIMARY KEY (pk, ck))", dht.Murmur3)
	const nParts, nRows = 4000, 100
	var parts []*mutation.Partition
	for i := 0; i < nParts; i++ {
		key := binary.BigEndian.AppendUint32(nil, uint32(i))
		p := &mutation.Partition{Key: key, Token: dht.Murmur3.Token(key), Deletion: mutation.Live, Static: mutation.NewRow(nil)}
		for j := 0; j < nRows; j++ {
			r := mutation.NewRow(mutation.Clustering{binary.BigEndian.AppendUint32(nil, uint32(j))})
			r.Liveness = mutation.LivenessInfo{Timestamp: 1, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
			r.Cells = []mutation.Cell{{Column: table.Regular[0], Value: []byte("a value of some forty bytes, to fill blocks"), Timestamp: 1, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
			p.Rows = append(p.Rows, r)
		}
		parts = append(parts, p)
	}
	slices.SortFunc(parts, func(a, b *mutation.Partition) int { return dht.ComparePartitions(a.Token, a.Key, b.Token, b.Key) })
	dir := t.TempDir()
	w, err := NewWriter(version.MustParse("da"), table, sstables.WriterOptions{Dir: dir, Generation: 1, Jobs: 1,
		Compression: &compress.Params{Codec: compress.LZ4}, ExpectedPartitions: nParts, ColumnIndexSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	warm := nParts / 10
	var ms0, ms1 runtime.MemStats
	for i, p := range parts {
		if i == warm {
			runtime.ReadMemStats(&ms0)
		}
		if err := w.Append(p); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&ms1)
	res, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	per := float64(ms1.Mallocs-ms0.Mallocs) / float64(nParts-warm)
	t.Logf("%.4f allocations per partition of %d rows", per, nRows)
	if per > 0.05 {
		t.Errorf("%.4f allocations per partition of %d rows", per, nRows)
	}
	if st, err := os.Stat(res.Descriptor.Path(sstables.ComponentRows)); err != nil || st.Size() < nParts*50 {
		t.Fatalf("Rows.db: %v %v: the partitions have no row index", st, err)
	}
}
