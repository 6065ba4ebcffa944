// Package version lists every SSTable format version castable knows — the
// two letters in a file name — and what each means, as named predicates
// (Cassandra's BigVersion and BtiVersion flags, plus what a version's
// writer release does that no flag says). Code asks a predicate; it never
// compares version strings.
//
//	ka  Cassandra 2.1       la  2.2   lb  2.2.7+ (commit log lower bound)
//	ma  3.0.0–3.0.6, 3.1–3.6 (rows stored natively: the 3.0 storage engine)
//	mb  3.0.7, 3.7–3.8      commit log lower bound
//	mc  3.0.8–3.0.17, 3.9–3.11.3   commit log intervals
//	md  3.0.18–3.0.24, 3.11.4–3.11.10   accurate min/max clustering
//	me  3.0.25+, 3.11.11+   originating host id
//	na  4.0 pre-releases    maxCompressedLength, pending repair, transient,
//	                        Statistics.db checksums, the new bloom filter layout
//	nb  4.0.0–4.1, 5.0 in compatibility mode   originating host id again
//	nc  unreleased 2023 trunk builds   nb + partition-deletion marker,
//	                        improved min/max and key range appended
//	oa  5.0                 unsigned deletion times, improved min/max in place
//	                        of the legacy one, key range, token space coverage
//	da  5.0 BTI             oa with Partitions.db/Rows.db tries instead of
//	                        Index.db/Summary.db
//	ms, mt  ScyllaDB 2025+  ScyllaDB's me layout with the BTI tries
//
// Each row also says which castable package serves the version (Family),
// what a read-only version is rewritten as (WriteAs), and which Cassandra
// releases read and write it (ReadBy, WrittenBy); Default is the version
// castable writes when told none. This file is the only place a version is
// named: everything else asks the table (a test in internal/versionnames
// scans the source for version names outside it).
package version

import (
	"fmt"
	"strings"
)

// Default is the version castable writes when none is given (castable
// write, flush, scrub of a version it cannot write, the Beam pipeline,
// perf_fast_forward): nb, what Cassandra 4.0 and 4.1 write and what 5.0
// writes in its shipped storage_compatibility_mode (CASSANDRA_4) — a 4.x
// or 5.0 cluster does not stream (sstableloader) a 3.x version.
const Default = "nb"

// Family is the castable package that reads and writes a version: its row
// format and index layout.
type Family uint8

// The families.
const (
	// Cells2x is Cassandra 2.x's cell format with Index.db and Summary.db
	// (sstables/la).
	Cells2x Family = iota + 1
	// Big is the 3.0 storage engine's rows with Index.db, the promoted
	// index and Summary.db (sstables/big).
	Big
	// BTI is those rows with the Partitions.db and Rows.db tries
	// (sstables/bti).
	BTI
)

// String names the family as castable's package does ("la" is named for
// the one version its family writes).
func (f Family) String() string {
	switch f {
	case Cells2x:
		return "2.x cells"
	case Big:
		return "big"
	case BTI:
		return "bti"
	}
	return fmt.Sprintf("Family(%d)", uint8(f))
}

// releases is a set of the Cassandra releases the table records.
type releases uint8

const (
	c311 releases = 1 << iota
	c50
)

// releaseNames are the releases, as internal/node's Flavour.Release and
// the oracles name them: the newest patch release of each line (3.11.17,
// and 5.0, whose readers the oracle's October 2024 trunk holds).
var releaseNames = []struct {
	name string
	r    releases
}{{"3.11", c311}, {"5.0", c50}}

// Releases returns the Cassandra releases ReadBy and WrittenBy know
// ("3.11", "5.0"), oldest first.
func Releases() []string {
	out := make([]string, len(releaseNames))
	for i, r := range releaseNames {
		out[i] = r.name
	}
	return out
}

func releaseOf(name string) releases {
	for _, r := range releaseNames {
		if r.name == name {
			return r.r
		}
	}
	panic(fmt.Sprintf("version: Cassandra release %q is not in the table (it knows %s)", name, strings.Join(Releases(), ", ")))
}

// feature is one named property of a version.
type feature uint32

