package compaction

import (
	"math"
	"slices"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/sstables"
)

// SSTableInfo is what the size-tiered strategy looks at in one live SSTable.
// The strategy returns the values it is given, so a caller can carry its
// own handle in Descriptor.
type SSTableInfo struct {
	// Descriptor names the SSTable.
	Descriptor sstables.Descriptor
	// DataSize is Data.db's length on disk (compressed when compressed):
	// what SSTables are bucketed by (Cassandra's onDiskLength).
	DataSize int64
	// BytesOnDisk is the length of all components (bytesOnDisk): when two
	// buckets are equally hot, the one of larger average BytesOnDisk is
	// compacted first.
	BytesOnDisk int64
	// Hotness is the SSTable's reads per second per partition (Cassandra:
	// the read meter's two-hour rate over the estimated key count). castable
	// keeps no read meter: leave it 0, which is what Cassandra uses for an
	// SSTable without a meter and what a meter shows for one nobody reads,
	// so every SSTable is equally cold and the choice goes by size (see
	// MostInterestingBucket).
	Hotness float64
	// Created is Data.db's modification time (getCreationTimeFor(DATA)): a
	// tombstone compaction of the SSTable waits
	// TombstoneCompactionInterval after it. Zero is the epoch, Cassandra's
	// lastModified of a missing file.
	Created time.Time
	// Compacting marks an SSTable already taken by a compaction: never
	// picked, still an overlap in the tombstone checks.
	Compacting bool
	// Suspect marks an SSTable a read found damaged (markSuspect): never
	// picked.
	Suspect bool

	// What the single-SSTable tombstone compaction needs; an SSTable
	// without Stats is never picked for one.

	// Stats is the STATS component of Statistics.db: the drop-time and
	// cells-per-partition histograms (EstimatedDroppableTombstoneRatio),
	// the timestamp and local deletion time bounds and the repair time
	// (fully expired SSTables).
	Stats *sstables.Stats
	// First and Last are the SSTable's first and last partitions.
	First, Last Partition
	// IndexSummarySize is the number of Summary.db entries; fewer than 2
	// make the overlap estimate give up (as Cassandra's does).
	IndexSummarySize int
	// EstimatedKeys is the estimated partition count (IndexSummary's
	// getEstimatedKeyCount: (size at full sampling + 1) × min index
	// interval).
	EstimatedKeys int64
	// KeysInRanges estimates the partitions of the SSTable in the token
	// ranges (estimatedKeysForRanges: Summary.db entries in the ranges ×
	// the sampling interval, at least 1). Nil: the overlap estimate gives up.
	KeysInRanges func(ranges []dht.Range) int64
}

// Partition is a partition's position: its token, then its key.
type Partition struct {
	Token dht.Token
	Key   []byte
}

func comparePartitions(a, b Partition) int {
	return dht.ComparePartitions(a.Token, a.Key, b.Token, b.Key)
}

// SizeBuckets groups items of similar size, as Cassandra's
// SizeTieredCompactionStrategy.getBuckets (3.11; the same through 5.0):
// the items sorted by size (a stable sort: equal sizes keep their order),
// each joins the first bucket, in the order of Cassandra's HashMap of
// buckets by average size, whose average avg has avg·bucketLow < size <
// avg·bucketHigh, or where both it and avg are below minSize (the bucket of
// small SSTables); else it starts a bucket. A bucket that changes average
// is re-keyed, which replaces a bucket already at that average (Cassandra
// loses that bucket's items; so does this, for the same input — it takes
// bucket options outside 0 < bucketLow < 1 < bucketHigh, or empty files
// and a minSize of 0). TestBucketsAgainstCassandra compares the result,
// order included, with Cassandra's own getBuckets.
// The parameter order is Cassandra's: bucketHigh before bucketLow.
func SizeBuckets[T any](items []T, size func(T) int64, bucketHigh, bucketLow float64, minSize int64) [][]T {
	var buckets longMap[[]T]
	return sizeBuckets(items, size, bucketHigh, bucketLow, minSize, &buckets)
}

