package sstables

import (
	"fmt"
	"math"
	"strings"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables/version"
)

// Format is one SSTable format version ("nb", "la", "da"). The format
// packages implement it and register it (Register); flush and the tools
// find it with Lookup and use nothing else of them.
type Format interface {
	// Version is the version written in file names.
	Version() version.Version
	// NewWriter starts a new SSTable of table in opts.Dir with generation
	// opts.Generation. Nothing is visible under the final names until
	// Writer.Finish succeeds.
	NewWriter(table *schema.Table, opts WriterOptions) (Writer, error)
	// Open opens the complete SSTable desc. table may be nil when the
	// version can recover the schema from its own metadata (mc's
	// serialization header); la without a schema reads values as blobs.
	Open(desc Descriptor, table *schema.Table, opts ReaderOptions) (Reader, error)
}

// Writer writes one SSTable. Partitions must come in partition order (token,
// then key bytes; see package dht) under the table's partitioner
// (schema.Options.Partitioner, Murmur3 by default), which Statistics.db
// names, and rows and markers in clustering order.
//
// A Writer's errors are sticky: after a failed call every later call returns
// the same error, and the caller must Abort. Finish or Abort must be called
// exactly once; Abort removes every file the writer created.
type Writer interface {
	// Append writes a whole partition. The writer does not keep p.
	Append(p *mutation.Partition) error
	// StartPartition, AppendRow, AppendMarker and EndPartition write a
	// partition piece by piece, for partitions too large to hold at once.
	// StartPartition uses p's Key, Token, Deletion and Static and ignores its
	// Rows and Markers.
	StartPartition(p *mutation.Partition) error
	AppendRow(r *mutation.Row) error
	AppendMarker(m *mutation.RangeTombstoneMarker) error
	EndPartition() error
	// Finish writes the remaining components, syncs them, writes TOC.txt
	// last and makes the SSTable visible under its final names.
	Finish() (*WriteResult, error)
	// Abort removes everything the writer created. It is safe to call after
	// a failed Finish and returns the first removal error, if any.
	Abort() error
}

// KeyFilter is implemented by readers that can tell from Filter.db
// (read once, kept) whether a partition key may be in the SSTable.
type KeyFilter interface {
	MayContain(key []byte) (bool, error)
}

// MayContain reports whether r may hold key's partition: its bloom filter
// says so, or it has none, or r cannot tell (no KeyFilter, or the filter
// does not read: then it may).
func MayContain(r Reader, key []byte) bool {
	if f, ok := r.(KeyFilter); ok {
		if may, err := f.MayContain(key); err == nil {
			return may
		}
	}
	return true
}

// KeyEstimator is implemented by readers that know SSTableReader.
// estimatedKeys(): the big format's and 2.x's from Summary.db
// (Summary.EstimatedKeys), BTI's from Partitions.db's key count. It is
// what ApproximateKeyCount falls back on.
type KeyEstimator interface {
	EstimatedKeys() (int64, error)
}

// DataSizer is implemented by writers that tell how much of Data.db they
// have written: uncompressed bytes serialized (exact and reproducible
// between partitions), and bytes on disk (the chunks still being
// compressed not counted, so it depends on timing). A compaction cutting
// its output at a size asks it between partitions.
type DataSizer interface {
	DataSize() (uncompressed, onDisk int64)
}

// AppendPieces writes p through w's StartPartition, AppendRow, AppendMarker
// and EndPartition, its rows merged with its markers in clustering order
// (t's comparator): what every Writer's Append does. fail turns an error of
// that merge into the writer's sticky error.
func AppendPieces(w Writer, t *schema.Table, p *mutation.Partition, fail func(error) error) error {
	if err := w.StartPartition(p); err != nil {
		return err
	}
	if len(p.Markers) == 0 {
		// Rows only: no merge with markers to do.
		for i := range p.Rows {
			if err := w.AppendRow(&p.Rows[i]); err != nil {
				return err
			}
		}
		return w.EndPartition()
	}
	err := p.Unfiltered(t, func(r *mutation.Row, m *mutation.RangeTombstoneMarker) error {
		if r != nil {
			return w.AppendRow(r)
		}
		return w.AppendMarker(m)
	})
	if err != nil {
		return fail(err)
	}
	return w.EndPartition()
}

