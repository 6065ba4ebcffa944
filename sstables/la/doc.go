// Package la reads and writes Cassandra 2.2 SSTables, format version "la"
// (BIG format, file names la-<generation>-big-<Component>). Cassandra 2.1's
// "ka" files have the same layout and read the same way once renamed.
//
// The 2.2 Data.db stores a partition as a flat, sorted sequence of "atoms":
// cells whose names are composites (clustering values, CQL column name,
// collection element) and range tombstones whose start and end are composite
// bounds. This package maps that layout onto castable's row model
// (package mutation) the way Cassandra 3.x reads legacy SSTables
// (LegacyLayout and UnfilteredDeserializer.OldFormatDeserializer in
// apache/cassandra 3.11), and writes the inverse byte for byte as Cassandra
// 2.2.4 and later flush it:
//
//   - the row marker cell (an empty column-name component) is the row's
//     primary-key liveness;
//   - a range tombstone covering exactly one full clustering is a row
//     deletion;
//   - a range tombstone on a clustering prefix plus a column name is the
//     complex deletion of that collection;
//   - every other range tombstone becomes range tombstone markers;
//   - static cells (names starting FF FF) make up the static row.
//
// The four table layouts of 2.2 are supported: CQL tables (compound,
// sparse), COMPACT STORAGE with several clustering columns (compound,
// dense), with exactly one (simple, dense) and with none (simple, sparse).
//
// Files: Data.db (atoms.go, names.go, partition_write.go, partition_read.go),
// Index.db with its promoted index (index.go, column_index.go),
// Statistics.db in the la layout (statistics.go, collector.go); Summary.db,
// Filter.db, CompressionInfo.db, CRC.db, the digest and TOC.txt come from
// package sstables with the la parameters (Adler-32 checksums, the "old"
// bloom filter hash order, the Summary boundaries trailer).
package la
