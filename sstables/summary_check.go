package sstables

// Cross-checks of a Summary.db against the Index.db it samples, for the
// version verifiers. At full sampling (SamplingLevel 128, what every flush
// and compaction writes) entry k samples index entry k·MinIndexInterval,
// and there are SizeAtFullSampling = ceil(partitions / MinIndexInterval) of
// them; a downsampled summary keeps a subset and is only checked for order.
//
// ScyllaDB samples by bytes instead (sstables.cc maybe_add_summary_entry:
// an entry whenever the Data.db offset passes the next threshold, which
// grows by summary_byte_cost (2000) times the entry's size) and writes 0 as
// the size at full sampling. Such a summary, whatever its header says,
// is only checked for order and keys too: ScyllaDB and Cassandra read it,
// since a lookup only needs the entry at or before a key.

// CheckSampleAt checks that summary entry k, found at the index entry
// whose 0-based number in Index.db is entryNumber, is where full sampling
// puts it. path names Summary.db in the error.
func (s *Summary) CheckSampleAt(k int, entryNumber int64, path string) error {
	if s.SamplingLevel != BaseSamplingLevel || s.ScyllaSampled() {
		return nil
	}
	if want := int64(k) * int64(s.MinIndexInterval); entryNumber != want {
		return Corruptf(path, string(ComponentSummary), -1,
			"entry %d samples index entry %d; with min index interval %d it must sample entry %d", k, entryNumber, s.MinIndexInterval, want)
	}
	return nil
}

// CheckPartitionCount checks the header's size at full sampling and, at
// full sampling, the number of entries against the SSTable's partition
// count. ScyllaDB writes 0 as the size at full sampling (components.md
// §11.1): 0 is accepted.
func (s *Summary) CheckPartitionCount(partitions int64, path string) error {
	want := (partitions + int64(s.MinIndexInterval) - 1) / int64(s.MinIndexInterval)
	if s.SizeAtFullSampling != 0 && int64(s.SizeAtFullSampling) != want {
		return Corruptf(path, string(ComponentSummary), 20,
			"size at full sampling %d, but %d partitions at min index interval %d make %d", s.SizeAtFullSampling, partitions, s.MinIndexInterval, want)
	}
	if s.SamplingLevel == BaseSamplingLevel && !s.ScyllaSampled() && int64(s.Len()) != want {
		return Corruptf(path, string(ComponentSummary), 4,
			"%d entries at full sampling, but %d partitions at min index interval %d make %d", s.Len(), partitions, s.MinIndexInterval, want)
	}
	return nil
}

// ScyllaSampled reports whether the summary was written by ScyllaDB, which
// samples by Data.db bytes rather than every MinIndexInterval-th partition:
// its size at full sampling is 0, which Cassandra never writes.
func (s *Summary) ScyllaSampled() bool { return s.SizeAtFullSampling == 0 }