// WithPartitioner returns t, or when its partitioner is not p a shallow copy
// of t naming p, so that a table read from an SSTable says how the file is
// ordered.
func WithPartitioner(t *schema.Table, p dht.Partitioner) *schema.Table {
	if q, err := dht.Lookup(t.Options.Partitioner); err == nil && q == p {
		return t
	}
	c := *t
	c.Options.Partitioner = p.Name()
	return &c
}

// FilePartitioner returns the partitioner of the class name Statistics.db
// (at path) holds; a name castable does not know is a CorruptionError
// naming the file.
func FilePartitioner(name, path string) (dht.Partitioner, error) {
	p, err := dht.Lookup(name)
	if err != nil {
		return nil, &CorruptionError{Path: path, Component: string(ComponentStatistics), Offset: -1, Reason: "validation metadata names an unusable partitioner", Err: err}
	}
	return p, nil
}

// WriterPartitioner returns the partitioner a writer of t uses, or an error
// naming the table when t names an unknown one.
func WriterPartitioner(t *schema.Table) (dht.Partitioner, error) {
	p, err := dht.Lookup(t.Options.Partitioner)
	if err != nil {
		return nil, fmt.Errorf("table %s.%s: %w", t.Keyspace, t.Name, err)
	}
	return p, nil
}

// CheckTypes reports whether version v can hold every column type of t:
// an error naming the table, the column, its type and the version when a
// release that writes v has no such type (a vector before nb,
// version.HasVectorType). Every writer calls it before writing anything,
// so write, convert and flush refuse alike.
func CheckTypes(v version.Version, t *schema.Table) error {
	if v.HasVectorType() {
		return nil
	}
	for _, c := range t.Columns() {
		if hasKind(c.Type, schema.KindVector) {
			var with []string
			for _, o := range version.All() {
				if o.HasVectorType() && o.Writable() {
					with = append(with, o.String())
				}
			}
			return fmt.Errorf("table %s.%s: column %s is a %s, and version %s (%s) has no vector type: Cassandra 5.0 brought vector<T, n>, which versions %s hold",
				t.Keyspace, t.Name, c.Name, c.Type.Unreversed(), v, v.Release(), strings.Join(with, ", "))
		}
	}
	return nil
}

// hasKind reports whether t is or holds a type of kind k.
func hasKind(t *schema.Type, k schema.Kind) bool {
	if t.Kind == k {
		return true
	}
	for _, p := range t.Params {
		if hasKind(p, k) {
			return true
		}
	}
	return false
}

// WriteResult describes a finished SSTable.
type WriteResult struct {
	Descriptor Descriptor
	// Components are the components written, TOC.txt included.
	Components []Component
	Partitions int64
	// Rows counts clustering rows and non-empty static rows.
	Rows int64
	// Cells counts cells (complex elements included, tombstones included).
	Cells int64
	// DataLength is the uncompressed length of Data.db's content;
	// DataFileSize is its size on disk.
	DataLength   int64
	DataFileSize int64
	// BytesWritten is the total size of all components.
	BytesWritten int64
	// Digest is the whole-file checksum of Data.db as written to Digest.*.
	Digest uint32
}

