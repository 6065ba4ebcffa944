package sstables

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sort"

	"github.com/castable-db/castable/internal/vint"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables/version"
)

// Statistics.db, every version. Big-endian.
//
// Container before na:
//
//	i32 count                                  3 (2.x) or 4
//	count × (i32 type, i32 offset)             offsets from the file start
//	component bodies
//
// from na on (version.HasMetadataChecksum):
//
//	i32 count, u32 CRC-32 of those 4 bytes
//	count × (i32 type, i32 offset)
//	u32 CRC-32 continued over the count and the entries
//	each component's body followed by its own u32 CRC-32
//
// Writers list the components in type order, back to back. Before na a
// reader finds each at the offset the table gives, reads its fields and
// ignores what follows them up to the next component, as Cassandra 3.x and
// ScyllaDB do (ScyllaDB lists them in hash order; some of its files have
// bytes between them). Cassandra 4.0 and later instead derive each
// component's length from the next listed offset and fail on a table not
// in offset order (NegativeArraySizeException), so such a file is read
// with a Warning saying so; from na on (checksummed, written only by
// Cassandra 4.0+) it is a CorruptionError. A type outside the version's
// four (three before ma) is refused, as Cassandra (MetadataType.values()
// index) and ScyllaDB ("Invalid metadata type") refuse it.
//
//	type 0 VALIDATION  JavaUTF partitioner class, f64 bloom_filter_fp_chance
//	type 1 COMPACTION  before ma: i32 n, n × i32 ancestor generation;
//	                   i32 length, HyperLogLog++ of the partition keys
//	type 2 STATS       the fields below, in this order
//	type 3 HEADER      serialization header (ma on; header.go)
//
// STATS (version predicate of each optional field in brackets):
//
//	EstimatedHistogram partition sizes, EstimatedHistogram cells per partition
//	i64 segmentId, i32 position     commit log upper bound (2.x: replay position)
//	i64 minTimestamp, i64 maxTimestamp
//	i32 minLocalDeletionTime        [not LegacyCells]
//	i32 maxLocalDeletionTime        signed form; u32 [UIntDeletionTime]
//	i32 minTTL, i32 maxTTL          [not LegacyCells]
//	f64 compressionRatio            -1 when uncompressed
//	i32 maxBinSize, i32 n, n × (f64 point, i64 count)   tombstone drop times;
//	                                n × (i64 point, i32 count) [UIntDeletionTime]
//	i32 sstableLevel, i64 repairedAt
//	i32 n, n × (u16 len, bytes) twice   min and max clustering values [HasLegacyMinMax]
//	covered clustering slice        [HasImprovedMinMax] (see appendSlice)
//	u8 hasLegacyCounterShards
//	i64 totalColumnsSet, i64 totalRows   [not LegacyCells]
//	i64, i32 commit log lower bound      [HasCommitLogLowerBound]
//	i32 n, n × (i64, i32, i64, i32)      commit log intervals [HasCommitLogIntervals]
//	u8 pending repair [, 16 bytes]       [HasPendingRepair]
//	u8 isTransient                       [HasIsTransient]
//	u8 host id present [, 16 bytes]      [HasOriginatingHostID]
//	u8 hasPartitionLevelDeletions        [HasPartitionLevelDeletionsPresenceMarker]
//	covered clustering slice             [HasTrailingImprovedMinMax] (nc)
//	uvint len, first key; uvint len, last key   [HasKeyRange]
//	f64 tokenSpaceCoverage               [HasTokenSpaceCoverage] (NaN unset)
//	4·n zero bytes, n the tombstone bins [UIntDeletionTime]: Cassandra 5.0
//	                                sizes the component for 16-byte bins
//	                                and writes 12
//
// The HyperLogLog and histograms are those of hll.go and histogram.go.

// The metadata component types. Part of the on-disk format.
const (
	MetadataValidation = 0
	MetadataCompaction = 1
	MetadataStats      = 2
	MetadataHeader     = 3
)

const (
	// maxMetadataComponents bounds the table a reader accepts.
	maxMetadataComponents = 16
	// maxStatsValues bounds a list of clustering values or ancestors.
	maxStatsValues = 1 << 16
	// MaxStatisticsSize bounds the Statistics.db a reader loads.
	MaxStatisticsSize = 64 << 20
)