// sizeBuckets is SizeBuckets in the map given (a test looks at it after).
func sizeBuckets[T any](items []T, size func(T) int64, bucketHigh, bucketLow float64, minSize int64, buckets *longMap[[]T]) [][]T {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b T) int {
		sa, sb := size(a), size(b)
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return 0
	})
outer:
	for _, it := range sorted {
		s := size(it)
		var (
			found  bool
			oldAvg int64
			bucket []T
		)
		buckets.each(func(avg int64, b []T) bool {
			if (float64(s) > float64(avg)*bucketLow && float64(s) < float64(avg)*bucketHigh) ||
				(s < minSize && avg < minSize) {
				found, oldAvg, bucket = true, avg, b
				return false
			}
			return true
		})
		if found {
			buckets.remove(oldAvg)
			n := int64(len(bucket))
			newAvg := (n*oldAvg + s) / (n + 1)
			buckets.put(newAvg, append(bucket, it))
			continue outer
		}
		buckets.put(s, []T{it})
	}
	return buckets.values()
}

// Buckets groups the SSTables that may be compacted (neither Compacting nor
// Suspect) by DataSize with the options' bucket_low, bucket_high and
// min_sstable_size (SizeBuckets).
func (o STCSOptions) Buckets(sstables []SSTableInfo) [][]SSTableInfo {
	r := o.resolve()
	return SizeBuckets(candidates(sstables), func(s SSTableInfo) int64 { return s.DataSize }, r.BucketHigh, r.BucketLow, r.MinSSTableSize)
}

// candidates returns the SSTables neither compacting nor suspect, in order.
func candidates(sstables []SSTableInfo) []SSTableInfo {
	out := make([]SSTableInfo, 0, len(sstables))
	for _, s := range sstables {
		if !s.Compacting && !s.Suspect {
			out = append(out, s)
		}
	}
	return out
}

// TrimToThreshold orders a bucket from hottest to coldest (a stable sort:
// equally hot SSTables keep their order, which for a bucket of SizeBuckets
// is ascending size) and keeps the first maxThreshold; it returns them and
// their summed Hotness (trimToThresholdWithHotness).
func TrimToThreshold(bucket []SSTableInfo, maxThreshold int) ([]SSTableInfo, float64) {
	sorted := slices.Clone(bucket)
	slices.SortStableFunc(sorted, func(a, b SSTableInfo) int { return -javaDoubleCompare(a.Hotness, b.Hotness) })
	if maxThreshold < 0 {
		maxThreshold = 0
	}
	if len(sorted) > maxThreshold {
		sorted = sorted[:maxThreshold]
	}
	var hot float64
	for _, s := range sorted {
		hot += s.Hotness
	}
	return sorted, hot
}

// MostInterestingBucket trims every bucket to maxThreshold SSTables
// (TrimToThreshold), drops those left with fewer than minThreshold and
// returns the hottest of the rest, or nil (mostInterestingBucket). Between
// equally hot buckets it takes the one of larger average BytesOnDisk — the
// comparator's comment in Cassandra says it breaks ties "by compacting the
// smallest sstables first", but Collections.max with it picks the largest,
// and so does this — and between those, the first. With castable's Hotness
// of 0 for every SSTable, this always decides by size: the bucket of the
// largest SSTables that reaches minThreshold, trimmed to its maxThreshold
// smallest.
func MostInterestingBucket(buckets [][]SSTableInfo, minThreshold, maxThreshold int) []SSTableInfo {
	var (
		best    []SSTableInfo
		bestHot float64
	)
	for _, b := range buckets {
		trimmed, hot := TrimToThreshold(b, maxThreshold)
		if len(trimmed) < minThreshold || len(trimmed) == 0 {
			continue
		}
		if best == nil || compareBuckets(trimmed, hot, best, bestHot) > 0 {
			best, bestHot = trimmed, hot
		}
	}
	return best
}