// WriterOptions configure a Writer. The zero value of every field means the
// default given in its comment.
type WriterOptions struct {
	// Dir is the directory to write into (required).
	Dir string
	// Generation is the SSTable generation (> 0); exactly one of
	// Generation and UUID is set.
	Generation int
	// UUID is a UUID-based identifier (UUIDID.String(), as Cassandra 4.1+
	// names SSTables with uuid_sstable_identifiers_enabled).
	UUID string
	// FS is the filesystem to write through; nil means the OS filesystem.
	FS FS
	// Compression selects the codec and chunk length; the zero value means
	// the table's options (schema.Options.Compression), which default to
	// Cassandra's LZ4 with 64 KiB chunks.
	Compression *compress.Params
	// Jobs is the number of goroutines compressing chunks; 0 means
	// runtime.GOMAXPROCS(0), 1 compresses inline.
	Jobs int
	// BufferedIO writes Data.db through the page cache. By default an OS
	// file's Data.db is written with direct I/O where the filesystem allows
	// it (see DataWriterOptions.BufferedIO), which leaves it out of the
	// page cache.
	BufferedIO bool
	// ExpectedPartitions sizes the bloom filter; Cassandra's flush passes the
	// exact partition count, which makes Filter.db reproducible. 0 means the
	// writer keeps the keys' hashes and sizes the filter at Finish from the
	// real count.
	ExpectedPartitions int64
	// ColumnIndexSize is column_index_size_in_kb in bytes: the promoted
	// index cuts a block after this many bytes. 0 means 64 KiB.
	ColumnIndexSize int
	// Stats are facts about the data to be written that formats need before
	// writing it (mc's serialization header). The zero value means "unknown":
	// a writer that needs them uses safe defaults.
	Stats DataStats
	// HeaderAllColumns lists every table column in mc's serialization
	// header instead of only the columns that occur (Stats.Columns).
	HeaderAllColumns bool
	// ScyllaShadowable encodes shadowable row deletions with ScyllaDB's row
	// extended flag 0x80 instead of Cassandra's 0x02.
	ScyllaShadowable bool
	// ShadowableAsRegular writes a shadowable row deletion (Cassandra's
	// materialized-view kind, Row.DeletionShadowable, or ScyllaDB's,
	// Row.ShadowableDeletion) as a regular row deletion, the greater of
	// the two, in versions that have none (la). By default such a row is
	// an error naming the partition.
	ShadowableAsRegular bool
	// Metadata carries Statistics.db values that do not follow from the
	// data; the zero value is what a memtable flush writes.
	Metadata Metadata
	// ReproduceLostComplexDeletions writes a row's complex deletions only
	// when its last complex column has one, as Cassandra 5.0 does (its
	// BTreeRow.hasComplexDeletion looks at the last complex column only),
	// losing the others on disk while Statistics.db still counts them: for
	// reproducing what a 5.0 node writes byte for byte. By default castable
	// writes every complex deletion: a lost one lets older collection
	// elements reappear once the rows meet in a later merge.
	ReproduceLostComplexDeletions bool
	// TrailingEmptyChunk ends Data.db with an empty chunk, as Cassandra's
	// compaction writer does (DataWriterOptions.TrailingEmptyChunk);
	// CarryOver keeps an input's.
	TrailingEmptyChunk bool
	// TOCOrder is the order TOC.txt lists the components in, for versions
	// whose writer release iterates a hash set (Profile.OrderedTOC false:
	// the order changes with every start of the JVM); CarryOver takes it
	// from the input's TOC.txt. nil means castable's canonical order.
	TOCOrder []Component
	// Profile overrides the writer release's habits that no format flag
	// decides (histogram sizes, the tombstone histogram's live-cell bin,
	// TOC order; version.Profile). nil means the version's own
	// (Version.Profile): what its most common release writes. CarryOver
	// sets it from an input SSTable, whose release may differ.
	Profile *version.Profile
}

// ProfileFor returns Profile, or v's own profile when it is nil.
func (o *WriterOptions) ProfileFor(v version.Version) version.Profile {
	if o.Profile != nil {
		return *o.Profile
	}
	return v.Profile()
}

