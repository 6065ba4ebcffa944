package la

import (
	"encoding/binary"
	"math"

	"github.com/castable-db/castable/sstables"
)

// Statistics.db of the la format (la-format.md §5). Big-endian.
//
//	i32 componentCount = 3
//	3 × { i32 type, i32 absoluteOffset }   sorted by type; first offset 28
//	-- type 0, VALIDATION
//	utf partitioner class ; f64 bloom_filter_fp_chance
//	-- type 1, COMPACTION
//	i32 ancestorCount ; ancestorCount × i32 generation
//	ibytes cardinality (HyperLogLog++ of the partition keys, stream-lib 2.5.2)
//	-- type 2, STATS
//	EstimatedHistogram partition sizes (151 pairs)
//	EstimatedHistogram cells per partition (115 pairs)
//	i64 replay position segment id ; i32 replay position   NONE = (-1, 0)
//	i64 minTimestamp ; i64 maxTimestamp
//	i32 maxLocalDeletionTime
//	f64 compressionRatio        compressed chunk bytes (no trailers) / data length; -1 uncompressed
//	StreamingHistogram tombstone drop times (i32 maxBins 100, i32 n, n × {f64, i64})
//	i32 sstableLevel
//	i64 repairedAt
//	i32 n ; n × sbytes minColumnNames
//	i32 n ; n × sbytes maxColumnNames
//	bool hasLegacyCounterShards
//	-- lb (2.2.7+) only: i64, i32 commit log lower bound
//
// Readers locate the components through the table of contents, in any
// order.
const (
	statsValidation = 0
	statsCompaction = 1
	statsStats      = 2

	statsComponents = 3
	statsTOCSize    = 4 + statsComponents*8
	// maxAncestors and maxColumnNames bound what a reader accepts.
	maxAncestors   = 1 << 16
	maxColumnNames = 1 << 16
	// hllCassandraP is the precision byte of Cassandra's estimator.
	hllCassandraP = 13
	// noCompressionRatio is what an uncompressed SSTable records.
	noCompressionRatio = -1.0
)

// ReplayPositionNone is the replay position of data that did not come from
// the commit log.
var ReplayPositionNone = sstables.CommitLogPosition{SegmentID: -1, Position: 0}

// Statistics is the content of an la Statistics.db.
type Statistics struct {
	Validation sstables.ValidationMetadata
	// Ancestors are the generations compacted into the SSTable (empty for
	// a flush), in the writing JVM's HashSet order.
	Ancestors []int32
	// Cardinality is the HyperLogLog++ estimator of the partition keys;
	// nil when CardinalityBytes uses parameters other than Cassandra's
	// (ScyllaDB writes p=4).
	Cardinality *sstables.HyperLogLog
	// CardinalityBytes is the serialized estimator as read; AppendTo uses
	// it when Cardinality is nil.
	CardinalityBytes []byte
	// PartitionSizes counts partitions by serialized size; CellCounts by
	// number of cells.
	PartitionSizes *sstables.EstimatedHistogram
	CellCounts     *sstables.EstimatedHistogram
	// ReplayPosition is the commit log position of the flush.
	ReplayPosition       sstables.CommitLogPosition
	MinTimestamp         int64
	MaxTimestamp         int64
	MaxLocalDeletionTime int32
	// CompressionRatio is -1 for an uncompressed SSTable.
	CompressionRatio float64
	// TombstoneDropTimes holds the local deletion times of tombstones and
	// expiring cells.
	TombstoneDropTimes *sstables.StreamingHistogram
	Level              int32
	RepairedAt         int64
	// MinColumnNames and MaxColumnNames are the per-component minimum and
	// maximum of the clustering prefixes of every name.
	MinColumnNames [][]byte
	MaxColumnNames [][]byte
	// HasLegacyCounterShards is set when a counter context has local or
	// remote shards.
	HasLegacyCounterShards bool
	// CommitLogLowerBound is present in lb files only.
	CommitLogLowerBound *sstables.CommitLogPosition
}

