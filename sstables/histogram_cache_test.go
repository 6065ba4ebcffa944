package sstables

import (
	"slices"
	"sort"
	"testing"
)

// TestEstimatedHistogramLastBucket checks the cached-bucket shortcut of
// AddN against a search for every value: runs of equal and nearby values,
// jumps, values on offsets and beyond the last one.
func TestEstimatedHistogramLastBucket(t *testing.T) {
	r := newTestRand(5)
	for _, n := range []int{PartitionSizeOffsets, CellCountOffsets, 10} {
		h := NewEstimatedHistogram(n)
		want := make([]int64, n+1)
		offs := h.Offsets()
		v := int64(0)
		for i := 0; i < 20000; i++ {
			switch r.IntN(5) {
			case 0:
				v = r.Int64N(offs[len(offs)-1] * 2)
			case 1:
				v = offs[r.IntN(len(offs))] + int64(r.IntN(3)) - 1
			case 2:
				v += int64(r.IntN(5)) - 2
			}
			k := 1 + int64(r.IntN(3))
			h.AddN(v, k)
			want[sort.Search(len(offs), func(i int) bool { return offs[i] >= v })] += k
		}
		if !slices.Equal(h.Buckets(), want) {
			t.Fatalf("%d offsets: buckets differ", n)
		}
	}
}
