package sstables

import "math"

// ColumnIndexSizeBounds collects constraints on the column index size
// (column_index_size_in_kb, in bytes) a file was written with, as the
// blocks of its row index show them, and picks the setting they give: the
// shared half of every format's inference (sstables/internal/sorted for
// the 3.x+ rows, sstables/la for the 2.x cells). The zero value is not
// ready; use NewColumnIndexSizeBounds.
type ColumnIndexSizeBounds struct{ lo, hi int64 }

// NewColumnIndexSizeBounds starts without constraints but S ≥ min (1 for
// the 3.x+ writers, whose setting 0 means the default; 0 for 2.x, which
// cuts a block after every atom with column_index_size_in_kb 0).
func NewColumnIndexSizeBounds(min int64) *ColumnIndexSizeBounds {
	return &ColumnIndexSizeBounds{lo: min, hi: math.MaxInt64}
}

// AtLeast records S ≥ n.
func (c *ColumnIndexSizeBounds) AtLeast(n int64) { c.lo = max(c.lo, n) }

// AtMost records S ≤ n.
func (c *ColumnIndexSizeBounds) AtMost(n int64) { c.hi = min(c.hi, n) }

// Size returns the column index size in bytes the constraints give: def
// (the target's default) when it meets them, else the largest power of two
// of KiB in the interval (the smallest above the lower bound when no block
// was cut by size), else the smallest KiB multiple in it (0 when the
// interval holds nothing but sizes below 1 KiB down to 0). ok is false
// when no KiB multiple meets them (a writer that did not follow
// Cassandra's rule); size is then def. The interval is exact; the choice
// within it does not change a byte of a rewrite of the data.
func (c *ColumnIndexSizeBounds) Size(def int) (size int, ok bool) {
	lo, hi := c.lo, c.hi
	if lo > hi {
		return def, false
	}
	const kib = 1024
	if d := int64(def); d >= lo && d <= hi && d%kib == 0 {
		return def, true
	}
	if hi == math.MaxInt64 {
		// No block was cut: any size above lo does; the smallest power
		// of two above it.
		p := int64(kib)
		for p < lo {
			p <<= 1
		}
		return int(p), true
	}
	for p := int64(1 << 40); p >= kib; p >>= 1 {
		if p >= lo && p <= hi {
			return int(p), true
		}
	}
	if k := (lo + kib - 1) / kib * kib; k <= hi {
		return int(k), true
	}
	return def, false
}
