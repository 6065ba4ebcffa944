package big

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// Statistics.db layout (mc, md, me). Big-endian; no checksum.
//
//	i32 count                                  4
//	count × (i32 type, i32 offset)             sorted by type; offsets from the file start
//	bodies                                     in type order, back to back
//
//	type 0 Validation:  JavaUTF partitioner class, f64 bloom_filter_fp_chance
//	type 1 Compaction:  i32 length, HyperLogLog++ bytes (p=13, sp=25)
//	type 2 Stats:
//	    EstimatedHistogram partition sizes     i32 n, n × (i64 offset, i64 count)
//	    EstimatedHistogram cells per partition
//	    i64 segmentId, i32 position            commit log upper bound
//	    i64 minTimestamp, i64 maxTimestamp
//	    i32 minLocalDeletionTime, i32 maxLocalDeletionTime
//	    i32 minTTL, i32 maxTTL
//	    f64 compressionRatio                   -1.0 when uncompressed
//	    StreamingHistogram tombstone drop times i32 maxBins, i32 n, n × (f64 point, i64 count)
//	    i32 sstableLevel
//	    i64 repairedAt
//	    i32 n, n × (u16 len, bytes)            min clustering values
//	    i32 n, n × (u16 len, bytes)            max clustering values
//	    u8  hasLegacyCounterShards
//	    i64 totalColumnsSet, i64 totalRows
//	    i64 segmentId, i32 position            commit log lower bound
//	    i32 n, n × (lower i64+i32, upper i64+i32)   commit log intervals
//	    me only: u8 hasOriginatingHostId, [i64 msb, i64 lsb]
//	type 3 Serialization header (header.go)
//
// md and me write the same layout as mc; md changed how the min/max
// clustering values are computed, me added the originating host id.

// Metadata component types. Part of the on-disk format.
const (
	metadataValidation    = 0
	metadataCompaction    = 1
	metadataStats         = 2
	metadataHeader        = 3
	metadataTypeCount     = 4
	statisticsTOCSize     = 4 + metadataTypeCount*8
	murmur3PartitionerCls = "org.apache.cassandra.dht.Murmur3Partitioner"
)

// maxStatisticsSize bounds the Statistics.db a reader accepts.
const maxStatisticsSize = 64 << 20

// HistogramBucket is one serialized EstimatedHistogram pair.
type HistogramBucket struct {
	Offset, Count int64
}

// TombstoneBin is one StreamingHistogram bin.
type TombstoneBin struct {
	Point float64
	Count int64
}

// Stats is the decoded Stats component.
type Stats struct {
	PartitionSizes         []HistogramBucket
	CellsPerPartition      []HistogramBucket
	CommitLogUpperBound    sstables.CommitLogPosition
	MinTimestamp           int64
	MaxTimestamp           int64
	MinLocalDeletionTime   int64
	MaxLocalDeletionTime   int64
	MinTTL                 int32
	MaxTTL                 int32
	CompressionRatio       float64
	TombstoneMaxBins       int32
	TombstoneDropTimes     []TombstoneBin
	Level                  int32
	RepairedAt             int64
	MinClusteringValues    [][]byte
	MaxClusteringValues    [][]byte
	HasLegacyCounterShards bool
	TotalColumnsSet        int64
	TotalRows              int64
	CommitLogLowerBound    sstables.CommitLogPosition
	CommitLogIntervals     []sstables.CommitLogInterval
	// OriginatingHostID is the 16-byte host id (me only; nil when absent).
	OriginatingHostID []byte
}

// Statistics is a decoded Statistics.db.
type Statistics struct {
	Partitioner         string
	BloomFilterFPChance float64
	// Cardinality is the HyperLogLog++ estimator as stored.
	Cardinality []byte
	Stats       Stats
	Header      *Header
}

