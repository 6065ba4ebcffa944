package big

import (
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// appendClusteringValues is sstables.AppendClusteringValues.
func appendClusteringValues(dst []byte, vals mutation.Clustering, n int, fixed []int) ([]byte, error) {
	return sstables.AppendClusteringValues(dst, vals, n, fixed)
}

// readClusteringValues decodes n block-encoded clustering values from r
// into dst (reused), aliasing r's bytes (sstables.DecodeClusteringValues).
func readClusteringValues(r *sliceReader, dst mutation.Clustering, n int, fixed []int) mutation.Clustering {
	if r.err != nil {
		return dst[:0]
	}
	vals, k, err := sstables.DecodeClusteringValues(r.b[r.off:], dst, n, fixed, 0)
	r.off += k
	if err != nil {
		r.fail(err)
	}
	return vals
}

// emptyValue is the non-nil empty value.
var emptyValue = sstables.EmptyValue
