// Package la reads and writes Cassandra 2.2 SSTables, format version "la"
// (BIG format, file names la-<generation>-big-<Component>). Cassandra 2.1's
// "ka" files have the same layout and read the same way once renamed to
// the la naming; 2.2.7+'s "lb" Statistics.db (an extra commit log lower
// bound) is read too.
//
// The 2.2 Data.db stores a partition as a flat, sorted sequence of "atoms":
// cells whose names are composites (clustering values, CQL column name,
// collection element) and range tombstones whose start and end are
// composite bounds. This package maps that layout onto castable's row model
// (package mutation) the way Cassandra 3.x reads legacy SSTables
// (LegacyLayout and UnfilteredDeserializer.OldFormatDeserializer in
// apache/cassandra 3.11), and writes the inverse byte for byte as Cassandra
// 2.2.4 and later flush it:
//
//   - the row marker cell (an empty column-name component) is the row's
//     primary-key liveness (a deleted marker reads as an expired liveness
//     with TTL 1, as in 3.x);
//   - a range tombstone covering exactly one full clustering is a row
//     deletion;
//   - a range tombstone on a clustering prefix plus a column name is the
//     complex deletion of that collection;
//   - every other range tombstone becomes range tombstone markers, through
//     3.x's tracker: repeated, overlapping and shadowed tombstones give one
//     flat marker sequence, and atoms a tombstone shadows are dropped;
//   - static cells (names starting FF FF) make up the static row.
//
// The four table layouts of 2.2 are supported (Table.IsCompound/IsDense):
// CQL tables (compound, sparse), COMPACT STORAGE with several clustering
// columns (compound, dense), with exactly one (simple, dense) and with none
// (simple, sparse: the declared columns are 3.x's static columns and other
// cell names are rows of the hidden column1/value columns).
//
// # Writing
//
// Rows are converted as they arrive and written through the 2.2.4+ column
// index builder: range tombstones are deferred to the next cell, tracked,
// written again at the start of each promoted-index block, and dropped when
// a tracked one makes them redundant; cells that the partition deletion or
// a covering tombstone deletes are not written (what 2.2's writer does).
// Statistics count every tombstone once and only the cells written. Rows
// inside an open range tombstone marker are kept (copied) until it closes.
//
// Choices where the row model holds what 2.2 never wrote:
//
//   - A row deletion and a range containing it are written as two
//     overlapping tombstones (2.2's memtable would have split them; both
//     read the same).
//   - A range starting at the start of the partition is written from an
//     empty first component with eoc START (an empty atom name would end the
//     partition) and reads back as the start; one ending at the end of the
//     partition has an empty end bound.
//   - Shadowable row deletions are an error naming the partition, unless
//     Options.ShadowableAsRegular; so are non-frozen UDTs, liveness in
//     COMPACT STORAGE rows, a static row deletion, exclusive bounds in
//     COMPACT tables with one clustering column, keys or names over 65535
//     bytes. Durations are written like any value.
//   - WriterOptions.ColumnIndexSize < 0 stands for column_index_size_in_kb
//     0 (every atom closes a block).
//   - Statistics.db's single replay position is the greatest upper bound of
//     Metadata.CommitLogIntervals (NONE when empty); reading gives the
//     interval [NONE, position], as 3.x does. Ancestors, level and
//     repairedAt come from Metadata; the Summary.db trailer from
//     Options.SummaryBoundaries.
//
// # Reading
//
// A schema names and types the columns. Without one, Open infers a table
// (InferTable): blob columns named after the cell names, a blob partition
// key "key", clustering columns "column1"… whose count comes from
// Statistics.db, collections as map<blob, blob>, counters as counters — so
// a dump shows hex. Counter contexts are kept as stored. Atom flag 0x40
// (ScyllaDB's shadowable tombstone in its ka/la files) is a CorruptionError
// that says so.
//
// Files: Data.db (atoms.go, names.go, decode_names.go, partition_write.go,
// partition_read.go, tombstone_tracker.go), Index.db with its promoted
// index (index.go, column_index.go), Statistics.db in the la layout
// (statistics.go, collector.go), the writer and reader (writer.go,
// reader.go, verify.go, infer.go) and the layout describer (describe.go).
// Summary.db, Filter.db, CompressionInfo.db, CRC.db, the digest and TOC.txt
// come from package sstables with the la parameters (Adler-32 checksums,
// the "old" bloom filter hash order, the Summary boundaries trailer).
package la
