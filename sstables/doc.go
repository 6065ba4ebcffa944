// Package sstables holds what the SSTable format versions share: descriptors
// and file naming, TOC.txt, the chunked Data.db writer and reader with
// CompressionInfo.db or CRC.db, the digest, Summary.db, the bloom filter, the
// shared parts of Statistics.db (histograms, HyperLogLog++), the Format
// interface the versions implement, and the CorruptionError type.
//
// The version packages (sstables/mc, sstables/la) translate partitions to and
// from bytes; nothing here knows a row layout.
package sstables
