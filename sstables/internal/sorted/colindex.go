package sorted

import "github.com/castable-db/castable/sstables"

// Inferring column_index_size from a file. Blocks are cut after the
// unfiltered that brings a block to the size S or more (rows.BlockCutter),
// so each block constrains S:
//
//   - a block cut by size, whose unfiltereds span w bytes and whose last
//     unfiltered is l bytes: w − l < S ≤ w;
//   - a block closed by the partition's end (its end includes the
//     end-of-partition byte): its unfiltereds span w < S;
//   - a partition without a row index spans w bytes of unfiltereds, the
//     last l bytes: w − l < S (it was cut at most at its end);
//   - a last block whose end does not tell how it was closed (BTI's row
//     index ends every partition's last block at the end-of-partition
//     byte): w − l < S.
//
// The constraints give an interval [lo, hi]. Cassandra's setting is in KiB
// (column_index_size_in_kb), so the answer is the KiB multiple in the
// interval: the writer's default when it lies there, else the largest power
// of two (the smallest above lo when no block was cut and the interval has
// no end), else the smallest multiple. The interval is exact; the choice
// within it does not change a byte of a rewrite of this data.

// BlockSpan is one row index block: its offset from the partition start
// and its width, in the uncompressed Data.db.
type BlockSpan struct{ Offset, Width int64 }

// ColumnIndexSizeBounds collects the constraints partitions and their row
// index blocks put on the column index size they were written with (over
// sstables.ColumnIndexSizeBounds, which picks the size).
type ColumnIndexSizeBounds struct {
	b *sstables.ColumnIndexSizeBounds
}

// NewColumnIndexSizeBounds starts without constraints (but S ≥ 1: a 3.x+
// setting of 0 means the default).
func NewColumnIndexSizeBounds() *ColumnIndexSizeBounds {
	return &ColumnIndexSizeBounds{b: sstables.NewColumnIndexSizeBounds(1)}
}

// Add records a partition and its blocks (none without a row index);
// lastOpen says the last block's end does not show whether it was cut by
// size or by the partition's end.
func (c *ColumnIndexSizeBounds) Add(pl *DataLayout, blocks []BlockSpan, lastOpen bool) {
	us := pl.Unfiltereds
	if len(us) == 0 {
		return
	}
	first := pl.Offset + pl.HeaderSize
	if len(blocks) == 0 {
		last := us[len(us)-1]
		w := last.Offset + last.Size - first
		c.b.AtLeast(w - last.Size + 1)
		return
	}
	partEnd := pl.Offset + pl.Size
	j := 0
	for i, b := range blocks {
		start := pl.Offset + b.Offset
		end := start + b.Width
		// The unfiltereds of the block: those that start inside it.
		var last *UnfilteredLayout
		for j < len(us) && us[j].Offset < end {
			if us[j].Offset >= start {
				last = &us[j]
			}
			j++
		}
		if last == nil {
			continue
		}
		w := last.Offset + last.Size - start
		if lastOpen && i == len(blocks)-1 {
			c.b.AtLeast(w - last.Size + 1)
			continue
		}
		if end == partEnd && last.Offset+last.Size < partEnd {
			c.b.AtLeast(w + 1) // closed by the partition's end
			continue
		}
		c.b.AtLeast(w - last.Size + 1)
		c.b.AtMost(w)
	}
}

// Size returns the column index size in bytes the constraints give,
// preferring def (the target's default) when it meets them; ok is false
// when no KiB multiple does (a writer that did not follow Cassandra's
// rule), and size is then def.
func (c *ColumnIndexSizeBounds) Size(def int) (size int, ok bool) { return c.b.Size(def) }