// AppendTo appends the serialized Statistics.db.
func (s *Statistics) AppendTo(dst []byte) ([]byte, error) {
	base := len(dst)
	dst = appendI32(dst, statsComponents)
	tocAt := len(dst)
	dst = append(dst, make([]byte, statsComponents*8)...)
	var offsets [statsComponents]int

	offsets[statsValidation] = len(dst) - base
	dst, err := s.Validation.AppendTo(dst)
	if err != nil {
		return dst, err
	}

	offsets[statsCompaction] = len(dst) - base
	dst = appendI32(dst, int32(len(s.Ancestors)))
	for _, a := range s.Ancestors {
		dst = appendI32(dst, a)
	}
	lenAt := len(dst)
	dst = appendI32(dst, 0)
	switch {
	case s.Cardinality != nil:
		dst = s.Cardinality.AppendTo(dst)
	case s.CardinalityBytes != nil:
		dst = append(dst, s.CardinalityBytes...)
	default:
		dst = sstables.NewHyperLogLog().AppendTo(dst)
	}
	binary.BigEndian.PutUint32(dst[lenAt:], uint32(len(dst)-lenAt-4))

	offsets[statsStats] = len(dst) - base
	dst = s.PartitionSizes.AppendTo(dst)
	dst = s.CellCounts.AppendTo(dst)
	dst = appendI64(dst, s.ReplayPosition.SegmentID)
	dst = appendI32(dst, s.ReplayPosition.Position)
	dst = appendI64(dst, s.MinTimestamp)
	dst = appendI64(dst, s.MaxTimestamp)
	dst = appendI32(dst, s.MaxLocalDeletionTime)
	dst = appendI64(dst, int64(math.Float64bits(s.CompressionRatio)))
	dst = s.TombstoneDropTimes.AppendTo(dst)
	dst = appendI32(dst, s.Level)
	dst = appendI64(dst, s.RepairedAt)
	dst = appendNames(dst, s.MinColumnNames)
	dst = appendNames(dst, s.MaxColumnNames)
	if s.HasLegacyCounterShards {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	if s.CommitLogLowerBound != nil {
		dst = appendI64(dst, s.CommitLogLowerBound.SegmentID)
		dst = appendI32(dst, s.CommitLogLowerBound.Position)
	}

	for typ, off := range offsets {
		binary.BigEndian.PutUint32(dst[tocAt+8*typ:], uint32(typ))
		binary.BigEndian.PutUint32(dst[tocAt+8*typ+4:], uint32(off))
	}
	return dst, nil
}

func appendNames(dst []byte, names [][]byte) []byte {
	dst = appendI32(dst, int32(len(names)))
	for _, n := range names {
		dst = appendShortBytes(dst, n)
	}
	return dst
}

// ParseStatistics decodes an la (or ka/lb) Statistics.db. path names the
// file in errors.
func ParseStatistics(b []byte, path string) (*Statistics, error) {
	r := sstables.NewByteReader(b, path, sstables.ComponentStatistics, 0)
	count := r.I32()
	if r.Err() == nil && (count < statsComponents || count > 16) {
		r.FailAt(0, "%d metadata components, want 3", count)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	var offsets [statsComponents]int64
	seen := 0
	ends := make([]int64, 0, count)
	for i := 0; i < int(count); i++ {
		off := r.Offset()
		typ, pos := r.I32(), r.I32()
		if r.Err() != nil {
			break
		}
		if pos < 0 || int(pos) > len(b) || int64(pos) < 4+8*int64(count) {
			r.FailAt(off, "metadata component %d at offset %d outside the file", typ, pos)
			break
		}
		ends = append(ends, int64(pos))
		if typ < 0 || typ >= statsComponents {
			continue // a component la does not know (ma's SERIALIZATION HEADER)
		}
		if offsets[typ] != 0 {
			r.FailAt(off, "metadata component %d listed twice", typ)
			break
		}
		offsets[typ] = int64(pos)
		seen++
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if seen != statsComponents {
		return nil, sstables.Corruptf(path, string(sstables.ComponentStatistics), 4, "the table of contents lacks a validation, compaction or stats component")
	}
	// Each component ends where the next one (by offset) starts.
	end := func(start int64) int64 {
		e := int64(len(b))
		for _, o := range ends {
			if o > start && o < e {
				e = o
			}
		}
		return e
	}
	sub := func(start int64) *sstables.ByteReader {
		return sstables.NewByteReader(b[start:end(start)], path, sstables.ComponentStatistics, start)
	}
	s := &Statistics{}
	var err error

	r = sub(offsets[statsValidation])
	if s.Validation, err = sstables.ParseValidationMetadata(r); err != nil {
		return nil, err
	}

	r = sub(offsets[statsCompaction])
	off := r.Offset()
	n := r.I32()
	if r.Err() == nil && (n < 0 || n > maxAncestors || int(n) > r.Remaining()/4) {
		r.FailAt(off, "%d ancestors out of range", n)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	s.Ancestors = make([]int32, n)
	for i := range s.Ancestors {
		s.Ancestors[i] = r.I32()
	}
	hllOff := r.Offset() + 4
	hll := r.IntBytes()
	if err := r.Err(); err != nil {
		return nil, err
	}
	s.CardinalityBytes = hll
	if s.Cardinality, err = sstables.ParseHyperLogLog(hll, path, sstables.ComponentStatistics, hllOff); err != nil {
		// A well-formed stream-lib estimator with other parameters (p=4,
		// sp=0 from ScyllaDB) is kept as bytes.
		if len(hll) < 6 || binary.BigEndian.Uint32(hll) != 0xFFFFFFFE || hll[4] == hllCassandraP {
			return nil, err
		}
		s.Cardinality = nil
	}

	r = sub(offsets[statsStats])
	if s.PartitionSizes, err = sstables.ParseEstimatedHistogram(r); err != nil {
		return nil, err
	}
	if s.CellCounts, err = sstables.ParseEstimatedHistogram(r); err != nil {
		return nil, err
	}
	s.ReplayPosition = sstables.CommitLogPosition{SegmentID: r.I64(), Position: r.I32()}
	s.MinTimestamp = r.I64()
	s.MaxTimestamp = r.I64()
	s.MaxLocalDeletionTime = r.I32()
	s.CompressionRatio = r.F64()
	if err := r.Err(); err != nil {
		return nil, err
	}
	if s.TombstoneDropTimes, err = sstables.ParseStreamingHistogram(r); err != nil {
		return nil, err
	}
	s.Level = r.I32()
	s.RepairedAt = r.I64()
	s.MinColumnNames = parseNames(r)
	s.MaxColumnNames = parseNames(r)
	off = r.Offset()
	switch v := r.U8(); {
	case r.Err() != nil:
	case v > 1:
		r.FailAt(off, "hasLegacyCounterShards byte 0x%02x, want 0 or 1", v)
	default:
		s.HasLegacyCounterShards = v == 1
	}
	if r.Err() == nil && r.Remaining() >= 12 {
		lb := sstables.CommitLogPosition{SegmentID: r.I64(), Position: r.I32()}
		s.CommitLogLowerBound = &lb
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

func parseNames(r *sstables.ByteReader) [][]byte {
	off := r.Offset()
	n := r.I32()
	if r.Err() != nil {
		return nil
	}
	if n < 0 || n > maxColumnNames || int(n) > r.Remaining()/2 {
		r.FailAt(off, "%d column names out of range", n)
		return nil
	}
	names := make([][]byte, n)
	for i := range names {
		names[i] = r.ShortBytes()
	}
	return names
}
