package sstables

// PositionScanner is implemented by readers that can start a scan at any
// offset of the uncompressed Data.db, where a partition is expected to
// begin (every BIG version). castable scrub uses it to resync after
// damage at the positions Index.db gives, as Cassandra's Scrubber seeks
// to them.
type PositionScanner interface {
	ScanAt(pos int64) (Scanner, error)
}