// Descriptor returns the SSTable the options name in version v, or an
// error when Dir or the identifier is missing or malformed.
func (o *WriterOptions) Descriptor(v version.Version) (Descriptor, error) {
	d := Descriptor{Dir: o.Dir, Version: v, Generation: o.Generation}
	switch {
	case o.Dir == "":
		return d, fmt.Errorf("sstables: WriterOptions need a Dir")
	case o.UUID != "" && o.Generation != 0:
		return d, fmt.Errorf("sstables: WriterOptions give both a Generation (%d) and a UUID (%s)", o.Generation, o.UUID)
	case o.UUID != "":
		u, err := ParseUUIDID(o.UUID)
		if err != nil {
			return d, fmt.Errorf("sstables: WriterOptions.UUID: %w", err)
		}
		d.UUID = u.String()
	case o.Generation <= 0:
		return d, fmt.Errorf("sstables: WriterOptions need a Generation > 0 or a UUID (got %d)", o.Generation)
	}
	if !v.Writable() {
		return d, fmt.Errorf("sstables: version %s (%s) is read only", v, v.Release())
	}
	return d, nil
}

// DataStats are the minima Cassandra's memtable tracks and the columns it
// saw; mc delta-encodes times against the minima and lists the columns in its
// serialization header.
type DataStats struct {
	// Known says the fields below are filled in.
	Known bool
	// MinTimestamp is the smallest timestamp of any liveness, cell or
	// deletion (µs).
	MinTimestamp int64
	// MinLocalDeletionTime is the smallest local deletion time of any
	// tombstone or expiring cell/liveness (s).
	MinLocalDeletionTime int64
	// MinTTL is the smallest TTL of any expiring cell/liveness (s).
	MinTTL int32
	// Columns are the static and regular columns that occur in the data
	// (with a cell or a complex deletion); nil means all of the table's.
	Columns []*schema.Column
}

// WithEpochs returns s with the values Cassandra's EncodingStats stores
// for "no such value" in its minima (EncodingStats' constructor): the
// timestamp epoch for mutation.NoTimestamp, the deletion time epoch for
// mutation.NoDeletionTime, as a header built from Statistics.db minima
// (a compaction's) needs.
func (s DataStats) WithEpochs() DataStats {
	if s.MinTimestamp == mutation.NoTimestamp {
		s.MinTimestamp = timestampEpoch
	}
	if s.MinLocalDeletionTime == mutation.NoDeletionTime {
		s.MinLocalDeletionTime = int64(localDeletionTimeEpoch)
	}
	return s
}

// Metadata are Statistics.db values that come from outside the data.
type Metadata struct {
	// RepairedAt is the repair time in ms (0 = unrepaired).
	RepairedAt int64
	// Level is the LCS level (0 for flushes).
	Level int
	// Ancestors are the generations compacted into this SSTable (la only).
	Ancestors []int
	// CommitLogIntervals are the commit log ranges the data came from;
	// empty means none.
	CommitLogIntervals []CommitLogInterval
	// OriginatingHostID is the 16-byte id of the host that wrote the
	// SSTable, in the versions that record it (me, nb on); nil for none.
	OriginatingHostID []byte
	// PendingRepair is the 16-byte TimeUUID of the incremental repair
	// session the SSTable awaits (na on); nil for none.
	PendingRepair []byte
	// IsTransient marks an SSTable of transient replication data (na on).
	IsTransient bool
	// TokenSpaceCoverage is the fraction of the token space the SSTable
	// covers, in the versions that record it (oa, da), as Cassandra's
	// unified compaction strategy sets it; 0 means unset (NaN is written,
	// as a flush does).
	TokenSpaceCoverage float64
}