// Statistics is a decoded Statistics.db, of any version.
type Statistics struct {
	// Partitioner is the partitioner class name (VALIDATION).
	Partitioner string
	// BloomFilterFPChance is the table's bloom_filter_fp_chance.
	BloomFilterFPChance float64
	// Ancestors are the generations compacted into the SSTable (before
	// ma), in the writing JVM's hash set order.
	Ancestors []int32
	// Cardinality is the HyperLogLog++ estimator of the partition keys, as
	// stored; nil when the file has no COMPACTION component.
	Cardinality []byte
	// CardinalityOffset is the file offset of Cardinality's first byte,
	// which errors about it name (set by DecodeStatistics; 0 otherwise).
	CardinalityOffset int64
	// Stats is the STATS component.
	Stats Stats
	// Header is the serialization header; nil before ma.
	Header *SerializationHeader
	// Oddities are what the decoder tolerated: bytes between or after
	// components, components listed out of offset order. Readers report
	// each as a Warning (StatisticsWarnings).
	Oddities []string
}

// Stats is the STATS component: what every version's writer records
// about the data (fields a version does not store are zero).
type Stats struct {
	PartitionSizes    *EstimatedHistogram
	CellsPerPartition *EstimatedHistogram
	// CommitLogUpperBound is the commit log position of the flush (2.x's
	// replay position).
	CommitLogUpperBound CommitLogPosition
	MinTimestamp        int64
	MaxTimestamp        int64
	// MinLocalDeletionTime and MaxLocalDeletionTime are in memory form
	// (mutation.NoDeletionTime for none); 2.x stores only the maximum.
	MinLocalDeletionTime int64
	MaxLocalDeletionTime int64
	MinTTL               int32
	MaxTTL               int32
	// CompressionRatio is compressed payload bytes over uncompressed
	// length; -1 when uncompressed.
	CompressionRatio float64
	// TombstoneDropTimes is the histogram of tombstone drop times; its
	// MaxBins is the maxBinSize stored (100 for 3.x writers, the bin count
	// from 4.0).
	TombstoneDropTimes *StreamingHistogram
	Level              int32
	RepairedAt         int64
	// MinClusteringValues and MaxClusteringValues are the legacy min/max
	// clustering (2.x: column names).
	MinClusteringValues [][]byte
	MaxClusteringValues [][]byte
	// CoveredClustering is the improved min/max (nc, oa on); nil when the
	// version has none.
	CoveredClustering      *ClusteringSlice
	HasLegacyCounterShards bool
	TotalColumnsSet        int64
	TotalRows              int64
	CommitLogLowerBound    CommitLogPosition
	CommitLogIntervals     []CommitLogInterval
	// PendingRepair is the 16-byte TimeUUID of the pending repair session;
	// nil when none.
	PendingRepair []byte
	IsTransient   bool
	// OriginatingHostID is the 16-byte host id; nil when absent.
	OriginatingHostID          []byte
	HasPartitionLevelDeletions bool
	// FirstKey and LastKey are the partition key range (nc, oa on).
	FirstKey, LastKey []byte
	// TokenSpaceCoverage is the fraction of the token space covered; NaN
	// when unset.
	TokenSpaceCoverage float64
	// Padding is the count of zero bytes after the last field (oa's 4 per
	// tombstone bin).
	Padding int
}

// ClusteringSlice is a covered clustering slice (Statistics.db's improved
// min/max): the clustering types as Cassandra names them and two bounds.
type ClusteringSlice struct {
	Types      []string
	Start, End ClusteringBound
}

// ClusteringBound is one end of a ClusteringSlice: its kind and values
// (serialized; nil is null).
type ClusteringBound struct {
	Kind   mutation.BoundKind
	Values [][]byte
}

// ValidationMetadata layout (Statistics.db component 0):
//
//	Java UTF partitioner class name ; f64 bloom_filter_fp_chance

// Murmur3Partitioner is the partitioner class a Statistics without one
// writes.
const Murmur3Partitioner = "org.apache.cassandra.dht.Murmur3Partitioner"

