// Package compaction holds the parts of an embedded node's compaction that
// do not merge data: Cassandra's size-tiered strategy, which chooses what to
// compact, and Cassandra's transaction log, which makes replacing a set of
// SSTables by another atomic across crashes.
package compaction
