package rows

// Data.db layout of the 3.x storage engine (every version from ma to oa,
// BIG and BTI alike; the row format has no version gate but the partition
// header's deletion form). All fixed-width integers are big-endian; "uvint" is an
// unsigned vint and "delta" a time written as an unsigned vint relative to
// the serialization header's EncodingStats (see vint.go and encoding.go).
//
//	Data.db      := Partition*                        (no header, no footer)
//	Partition    := u16 keyLen, key,
//	                DeletionTime                      fixed form: i32 localDeletionTime,
//	                                                  i64 markedForDeleteAt before oa; from oa
//	                                                  0x80 when live, else i64 mfda, u32 ldt
//	                                                  (sstables/deletiontime.go)
//	                [StaticRow]                       iff the header has static columns
//	                Unfiltered*
//	                0x01                              end of partition
//	Unfiltered   := Row | Marker
//	Row          := u8 flags, [u8 extFlags]           extFlags iff flags&0x80
//	                [Clustering]                      not for the static row
//	                uvint rowSize                     bytes after this vint
//	                uvint prevUnfilteredSize          start(this) - start(previous)
//	                [delta ts]                        HAS_TIMESTAMP
//	                [delta ttl, delta ldt]            HAS_TTL (ttl first)
//	                [delta delTs, delta delLdt]       HAS_DELETION
//	                [delta shTs, delta shLdt]         ScyllaDB ext flag 0x80
//	                [ColumnSubset]                    unless HAS_ALL_COLUMNS
//	                ColumnData*                       header column order
//	Marker       := u8 0x02, u8 kind, u16 size, Clustering(size),
//	                uvint markerSize, uvint prevUnfilteredSize,
//	                bound: delta delTs, delta delLdt
//	                boundary: end deletion (ts, ldt) then start deletion (ts, ldt)
//	Clustering   := per block of up to 32 values: uvint header (bit 2i: value i
//	                empty, bit 2i+1: value i null), then the present values;
//	                nothing at all for zero values
//	ColumnSubset := fewer than 64 header columns: uvint bitmap of the missing
//	                columns; otherwise uvint missingCount, then the indexes of
//	                the present columns (if fewer than half are present) or of
//	                the missing ones, each as uvint
//	SimpleColumn := Cell
//	ComplexColumn:= [delta delTs, delta delLdt]       iff HAS_COMPLEX_DELETION
//	                uvint cellCount, Cell*            each cell with a path
//	Cell         := u8 cellFlags,
//	                [delta ts]                        unless USE_ROW_TIMESTAMP
//	                [delta ldt]                       (deleted or expiring) and not USE_ROW_TTL
//	                [delta ttl]                       expiring and not USE_ROW_TTL
//	                [uvint pathLen, path]             complex columns
//	                [value]                           unless HAS_EMPTY_VALUE: raw for
//	                                                  fixed-length simple types, else
//	                                                  uvint length + bytes

// Unfiltered flags (first byte of a row or marker). Part of the on-disk
// format.
const (
	flagEndOfPartition     = 0x01
	flagIsMarker           = 0x02
	flagHasTimestamp       = 0x04
	flagHasTTL             = 0x08
	flagHasDeletion        = 0x10
	flagHasAllColumns      = 0x20
	flagHasComplexDeletion = 0x40
	flagExtension          = 0x80
)

// Extended row flags (the byte after the flags when flagExtension is set).
// Part of the on-disk format.
const (
	extIsStatic = 0x01
	// extHasShadowableDeletion is Cassandra's shadowable row deletion: the
	// row deletion (HAS_DELETION) is shadowable.
	extHasShadowableDeletion = 0x02
	// extScyllaShadowable is ScyllaDB's shadowable deletion: a separate
	// deletion time follows the regular row deletion.
	extScyllaShadowable = 0x80
)

// Cell flags. Part of the on-disk format.
const (
	cellIsDeleted       = 0x01
	cellIsExpiring      = 0x02
	cellHasEmptyValue   = 0x04
	cellUseRowTimestamp = 0x08
	cellUseRowTTL       = 0x10
)

// clusteringBlockSize is the number of clustering values sharing one
// header vint.
const clusteringBlockSize = 32

// largeSubsetThreshold is the header column count from which the column
// subset is written as a count and index list instead of a bitmap.
const largeSubsetThreshold = 64

// legacyDeletionTimeSize is the size of a DeletionTime in its fixed form
// before oa (i32 localDeletionTime, i64 markedForDeleteAt), and
// maxFixedDeletionTimeSize the largest of any version (ScyllaDB's 13-byte
// form of oa's).
const (
	legacyDeletionTimeSize   = 12
	maxFixedDeletionTimeSize = 13
)

// maxKeyLength is the largest partition key the u16 length prefix allows.
const maxKeyLength = 0xFFFF
