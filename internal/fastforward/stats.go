package fastforward

import (
	"math"
	"slices"
)

// Summary is ScyllaDB's aggregation of repeated measurements: the median
// (element [n/2] of the sorted values), the median absolute deviation from
// it (element [n/2] of the sorted deviations), and the extremes.
type Summary struct {
	Median, MAD, Min, Max float64
	// MedianIndex is the index, in the input, of the median sample.
	MedianIndex int
	N           int
}

// Summarize computes the Summary of values (at least one).
func Summarize(values []float64) Summary {
	n := len(values)
	if n == 0 {
		return Summary{}
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case values[a] < values[b]:
			return -1
		case values[a] > values[b]:
			return 1
		}
		return 0
	})
	s := Summary{N: n, MedianIndex: idx[n/2], Min: values[idx[0]], Max: values[idx[n-1]]}
	s.Median = values[s.MedianIndex]
	dev := make([]float64, n)
	for i, v := range values {
		dev[i] = math.Abs(v - s.Median)
	}
	slices.Sort(dev)
	s.MAD = dev[n/2]
	return s
}
