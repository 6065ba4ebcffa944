package sstables

import (
	"encoding/binary"
	"math"
	"sort"
)

// EstimatedHistogram layout (Statistics.db; big-endian):
//
//	i32 B                      number of buckets = number of offsets + 1
//	B × { i64 offset ; i64 count }
//
// Pair i carries offset[max(i−1, 0)], so the first offset appears twice
// and pair i holds the exclusive lower bound of bucket i. Offsets are 1,
// 2, 3, …, each next one round(prev·1.2) (Java Math.round, half up) or
// prev+1 when that rounds to prev. A value v counts in the first bucket
// whose offset is ≥ v; the last bucket counts values above every offset.
// Statistics.db has a partition-size histogram of 150 offsets (last
// 1414838745986) and a cells-per-partition one of 114 (last 1996099046).
const (
	// PartitionSizeOffsets is the offset count of the partition size
	// histogram.
	PartitionSizeOffsets = 150
	// CellCountOffsets is the offset count of the cells-per-partition
	// histogram.
	CellCountOffsets = 114
	// maxHistogramBuckets bounds what a reader accepts.
	maxHistogramBuckets = 1 << 16
)

var (
	partitionSizeOffsets = estimatedOffsets(PartitionSizeOffsets)
	cellCountOffsets     = estimatedOffsets(CellCountOffsets)
)

// estimatedOffsets is EstimatedHistogram.newOffsets(n, false).
func estimatedOffsets(n int) []int64 {
	out := make([]int64, n)
	last := int64(1)
	out[0] = last
	for i := 1; i < n; i++ {
		next := int64(math.Floor(float64(last)*1.2 + 0.5))
		if next == last {
			next++
		}
		out[i] = next
		last = next
	}
	return out
}

// EstimatedHistogram is Cassandra's EstimatedHistogram.
type EstimatedHistogram struct {
	offsets []int64
	buckets []int64
	// last is the bucket of the last value added: writers add runs of
	// similar values (partition sizes, cell counts), which it answers
	// without a search.
	last int
}

// NewEstimatedHistogram returns an empty histogram with n offsets
// (PartitionSizeOffsets or CellCountOffsets; other sizes are computed).
func NewEstimatedHistogram(n int) *EstimatedHistogram {
	var offs []int64
	switch n {
	case PartitionSizeOffsets:
		offs = partitionSizeOffsets
	case CellCountOffsets:
		offs = cellCountOffsets
	default:
		offs = estimatedOffsets(n)
	}
	return &EstimatedHistogram{offsets: offs, buckets: make([]int64, n+1)}
}

// Add counts one value.
func (h *EstimatedHistogram) Add(v int64) { h.AddN(v, 1) }

// AddN counts value v n times.
func (h *EstimatedHistogram) AddN(v, n int64) {
	// Bucket i holds (offsets[i-1], offsets[i]]; the last one everything
	// above the last offset.
	i := h.last
	if (i > 0 && v <= h.offsets[i-1]) || (i < len(h.offsets) && v > h.offsets[i]) {
		i = sort.Search(len(h.offsets), func(i int) bool { return h.offsets[i] >= v })
		h.last = i
	}
	h.buckets[i] += n
}

// Offsets returns the bucket offsets (shared: do not modify).
func (h *EstimatedHistogram) Offsets() []int64 { return h.offsets }

// Buckets returns the counts; the last one counts overflowing values.
func (h *EstimatedHistogram) Buckets() []int64 { return h.buckets }

// AppendTo appends the serialized histogram.
func (h *EstimatedHistogram) AppendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(h.buckets)))
	for i, c := range h.buckets {
		dst = binary.BigEndian.AppendUint64(dst, uint64(h.offsets[max(i-1, 0)]))
		dst = binary.BigEndian.AppendUint64(dst, uint64(c))
	}
	return dst
}

