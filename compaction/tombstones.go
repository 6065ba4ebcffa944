package compaction

import (
	"math"

	"github.com/castable-db/castable/sstables"
)

// EstimatedDroppableTombstoneRatio is Cassandra 3.11's estimate of the share
// of an SSTable's cells that are tombstones droppable at gcBefore (seconds
// since the epoch; StatsMetadata.getEstimatedDroppableTombstoneRatio): the
// drop-time histogram's estimated count of points at or before gcBefore
// (StreamingHistogram.sum), over the estimated cell count — the
// cells-per-partition histogram's mean, rounded up, times its count. It is
// 0 for an SSTable without cells or without the histograms, and 0 when the
// cells-per-partition histogram overflowed, where Cassandra's mean() throws
// IllegalStateException (and its background compaction of the table fails
// until the SSTable goes). `castable metadata` prints the same estimate at
// the current time ("Estimated droppable tombstones").
func EstimatedDroppableTombstoneRatio(st *sstables.Stats, gcBefore int64) float64 {
	r, _ := droppableRatio(st, gcBefore)
	return r
}

// droppableRatio is EstimatedDroppableTombstoneRatio; ok is false where
// Cassandra throws.
func droppableRatio(st *sstables.Stats, gcBefore int64) (ratio float64, ok bool) {
	if st == nil || st.TombstoneDropTimes == nil {
		return 0, true
	}
	mean, count, ok := cellsMeanCount(st)
	if !ok {
		return 0, false
	}
	cells := mean * count
	if cells <= 0 {
		return 0, true
	}
	return streamingSum(st.TombstoneDropTimes, float64(gcBefore)) / float64(cells), true
}

// cellsMeanCount returns EstimatedHistogram.mean() and count() of the
// cells-per-partition histogram; ok is false when it overflowed (mean()
// throws) or is absent.
func cellsMeanCount(st *sstables.Stats) (mean, count int64, ok bool) {
	h := st.CellsPerPartition
	if h == nil {
		return 0, 0, false
	}
	offsets, buckets := h.Offsets(), h.Buckets()
	last := len(buckets) - 1
	if last < 0 || buckets[last] > 0 {
		return 0, 0, false
	}
	var elements, sum int64
	for i := 0; i < last; i++ {
		elements += buckets[i]
		sum += buckets[i] * offsets[i]
	}
	for _, b := range buckets {
		count += b
	}
	// (long) Math.ceil((double) sum / elements); 0/0 is NaN, whose long is 0.
	m := math.Ceil(float64(sum) / float64(elements))
	if !math.IsNaN(m) {
		mean = int64(m)
	}
	return mean, count, true
}

// streamingSum is StreamingHistogram.sum(b) (3.11): the estimated number of
// points at or before b, interpolating within the bin b falls in.
func streamingSum(h *sstables.StreamingHistogram, b float64) float64 {
	points, counts := h.Bins()
	next := -1 // the first point after b (higherEntry)
	for i, p := range points {
		if p > b {
			next = i
			break
		}
	}
	var sum float64
	if next < 0 {
		for _, c := range counts {
			sum += float64(c)
		}
		return sum
	}
	if next == 0 { // no point at or before b (floorEntry is null)
		return 0
	}
	i := next - 1
	weight := (b - points[i]) / (points[next] - points[i])
	mb := float64(counts[i]) + float64(counts[next]-counts[i])*weight
	sum += (float64(counts[i]) + mb) * weight / 2
	sum += float64(counts[i]) / 2.0
	for _, c := range counts[:i] {
		sum += float64(c)
	}
	return sum
}
