package sstables

import (
	"fmt"

	"github.com/castable-db/castable/internal/vint"
	"github.com/castable-db/castable/mutation"
)

// Clustering values as the 3.x storage engine writes them (Data.db rows
// and markers, Index.db promoted index prefixes, Statistics.db's covered
// clustering slice): per block of up to 32 values a uvint header with bit
// 2i for an empty value and bit 2i+1 for a null one, then each non-null,
// non-empty value, raw for a fixed-length type and uvint-length-prefixed
// otherwise.

// ClusteringBlockSize is the number of values one header covers.
const ClusteringBlockSize = 32

// EmptyValue is the non-nil empty value decoders return.
var EmptyValue = []byte{}

// AppendClusteringValues appends n block-encoded clustering values;
// components of vals beyond its length are null. fixed holds each type's
// fixed value length (0 for variable-length types).
func AppendClusteringValues(dst []byte, vals mutation.Clustering, n int, fixed []int) ([]byte, error) {
	for start := 0; start < n; start += ClusteringBlockSize {
		end := min(start+ClusteringBlockSize, n)
		var header uint64
		for i := start; i < end; i++ {
			switch {
			case i >= len(vals) || vals[i] == nil:
				header |= 1 << (2*(i-start) + 1)
			case len(vals[i]) == 0:
				header |= 1 << (2 * (i - start))
			}
		}
		dst = vint.Append(dst, header)
		for i := start; i < end && i < len(vals); i++ {
			v := vals[i]
			if len(v) == 0 {
				continue
			}
			if f := fixed[i]; f > 0 {
				if len(v) != f {
					return dst, fmt.Errorf("clustering component %d: %d bytes for a fixed-length type of %d", i, len(v), f)
				}
				dst = append(dst, v...)
			} else {
				dst = vint.Append(dst, uint64(len(v)))
				dst = append(dst, v...)
			}
		}
	}
	return dst, nil
}

// DecodeClusteringValues decodes n block-encoded clustering values from
// the start of b into dst (reused), aliasing b's bytes; null components are
// nil, empty ones EmptyValue. It returns the values and the bytes used, or
// an error (errShortValues) when b ends inside them; maxValue bounds a
// value's length (0: no bound beyond b's length).
func DecodeClusteringValues(b []byte, dst mutation.Clustering, n int, fixed []int, maxValue int) (mutation.Clustering, int, error) {
	dst = dst[:0]
	off := 0
	for start := 0; start < n; start += ClusteringBlockSize {
		end := min(start+ClusteringBlockSize, n)
		header, k := vint.Decode(b[off:])
		if k == 0 {
			return dst, off, ErrShortValues
		}
		off += k
		for i := start; i < end; i++ {
			shift := uint(2 * (i - start))
			switch {
			case header&(1<<(shift+1)) != 0:
				dst = append(dst, nil)
				continue
			case header&(1<<shift) != 0:
				dst = append(dst, EmptyValue)
				continue
			}
			l := 0
			if i < len(fixed) {
				l = fixed[i]
			}
			if l == 0 {
				u, k := vint.Decode(b[off:])
				if k == 0 {
					return dst, off, ErrShortValues
				}
				off += k
				if maxValue > 0 && u > uint64(maxValue) {
					return dst, off, fmt.Errorf("%w: clustering value of %d bytes", ErrValueTooLarge, u)
				}
				if u > uint64(len(b)-off) {
					return dst, off, ErrShortValues
				}
				l = int(u)
			}
			if l > len(b)-off {
				return dst, off, ErrShortValues
			}
			dst = append(dst, b[off:off+l:off+l])
			off += l
		}
	}
	return dst, off, nil
}