// ParseEstimatedHistogram reads a serialized histogram from r.
func ParseEstimatedHistogram(r *ByteReader) (*EstimatedHistogram, error) {
	off := r.Offset()
	n := r.I32()
	if r.Err() == nil && (n < 2 || n > maxHistogramBuckets || int(n) > r.Remaining()/16) {
		r.FailAt(off, "histogram bucket count %d out of range", n)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	h := &EstimatedHistogram{offsets: make([]int64, n-1), buckets: make([]int64, n)}
	for i := range h.buckets {
		o := r.I64()
		if i > 0 {
			h.offsets[i-1] = o
		}
		h.buckets[i] = r.I64()
	}
	return h, r.Err()
}

// StreamingHistogram layout (Statistics.db tombstone drop times;
// big-endian):
//
//	i32 maxBinSize (100) ; i32 n ; n × { f64 point ; i64 count }   points ascending
//
// Adding (p, m): a bin at p gains m; otherwise a bin is inserted and, while
// there are more than maxBinSize bins, the adjacent pair with the smallest
// gap (the leftmost on ties) becomes one bin at (q1·k1 + q2·k2)/(k1 + k2)
// with count k1 + k2.
const (
	// DefaultStreamingHistogramBins is Statistics.db's maxBinSize.
	DefaultStreamingHistogramBins = 100
)

// StreamingHistogram is Cassandra's StreamingHistogram (Ben-Haim and
// Tom-Tov), its bins kept sorted by point.
type StreamingHistogram struct {
	maxBins int
	points  []float64
	counts  []int64
}

// NewStreamingHistogram returns an empty histogram of at most maxBins
// bins; 0 means 100.
func NewStreamingHistogram(maxBins int) *StreamingHistogram {
	if maxBins <= 0 {
		maxBins = DefaultStreamingHistogramBins
	}
	return &StreamingHistogram{maxBins: maxBins}
}

// Update adds one occurrence of point p.
func (h *StreamingHistogram) Update(p float64) { h.UpdateN(p, 1) }

// UpdateN adds m occurrences of point p.
func (h *StreamingHistogram) UpdateN(p float64, m int64) {
	i := sort.SearchFloat64s(h.points, p)
	if i < len(h.points) && h.points[i] == p {
		h.counts[i] += m
		return
	}
	h.points = append(h.points, 0)
	h.counts = append(h.counts, 0)
	copy(h.points[i+1:], h.points[i:])
	copy(h.counts[i+1:], h.counts[i:])
	h.points[i], h.counts[i] = p, m
	for len(h.points) > max(h.maxBins, 1) {
		best := 0
		gap := h.points[1] - h.points[0]
		for j := 1; j+1 < len(h.points); j++ {
			if d := h.points[j+1] - h.points[j]; d < gap {
				gap, best = d, j
			}
		}
		q1, q2 := h.points[best], h.points[best+1]
		k1, k2 := h.counts[best], h.counts[best+1]
		h.points[best] = (q1*float64(k1) + q2*float64(k2)) / float64(k1+k2)
		h.counts[best] = k1 + k2
		h.points = append(h.points[:best+1], h.points[best+2:]...)
		h.counts = append(h.counts[:best+1], h.counts[best+2:]...)
	}
}

// Merge adds every bin of o, in ascending order of point.
func (h *StreamingHistogram) Merge(o *StreamingHistogram) {
	for i, p := range o.points {
		h.UpdateN(p, o.counts[i])
	}
}

// WithStoredMaxBins returns h (sharing its bins) with the maxBinSize that
// Statistics.db stores: n, or the bin count when n is 0 (what writers from
// 4.0 on store).
func (h *StreamingHistogram) WithStoredMaxBins(n int) *StreamingHistogram {
	if n == 0 {
		n = len(h.points)
	}
	c := *h
	c.maxBins = n
	return &c
}

// MaxBins returns the bin limit.
func (h *StreamingHistogram) MaxBins() int { return h.maxBins }

// Bins returns the points (ascending) and their counts (shared: do not
// modify).
func (h *StreamingHistogram) Bins() (points []float64, counts []int64) { return h.points, h.counts }

// AppendTo appends the serialized histogram.
func (h *StreamingHistogram) AppendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.maxBins))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(h.points)))
	for i, p := range h.points {
		dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(p))
		dst = binary.BigEndian.AppendUint64(dst, uint64(h.counts[i]))
	}
	return dst
}

// ParseStreamingHistogram reads a serialized histogram from r. The points
// are kept as stored (a reader does not re-sort or merge them).
func ParseStreamingHistogram(r *ByteReader) (*StreamingHistogram, error) {
	off := r.Offset()
	maxBins := r.I32()
	n := r.I32()
	if r.Err() == nil && (maxBins < 0 || n < 0 || int(n) > r.Remaining()/16) {
		r.FailAt(off, "streaming histogram of %d bins (max %d) out of range", n, maxBins)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	h := &StreamingHistogram{maxBins: int(maxBins), points: make([]float64, n), counts: make([]int64, n)}
	for i := range h.points {
		h.points[i] = r.F64()
		h.counts[i] = r.I64()
	}
	return h, r.Err()
}
