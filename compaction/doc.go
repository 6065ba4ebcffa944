// Package compaction holds the parts of an embedded node's compaction that
// do not merge data: Cassandra 3.11's size-tiered strategy, which chooses
// what to compact, and Cassandra's transaction log (3.0 and later), which
// makes replacing a set of SSTables by another atomic across crashes and
// leaves directories a Cassandra node cleans up the same way.
//
// # Choosing: the size-tiered strategy
//
// STCSOptions are the strategy's options under their CQL names
// (ParseSTCSOptions reads and validates a table's compaction map; a zero
// field means Cassandra's default). NextBackground takes the table's live
// SSTables (SSTableInfo: Data.db size, bytes on disk, Data.db's
// modification time, Statistics.db's STATS, first and last partition,
// Summary.db estimates through SetSummary) and returns what Cassandra's
// getNextBackgroundSSTables would: the most interesting bucket of similar
// sizes (SizeBuckets, MostInterestingBucket), else the largest SSTable worth
// compacting alone for its droppable tombstones
// (EstimatedDroppableTombstoneRatio), else nothing.
//
// Hotness. Cassandra ranks buckets by their reads per second per key, from
// each SSTable's read meter. castable keeps no read meter, and
// SSTableInfo.Hotness is 0 unless the caller measures something: that is
// what Cassandra itself uses for an SSTable without a meter
// (SSTableReader.getReadMeter() null gives hotness 0) and what a meter
// reads for an SSTable nobody reads. With every SSTable equally cold, the
// comparator's second key decides: the bucket of the larger average size
// (bytes on disk) that reaches min_threshold, trimmed to its max_threshold
// smallest SSTables. A write-only Cassandra table picks the same.
//
// # Replacing: the transaction log
//
// A compaction service (in package flush) is meant to use the pieces so:
//
//	// At open, before flush.NewService (which runs sstables.CleanupTemporary)
//	// and before anything lists the directory:
//	rep, err := compaction.ReplayTransactions(fsys, dir)
//	if err != nil { /* a log failed verification: refuse the table, as Cassandra does */ }
//
//	// Each background compaction:
//	inputs := opts.NextBackground(compaction.Background{SSTables: live, GCBefore: now - gcGrace, Now: time.Now()})
//	txn, err := compaction.BeginTransaction(fsys, dir, compaction.OpCompaction, compaction.TxnOptions{})
//	for each output desc {
//		txn.TrackNew(desc, components...)  // durable before any of its files exists
//		write it with the Format's writer  // temporary names, TOC.txt last
//	}
//	for _, in := range inputs { txn.Obsolete(in.Descriptor) }
//	if err := txn.Commit(); err != nil {
//		// errors.Is(err, compaction.ErrCommitUnknown): keep both sets, stop, replay at the next open.
//		// otherwise: txn.Abort(); txn.Finish() — the outputs go, the inputs stay.
//	}
//	swap the live set; when no reader holds the inputs any more:
//	txn.Finish() // their files, oldest first, then the log
//
// A crash anywhere leaves, once ReplayTransactions has run, either every
// input or every output — never both, never neither, never a partial
// SSTable: a committed log deletes its obsolete SSTables, any other its
// new ones (see ReplayTransactions for the verification rules, which are
// Cassandra's). The log file ("me_txn_compaction_<uuid>.log") lists ADD,
// REMOVE and COMMIT or ABORT records, each with its checksum, as Cassandra's
// LogRecord does; Cassandra 3.11's and 5.0's own start-up cleanup
// (LogTransaction.removeUnfinishedLeftovers) reads every log castable
// leaves and deletes the same files (TestTxnLogsAgainstCassandra). The
// filesystem must report modification times (sstables.ModTimeFS): REMOVE
// records carry the newest one of the obsolete SSTable's files, which the
// cleanup checks before deleting them.
package compaction