const (
	legacyCells feature = 1 << iota
	adlerChecksums
	sha1Digest
	oldBloomHashOrder
	summaryBoundaries
	compactionAncestors
	commitLogLowerBound
	commitLogIntervals
	accurateMinMax
	legacyMinMax
	originatingHostID
	maxCompressedLength
	pendingRepair
	isTransient
	metadataChecksum
	oldBloomFilterFormat
	improvedMinMax
	trailingImprovedMinMax
	partitionDeletionMarker
	keyRange
	uintDeletionTime
	tokenSpaceCoverage
	tries
	scylla
	writable
	legacyFileName
	vectorType
)

// LZ4Encoder names the LZ4 fast compressor a release's LZ4Compressor
// runs: Cassandra calls lz4-java's LZ4Factory.fastestInstance()
// .fastCompressor(), JNI over the LZ4 library the jar bundles, and the
// releases bundle different LZ4s, whose blocks of the same chunk differ
// now and then. (The values mirror compress.LZ4Encoder, which this package
// does not import.)
type LZ4Encoder uint8

// The LZ4 encoders of the releases.
const (
	// LZ4Current is today's LZ4_compress_fast with acceleration 1 (liblz4
	// 1.8.2 on): Cassandra 4.0 (lz4-java 1.7.1, LZ4 1.9.2), 4.1 and 5.0
	// (lz4-java 1.8.0, LZ4 1.9.3), and ScyllaDB (the system liblz4).
	LZ4Current LZ4Encoder = iota
	// LZ4R123 is LZ4 r123's: lz4-java 1.3.0, in Cassandra 2.2, 3.0 and
	// 3.11 (and 1.4.0, which bundles r123 too, in 4.0's trunk of 2017–2019).
	LZ4R123
	// LZ4R100 is LZ4 r100's: lz4-java 1.2.0, in Cassandra 2.1 (and 2.2's
	// trunk until early 2015).
	LZ4R100
)

