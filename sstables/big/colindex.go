package big

import (
	"math"
)

// Inferring column_index_size from a file. Blocks are cut after the
// unfiltered that brings a block to the size S or more (rows.BlockCutter),
// so each block constrains S:
//
//   - a block cut by size, whose unfiltereds span w bytes and whose last
//     unfiltered is l bytes: w − l < S ≤ w;
//   - a block closed by the partition's end (its end includes the
//     end-of-partition byte): its unfiltereds span w < S;
//   - a partition without a promoted index spans w bytes of unfiltereds,
//     the last l bytes: w − l < S (it was cut at most at its end).
//
// The constraints give an interval [lo, hi]. Cassandra's setting is in KiB
// (column_index_size_in_kb), so the answer is the KiB multiple in the
// interval: the writer's default when it lies there, else the largest power
// of two (the smallest above lo when no block was cut and the interval has
// no end), else the smallest multiple. The interval is exact; the choice
// within it does not change a byte of a rewrite of this data.

// InferColumnIndexSize returns the column index size in bytes that the
// writer of r used, as far as its partitions and promoted indexes tell,
// preferring def (the target's default) when it is consistent with them.
// ok is false when no KiB multiple fits the constraints (a writer that did
// not follow Cassandra's rule); size is then def. It reads the whole of
// Data.db and Index.db.
func (r *Reader) InferColumnIndexSize(def int) (size int, ok bool, err error) {
	lo, hi := int64(1), int64(math.MaxInt64)
	err = r.Layout(func(pl *PartitionLayout) error {
		us := pl.Unfiltereds
		if len(us) == 0 {
			return nil
		}
		first := pl.Offset + pl.HeaderSize
		if len(pl.Blocks) == 0 {
			last := us[len(us)-1]
			w := last.Offset + last.Size - first
			lo = max(lo, w-last.Size+1)
			return nil
		}
		partEnd := pl.Offset + pl.Size
		j := 0
		for _, b := range pl.Blocks {
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
			if end == partEnd && last.Offset+last.Size < partEnd {
				lo = max(lo, w+1) // closed by the partition's end
				continue
			}
			lo = max(lo, w-last.Size+1)
			hi = min(hi, w)
		}
		return nil
	})
	if err != nil {
		return def, false, err
	}
	if lo > hi {
		return def, false, nil
	}
	const kib = 1024
	if d := int64(def); d >= lo && d <= hi && d%kib == 0 {
		return def, true, nil
	}
	if hi == math.MaxInt64 {
		// No block was cut: any size above lo does; the smallest power
		// of two above it.
		p := int64(kib)
		for p < lo {
			p <<= 1
		}
		return int(p), true, nil
	}
	for p := int64(1 << 40); p >= kib; p >>= 1 {
		if p >= lo && p <= hi {
			return int(p), true, nil
		}
	}
	if k := (lo + kib - 1) / kib * kib; k <= hi {
		return int(k), true, nil
	}
	return def, false, nil
}
