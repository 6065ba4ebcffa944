// Package schema describes CQL types and tables as Cassandra 3.11 knows them,
// and Cassandra 5.0's vector<T, n>:
// the binary serialization of every type, its comparison order, its JSON and
// string renderings as sstabledump prints them, its marshal class name, and
// the table metadata (key and clustering columns, static and regular columns,
// and the table options that change bytes on disk).
//
// Values are always handled in their serialized form ([]byte); the type knows
// how to compare, validate and render them.
package schema

// Kind is the kind of a CQL type.
type Kind uint8

// The CQL type kinds. Native kinds come first, then the parameterised ones.
const (
	KindInvalid Kind = iota
	KindAscii
	KindBigint
	KindBlob
	KindBoolean
	KindCounter
	KindDate
	KindDecimal
	KindDouble
	KindDuration
	KindFloat
	KindInet
	KindInt
	KindSmallint
	KindText // text and varchar
	KindTime
	KindTimestamp
	KindTimeuuid
	KindTinyint
	KindUUID
	KindVarint
	KindEmpty // org.apache.cassandra.db.marshal.EmptyType (hidden compact-storage columns)
	KindList
	KindSet
	KindMap
	KindTuple
	KindUDT
	// KindVector is Cassandra 5.0's vector<T, n> (VectorType): exactly
	// Dimension non-null elements of type Params[0]. Vectors are always
	// frozen (one cell), whatever their element type.
	KindVector
	// KindCustom is a marshal class this package models only by its name
	// and length: the legacy DateType (8 bytes) and LexicalUUIDType (16
	// bytes), which have known layouts and orders, and — only where the
	// caller opted in (MarshalOptions.OpaqueUnknownTypes) — any other class,
	// read as opaque length-prefixed bytes compared unsigned. Custom keeps
	// the class name so the type round-trips.
	KindCustom
)

// Type is a CQL type. Types are immutable once built; share them freely.
type Type struct {
	Kind Kind
	// Frozen marks a frozen collection or UDT (a single cell holding the
	// whole value). Tuples are always frozen.
	Frozen bool
	// Reversed marks a clustering column declared DESC
	// (ReversedType(...)): values compare in the opposite order.
	Reversed bool
	// Params are the element types: [elem] for list, set and vector, [key,
	// value] for map, the component types for a tuple, the field types of a
	// UDT. A vector keeps its element type as declared: vector<list<int>, 2>
	// has a non-frozen list element (Cassandra names it ListType(...), not
	// FrozenType(ListType(...))), although its values are frozen lists.
	Params []*Type
	// Dimension is the element count of a vector (KindVector), at least 1.
	Dimension int
	// FieldNames are the UDT field names, parallel to Params.
	FieldNames []string
	// Keyspace and Name identify a UDT.
	Keyspace, Name string
	// Custom is the fully qualified marshal class of a KindCustom type.
	Custom string
}

// ColumnKind says which part of the primary key, if any, a column belongs to.
type ColumnKind uint8

// The column kinds, in the order Cassandra lists them.
const (
	PartitionKey ColumnKind = iota + 1
	ClusteringKey
	Static
	Regular
)

// Column is a column of a table.
type Column struct {
	Name string
	Type *Type
	Kind ColumnKind
	// Index is the column's position: within the partition key, within the
	// clustering key, or within its kind's canonical order (for static and
	// regular columns: simple columns first, then complex ones, each group
	// by name bytes as Cassandra orders them).
	Index int
	// Hidden marks a column Cassandra 3.x adds to a COMPACT STORAGE table
	// that CQL does not show (the EmptyType "value" column of a dense table
	// without regular columns, or "column1"/"value" of a static compact
	// table).
	Hidden bool
}

// Table is the metadata of a CQL table. Build one with the cql package or
// NewTable; the column slices are in canonical order and must not be changed.
type Table struct {
	Keyspace string
	Name     string
	// PartitionKey holds the partition key columns in declaration order.
	PartitionKey []*Column
	// Clustering holds the clustering columns in declaration order; a DESC
	// column has a Reversed type.
	Clustering []*Column
	// Static and Regular hold the static and regular columns in canonical
	// order.
	Static  []*Column
	Regular []*Column
	// Options are the table options that change bytes on disk.
	Options Options

	byName map[string]*Column
}

// Options are the table options that change what is written to disk. The
// zero value of a field means "Cassandra's default" (see each field).
type Options struct {
	// Compression is the table's compression map as written in CQL
	// (keys such as "class", "sstable_compression", "chunk_length_in_kb",
	// "chunk_length_kb", "crc_check_chance", or codec-specific options).
	// Nil means Cassandra's default: LZ4Compressor with 64 KiB chunks. A map
	// whose class is the empty string means uncompressed.
	Compression map[string]string
	// BloomFilterFPChance is bloom_filter_fp_chance; 0 means 0.01.
	BloomFilterFPChance float64
	// MinIndexInterval is min_index_interval; 0 means 128.
	MinIndexInterval int
	// MaxIndexInterval is max_index_interval; 0 means 2048.
	MaxIndexInterval int
	// CRCCheckChance is crc_check_chance; 0 means 1.0, CRCCheckNever an
	// explicit 0 (never verify).
	CRCCheckChance float64
	// CompactStorage is set by WITH COMPACT STORAGE.
	CompactStorage bool
	// DefaultTimeToLive is default_time_to_live in seconds, the TTL of
	// writes without USING TTL; 0 means none.
	DefaultTimeToLive int
	// Partitioner is the class name of the partitioner whose tokens order
	// the table's partitions, full or short ("ByteOrderedPartitioner");
	// empty means Murmur3Partitioner. Cassandra sets it per cluster
	// (cassandra.yaml), never per table, and names it in every SSTable's
	// Statistics.db; see package dht.
	Partitioner string
	// GCGraceSeconds is gc_grace_seconds when GCGraceSet (an explicit 0
	// is a real setting); otherwise Cassandra's default,
	// DefaultGCGraceSeconds. GCGrace returns the effective value.
	GCGraceSeconds int
	GCGraceSet     bool
	// Compaction is the compaction map as written in CQL ("class",
	// "min_threshold", "only_purge_repaired_tombstones", …); nil means
	// Cassandra's default (size-tiered).
	Compaction map[string]string
	// Extra keeps the other table options (caching, comment, ...) as
	// written, for information only.
	Extra map[string]string
}