// DecodeStatistics parses a Statistics.db of the given version (mc, md or
// me). path names the file in errors.
func DecodeStatistics(b []byte, v version.Version, path string) (*Statistics, error) {
	comp := sstables.ComponentStatistics
	r := sstables.NewByteReader(b, path, comp, 0)
	n := r.I32()
	if r.Err() != nil {
		return nil, r.Err()
	}
	if n < 0 || n > 16 {
		return nil, sstables.Corruptf(path, string(comp), 0, "%d metadata components", n)
	}
	type entry struct{ typ, off int32 }
	toc := make([]entry, n)
	for i := range toc {
		toc[i] = entry{r.I32(), r.I32()}
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	tocEnd := int32(4 + 8*n)
	// Some writers list the table unsorted; bodies follow in offset order.
	sort.Slice(toc, func(i, j int) bool { return toc[i].off < toc[j].off })
	bodies := map[int32][]byte{}
	for i, e := range toc {
		end := int32(len(b))
		if i+1 < len(toc) {
			end = toc[i+1].off
		}
		if e.off < tocEnd || e.off > end || int(end) > len(b) {
			return nil, sstables.Corruptf(path, string(comp), int64(4+8*i), "metadata component %d at offset %d outside the file (%d bytes)", e.typ, e.off, len(b))
		}
		if _, dup := bodies[e.typ]; dup {
			return nil, sstables.Corruptf(path, string(comp), int64(4+8*i), "metadata component %d listed twice", e.typ)
		}
		bodies[e.typ] = b[e.off:end]
	}
	offsetOf := func(typ int32) int64 {
		for _, e := range toc {
			if e.typ == typ {
				return int64(e.off)
			}
		}
		return 0
	}
	st := &Statistics{}
	for _, typ := range []int32{metadataValidation, metadataCompaction, metadataStats, metadataHeader} {
		body, ok := bodies[typ]
		if !ok {
			return nil, sstables.Corruptf(path, string(comp), -1, "metadata component %d missing", typ)
		}
		base := offsetOf(typ)
		br := sstables.NewByteReader(body, path, comp, base)
		switch typ {
		case metadataValidation:
			st.Partitioner = br.JavaUTF()
			st.BloomFilterFPChance = br.F64()
		case metadataCompaction:
			st.Cardinality = br.IntBytes()
		case metadataStats:
			decodeStats(br, &st.Stats, v)
		case metadataHeader:
			h, off, err := decodeHeader(body)
			if err != nil {
				return nil, &sstables.CorruptionError{Path: path, Component: string(comp), Offset: base + int64(off), Reason: "serialization header", Err: err}
			}
			st.Header = h
			br.Skip(off)
		}
		if br.Err() != nil {
			return nil, br.Err()
		}
		if br.Remaining() != 0 {
			return nil, sstables.Corruptf(path, string(comp), br.Offset(), "%d unexpected bytes after metadata component %d", br.Remaining(), typ)
		}
	}
	return st, nil
}

func decodeHistogram(r *sstables.ByteReader) []HistogramBucket {
	off := r.Offset()
	n := r.I32()
	if n < 0 || int(n) > r.Remaining()/16 {
		r.FailAt(off, "histogram of %d buckets", n)
		return nil
	}
	h := make([]HistogramBucket, n)
	for i := range h {
		h[i] = HistogramBucket{r.I64(), r.I64()}
	}
	return h
}

func decodeCommitLogPosition(r *sstables.ByteReader) sstables.CommitLogPosition {
	return sstables.CommitLogPosition{SegmentID: r.I64(), Position: r.I32()}
}

func decodeValues(r *sstables.ByteReader) [][]byte {
	off := r.Offset()
	n := r.I32()
	if n < 0 || int(n) > r.Remaining()/2 {
		r.FailAt(off, "%d clustering values", n)
		return nil
	}
	vals := make([][]byte, n)
	for i := range vals {
		vals[i] = r.ShortBytes()
	}
	return vals
}

func decodeStats(r *sstables.ByteReader, s *Stats, v version.Version) {
	s.PartitionSizes = decodeHistogram(r)
	s.CellsPerPartition = decodeHistogram(r)
	s.CommitLogUpperBound = decodeCommitLogPosition(r)
	s.MinTimestamp, s.MaxTimestamp = r.I64(), r.I64()
	s.MinLocalDeletionTime, s.MaxLocalDeletionTime = sstables.FromLegacyDeletionTime(r.I32()), sstables.FromLegacyDeletionTime(r.I32())
	s.MinTTL, s.MaxTTL = r.I32(), r.I32()
	s.CompressionRatio = r.F64()
	s.TombstoneMaxBins = r.I32()
	off := r.Offset()
	n := r.I32()
	if n < 0 || int(n) > r.Remaining()/16 {
		r.FailAt(off, "tombstone histogram of %d bins", n)
		return
	}
	s.TombstoneDropTimes = make([]TombstoneBin, n)
	for i := range s.TombstoneDropTimes {
		s.TombstoneDropTimes[i] = TombstoneBin{r.F64(), r.I64()}
	}
	s.Level = r.I32()
	s.RepairedAt = r.I64()
	s.MinClusteringValues = decodeValues(r)
	s.MaxClusteringValues = decodeValues(r)
	flag := r.U8()
	if flag > 1 {
		r.Fail("boolean byte %d", flag)
	}
	s.HasLegacyCounterShards = flag == 1
	s.TotalColumnsSet, s.TotalRows = r.I64(), r.I64()
	s.CommitLogLowerBound = decodeCommitLogPosition(r)
	off = r.Offset()
	n = r.I32()
	if n < 0 || int(n) > r.Remaining()/24 {
		r.FailAt(off, "%d commit log intervals", n)
		return
	}
	s.CommitLogIntervals = make([]sstables.CommitLogInterval, n)
	for i := range s.CommitLogIntervals {
		s.CommitLogIntervals[i].Lower = decodeCommitLogPosition(r)
		s.CommitLogIntervals[i].Upper = decodeCommitLogPosition(r)
	}
	if v.HasOriginatingHostID() {
		present := r.U8()
		if present > 1 {
			r.Fail("boolean byte %d", present)
		}
		if present == 1 {
			s.OriginatingHostID = r.Bytes(16)
		}
	}
}

// appendStatistics serializes st in the mc layout (with the host id when
// version is me).
func appendStatistics(dst []byte, st *Statistics, v version.Version) ([]byte, error) {
	var bodies [metadataTypeCount][]byte
	var err error
	bodies[metadataValidation], err = sstables.AppendJavaUTF(nil, st.Partitioner)
	if err != nil {
		return dst, err
	}
	bodies[metadataValidation] = binary.BigEndian.AppendUint64(bodies[metadataValidation], math.Float64bits(st.BloomFilterFPChance))
	bodies[metadataCompaction] = binary.BigEndian.AppendUint32(nil, uint32(len(st.Cardinality)))
	bodies[metadataCompaction] = append(bodies[metadataCompaction], st.Cardinality...)
	bodies[metadataStats], err = appendStats(nil, &st.Stats, v)
	if err != nil {
		return dst, err
	}
	bodies[metadataHeader] = appendHeader(nil, st.Header)

	dst = binary.BigEndian.AppendUint32(dst, metadataTypeCount)
	off := statisticsTOCSize
	for typ, body := range bodies {
		dst = binary.BigEndian.AppendUint32(dst, uint32(typ))
		dst = binary.BigEndian.AppendUint32(dst, uint32(off))
		off += len(body)
	}
	for _, body := range bodies {
		dst = append(dst, body...)
	}
	return dst, nil
}

func appendHistogram(dst []byte, h []HistogramBucket) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(h)))
	for _, b := range h {
		dst = binary.BigEndian.AppendUint64(dst, uint64(b.Offset))
		dst = binary.BigEndian.AppendUint64(dst, uint64(b.Count))
	}
	return dst
}