// Profile is what the Cassandra release that writes a version does with
// details no format flag decides, which byte-identical output must
// reproduce.
type Profile struct {
	// PartitionSizeBuckets and CellCountBuckets are the lengths (bucket
	// offsets) of Statistics.db's estimated partition size and cells per
	// partition histograms: 150 and 114 before Cassandra 3.11.9 / 4.0-beta3
	// (CASSANDRA-15164 for the cell counts), 150 and 118 after, 155 and 118
	// from 5.0 (CASSANDRA-17839).
	PartitionSizeBuckets, CellCountBuckets int
	// TombstoneMaxBins is the streaming histogram's maxBinSize written
	// before the bins: 100 for 3.x writers; 0 means "the bin count" (4.0+).
	TombstoneMaxBins int
	// SentinelTombstoneBin says the tombstone histogram holds a bin at
	// Integer.MAX_VALUE counting the live cells (the Cassandra 3.0 releases
	// of ma and mb, and some mc writers).
	SentinelTombstoneBin bool
	// SentinelCountsLiveness says that bin also counts live row
	// livenesses, so a row of one cell counts twice (mb's writers,
	// 3.0.7–3.8, and the mc writers that have the bin), not only live
	// cells (ma's).
	SentinelCountsLiveness bool
	// DoubleCellCounts says each partition's cell count is recorded twice
	// in the cells-per-partition histogram (the Cassandra 3.0 releases of
	// ma and mb, and some early mc writers).
	DoubleCellCounts bool
	// NoCompressionRatio says the writer stored −1 (no ratio) although
	// Data.db is compressed (seen in Cassandra 2.2 files).
	NoCompressionRatio bool
	// NaNCompressionRatio says the writer stored NaN as the compression
	// ratio (ScyllaDB's files of one chunk; see ScyllaCompressionRatio).
	NaNCompressionRatio bool
	// ScyllaCompressionRatio says the ratio is ScyllaDB's: computed before
	// the last chunk is flushed, the file offset of the last chunk over
	// the uncompressed length of the chunks before it (NaN, 0/0, for a
	// Data.db of one chunk). Seen in ScyllaDB's ms and mt files.
	ScyllaCompressionRatio bool
	// UnroundedDropTimes says the tombstone drop-time histogram holds the
	// local deletion times as they are, where Cassandra 3.11 and later
	// round them up to a multiple of 60 s (ScyllaDB's ms and mt files).
	UnroundedDropTimes bool
	// ZeroCommitLogBounds says the writer stored the commit log lower and
	// upper bounds of an SSTable without commit log intervals as position
	// (0, 0) rather than Cassandra's NONE (-1, 0) (ScyllaDB, which has no
	// commit log replay positions in SSTables).
	ZeroCommitLogBounds bool
	// DefaultChunkLength is the default compression chunk length: 64 KiB
	// before 4.0 (CASSANDRA-13241), 16 KiB from 4.0.
	DefaultChunkLength int
	// DefaultColumnIndexSize is column_index_size's default: 64 KiB, and
	// 16 KiB for BTI (its row index granularity).
	DefaultColumnIndexSize int
	// OrderedTOC says TOC.txt lists components in 5.0's fixed order; older
	// writers iterate a Java hash set, whose order varies between runs.
	OrderedTOC bool
	// LiveComplexDeletionWrap is 5.0's encoding of a live complex
	// deletion's local deletion time delta against Long.MAX_VALUE (a
	// larger vint) instead of Integer.MAX_VALUE.
	LiveComplexDeletionWrap bool
	// Reconcile4 says the release reconciles cells with Cassandra 4.0's
	// rules (CASSANDRA-14592: on equal timestamps a tombstone or expiring
	// cell wins whatever the time, values compare unsigned) rather than
	// 3.x's (the cell not live at the merge time wins, values compare
	// signed); see mutation.Rules.
	Reconcile4 bool
	// KeyCount50 says the release's getApproximateKeyCount (the key count
	// a compaction sizes its bloom filter for) is 5.0's: the fallback sum
	// starts at 0 and a sketch that ends early fails the compaction, where
	// 3.x starts at −1 and falls back (sstables.KeyCountRules; 4.x has
	// 5.0's arithmetic and is given 5.0's rules).
	KeyCount50 bool
	// LZ4 is the LZ4 fast compressor the release writes LZ4 chunks with:
	// LZ4R123 for 2.2 and 3.x (and the 4.0 pre-releases of na), LZ4R100
	// for 2.1, LZ4Current (the zero value) from 4.0 and for ScyllaDB. The
	// writers take it from the version they write (Version.Profile, like
	// DefaultChunkLength), not from a profile carried over from an input.
	LZ4 LZ4Encoder
	// ScyllaTypeNames says the serialization header spells type names as
	// ScyllaDB does where it differs from Cassandra: VectorType(T, n)
	// rather than VectorType(T , n) (schema.MarshalScylla).
	ScyllaTypeNames bool
}

// info is one row of the table.
type info struct {
	name    string
	release string
	f       feature
	profile Profile
	// family serves the version; writeAs is what a read-only version is
	// rewritten as ("" for a writable one, which is rewritten as itself).
	family  Family
	writeAs string
	// readBy and writtenBy are the releases that read and write it, from
	// their source: BigFormat's BigVersion.isCompatible (3.11: jb up to
	// the m versions; 5.0: ma up to its current version's letter, n or o),
	// BtiFormat's BtiVersion (5.0: da), and current_version for the
	// writers (3.11: me; 5.0: nb with storage_compatibility_mode
	// CASSANDRA_4, its default, oa without, da with selected_format: bti).
	// ScyllaDB's ms and mt are named like big files but hold the tries, so
	// no Cassandra release reads them, whatever isCompatible says.
	readBy, writtenBy releases
}

const (
	kb16 = 16 << 10
	kb64 = 64 << 10
)

