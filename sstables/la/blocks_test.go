package la

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// TestPromotedIndexBlocks writes one large partition (3000 rows of about
// 100 bytes) inside a range tombstone covering all of it and checks the
// 64 KiB promoted index: contiguous blocks that start after the header,
// close right after the atom that reaches 64 KiB (so every width but the
// last is in [65536, 65536 + atom size)), the last ending before the end
// marker; the tombstone is written again at every block start, read back
// once, and counted once in Statistics.db.
func TestPromotedIndexBlocks(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.big (pk text, ck int, v blob, PRIMARY KEY (pk, ck));`)
	col := table.Column("v")
	del := mutation.DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 1500000000}
	p := &mutation.Partition{Key: []byte("k"), Deletion: mutation.Live, Static: mutation.NewRow(nil),
		Markers: []mutation.RangeTombstoneMarker{
			{Kind: mutation.InclStartBound, Clustering: mutation.Clustering{}, Open: del, Close: mutation.Live},
			{Kind: mutation.InclEndBound, Clustering: mutation.Clustering{}, Close: del, Open: mutation.Live},
		}}
	const rows = 3000
	for i := range rows {
		r := mutation.NewRow(mutation.Clustering{binary.BigEndian.AppendUint32(nil, uint32(i))})
		r.Liveness = mutation.LivenessInfo{Timestamp: 10, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
		r.Cells = []mutation.Cell{{Column: col, Value: bytes.Repeat([]byte{byte(i)}, 100), Timestamp: 10,
			TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
		p.Rows = append(p.Rows, r)
	}
	d, err := writeLA(t, false, table, []*mutation.Partition{p}, t.TempDir(), compress.Params{Codec: compress.LZ4})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(d, table, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Verify(); err != nil {
		t.Fatal(err)
	}
	var pl PartitionLayout
	if err := r.Layout(func(l *PartitionLayout) error {
		pl = *l
		pl.Blocks = append([]IndexBlock(nil), l.Blocks...)
		pl.Atoms = append([]AtomLayout(nil), l.Atoms...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(pl.Blocks) < 4 {
		t.Fatalf("%d blocks for a partition of %d bytes", len(pl.Blocks), pl.Size)
	}
	const maxAtom = 2 + 11 + 1 + 8 + 4 + 100 // the largest cell
	next := pl.HeaderSize
	for i, b := range pl.Blocks {
		switch {
		case b.Offset != next:
			t.Fatalf("block %d starts at %d, want %d", i, b.Offset, next)
		case i < len(pl.Blocks)-1 && (b.Width < defaultColumnIndexSize || b.Width >= defaultColumnIndexSize+maxAtom+64):
			t.Fatalf("block %d width %d", i, b.Width)
		}
		next = b.Offset + b.Width
	}
	if end := pl.Size - endOfPartitionSize; next != end {
		t.Fatalf("last block ends at %d, the end marker is at %d", next, end)
	}
	tombstones := 0
	for _, a := range pl.Atoms {
		if a.Kind == "range-tombstone" {
			tombstones++
		}
	}
	// Once deferred before the first cell, then repeated at each later
	// block start.
	if tombstones != len(pl.Blocks) {
		t.Fatalf("%d range tombstone atoms for %d blocks", tombstones, len(pl.Blocks))
	}
	got, err := r.Get(p.Key)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != rows || len(got.Markers) != 2 {
		t.Fatalf("read back %d rows and %d markers", len(got.Rows), len(got.Markers))
	}
	points, counts := r.Statistics().Stats.TombstoneDropTimes.Bins()
	if fmt.Sprint(points, counts) != "[1.5e+09] [1]" {
		t.Fatalf("tombstone histogram %v %v, want the range tombstone once", points, counts)
	}
	if n := r.Statistics().Stats.CellsPerPartition.Buckets(); n == nil {
		t.Fatal("no cell count histogram")
	}
}
