package big

import (
	"fmt"
	"github.com/castable-db/castable/internal/vint"

	"github.com/castable-db/castable/mutation"
)

// appendClusteringValues appends the block-encoded clustering values (see
// layout.go): per block of up to 32 values a uvint header with bit 2i for an
// empty value and bit 2i+1 for a null one, then the non-empty values, raw for
// fixed-length types and uvint-length-prefixed otherwise. n values are
// written; components of vals beyond its length are null.
func appendClusteringValues(dst []byte, vals mutation.Clustering, n int, fixed []int) ([]byte, error) {
	for start := 0; start < n; start += clusteringBlockSize {
		end := min(start+clusteringBlockSize, n)
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

// readClusteringValues decodes n block-encoded clustering values from r
// into dst (reused), aliasing r's bytes. Null components are nil, empty ones
// non-nil and empty.
func readClusteringValues(r *sliceReader, dst mutation.Clustering, n int, fixed []int) mutation.Clustering {
	dst = dst[:0]
	for start := 0; start < n && r.err == nil; start += clusteringBlockSize {
		end := min(start+clusteringBlockSize, n)
		header, _ := r.uvint()
		for i := start; i < end && r.err == nil; i++ {
			shift := uint(2 * (i - start))
			switch {
			case header&(1<<(shift+1)) != 0:
				dst = append(dst, nil)
			case header&(1<<shift) != 0:
				dst = append(dst, emptyValue)
			default:
				f := 0
				if i < len(fixed) {
					f = fixed[i]
				}
				if f > 0 {
					dst = append(dst, r.bytes(f))
				} else {
					dst = append(dst, r.vbytes())
				}
			}
		}
	}
	return dst
}

// emptyValue is the non-nil empty value.
var emptyValue = []byte{}