var (
	profile21      = Profile{PartitionSizeBuckets: 150, CellCountBuckets: 114, TombstoneMaxBins: 100, DefaultChunkLength: kb64, DefaultColumnIndexSize: kb64, LZ4: LZ4R100}
	profile2x      = Profile{PartitionSizeBuckets: 150, CellCountBuckets: 114, TombstoneMaxBins: 100, DefaultChunkLength: kb64, DefaultColumnIndexSize: kb64, LZ4: LZ4R123}
	profile30early = Profile{PartitionSizeBuckets: 150, CellCountBuckets: 114, TombstoneMaxBins: 100, SentinelTombstoneBin: true, DefaultChunkLength: kb64, DefaultColumnIndexSize: kb64, LZ4: LZ4R123}
	profile30mb    = Profile{PartitionSizeBuckets: 150, CellCountBuckets: 114, TombstoneMaxBins: 100, SentinelTombstoneBin: true, SentinelCountsLiveness: true, DefaultChunkLength: kb64, DefaultColumnIndexSize: kb64, LZ4: LZ4R123}
	profile30      = Profile{PartitionSizeBuckets: 150, CellCountBuckets: 114, TombstoneMaxBins: 100, SentinelCountsLiveness: true, DefaultChunkLength: kb64, DefaultColumnIndexSize: kb64, LZ4: LZ4R123}
	profile311     = Profile{PartitionSizeBuckets: 150, CellCountBuckets: 118, TombstoneMaxBins: 100, DefaultChunkLength: kb64, DefaultColumnIndexSize: kb64, LZ4: LZ4R123}
	profile40pre   = Profile{PartitionSizeBuckets: 150, CellCountBuckets: 114, DoubleCellCounts: true, DefaultChunkLength: kb64, DefaultColumnIndexSize: kb64, LZ4: LZ4R123, Reconcile4: true, KeyCount50: true}
	profile40      = Profile{PartitionSizeBuckets: 150, CellCountBuckets: 118, DefaultChunkLength: kb16, DefaultColumnIndexSize: kb64, Reconcile4: true, KeyCount50: true}
	profile50      = Profile{PartitionSizeBuckets: 155, CellCountBuckets: 118, DefaultChunkLength: kb16, DefaultColumnIndexSize: kb64, OrderedTOC: true, LiveComplexDeletionWrap: true, Reconcile4: true, KeyCount50: true}
	profileScylla  = Profile{PartitionSizeBuckets: 150, CellCountBuckets: 118, TombstoneMaxBins: 100, DefaultChunkLength: kb64, DefaultColumnIndexSize: kb64, NaNCompressionRatio: true, ScyllaCompressionRatio: true, UnroundedDropTimes: true, ZeroCommitLogBounds: true, ScyllaTypeNames: true, Reconcile4: true}
	profile50bti   = Profile{PartitionSizeBuckets: 155, CellCountBuckets: 118, DefaultChunkLength: kb16, DefaultColumnIndexSize: kb16, OrderedTOC: true, LiveComplexDeletionWrap: true, Reconcile4: true, KeyCount50: true}
)

// The features of the 2.x versions and of the 3.x base (ma).
const (
	base2x = legacyCells | adlerChecksums | oldBloomHashOrder | summaryBoundaries | compactionAncestors | legacyMinMax | oldBloomFilterFormat
	base3x = legacyMinMax | oldBloomFilterFormat
	base40 = commitLogLowerBound | commitLogIntervals | accurateMinMax | legacyMinMax | maxCompressedLength | pendingRepair | isTransient | metadataChecksum
	base50 = commitLogLowerBound | commitLogIntervals | maxCompressedLength | pendingRepair | isTransient | metadataChecksum |
		originatingHostID | improvedMinMax | partitionDeletionMarker | keyRange | uintDeletionTime | tokenSpaceCoverage
)