// MetadataOf returns the Statistics.db values of st that do not follow from
// the data, as a writer takes them, for version v's Statistics.db: its
// commit log intervals (a 2.x replay position, and the bounds of ma and mb,
// become the one interval Cassandra reads them as), repair time, level,
// ancestors, pending repair, transient flag, originating host id and token
// space coverage.
func MetadataOf(st *Statistics, v version.Version) Metadata {
	s := &st.Stats
	m := Metadata{RepairedAt: s.RepairedAt, Level: int(s.Level), PendingRepair: s.PendingRepair,
		IsTransient: s.IsTransient, OriginatingHostID: s.OriginatingHostID}
	for _, a := range st.Ancestors {
		m.Ancestors = append(m.Ancestors, int(a))
	}
	if v.HasTokenSpaceCoverage() && !math.IsNaN(s.TokenSpaceCoverage) {
		m.TokenSpaceCoverage = s.TokenSpaceCoverage
	}
	switch {
	case v.HasCommitLogIntervals():
		m.CommitLogIntervals = s.CommitLogIntervals
	case s.CommitLogUpperBound != CommitLogPositionNone:
		lower := CommitLogPositionNone
		if v.HasCommitLogLowerBound() {
			lower = s.CommitLogLowerBound
		}
		m.CommitLogIntervals = []CommitLogInterval{{Lower: lower, Upper: s.CommitLogUpperBound}}
	}
	return m
}

// CommitLogPosition is a position in the commit log.
type CommitLogPosition struct {
	SegmentID int64
	Position  int32
}

// CommitLogInterval is a range of the commit log.
type CommitLogInterval struct {
	Lower, Upper CommitLogPosition
}

// ReaderOptions configure a Reader.
type ReaderOptions struct {
	// FS is the filesystem to read through; nil means the OS filesystem.
	FS FS
	// CRCCheckChance is the probability that a chunk's checksum is verified
	// when read; 0 means the value stored with the SSTable or the table's,
	// defaulting to 1. Verify always checks every chunk.
	CRCCheckChance float64
	// MaxValueSize bounds what a reader allocates for one length read from
	// Data.db — an mc row or marker body (its cells together) or clustering
	// value, an la cell value — checked before allocating; a larger one is a
	// CorruptionError wrapping ErrValueTooLarge. 0 means
	// DefaultMaxValueSize. Every length is also bounded by the bytes left
	// in Data.db, whatever this limit.
	MaxValueSize int64
	// ReadAhead is the number of Data.db chunks a Scan loads ahead of the
	// decoder on a goroutine of its own (read, checksum, decompress), so
	// that a full scan uses a second core; 0 means none. The scanner's
	// Close stops the goroutine. Lookups never read ahead.
	ReadAhead int
	// IndexCacheBytes is the memory a reader keeps for the index pages it
	// reads as lookups need them (the BTI formats' Partitions.db and
	// Rows.db, each): the pages near a trie's root, which every lookup
	// passes, stay. 0 means 256 KiB.
	IndexCacheBytes int
	// Warn receives what the reader tolerates because the database of the
	// version reads it too (see Warning) — at Open, on the first lookup
	// (a Summary.db or Filter.db rebuilt in memory) and in Verify; nil
	// drops the warnings.
	Warn WarnFunc
	// WarnUncompressedCRC reads an uncompressed Data.db chunk whose CRC.db
	// checksum does not match with a Warning instead of a CorruptionError,
	// as Cassandra's and ScyllaDB's read paths read it (they never consult
	// CRC.db outside verification and streaming). Verify fails the chunk
	// whatever this says. castable dump sets it; scans that must not pass
	// damaged bytes on (scrub, convert) leave it unset.
	WarnUncompressedCRC bool
	// OpaqueUnknownTypes reads a column whose serialization header type is
	// a marshal class castable does not know as opaque bytes: length-
	// prefixed in Data.db, compared unsigned, printed as hex
	// (schema.TypeOptions.OpaqueUnknownTypes). Without it such an SSTable
	// does not open (*UnknownTypeError naming the class). Right only for a
	// class whose values are variable-length: a fixed-length one misreads
	// as corrupt data.
	OpaqueUnknownTypes bool
}