// DefaultBloomFilterFPChance is a table's default bloom_filter_fp_chance,
// assumed for a Statistics.db without VALIDATION component.
const DefaultBloomFilterFPChance = 0.01

// javaDoubleBits is Java's Double.doubleToLongBits, which DataOutput's
// writeDouble uses: every NaN is written as the canonical 0x7ff8000000000000
// (Go's math.NaN() has other bits).
func javaDoubleBits(f float64) uint64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

// scyllaNaNBits is the NaN ScyllaDB's files hold where a ratio is 0/0:
// x86's default NaN, sign bit set.
const scyllaNaNBits = 0xfff8000000000000

// scyllaDoubleBits is the bits of f as ScyllaDB writes them, a NaN as
// scyllaNaNBits.
func scyllaDoubleBits(f float64) uint64 {
	if math.IsNaN(f) {
		return scyllaNaNBits
	}
	return math.Float64bits(f)
}

// statsCRC is the CRC-32 of na+'s metadata checksums.
func statsCRC(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

// DecodeStatistics parses the Statistics.db of version v; path names the
// file in errors, which are CorruptionErrors with the offset, or an
// *UnknownTypeError for a type castable does not know (see
// DecodeStatisticsWith).
func DecodeStatistics(b []byte, v version.Version, path string) (*Statistics, error) {
	return DecodeStatisticsWith(b, v, path, schema.TypeOptions{})
}

// DecodeStatisticsWith is DecodeStatistics parsing the type names of the
// serialization header and the covered clustering slice with the given
// options.
func DecodeStatisticsWith(b []byte, v version.Version, path string, typeOpts schema.TypeOptions) (*Statistics, error) {
	comp := ComponentStatistics
	r := NewByteReader(b, path, comp, 0)
	n := r.I32()
	if r.Err() != nil {
		return nil, r.Err()
	}
	if n < 0 || n > maxMetadataComponents {
		return nil, Corruptf(path, string(comp), 0, "%d metadata components", n)
	}
	checked := v.HasMetadataChecksum()
	if checked {
		if crc := r.U32(); r.Err() == nil && crc != statsCRC(b[:4]) {
			return nil, Corruptf(path, string(comp), 4, "checksum %08x of the component count, computed %08x", crc, statsCRC(b[:4]))
		}
	}
	type entry struct{ typ, off int32 }
	tocAt := int(r.Offset())
	toc := make([]entry, n)
	for i := range toc {
		toc[i] = entry{r.I32(), r.I32()}
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	tocEnd := int32(r.Offset())
	st := &Statistics{}
	if checked {
		crc := r.U32()
		if r.Err() != nil {
			return nil, r.Err()
		}
		want := crc32.Update(statsCRC(b[:4]), crc32.IEEETable, b[tocAt:tocEnd])
		if crc != want {
			return nil, Corruptf(path, string(comp), int64(tocEnd), "checksum %08x of the table of contents, computed %08x", crc, want)
		}
		tocEnd += 4
	}
	// Components in offset order, each ending where the next begins.
	byOff := make([]entry, n)
	copy(byOff, toc)
	sort.SliceStable(byOff, func(i, j int) bool { return byOff[i].off < byOff[j].off })
	if !sort.SliceIsSorted(toc, func(i, j int) bool { return toc[i].off < toc[j].off }) {
		if checked {
			return nil, Corruptf(path, string(comp), int64(tocAt), "the table of contents lists the metadata components out of offset order, which Cassandra 4.0 and later (the only writers and readers of version %s) cannot read", v)
		}
		st.Oddities = append(st.Oddities, "the table of contents lists the metadata components out of offset order: Cassandra 3.x and ScyllaDB read each at its offset, Cassandra 4.0 and later cannot read this file (they take a component's length from the next listed offset)")
	}
	types := []int32{MetadataValidation, MetadataCompaction, MetadataStats}
	if !v.LegacyCells() {
		types = append(types, MetadataHeader)
	}
	for i, e := range toc {
		if e.typ < 0 || int(e.typ) >= len(types) {
			return nil, Corruptf(path, string(comp), int64(tocAt+8*i), "metadata component of unknown type %d (version %s has types 0 to %d)", e.typ, v, len(types)-1)
		}
	}
	bodies := map[int32][]byte{}
	offsets := map[int32]int64{}
	for i, e := range byOff {
		end := int32(len(b))
		if i+1 < len(byOff) {
			end = byOff[i+1].off
		}
		if e.off < tocEnd || e.off > end || int(end) > len(b) {
			return nil, Corruptf(path, string(comp), -1, "metadata component %d at offset %d outside the file (%d bytes, table of contents %d)", e.typ, e.off, len(b), tocEnd)
		}
		if _, dup := bodies[e.typ]; dup {
			return nil, Corruptf(path, string(comp), -1, "metadata component %d listed twice", e.typ)
		}
		body := b[e.off:end]
		if checked {
			if len(body) < 4 {
				return nil, Corruptf(path, string(comp), int64(e.off), "metadata component %d of %d bytes has no room for its checksum", e.typ, len(body))
			}
			stored := binary.BigEndian.Uint32(body[len(body)-4:])
			body = body[:len(body)-4]
			if got := statsCRC(body); got != stored {
				return nil, Corruptf(path, string(comp), int64(e.off), "metadata component %d checksum %08x, computed %08x", e.typ, stored, got)
			}
		}
		bodies[e.typ] = body
		offsets[e.typ] = int64(e.off)
	}
	for _, typ := range types {
		body, ok := bodies[typ]
		if !ok {
			// Cassandra's SSTableReader.open deserializes only VALIDATION,
			// STATS and HEADER, and skips the partitioner check when
			// VALIDATION is absent ("no stats available"); it rebuilds the
			// bloom filter then, with the table's fp chance.
			switch typ {
			case MetadataCompaction:
				st.Oddities = append(st.Oddities, "no COMPACTION metadata component (ancestors, cardinality): read as Cassandra opens it, which never reads that component at open")
				continue
			case MetadataValidation:
				st.Partitioner, st.BloomFilterFPChance = Murmur3Partitioner, DefaultBloomFilterFPChance
				st.Oddities = append(st.Oddities, fmt.Sprintf("no VALIDATION metadata component: the partitioner is taken to be %s, the default one Cassandra then assumes by skipping its check, and the bloom filter chance %g, the table default", Murmur3Partitioner, DefaultBloomFilterFPChance))
				continue
			}
			return nil, Corruptf(path, string(comp), -1, "metadata component %d missing", typ)
		}
		br := NewByteReader(body, path, comp, offsets[typ])
		switch typ {
		case MetadataValidation:
			st.Partitioner = br.JavaUTF()
			st.BloomFilterFPChance = br.F64()
		case MetadataCompaction:
			if v.CompactionAncestors() {
				st.Ancestors = readAncestors(br)
			}
			st.CardinalityOffset = br.Offset() + 4
			st.Cardinality = br.IntBytes()
		case MetadataStats:
			decodeStats(br, &st.Stats, v, &st.Oddities, typeOpts)
		case MetadataHeader:
			h, off, err := DecodeSerializationHeaderWith(body, v.UIntDeletionTime(), typeOpts)
			if err != nil {
				return nil, headerError(path, offsets[typ]+int64(off), err)
			}
			st.Header = h
			br.Skip(off)
		}
		if br.Err() != nil {
			return nil, br.Err()
		}
		if br.Remaining() != 0 {
			st.Oddities = append(st.Oddities, fmt.Sprintf("%d bytes after metadata component %d (at offset %d) are not read, as Cassandra and ScyllaDB do not read them", br.Remaining(), typ, br.Offset()))
		}
	}
	return st, nil
}

func readAncestors(r *ByteReader) []int32 {
	off := r.Offset()
	n := r.I32()
	if r.Err() == nil && (n < 0 || n > maxStatsValues || int(n) > r.Remaining()/4) {
		r.FailAt(off, "%d ancestors out of range", n)
	}
	if r.Err() != nil {
		return nil
	}
	a := make([]int32, n)
	for i := range a {
		a[i] = r.I32()
	}
	return a
}

func decodeCommitLogPosition(r *ByteReader) CommitLogPosition {
	return CommitLogPosition{SegmentID: r.I64(), Position: r.I32()}
}

func decodeValues(r *ByteReader) [][]byte {
	off := r.Offset()
	n := r.I32()
	if r.Err() == nil && (n < 0 || n > maxStatsValues || int(n) > r.Remaining()/2) {
		r.FailAt(off, "%d clustering values", n)
	}
	if r.Err() != nil {
		return nil
	}
	vals := make([][]byte, n)
	for i := range vals {
		vals[i] = r.ShortBytes()
	}
	return vals
}

// decodeBool reads a boolean as Java's DataInput.readBoolean does: any
// byte but 0 is true. Cassandra and ScyllaDB write 0 or 1; another value is
// recorded in odd.
func decodeBool(r *ByteReader, odd *[]string) bool {
	off := r.Offset()
	b := r.U8()
	if r.Err() == nil && b > 1 {
		*odd = append(*odd, fmt.Sprintf("boolean byte %d at offset %d is read as true, as Java's readBoolean reads it (writers write 0 or 1)", b, off))
	}
	return b != 0
}

// decodeOptional16 reads a presence byte and, when set, 16 bytes.
func decodeOptional16(r *ByteReader, odd *[]string) []byte {
	if decodeBool(r, odd) {
		return r.Bytes(16)
	}
	return nil
}

func decodeLDT(r *ByteReader, v version.Version) int64 {
	if v.UIntDeletionTime() {
		return FromUnsignedDeletionTime(r.U32())
	}
	return FromLegacyDeletionTime(r.I32())
}

func decodeStats(r *ByteReader, s *Stats, v version.Version, odd *[]string, types schema.TypeOptions) {
	var err error
	if s.PartitionSizes, err = ParseEstimatedHistogram(r); err != nil {
		return
	}
	if s.CellsPerPartition, err = ParseEstimatedHistogram(r); err != nil {
		return
	}
	s.CommitLogUpperBound = decodeCommitLogPosition(r)
	s.MinTimestamp, s.MaxTimestamp = r.I64(), r.I64()
	s.MinLocalDeletionTime = mutation.NoDeletionTime
	if !v.LegacyCells() {
		s.MinLocalDeletionTime = decodeLDT(r, v)
	}
	s.MaxLocalDeletionTime = decodeLDT(r, v)
	if !v.LegacyCells() {
		s.MinTTL, s.MaxTTL = r.I32(), r.I32()
	}
	s.CompressionRatio = r.F64()
	if r.Err() != nil {
		return
	}
	if v.UIntDeletionTime() {
		s.TombstoneDropTimes = parseTombstoneHistogram(r)
	} else if s.TombstoneDropTimes, err = ParseStreamingHistogram(r); err != nil {
		return
	}
	s.Level = r.I32()
	s.RepairedAt = r.I64()
	if v.HasLegacyMinMax() {
		s.MinClusteringValues = decodeValues(r)
		s.MaxClusteringValues = decodeValues(r)
	}
	if v.HasImprovedMinMax() {
		s.CoveredClustering = decodeSlice(r, types)
	}
	s.HasLegacyCounterShards = decodeBool(r, odd)
	if !v.LegacyCells() {
		s.TotalColumnsSet, s.TotalRows = r.I64(), r.I64()
	}
	if v.HasCommitLogLowerBound() {
		s.CommitLogLowerBound = decodeCommitLogPosition(r)
	}
	if v.HasCommitLogIntervals() {
		off := r.Offset()
		n := r.I32()
		if r.Err() == nil && (n < 0 || int(n) > r.Remaining()/24) {
			r.FailAt(off, "%d commit log intervals", n)
			return
		}
		s.CommitLogIntervals = make([]CommitLogInterval, n)
		for i := range s.CommitLogIntervals {
			s.CommitLogIntervals[i].Lower = decodeCommitLogPosition(r)
			s.CommitLogIntervals[i].Upper = decodeCommitLogPosition(r)
		}
	}
	if v.HasPendingRepair() {
		s.PendingRepair = decodeOptional16(r, odd)
	}
	if v.HasIsTransient() {
		s.IsTransient = decodeBool(r, odd)
	}
	if v.HasOriginatingHostID() {
		s.OriginatingHostID = decodeOptional16(r, odd)
	}
	if v.HasPartitionLevelDeletionsPresenceMarker() {
		s.HasPartitionLevelDeletions = decodeBool(r, odd)
	}
	if v.HasTrailingImprovedMinMax() {
		s.CoveredClustering = decodeSlice(r, types)
	}
	if v.HasKeyRange() {
		s.FirstKey = decodeVBytes(r)
		s.LastKey = decodeVBytes(r)
	}
	s.TokenSpaceCoverage = math.NaN()
	if v.HasTokenSpaceCoverage() {
		s.TokenSpaceCoverage = r.F64()
	}
	if v.UIntDeletionTime() && r.Err() == nil {
		// 5.0's padding: zero bytes, 4 per tombstone bin.
		pad := r.Rest()
		for i, c := range pad {
			if c != 0 {
				r.FailAt(r.Offset()+int64(i), "byte %#02x in the padding after the STATS fields", c)
				return
			}
		}
		s.Padding = len(pad)
		r.Skip(len(pad))
	}
}

// parseTombstoneHistogram reads oa's histogram (i64 points, i32 counts).
func parseTombstoneHistogram(r *ByteReader) *StreamingHistogram {
	off := r.Offset()
	maxBins := r.I32()
	n := r.I32()
	if r.Err() == nil && (maxBins < 0 || n < 0 || int(n) > r.Remaining()/12) {
		r.FailAt(off, "tombstone histogram of %d bins (max %d) out of range", n, maxBins)
	}
	if r.Err() != nil {
		return nil
	}
	h := &StreamingHistogram{maxBins: int(maxBins), points: make([]float64, n), counts: make([]int64, n)}
	for i := range h.points {
		h.points[i] = float64(r.I64())
		h.counts[i] = int64(r.I32())
	}
	return h
}

func decodeVBytes(r *ByteReader) []byte {
	n := r.UVint()
	if r.Err() == nil && n > uint64(r.Remaining()) {
		r.Fail("a length of %d bytes, %d left", n, r.Remaining())
		return nil
	}
	return r.Bytes(int(n))
}

// decodeSlice reads a covered clustering slice.
func decodeSlice(r *ByteReader, types schema.TypeOptions) *ClusteringSlice {
	off := r.Offset()
	n := r.UVint()
	if r.Err() == nil && n > uint64(r.Remaining()) {
		r.FailAt(off, "%d clustering types", n)
	}
	if r.Err() != nil {
		return nil
	}
	cs := &ClusteringSlice{}
	fixed := make([]int, n)
	for i := range fixed {
		at := r.Offset()
		name := string(decodeVBytes(r))
		if r.Err() != nil {
			return nil
		}
		t, err := types.ParseMarshalName(name)
		if err != nil {
			if errors.Is(err, schema.ErrUnknownType) {
				r.FailWith(headerError(r.path, at, &HeaderTypeError{Column: fmt.Sprintf("covered clustering type %d", i), Name: name, Err: err}))
				return nil
			}
			r.FailAt(at, "clustering type %q: %v", name, err)
			return nil
		}
		cs.Types = append(cs.Types, name)
		fixed[i] = t.FixedLength()
	}
	cs.Start = decodeBound(r, fixed)
	cs.End = decodeBound(r, fixed)
	return cs
}

func decodeBound(r *ByteReader, fixed []int) ClusteringBound {
	off := r.Offset()
	kind := mutation.BoundKind(r.U8())
	size := int(r.U16())
	if r.Err() == nil && (kind > mutation.ExclStartBound || size > len(fixed)) {
		r.FailAt(off, "clustering bound of kind %d and %d values (%d types)", kind, size, len(fixed))
	}
	if r.Err() != nil || size == 0 {
		return ClusteringBound{Kind: kind}
	}
	vals, k, err := DecodeClusteringValues(r.Rest(), nil, size, fixed, 0)
	if err != nil {
		r.FailAt(r.Offset(), "clustering bound values: %v", err)
		return ClusteringBound{}
	}
	r.Skip(k)
	out := make([][]byte, len(vals))
	for i, v := range vals {
		if v != nil {
			out[i] = append([]byte{}, v...)
		}
	}
	return ClusteringBound{Kind: kind, Values: out}
}

// AppendStatistics serializes st in version v's layout.
func AppendStatistics(dst []byte, st *Statistics, v version.Version) ([]byte, error) {
	var bodies [][]byte
	b, err := AppendJavaUTF(nil, orDefault(st.Partitioner, Murmur3Partitioner))
	if err != nil {
		return dst, err
	}
	bodies = append(bodies, binary.BigEndian.AppendUint64(b, javaDoubleBits(st.BloomFilterFPChance)))
	b = nil
	if v.CompactionAncestors() {
		b = binary.BigEndian.AppendUint32(b, uint32(len(st.Ancestors)))
		for _, a := range st.Ancestors {
			b = binary.BigEndian.AppendUint32(b, uint32(a))
		}
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(st.Cardinality)))
	bodies = append(bodies, append(b, st.Cardinality...))
	if b, err = appendStats(nil, &st.Stats, v); err != nil {
		return dst, err
	}
	bodies = append(bodies, b)
	if !v.LegacyCells() {
		if st.Header == nil {
			return dst, fmt.Errorf("sstables: version %s needs a serialization header in Statistics.db", v)
		}
		bodies = append(bodies, AppendSerializationHeader(nil, st.Header))
	}

	base := len(dst)
	checked := v.HasMetadataChecksum()
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(bodies)))
	if checked {
		dst = binary.BigEndian.AppendUint32(dst, statsCRC(dst[base:]))
	}
	tocAt := len(dst)
	off := len(dst) - base + 8*len(bodies)
	if checked {
		off += 4
	}
	for typ, body := range bodies {
		dst = binary.BigEndian.AppendUint32(dst, uint32(typ))
		dst = binary.BigEndian.AppendUint32(dst, uint32(off))
		off += len(body)
		if checked {
			off += 4
		}
	}
	if checked {
		crc := crc32.Update(statsCRC(dst[base:base+4]), crc32.IEEETable, dst[tocAt:])
		dst = binary.BigEndian.AppendUint32(dst, crc)
	}
	for _, body := range bodies {
		dst = append(dst, body...)
		if checked {
			dst = binary.BigEndian.AppendUint32(dst, statsCRC(body))
		}
	}
	return dst, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func appendCommitLogPosition(dst []byte, p CommitLogPosition) []byte {
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

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, 1)
	}
	return append(dst, 0)
}

