// Package sorted is what every SSTable format of the 3.x+ row format
// shares beside its index layout, after Cassandra's SortedTableWriter and
// SortedTableReader: one Writer state machine (the row serializer of
// package rows feeding an sstables.PartitionSink: chunked Data.db,
// Filter.db, the key cardinality and the histograms, then Statistics.db,
// CompressionInfo.db or CRC.db, Digest.crc32 and TOC.txt, crash-safely
// through an sstables.FileSet) and one whole-file Reader (TOC.txt,
// Statistics.db, the partitioner, the serialization header and the table,
// the chunked Data.db; scans, lookups, seeks, verification of Data.db).
//
// An index layout plugs in through IndexWriter and Index: the BIG format
// (sstables/big: Index.db with the promoted index, Summary.db) and BTI
// (sstables/bti: Partitions.db and Rows.db tries). The layout receives
// each partition's row-index blocks as rows.BlockCutter cut them, so both
// layouts index the same blocks.
package sorted