// compareBuckets is Cassandra's bucketsByHotnessComparator: hotness, then
// average bytes on disk.
func compareBuckets(a []SSTableInfo, ha float64, b []SSTableInfo, hb float64) int {
	if c := javaDoubleCompare(ha, hb); c != 0 {
		return c
	}
	aa, ab := avgBytesOnDisk(a), avgBytesOnDisk(b)
	switch {
	case aa < ab:
		return -1
	case aa > ab:
		return 1
	}
	return 0
}

func avgBytesOnDisk(b []SSTableInfo) int64 {
	var n int64
	for _, s := range b {
		n += s.BytesOnDisk
	}
	return n / int64(len(b))
}

// javaDoubleCompare is Double.compare: NaN after everything (and equal to
// itself), -0.0 before 0.0.
func javaDoubleCompare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	ba, bb := javaDoubleBits(a), javaDoubleBits(b)
	switch {
	case ba == bb:
		return 0
	case ba < bb:
		return -1
	}
	return 1
}

// javaDoubleBits is Double.doubleToLongBits: every NaN canonical.
func javaDoubleBits(f float64) int64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(f))
}

// EstimatedRemainingTasks is Cassandra's estimate of the compactions the
// buckets hold (getEstimatedCompactionsByTasks): for each bucket of at
// least min_threshold SSTables, its size over max_threshold, rounded up.
func (o STCSOptions) EstimatedRemainingTasks(buckets [][]SSTableInfo) int {
	r := o.resolve()
	n := 0
	for _, b := range buckets {
		if len(b) >= r.MinThreshold {
			n += int(math.Ceil(float64(len(b)) / float64(r.MaxThreshold)))
		}
	}
	return n
}

// Background is a table's state for choosing its next background
// compaction.
type Background struct {
	// SSTables are every live SSTable of the table, in any order (it breaks
	// ties between SSTables of equal size: the earlier first). Those marked
	// Compacting or Suspect are never picked; every one of them counts as
	// an overlap in the tombstone checks.
	SSTables []SSTableInfo
	// GCBefore is the time, in seconds since the epoch, before which
	// tombstones may be purged (now − gc_grace_seconds).
	GCBefore int64
	// Now is the current time (zero: time.Now()); a tombstone compaction
	// waits tombstone_compaction_interval after the SSTable's Created.
	Now time.Time
	// MemtableMinTimestamps are the smallest write timestamps of the
	// table's memtables that hold data: an expired SSTable whose data is
	// newer than any of them is not fully expired.
	MemtableMinTimestamps []int64
}

// NextBackground returns the SSTables of the next background compaction, or
// nil, as Cassandra 3.11's SizeTieredCompactionStrategy does
// (getNextBackgroundSSTables): the most interesting bucket of the SSTables
// that may be compacted (Buckets, MostInterestingBucket); else the largest
// one worth a compaction of its own for its tombstones — older than
// tombstone_compaction_interval, with an estimated droppable tombstone
// ratio at GCBefore above tombstone_threshold, and either
// unchecked_tombstone_compaction, no overlapping SSTable, fully expired,
// or enough of its keys outside the overlapping SSTables' token ranges that
// the tombstones there still pass the threshold.
func (o STCSOptions) NextBackground(b Background) []SSTableInfo {
	r := o.resolve()
	if r.Disabled {
		return nil
	}
	if best := MostInterestingBucket(r.Buckets(b.SSTables), r.MinThreshold, r.MaxThreshold); best != nil {
		return best
	}
	now := b.Now
	if now.IsZero() {
		now = time.Now()
	}
	var pick *SSTableInfo
	for i := range b.SSTables {
		s := &b.SSTables[i]
		if s.Compacting || s.Suspect || !r.worthDroppingTombstones(s, b, now) {
			continue
		}
		if pick == nil || s.DataSize > pick.DataSize {
			pick = s
		}
	}
	if pick == nil {
		return nil
	}
	return []SSTableInfo{*pick}
}

