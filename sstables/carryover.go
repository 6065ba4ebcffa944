package sstables

import (
	"github.com/castable-db/castable/schema"
	"math"
	"regexp"
	"strings"

	"github.com/castable-db/castable/sstables/version"
)

// CarryOver sets in o what a rewrite of r must keep that does not follow
// from its data: the Statistics.db values of MetadataOf, the exact
// partition count (a bloom filter sized as Cassandra sized it), the
// serialization header's minima and columns (Stats), and the habits of the
// release that wrote r (Profile: histogram sizes, the live-cell bin of the
// tombstone histogram). Partitioner and compression are the caller's: they
// are options of their own. The LZ4 fast compressor is not carried over:
// the writer takes the one of the version it writes (WithReleaseEncoder),
// so a 3.x input rewritten as 3.x gets lz4-java 1.3.0's LZ4 r123 and one
// converted to nb today's.
func CarryOver(r Reader, o *WriterOptions) {
	st := r.Statistics()
	v := r.Descriptor().Version
	o.Metadata = MetadataOf(st, v)
	if h := st.Stats.PartitionSizes; h != nil {
		var n int64
		for _, c := range h.Buckets() {
			n += c
		}
		o.ExpectedPartitions = n
	}
	p := InferProfile(st, v)
	o.Profile = &p
	if dr, ok := r.(DataFileReader); ok {
		o.TrailingEmptyChunk = dr.DataFile().TrailingEmptyChunk()
	}
	if tr, ok := r.(TOCReader); ok && !p.OrderedTOC {
		if toc := tr.TOC(); toc != nil {
			o.TOCOrder = toc.Listed
		}
	}
	h := st.Header
	if h == nil {
		return
	}
	t := r.Table()
	stats := DataStats{Known: true, MinTimestamp: h.Stats.MinTimestamp,
		MinLocalDeletionTime: h.Stats.LocalDeletionTime(0), MinTTL: h.Stats.MinTTL,
		Columns: []*schema.Column{}} // none, not nil (all), when the header lists none
	for _, list := range [][]HeaderColumn{h.Static, h.Regular} {
		for _, hc := range list {
			if c := t.Column(hc.Name); c != nil {
				stats.Columns = append(stats.Columns, c)
			}
		}
	}
	o.Stats = stats
}

// InferProfile returns version v's profile with what st shows of the
// release that wrote it: the lengths of its partition size and cell count
// histograms (150/114 before Cassandra 3.11.9, 118 cells after, 155
// partitions from 5.0), the tombstone histogram's stored maxBinSize (100
// for 3.x writers, the bin count from 4.0) when it has bins, and whether
// that histogram counts live cells at Integer.MAX_VALUE, whether cell
// counts are recorded twice per partition, whether the compression ratio
// was left at −1 or NaN (ScyllaDB), whether empty commit log bounds are
// (0, 0) (ScyllaDB) (habits of some 2.2, 3.0 and 4.0 pre-releases; which
// releases exactly is not known, the file says) and, when the header names
// a vector, whose spelling of VectorType it uses.
func InferProfile(st *Statistics, v version.Version) version.Profile {
	p := v.Profile()
	s := &st.Stats
	if h := s.PartitionSizes; h != nil && len(h.Offsets()) > 0 {
		p.PartitionSizeBuckets = len(h.Offsets())
	}
	if h := s.CellsPerPartition; h != nil && len(h.Offsets()) > 0 {
		p.CellCountBuckets = len(h.Offsets())
	}
	if h := s.CellsPerPartition; h != nil && s.PartitionSizes != nil {
		var parts, counts int64
		for _, c := range s.PartitionSizes.Buckets() {
			parts += c
		}
		for _, c := range h.Buckets() {
			counts += c
		}
		p.DoubleCellCounts = parts > 0 && counts == 2*parts
	}
	p.NoCompressionRatio = s.CompressionRatio == -1
	p.NaNCompressionRatio = math.IsNaN(s.CompressionRatio)
	p.ZeroCommitLogBounds = len(s.CommitLogIntervals) == 0 && v.HasCommitLogIntervals() &&
		s.CommitLogUpperBound == CommitLogPosition{} && s.CommitLogLowerBound == CommitLogPosition{}
	if h := s.TombstoneDropTimes; h != nil {
		points, _ := h.Bins()
		if h.MaxBins() == len(points) {
			p.TombstoneMaxBins = 0 // the bin count (or 100 bins of a 3.x writer: the same bytes)
		} else {
			p.TombstoneMaxBins = h.MaxBins()
		}
		p.SentinelTombstoneBin = len(points) > 0 && !v.UIntDeletionTime() && points[len(points)-1] == math.MaxInt32
	}
	if h := st.Header; h != nil {
		if spelled, scylla := vectorSpelling(h); spelled {
			p.ScyllaTypeNames = scylla
		}
	}
	return p
}

// vectorSpelling reports whether the header names a vector type, and if
// so whether in ScyllaDB's spelling (VectorType(T, n)) rather than
// Cassandra's (VectorType(T , n)).
func vectorSpelling(h *SerializationHeader) (spelled, scylla bool) {
	names := append([]string{h.PartitionKeyType}, h.ClusteringTypeNames...)
	for _, list := range [][]HeaderColumn{h.Static, h.Regular} {
		for _, c := range list {
			names = append(names, c.TypeName)
		}
	}
	for _, n := range names {
		if !strings.Contains(n, "VectorType(") {
			continue
		}
		// The comma before a dimension (the only comma followed by
		// digits and ')'): " , " in Cassandra's spelling.
		if m := vectorDimension.FindStringSubmatch(n); m != nil {
			return true, m[1] == ""
		}
	}
	return false, false
}

var vectorDimension = regexp.MustCompile(`( ?),\s*[+-]?[0-9]+\s*\)`)
