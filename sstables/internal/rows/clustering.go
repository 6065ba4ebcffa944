package rows

import (
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// appendClusteringValues is sstables.AppendClusteringValues.
func appendClusteringValues(dst []byte, vals mutation.Clustering, n int, fixed []int) ([]byte, error) {
	return sstables.AppendClusteringValues(dst, vals, n, fixed)
}

// ReadClusteringValues decodes n block-encoded clustering values from r
// into dst (reused), aliasing r's bytes (sstables.DecodeClusteringValues).
func ReadClusteringValues(r *SliceReader, dst mutation.Clustering, n int, fixed []int) mutation.Clustering {
	if r.Err != nil {
		return dst[:0]
	}
	vals, k, err := sstables.DecodeClusteringValues(r.B[r.Off:], dst, n, fixed, 0)
	r.Off += k
	if err != nil {
		r.Fail(err)
	}
	return vals
}

// EmptyValue is the non-nil empty value.
var EmptyValue = sstables.EmptyValue