// worthDroppingTombstones is AbstractCompactionStrategy's (3.11).
func (r STCSOptions) worthDroppingTombstones(s *SSTableInfo, b Background, now time.Time) bool {
	if s.Stats == nil {
		return false
	}
	// Java: System.currentTimeMillis() < creation + interval * 1000, in
	// wrapping long arithmetic; a missing Data.db's lastModified is 0.
	var created int64
	if !s.Created.IsZero() {
		created = s.Created.UnixMilli()
	}
	if now.UnixMilli() < created+r.TombstoneCompactionInterval*1000 {
		return false
	}
	ratio, ok := droppableRatio(s.Stats, b.GCBefore)
	if !ok || ratio <= float64(r.TombstoneThreshold) {
		return false
	}
	if r.UncheckedTombstoneCompaction {
		return true
	}
	overlaps := overlapping(s, b.SSTables)
	if len(overlaps) == 0 {
		return true
	}
	if r.fullyExpired(s, overlaps, b) {
		return true
	}
	if s.IndexSummarySize < 2 || s.KeysInRanges == nil {
		return false
	}
	// The share of the SSTable's cells outside the overlapping SSTables'
	// token ranges (a set: equal ranges count once).
	var ranges []dht.Range
	for _, o := range overlaps {
		rg := dht.Range{Left: o.First.Token, Right: o.Last.Token}
		if !slices.ContainsFunc(ranges, func(x dht.Range) bool { return x.Left.Equal(rg.Left) && x.Right.Equal(rg.Right) }) {
			ranges = append(ranges, rg)
		}
	}
	remainingKeys := s.EstimatedKeys - s.KeysInRanges(ranges)
	mean, count, ok := cellsMeanCount(s.Stats)
	if !ok {
		return false
	}
	columns := mean * remainingKeys
	remainingRatio := float64(columns) / float64(count*mean)
	return remainingRatio*ratio > float64(r.TombstoneThreshold)
}

// overlapping returns the SSTables other than s whose partition range
// meets s's (getOverlappingLiveSSTables of one SSTable).
func overlapping(s *SSTableInfo, live []SSTableInfo) []*SSTableInfo {
	var out []*SSTableInfo
	for i := range live {
		o := &live[i]
		if o == s || o.Descriptor.SameSSTable(s.Descriptor) && o.Descriptor.Dir == s.Descriptor.Dir {
			continue
		}
		if comparePartitions(o.First, s.Last) <= 0 && comparePartitions(o.Last, s.First) >= 0 {
			out = append(out, o)
		}
	}
	return out
}

// fullyExpired reports whether s holds nothing but expired data no other
// SSTable or memtable needs it to shadow (CompactionController.
// getFullyExpiredSSTables of s alone, overlaps considered).
func (r STCSOptions) fullyExpired(s *SSTableInfo, overlaps []*SSTableInfo, b Background) bool {
	if r.OnlyPurgeRepairedTombstones && s.Stats.RepairedAt == 0 {
		return false
	}
	minTimestamp := int64(math.MaxInt64)
	for _, o := range overlaps {
		if o.Stats == nil {
			// Nothing known of it: it may hold live data of any age.
			minTimestamp = math.MinInt64
			continue
		}
		if o.Stats.MaxLocalDeletionTime >= b.GCBefore {
			minTimestamp = min(minTimestamp, o.Stats.MinTimestamp)
		}
	}
	if s.Stats.MaxLocalDeletionTime >= b.GCBefore {
		return false
	}
	for _, m := range b.MemtableMinTimestamps {
		minTimestamp = min(minTimestamp, m)
	}
	return s.Stats.MaxTimestamp < minTimestamp
}