func appendOptional16(dst, b []byte) []byte {
	if len(b) != 16 {
		return append(dst, 0)
	}
	return append(append(dst, 1), b...)
}

func appendLDT(dst []byte, ldt int64, v version.Version) []byte {
	if v.UIntDeletionTime() {
		return binary.BigEndian.AppendUint32(dst, UnsignedDeletionTime(ldt))
	}
	return binary.BigEndian.AppendUint32(dst, uint32(LegacyDeletionTime(ldt)))
}

func appendVBytes(dst, b []byte) []byte {
	return append(vint.Append(dst, uint64(len(b))), b...)
}

func appendStats(dst []byte, s *Stats, v version.Version) ([]byte, error) {
	if s.PartitionSizes == nil || s.CellsPerPartition == nil {
		return dst, fmt.Errorf("sstables: Statistics.db needs both histograms")
	}
	dst = s.PartitionSizes.AppendTo(dst)
	dst = s.CellsPerPartition.AppendTo(dst)
	dst = appendCommitLogPosition(dst, s.CommitLogUpperBound)
	dst = binary.BigEndian.AppendUint64(dst, uint64(s.MinTimestamp))
	dst = binary.BigEndian.AppendUint64(dst, uint64(s.MaxTimestamp))
	if !v.LegacyCells() {
		dst = appendLDT(dst, s.MinLocalDeletionTime, v)
	}
	dst = appendLDT(dst, s.MaxLocalDeletionTime, v)
	if !v.LegacyCells() {
		dst = binary.BigEndian.AppendUint32(dst, uint32(s.MinTTL))
		dst = binary.BigEndian.AppendUint32(dst, uint32(s.MaxTTL))
	}
	if v.Scylla() {
		// ScyllaDB (C++) writes the double's own bits: its NaN ratio (0/0
		// on x86) is 0xfff8000000000000, not Java's canonical NaN.
		dst = binary.BigEndian.AppendUint64(dst, scyllaDoubleBits(s.CompressionRatio))
	} else {
		dst = binary.BigEndian.AppendUint64(dst, javaDoubleBits(s.CompressionRatio))
	}
	h := s.TombstoneDropTimes
	if h == nil {
		h = NewStreamingHistogram(0)
	}
	if v.UIntDeletionTime() {
		dst = binary.BigEndian.AppendUint32(dst, uint32(h.maxBins))
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(h.points)))
		for i, p := range h.points {
			dst = binary.BigEndian.AppendUint64(dst, uint64(int64(p)))
			dst = binary.BigEndian.AppendUint32(dst, uint32(h.counts[i]))
		}
	} else {
		dst = h.AppendTo(dst)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(s.Level))
	dst = binary.BigEndian.AppendUint64(dst, uint64(s.RepairedAt))
	var err error
	if v.HasLegacyMinMax() {
		if dst, err = appendValues(dst, s.MinClusteringValues); err != nil {
			return dst, err
		}
		if dst, err = appendValues(dst, s.MaxClusteringValues); err != nil {
			return dst, err
		}
	}
	if v.HasImprovedMinMax() {
		if dst, err = appendSlice(dst, s.CoveredClustering); err != nil {
			return dst, err
		}
	}
	dst = appendBool(dst, s.HasLegacyCounterShards)
	if !v.LegacyCells() {
		dst = binary.BigEndian.AppendUint64(dst, uint64(s.TotalColumnsSet))
		dst = binary.BigEndian.AppendUint64(dst, uint64(s.TotalRows))
	}
	if v.HasCommitLogLowerBound() {
		dst = appendCommitLogPosition(dst, s.CommitLogLowerBound)
	}
	if v.HasCommitLogIntervals() {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(s.CommitLogIntervals)))
		for _, iv := range s.CommitLogIntervals {
			dst = appendCommitLogPosition(dst, iv.Lower)
			dst = appendCommitLogPosition(dst, iv.Upper)
		}
	}
	if v.HasPendingRepair() {
		dst = appendOptional16(dst, s.PendingRepair)
	}
	if v.HasIsTransient() {
		dst = appendBool(dst, s.IsTransient)
	}
	if v.HasOriginatingHostID() {
		dst = appendOptional16(dst, s.OriginatingHostID)
	}
	if v.HasPartitionLevelDeletionsPresenceMarker() {
		dst = appendBool(dst, s.HasPartitionLevelDeletions)
	}
	if v.HasTrailingImprovedMinMax() {
		if dst, err = appendSlice(dst, s.CoveredClustering); err != nil {
			return dst, err
		}
	}
	if v.HasKeyRange() {
		dst = appendVBytes(dst, s.FirstKey)
		dst = appendVBytes(dst, s.LastKey)
	}
	if v.HasTokenSpaceCoverage() {
		dst = binary.BigEndian.AppendUint64(dst, javaDoubleBits(s.TokenSpaceCoverage))
	}
	if v.UIntDeletionTime() {
		dst = append(dst, make([]byte, s.Padding)...)
	}
	return dst, nil
}

