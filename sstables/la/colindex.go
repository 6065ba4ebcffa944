package la

import (
	"bytes"

	"github.com/castable-db/castable/sstables"
)

// Inferring column_index_size_in_kb from an la file. Cassandra 2.2's
// ColumnIndex.Builder (and columnIndex here, which reproduces it) cuts a
// promoted index block after the atom that brings the block's counted
// bytes to the size S or more, and counts atoms by their serialized size
// (OnDiskAtom.Serializer.serializedSizeForSSTable: what the atom occupies
// in Data.db, a counter cell's timestampOfLastDelete included) — atom by
// atom, not row by row: a CQL row of the 2.x cell format is several atoms
// (its row marker, each cell, each collection element), a COMPACT STORAGE
// row or a counter row without marker is its cells, and a block can end
// inside a row. What a block holds that it does not count: the open range
// tombstones repeated at its start (copies of ones written before in the
// partition). A range tombstone is counted with the cell it is written
// before (2.2.4+ holds it back until then; 2.2.0–2.2.3 and 2.1 count it on
// its own, which the looser bound below also covers). So for each block,
// with w its counted bytes and l the counted bytes of its last cell and the
// tombstones written just before that cell:
//
//   - a block closed by size (every block but a partition's last): w − l < S ≤ w;
//   - the last block, closed by size or by the partition's end (its width
//     does not include the end marker, so it does not tell): w − l < S, w
//     and l up to its last cell;
//   - w − l < S holds only when w − l > 0, when an earlier atom of the
//     block was checked against S;
//   - a partition without a promoted index is one such last block.
//
// With column_index_size_in_kb 0 every atom closes a block, and a leading
// range tombstone a block of width 0 (w = 0: S ≤ 0), the one case S = 0
// and S = 1 … differ; the inference says 0 then, which WriterOptions spells
// −1 for la.

// InferColumnIndexSize returns the column index size in bytes the writer of
// r used, as far as its partitions and promoted indexes tell (see above),
// preferring def (the target's default) when it is consistent with them;
// −1 stands for column_index_size_in_kb 0 (la's WriterOptions convention).
// ok is false when no KiB multiple fits the constraints (a writer that did
// not follow Cassandra's rule); size is then def. It reads the whole of
// Data.db and Index.db.
func (r *Reader) InferColumnIndexSize(def int) (size int, ok bool, err error) {
	b := sstables.NewColumnIndexSizeBounds(0)
	err = r.Layout(func(pl *PartitionLayout) error {
		addColumnIndexBounds(b, pl)
		return nil
	})
	if err != nil {
		return def, false, err
	}
	size, ok = b.Size(def)
	if ok && size == 0 {
		size = -1
	}
	return size, ok, nil
}

// addColumnIndexBounds records the constraints of one partition.
func addColumnIndexBounds(b *sstables.ColumnIndexSizeBounds, pl *PartitionLayout) {
	if len(pl.Atoms) == 0 {
		return
	}
	const rangeTombstone = "range-tombstone"
	// counted[i] is what atom i adds to its block: 0 for a repeated range
	// tombstone, its size otherwise.
	counted := make([]int64, len(pl.Atoms))
	for i, a := range pl.Atoms {
		counted[i] = a.Size
		if a.Kind != rangeTombstone {
			continue
		}
		for _, p := range pl.Atoms[:i] {
			if p.Kind == rangeTombstone && p.Timestamp == a.Timestamp && bytes.Equal(p.Name, a.Name) && bytes.Equal(p.End, a.End) {
				counted[i] = 0 // repeated at a block start
				break
			}
		}
	}
	blocks := pl.Blocks
	if len(blocks) == 0 {
		blocks = []IndexBlock{{Offset: pl.HeaderSize, Width: pl.Size - pl.HeaderSize}}
	}
	j := 0
	for bi, blk := range blocks {
		start := pl.Offset + blk.Offset
		end := start + blk.Width
		last := bi == len(blocks)-1
		// w: the block's counted bytes up to (for the last block) or
		// through (for the others) the atom that may have closed it; l:
		// that atom's share.
		var w, l, run, wAtLastCell, lAtLastCell int64
		sawCell := false
		for ; j < len(pl.Atoms) && (pl.Atoms[j].Offset < end || last); j++ {
			a := pl.Atoms[j]
			if a.Offset < start {
				continue
			}
			w += counted[j]
			if a.Kind == rangeTombstone {
				run += counted[j]
				l = counted[j] // a 2.1/2.2.0 block may close on a tombstone
				continue
			}
			l = run + counted[j]
			run = 0
			sawCell, wAtLastCell, lAtLastCell = true, w, l
		}
		// The lower bound needs counted bytes before the closing atom's
		// share: only then was the block's size checked, below S, after an
		// earlier atom of it (with S = 0 every atom opens and closes a
		// block of its own).
		switch {
		case last && sawCell:
			if before := wAtLastCell - lAtLastCell; before > 0 {
				b.AtLeast(before + 1)
			}
		case last:
		default:
			if before := w - l; before > 0 {
				b.AtLeast(before + 1)
			}
			b.AtMost(w) // 0 for a zero-width block: column_index_size_in_kb 0
		}
	}
}