// DefaultMaxValueSize is ReaderOptions.MaxValueSize's default: far above
// what Cassandra accepts in a mutation (max_mutation_size, half of a 32 MiB
// commit log segment by default), far below what a damaged length could
// claim.
const DefaultMaxValueSize = 256 << 20

// Reader reads one SSTable.
type Reader interface {
	// Descriptor names the SSTable.
	Descriptor() Descriptor
	// Table is the schema used to decode the data; its
	// Options.Partitioner is the SSTable's.
	Table() *schema.Table
	// Partitioner is the partitioner Statistics.db names, whose tokens
	// order the partitions and lookups use.
	Partitioner() dht.Partitioner
	// Statistics is the decoded Statistics.db.
	Statistics() *Statistics
	// Scan returns a scanner positioned before the first partition.
	Scan() (Scanner, error)
	// Get looks up a partition by serialized key through Summary.db,
	// Index.db and Data.db; it returns nil, nil when the key is absent.
	Get(key []byte) (*mutation.Partition, error)
	// Lookup is Get that also returns the partition's uncompressed
	// Data.db offset (sstabledump's "position"); -1 when absent.
	Lookup(key []byte) (*mutation.Partition, int64, error)
	// ScanFrom returns a scanner positioned before key's partition (found
	// as Get finds it), from which the scan goes on to the end; nil, nil
	// when the SSTable does not hold key.
	ScanFrom(key []byte) (Scanner, error)
	// Verify checks every chunk checksum, the digest, and that every
	// component parses; the error names file, component and offset.
	Verify() error
	// Close releases the reader's files.
	Close() error
}

// Scanner walks the partitions of an SSTable in order, row by row, so that a
// partition never has to be held in memory as a whole.
type Scanner interface {
	// NextPartition advances to the next partition and returns its header:
	// Key, Token, Deletion and Static are set, Rows and Markers are empty.
	// It returns io.EOF after the last partition. Rows of the previous
	// partition that were not read are skipped.
	NextPartition() (*mutation.Partition, error)
	// Next returns the next row or marker of the current partition (exactly
	// one of the two is non-nil) and nil, nil, nil at the partition's end.
	// The returned values are valid until the next call.
	Next() (*mutation.Row, *mutation.RangeTombstoneMarker, error)
	// Position is the uncompressed Data.db offset of the current partition.
	Position() int64
	// Close releases the scanner.
	Close() error
}

// ClusteringSeeker is implemented by scanners that can skip forward inside
// the current partition without decoding what they skip (mc, through the
// promoted index of Index.db). Use it by type assertion on a Scanner.
//
// SeekClustering positions the scan at the clustering prefix ck — the
// inclusive start bound of ck, before every row whose clustering extends
// ck or sorts after it. What Next returns afterwards is exactly what a scan
// of the partition restricted to [ck, end) returns, as if the partition
// started there:
//
//   - rows and markers that sort before the inclusive start bound of ck are
//     skipped, and so are markers at that very position (an exclusive end
//     bound at ck closes a range before ck; the deletion a start bound or
//     boundary at ck opens is reported as below);
//   - when a range deletion is open at ck, Next first returns a marker of
//     kind mutation.InclStartBound with clustering ck and Open set to that
//     deletion, so that no deletion is lost; its end marker follows later
//     as usual;
//   - then the rows and markers after ck, and the partition's end.
//
// Seeking twice forward gives what seeking once to the second prefix gives.
// ck must not sort before anything Next has already returned in the
// partition (seeking backwards is an error), and may be shorter than the
// clustering key. Before the first NextPartition it is an error; after the
// partition's end it does nothing. Without a promoted index (small
// partitions) the skipped rows are decoded and dropped.
type ClusteringSeeker interface {
	SeekClustering(ck mutation.Clustering) error
}

// CommitLogPositionNone is Cassandra's CommitLogPosition.NONE: the
// position of data that did not come from the commit log.
var CommitLogPositionNone = CommitLogPosition{SegmentID: -1, Position: 0}