// appendSlice appends a covered clustering slice:
//
//	uvint count, count × vstr type   (AbstractType.toString())
//	start bound, end bound           u8 kind, u16 value count, the values
//	                                 block-encoded (clustering.go)
func appendSlice(dst []byte, cs *ClusteringSlice) ([]byte, error) {
	if cs == nil {
		return dst, fmt.Errorf("sstables: Statistics.db of this version needs the covered clustering slice")
	}
	dst = vint.Append(dst, uint64(len(cs.Types)))
	fixed := make([]int, len(cs.Types))
	for i, name := range cs.Types {
		t, err := schema.ParseMarshalName(name)
		if err != nil {
			return dst, fmt.Errorf("sstables: clustering type %q: %w", name, err)
		}
		fixed[i] = t.FixedLength()
		dst = appendVBytes(dst, []byte(name))
	}
	for _, b := range []ClusteringBound{cs.Start, cs.End} {
		if len(b.Values) > len(fixed) {
			return dst, fmt.Errorf("sstables: clustering bound of %d values for %d types", len(b.Values), len(fixed))
		}
		dst = append(dst, byte(b.Kind))
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(b.Values)))
		var err error
		if dst, err = AppendClusteringValues(dst, b.Values, len(b.Values), fixed); err != nil {
			return dst, err
		}
	}
	return dst, nil
}
