package mutation

// Merge adds everything o has seen to s, as if o's partitions had been added
// to s; both must be for the same table. It lets sharded collectors (one per
// memtable shard) be combined without re-reading the data.
func (s *Stats) Merge(o *Stats) {
	if o.hasTimestamp {
		s.timestamp(o.minTimestamp)
	}
	if o.hasLDT {
		s.localDeletionTime(o.minLDT)
	}
	if o.hasTTL {
		s.ttl(o.minTTL)
	}
	for i, ok := range o.static {
		if ok && i < len(s.static) {
			s.static[i] = true
		}
	}
	for i, ok := range o.regular {
		if ok && i < len(s.regular) {
			s.regular[i] = true
		}
	}
	s.legacyCounters = s.legacyCounters || o.legacyCounters
	s.partitions += o.partitions
	s.rows += o.rows
}
