// Package big implements the BIG SSTable format of the 3.x storage engine
// (versions ma … oa), byte-identical to what Cassandra writes: the row
// format (Data.db rows and range tombstone markers, the serialization
// header) comes from sstables/internal/rows, which BTI shares; this package
// owns the BIG index layout — Index.db with the promoted index (index.go)
// and Summary.db — and, through package sstables, the chunked Data.db with
// CompressionInfo.db or CRC.db, Digest.crc32, Filter.db, Statistics.db and
// TOC.txt, each in the form of the version written.
//
// Format(v) is the sstables.Format of version v: NewWriter writes v, Open
// reads any version of the family. A Reader scans partitions row by row,
// seeks inside a partition through the promoted index, looks a key up
// through Filter.db, Summary.db and Index.db, verifies every checksum and
// component, and describes the file layout (Layout, WriteLayout). Without a
// schema the table is rebuilt from the serialization header.
//
// The Writer writes what it is given (it does not purge shadowed data:
// that is the flush step's job) with the EncodingStats and header columns
// of sstables.WriterOptions.Stats; see NewWriter.
package big