// versions is the one table of every version.
var versions = []info{
	{"ka", "Cassandra 2.1", base2x | sha1Digest | legacyFileName, profile21, Cells2x, "la", c311, 0},
	{"la", "Cassandra 2.2", base2x | writable, profile2x, Cells2x, "", c311, 0},
	{"lb", "Cassandra 2.2.7+", base2x | commitLogLowerBound, profile2x, Cells2x, "la", c311, 0},
	{"ma", "Cassandra 3.0.0–3.0.6, 3.1–3.6", base3x | writable, profile30early, Big, "", c311 | c50, 0},
	{"mb", "Cassandra 3.0.7, 3.7–3.8", base3x | commitLogLowerBound | writable, profile30mb, Big, "", c311 | c50, 0},
	{"mc", "Cassandra 3.0.8–3.0.17, 3.9–3.11.3", base3x | commitLogLowerBound | commitLogIntervals | writable, profile30, Big, "", c311 | c50, 0},
	{"md", "Cassandra 3.0.18–3.0.24, 3.11.4–3.11.10", base3x | commitLogLowerBound | commitLogIntervals | accurateMinMax | writable, profile311, Big, "", c311 | c50, 0},
	{"me", "Cassandra 3.0.25+, 3.11.11+", base3x | commitLogLowerBound | commitLogIntervals | accurateMinMax | originatingHostID | writable, profile311, Big, "", c311 | c50, c311},
	{"na", "Cassandra 4.0 pre-releases", base40 | writable, profile40pre, Big, "", c50, 0},
	{"nb", "Cassandra 4.0.0–4.1, 5.0 in compatibility mode", base40 | originatingHostID | writable | vectorType, profile40, Big, "", c50, c50},
	{"nc", "unreleased Cassandra trunk builds of 2023", base40 | originatingHostID | partitionDeletionMarker | trailingImprovedMinMax | keyRange | writable | vectorType, profile50, Big, "", c50, 0},
	{"oa", "Cassandra 5.0", base50 | writable | vectorType, profile50, Big, "", c50, c50},
	{"da", "Cassandra 5.0 (BTI)", base50 | accurateMinMax | tries | writable | vectorType, profile50bti, BTI, "", c50, c50},
	{"ms", "ScyllaDB 2025+ (BTI)", base3x | commitLogLowerBound | commitLogIntervals | accurateMinMax | originatingHostID | tries | scylla | writable | vectorType, profileScylla, BTI, "", 0, 0},
	{"mt", "ScyllaDB 2025+ (BTI)", base3x | commitLogLowerBound | commitLogIntervals | accurateMinMax | originatingHostID | tries | scylla | writable | vectorType, profileScylla, BTI, "", 0, 0},
}

// Version is one SSTable format version. The zero Version is invalid.
type Version struct{ i *info }

// Parse returns the version of two letters ("nb"), or an error naming the
// versions castable knows.
func Parse(name string) (Version, error) {
	for i := range versions {
		if versions[i].name == name {
			return Version{&versions[i]}, nil
		}
	}
	return Version{}, fmt.Errorf("unknown SSTable version %q (castable knows %s)", name, strings.Join(Names(), ", "))
}

// MustParse is Parse for the names of this package's table; it panics on
// another.
func MustParse(name string) Version {
	v, err := Parse(name)
	if err != nil {
		panic(err)
	}
	return v
}

// All returns every version, oldest first.
func All() []Version {
	out := make([]Version, len(versions))
	for i := range versions {
		out[i] = Version{&versions[i]}
	}
	return out
}

// Names returns the two letters of every version.
func Names() []string {
	out := make([]string, len(versions))
	for i := range versions {
		out[i] = versions[i].name
	}
	return out
}

func (v Version) has(f feature) bool { return v.i != nil && v.i.f&f != 0 }

// String returns the two letters ("nb").
func (v Version) String() string {
	if v.i == nil {
		return ""
	}
	return v.i.name
}

// IsValid reports whether v is a version of the table (not the zero one).
func (v Version) IsValid() bool { return v.i != nil }

// Release names the releases that write v.
func (v Version) Release() string {
	if v.i == nil {
		return ""
	}
	return v.i.release
}

// Profile returns what v's writer release does beyond the format flags.
func (v Version) Profile() Profile {
	if v.i == nil {
		return Profile{}
	}
	return v.i.profile
}

// Writable reports whether castable writes v (ka and lb are read only).
func (v Version) Writable() bool { return v.has(writable) }

// WriteAs is the version a rewrite of v (convert or scrub without a target)
// writes: v itself when castable writes it, else the writable version of
// its family that reads the same (la for Cassandra 2.1's ka and 2.2.7's
// lb).
func (v Version) WriteAs() Version {
	if v.i == nil || v.Writable() {
		return v
	}
	return MustParse(v.i.writeAs)
}

// Family is the castable package that reads and writes v.
func (v Version) Family() Family {
	if v.i == nil {
		return 0
	}
	return v.i.family
}

// ReadBy reports whether Cassandra of the given release ("3.11", "5.0";
// see Releases) opens and reads SSTables of version v: 3.11 reads ka … me,
// 5.0 reads ma … oa and da, neither reads ScyllaDB's ms and mt. It panics
// for a release the table does not know, as MustParse does for a version.
func (v Version) ReadBy(release string) bool {
	r := releaseOf(release)
	return v.i != nil && v.i.readBy&r != 0
}