func appendCommitLogPosition(dst []byte, p sstables.CommitLogPosition) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(p.SegmentID))
	return binary.BigEndian.AppendUint32(dst, uint32(p.Position))
}

func appendValues(dst []byte, vals [][]byte) ([]byte, error) {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(vals)))
	for _, v := range vals {
		if len(v) > 0xFFFF {
			return dst, fmt.Errorf("clustering value of %d bytes does not fit Statistics.db's u16 length", len(v))
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(v)))
		dst = append(dst, v...)
	}
	return dst, nil
}

func appendStats(dst []byte, s *Stats, v version.Version) ([]byte, error) {
	dst = appendHistogram(dst, s.PartitionSizes)
	dst = appendHistogram(dst, s.CellsPerPartition)
	dst = appendCommitLogPosition(dst, s.CommitLogUpperBound)
	dst = binary.BigEndian.AppendUint64(dst, uint64(s.MinTimestamp))
	dst = binary.BigEndian.AppendUint64(dst, uint64(s.MaxTimestamp))
	dst = binary.BigEndian.AppendUint32(dst, uint32(sstables.LegacyDeletionTime(s.MinLocalDeletionTime)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(sstables.LegacyDeletionTime(s.MaxLocalDeletionTime)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(s.MinTTL))
	dst = binary.BigEndian.AppendUint32(dst, uint32(s.MaxTTL))
	dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(s.CompressionRatio))
	dst = binary.BigEndian.AppendUint32(dst, uint32(s.TombstoneMaxBins))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s.TombstoneDropTimes)))
	for _, b := range s.TombstoneDropTimes {
		dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(b.Point))
		dst = binary.BigEndian.AppendUint64(dst, uint64(b.Count))
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(s.Level))
	dst = binary.BigEndian.AppendUint64(dst, uint64(s.RepairedAt))
	var err error
	if dst, err = appendValues(dst, s.MinClusteringValues); err != nil {
		return dst, err
	}
	if dst, err = appendValues(dst, s.MaxClusteringValues); err != nil {
		return dst, err
	}
	if s.HasLegacyCounterShards {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(s.TotalColumnsSet))
	dst = binary.BigEndian.AppendUint64(dst, uint64(s.TotalRows))
	dst = appendCommitLogPosition(dst, s.CommitLogLowerBound)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s.CommitLogIntervals)))
	for _, iv := range s.CommitLogIntervals {
		dst = appendCommitLogPosition(dst, iv.Lower)
		dst = appendCommitLogPosition(dst, iv.Upper)
	}
	if v.HasOriginatingHostID() {
		if len(s.OriginatingHostID) == 16 {
			dst = append(dst, 1)
			dst = append(dst, s.OriginatingHostID...)
		} else {
			dst = append(dst, 0)
		}
	}
	return dst, nil
}
