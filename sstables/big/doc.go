// Package mc implements the SSTable format "mc" of Cassandra 3.0/3.11 (the
// BIG format of the 3.x storage engine), byte-identical to what Cassandra
// writes: Data.db rows and range tombstone markers (layout.go), Index.db
// with the promoted index (index.go), Statistics.db with the serialization
// header (statistics.go, header.go), and through package sstables the
// chunked Data.db with CompressionInfo.db or CRC.db, Digest.crc32,
// Summary.db, Filter.db and TOC.txt.
//
// Format is the sstables.Format value: NewWriter writes mc; Open reads mc,
// md and me (same layout; me adds the originating host id to the stats).
// A Reader scans partitions row by row, looks a key up through Filter.db,
// Summary.db and Index.db, verifies every checksum and component, and
// describes the file layout (Layout, WriteLayout). Without a schema the
// table is rebuilt from the serialization header (TableFromHeader).
//
// The Writer writes what it is given (it does not purge shadowed data:
// that is the flush step's job) with the EncodingStats and header columns
// of sstables.WriterOptions.Stats; see NewWriter.
package big