// WrittenBy reports whether Cassandra of the given release writes version v
// in some configuration: 3.11 writes me; 5.0 writes nb (in its default
// storage_compatibility_mode CASSANDRA_4), oa (mode NONE) and da
// (selected_format: bti). It panics for an unknown release.
func (v Version) WrittenBy(release string) bool {
	r := releaseOf(release)
	return v.i != nil && v.i.writtenBy&r != 0
}

// OfFamily returns the versions family f serves, oldest first: what its
// package registers.
func OfFamily(f Family) []Version {
	return Select(func(v Version) bool { return v.Family() == f })
}

// Select returns the versions for which keep holds, oldest first.
func Select(keep func(Version) bool) []Version {
	var out []Version
	for i := range versions {
		if v := (Version{&versions[i]}); keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// Summarize names versions for a message or a help text, in table order,
// with a run of four or more that follow each other in the table within one
// family shortened to its ends: the writable versions are "la, ma … oa,
// da, ms, mt".
func Summarize(vs []Version) string {
	index := func(v Version) int {
		for i := range versions {
			if &versions[i] == v.i {
				return i
			}
		}
		return -1
	}
	var parts []string
	for i := 0; i < len(vs); {
		j := i + 1
		for j < len(vs) && index(vs[j]) == index(vs[j-1])+1 && vs[j].Family() == vs[i].Family() {
			j++
		}
		if j-i >= 4 {
			parts = append(parts, vs[i].String()+" … "+vs[j-1].String())
		} else {
			for _, v := range vs[i:j] {
				parts = append(parts, v.String())
			}
		}
		i = j
	}
	return strings.Join(parts, ", ")
}

// FileKind is the format name in v's file names: "big", or "bti" for
// Cassandra's trie-indexed versions (ScyllaDB names its ms/mt files big).
func (v Version) FileKind() string {
	if v.has(tries) && !v.has(scylla) {
		return "bti"
	}
	return "big"
}

// LegacyFileName reports whether Cassandra names v's files
// "<keyspace>-<table>-<version>-<generation>-<Component>" (ka and older;
// 2.2 introduced "la-1-big-Data.db"). castable reads both names for them.
func (v Version) LegacyFileName() bool { return v.has(legacyFileName) }

// LegacyCells reports whether Data.db holds Cassandra 2.x cells (ka, la,
// lb) rather than the rows of the 3.0 storage engine.
func (v Version) LegacyCells() bool { return v.has(legacyCells) }

// Tries reports whether the partition and row indexes are BTI tries
// (Partitions.db, Rows.db) rather than Index.db and Summary.db.
func (v Version) Tries() bool { return v.has(tries) }

// Scylla reports whether v is one of ScyllaDB's own versions (with its
// Scylla.db component).
func (v Version) Scylla() bool { return v.has(scylla) }

// AdlerChecksums reports whether compressed chunks, CRC.db and the digest
// use Adler-32 (before ma) rather than CRC-32.
func (v Version) AdlerChecksums() bool { return v.has(adlerChecksums) }

// DigestComponent is the name of v's whole-file digest component.
func (v Version) DigestComponent() string {
	switch {
	case v.has(sha1Digest):
		return "Digest.sha1"
	case v.has(adlerChecksums):
		return "Digest.adler32"
	}
	return "Digest.crc32"
}

// OldBloomHashOrder reports whether the bloom filter uses the Murmur3 halves
// in the pre-3.0 order (base = h1, increment = h2).
func (v Version) OldBloomHashOrder() bool { return v.has(oldBloomHashOrder) }

// OldBloomFilterFormat reports whether Filter.db stores the bitset as
// big-endian 64-bit words (each 8-byte group byte-reversed), as before 4.0,
// rather than as the in-memory bytes.
func (v Version) OldBloomFilterFormat() bool { return v.has(oldBloomFilterFormat) }

// SummaryBoundaries reports whether Summary.db ends with the segment
// boundaries trailer (before ma).
func (v Version) SummaryBoundaries() bool { return v.has(summaryBoundaries) }

// CompactionAncestors reports whether Statistics.db's compaction metadata
// starts with the ancestor generations (before ma).
func (v Version) CompactionAncestors() bool { return v.has(compactionAncestors) }

// HasCommitLogLowerBound reports whether Statistics.db holds the commit
// log lower bound (lb, and mb on).
func (v Version) HasCommitLogLowerBound() bool { return v.has(commitLogLowerBound) }

// HasCommitLogIntervals reports whether Statistics.db holds the commit log
// intervals (mc on).
func (v Version) HasCommitLogIntervals() bool { return v.has(commitLogIntervals) }

// HasAccurateMinMax reports whether the min/max clustering values are the
// whole smallest and largest clustering prefixes (md on) rather than
// per-component minima and maxima.
func (v Version) HasAccurateMinMax() bool { return v.has(accurateMinMax) }

// HasLegacyMinMax reports whether Statistics.db holds the min/max
// clustering values as lists of components (up to nc).
func (v Version) HasLegacyMinMax() bool { return v.has(legacyMinMax) }

// HasOriginatingHostID reports whether Statistics.db holds the originating
// host id (me, nb on; not na).
func (v Version) HasOriginatingHostID() bool { return v.has(originatingHostID) }

// HasMaxCompressedLength reports whether CompressionInfo.db holds
// maxCompressedLength, above which a chunk is stored uncompressed (na on).
func (v Version) HasMaxCompressedLength() bool { return v.has(maxCompressedLength) }

// HasPendingRepair reports whether Statistics.db holds the pending repair
// session (na on).
func (v Version) HasPendingRepair() bool { return v.has(pendingRepair) }

// HasIsTransient reports whether Statistics.db holds the transient flag (na
// on).
func (v Version) HasIsTransient() bool { return v.has(isTransient) }

// HasMetadataChecksum reports whether Statistics.db carries CRC-32s of its
// table of contents and of each component (na on).
func (v Version) HasMetadataChecksum() bool { return v.has(metadataChecksum) }

// HasImprovedMinMax reports whether Statistics.db holds the covered
// clustering slice (typed bounds) in place of the legacy min/max (oa on).
func (v Version) HasImprovedMinMax() bool { return v.has(improvedMinMax) }

// HasTrailingImprovedMinMax reports nc's layout: the covered slice after
// the originating host id, with the legacy min/max kept.
func (v Version) HasTrailingImprovedMinMax() bool { return v.has(trailingImprovedMinMax) }

// HasPartitionLevelDeletionsPresenceMarker reports whether Statistics.db
// says whether any partition has a partition deletion (nc, oa on).
func (v Version) HasPartitionLevelDeletionsPresenceMarker() bool {
	return v.has(partitionDeletionMarker)
}

// HasKeyRange reports whether Statistics.db holds the first and last keys
// (nc, oa on).
func (v Version) HasKeyRange() bool { return v.has(keyRange) }

// UIntDeletionTime reports whether local deletion times are unsigned 32-bit
// (valid to 2106) and a live fixed-form deletion time is the single byte
// 0x80 (oa on).
func (v Version) UIntDeletionTime() bool { return v.has(uintDeletionTime) }

// HasTokenSpaceCoverage reports whether Statistics.db holds the fraction of
// the token space the SSTable covers (oa on).
func (v Version) HasTokenSpaceCoverage() bool { return v.has(tokenSpaceCoverage) }

// HasVectorType reports whether a release that writes v writes vector<T,
// n> columns (Cassandra 5.0's VectorType, CASSANDRA-18504): nb (5.0 in its
// compatibility mode writes nb; 4.x does not know the type), nc (the trunk
// and 5.0-alpha builds of June–November 2023 had both), oa, da, and
// ScyllaDB's ms and mt (ScyllaDB 2025.2 added vector_type_impl; ms and mt
// came after it). Not la, ma … me or na: Cassandra 2.2 … 3.11 and the 4.0
// pre-releases have no VectorType. ScyllaDB 2025.2+ also writes vectors
// into its md and me files, but those letters are Cassandra 3.x's too,
// whose readers cannot load the type; castable does not write them.
func (v Version) HasVectorType() bool { return v.has(vectorType) }

// StreamsTo reports whether Cassandra of major release r (3, 4 or 5)
// accepts v when streaming (sstableloader, repair): only its own major
// version (BigVersion.isCompatibleForStreaming).
func (v Version) StreamsTo(major int) bool {
	if v.i == nil {
		return false
	}
	return int(v.i.name[0]-'m')+3 == major || (v.i.name[0] == 'd' && major == 5)
}
