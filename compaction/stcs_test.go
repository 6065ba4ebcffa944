package compaction

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/sstables"
)

// The cases of Cassandra 3.11's SizeTieredCompactionStrategyTest, then
// CompactionsTest's single-SSTable tombstone compactions, then properties.

func TestOptionsValidation(t *testing.T) {
	// testOptionsValidation.
	opts := map[string]string{"bucket_low": "0.5", "bucket_high": "1.5", "min_sstable_size": "10000"}
	o, err := ParseSTCSOptions(opts)
	if err != nil {
		t.Fatal(err)
	}
	if o.BucketLow != 0.5 || o.BucketHigh != 1.5 || o.MinSSTableSize != 10000 || o.resolve().MinThreshold != 4 {
		t.Errorf("parsed %+v", o)
	}
	opts["bucket_low"] = "1000.0"
	if _, err := ParseSTCSOptions(opts); err == nil || !strings.Contains(err.Error(), "bucket_high value (1.5) is less than or equal to the bucket_low value (1000)") {
		t.Errorf("bucket_low greater than bucket_high: %v", err)
	}
	opts["bucket_low"] = "0.5"
	opts["bad_option"] = "1.0"
	if _, err := ParseSTCSOptions(opts); err == nil || !strings.Contains(err.Error(), "[bad_option]") {
		t.Errorf("bad_option: %v", err)
	}

	for _, c := range []struct {
		opts map[string]string
		want string // an error fragment; "" for success
	}{
		{map[string]string{"class": "SizeTieredCompactionStrategy"}, ""},
		{map[string]string{"class": "LeveledCompactionStrategy"}, "not SizeTiered"},
		{map[string]string{"min_threshold": "2", "max_threshold": "2"}, ""},
		{map[string]string{"min_threshold": "1"}, "cannot be less than 2"},
		{map[string]string{"min_threshold": "0"}, "thresholds to 0"},
		{map[string]string{"max_threshold": "0"}, "thresholds to 0"},
		{map[string]string{"min_threshold": "40"}, "cannot be greater than max"},
		{map[string]string{"min_threshold": "+4"}, "must be an integer"},
		{map[string]string{"min_threshold": "four"}, "must be an integer"},
		{map[string]string{"min_sstable_size": "-1"}, "non negative"},
		{map[string]string{"min_sstable_size": "0"}, ""},
		{map[string]string{"min_sstable_size": "1.5"}, "parsable int"},
		{map[string]string{"bucket_high": "0.4"}, "less than or equal"},
		{map[string]string{"bucket_high": "x"}, "parsable float"},
		{map[string]string{"bucket_low": " 0.25d "}, ""},
		{map[string]string{"bucket_low": "-2", "bucket_high": "-1"}, ""}, // Cassandra checks only high > low
		{map[string]string{"tombstone_threshold": "-0.1"}, "greater than 0"},
		{map[string]string{"tombstone_threshold": "0.1f"}, ""},
		{map[string]string{"tombstone_compaction_interval": "-1"}, "greater than 0"},
		{map[string]string{"unchecked_tombstone_compaction": "TRUE"}, ""},
		{map[string]string{"unchecked_tombstone_compaction": "yes"}, "either 'true' or 'false'"},
		{map[string]string{"enabled": "false", "log_all": "true", "only_purge_repaired_tombstones": "true", "provide_overlapping_tombstones": "NONE"}, ""},
		{map[string]string{"cold_reads_to_omit": "0.05"}, "not understood"}, // 2.x's, removed in 3.0
	} {
		_, err := ParseSTCSOptions(c.opts)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.opts, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: got %v, want an error with %q", c.opts, err, c.want)
		}
	}
}

func TestOptionsZeroMeansDefault(t *testing.T) {
	d := DefaultSTCSOptions()
	want := STCSOptions{MinThreshold: 4, MaxThreshold: 32, BucketLow: 0.5, BucketHigh: 1.5, MinSSTableSize: 50 << 20,
		TombstoneThreshold: 0.2, TombstoneCompactionInterval: 86400}
	if d.MinThreshold != want.MinThreshold || d.MaxThreshold != want.MaxThreshold || d.BucketLow != want.BucketLow ||
		d.BucketHigh != want.BucketHigh || d.MinSSTableSize != want.MinSSTableSize ||
		d.TombstoneThreshold != want.TombstoneThreshold || d.TombstoneCompactionInterval != want.TombstoneCompactionInterval {
		t.Errorf("defaults %+v", d)
	}
	if err := (STCSOptions{}).Validate(); err != nil {
		t.Error(err)
	}
	// An explicit zero survives parsing, not a struct literal.
	o, err := ParseSTCSOptions(map[string]string{"min_sstable_size": "0", "tombstone_threshold": "0", "tombstone_compaction_interval": "0"})
	if err != nil {
		t.Fatal(err)
	}
	if r := o.resolve(); r.MinSSTableSize != 0 || r.TombstoneThreshold != 0 || r.TombstoneCompactionInterval != 0 {
		t.Errorf("explicit zeros lost: %+v", r)
	}
	if r := (STCSOptions{MinSSTableSize: 0}).resolve(); r.MinSSTableSize != 50<<20 {
		t.Errorf("literal zero: %d", r.MinSSTableSize)
	}
}

func TestJavaParseFloat(t *testing.T) {
	for s, want := range map[string]float64{"1.5": 1.5, " 2 ": 2, "3d": 3, "3F": 3, "+1e1": 10, "-0.5": -0.5, "0x1p3": 8, "0x1p3d": 8, "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)} {
		if got, err := javaParseFloat(s, 64); err != nil || got != want {
			t.Errorf("%q: %v, %v", s, got, err)
		}
	}
	if got, err := javaParseFloat("NaN", 64); err != nil || !math.IsNaN(got) {
		t.Errorf("NaN: %v %v", got, err)
	}
	for _, s := range []string{"", "inf", "nan", "infinity", "1_0", "--1", "d", "0x10", "1.5dd"} {
		if _, err := javaParseFloat(s, 64); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

// strLen is a string sized by its length, as testGetBuckets builds them.
func strLen(s string) int64 { return int64(len(s)) }

func TestGetBuckets(t *testing.T) {
	// testGetBuckets: three buckets of two equal strings each.
	buckets := SizeBuckets([]string{"a", "bbbb", "cccccccc", "cccccccc", "bbbb", "a"}, strLen, 1.5, 0.5, 2)
	if len(buckets) != 3 {
		t.Fatalf("%d buckets: %q", len(buckets), buckets)
	}
	for _, b := range buckets {
		if len(b) != 2 || b[0] != b[1] {
			t.Errorf("bucket %q", b)
		}
	}
	// Two buckets of three.
	buckets = SizeBuckets([]string{"aaa", "bbbbbbbb", "aaa", "bbbbbbbb", "bbbbbbbb", "aaa"}, strLen, 1.5, 0.5, 2)
	if len(buckets) != 2 {
		t.Fatalf("%d buckets: %q", len(buckets), buckets)
	}
	for _, b := range buckets {
		if len(b) != 3 || b[0] != b[1] || b[1] != b[2] {
			t.Errorf("bucket %q", b)
		}
	}
	// The "min" functionality: everything is small.
	buckets = SizeBuckets([]string{"aaa", "bbbbbbbb", "aaa", "bbbbbbbb", "bbbbbbbb", "aaa"}, strLen, 1.5, 0.5, 10)
	if len(buckets) != 1 || len(buckets[0]) != 6 {
		t.Errorf("%q", buckets)
	}
}

// info is an SSTable of generation gen and Data.db size.
func info(gen int, size int64) SSTableInfo {
	return SSTableInfo{Descriptor: sstables.Descriptor{Dir: "/d", Version: mustVersion("me"), Generation: gen}, DataSize: size, BytesOnDisk: size + 1000}
}

func gens(ss []SSTableInfo) []int {
	var out []int
	for _, s := range ss {
		out = append(out, s.Descriptor.Generation)
	}
	return out
}

func TestPrepBucket(t *testing.T) {
	// testPrepBucket: three flushed SSTables of one partition each.
	sstrs := []SSTableInfo{info(1, 100), info(2, 100), info(3, 100)}
	if b := MostInterestingBucket([][]SSTableInfo{sstrs[:2]}, 4, 32); b != nil {
		t.Errorf("nothing should be returned when all buckets are below the min threshold: %v", gens(b))
	}
	const estimatedKeys = 128 // one partition: (0 + 1) × min_index_interval
	sstrs[0].Hotness, sstrs[1].Hotness, sstrs[2].Hotness = 100.0/estimatedKeys, 200.0/estimatedKeys, 300.0/estimatedKeys
	bucket, hot := TrimToThreshold(sstrs, 2)
	if len(bucket) != 2 || !slices.Equal(gens(bucket), []int{3, 2}) {
		t.Errorf("one SSTable should have been dropped, the coldest: %v", gens(bucket))
	}
	if want := (200.0 + 300.0) / estimatedKeys; math.Abs(hot-want) > 1.0 {
		t.Errorf("bucket hotness %f should be close to %f", hot, want)
	}
}

func TestMostInterestingBucketBySize(t *testing.T) {
	o := STCSOptions{MinSSTableSize: 10}
	// Two eligible buckets, every SSTable unread: the larger SSTables win
	// (Collections.max on average bytes on disk), trimmed to the smallest 4
	// of the 5.
	var ss []SSTableInfo
	for i, s := range []int64{100, 101, 102, 103, 1000, 1001, 1002, 1003, 1004, 5} {
		ss = append(ss, info(i+1, s))
	}
	r := o.resolve()
	r.MaxThreshold = 4
	got := r.NextBackground(Background{SSTables: ss})
	if !slices.Equal(gens(got), []int{5, 6, 7, 8}) {
		t.Errorf("picked %v", gens(got))
	}
	// A hot bucket wins over larger ones.
	for i := range 4 {
		ss[i].Hotness = 1
	}
	if got := r.NextBackground(Background{SSTables: ss}); !slices.Equal(gens(got), []int{1, 2, 3, 4}) {
		t.Errorf("hot bucket: %v", gens(got))
	}
	// Compacting and suspect SSTables are never candidates.
	ss[0].Compacting, ss[1].Suspect = true, true
	if got := r.NextBackground(Background{SSTables: ss}); !slices.Equal(gens(got), []int{5, 6, 7, 8}) {
		t.Errorf("with 1 compacting and 2 suspect: %v", gens(got))
	}
	if n := r.EstimatedRemainingTasks(r.Buckets(ss)); n != 2 { // ⌈5/4⌉ for the large bucket, small ones under min
		t.Errorf("estimated tasks %d", n)
	}
	r.Disabled = true
	if got := r.NextBackground(Background{SSTables: ss}); got != nil {
		t.Errorf("disabled: %v", gens(got))
	}
}

// tombstoneStats returns Stats of partitions partitions of cells cells each,
// dropped tombstones of which expire at dropAt.
func tombstoneStats(partitions, cells, dropped int64, dropAt int64, minTS, maxTS, maxLDT int64) *sstables.Stats {
	cpp := sstables.NewEstimatedHistogram(114)
	cpp.AddN(cells, partitions)
	drop := sstables.NewStreamingHistogram(100)
	if dropped > 0 {
		drop.UpdateN(float64(dropAt), dropped)
	}
	return &sstables.Stats{CellsPerPartition: cpp, TombstoneDropTimes: drop, MinTimestamp: minTS, MaxTimestamp: maxTS, MaxLocalDeletionTime: maxLDT}
}

func mtoken(v int64) Partition { return Partition{Token: dht.Murmur3Token(v)} }

func TestSingleSSTableCompaction(t *testing.T) {
	// CompactionsTest.testSingleSSTableCompaction: 10 partitions of 10
	// rows, 9 of them with a 3 s TTL, tombstone_compaction_interval 1,
	// gc_grace 1, 5 s later: the SSTable is compacted alone.
	now := time.Unix(1_700_000_000, 0)
	written := now.Add(-5 * time.Second)
	s := info(1, 4000)
	s.Created = written
	s.Stats = tombstoneStats(10, 10, 90, written.Unix()+3, 1, 2, written.Unix()+3)
	s.First, s.Last = mtoken(-100), mtoken(100)
	o, err := ParseSTCSOptions(map[string]string{"tombstone_compaction_interval": "1"})
	if err != nil {
		t.Fatal(err)
	}
	b := Background{SSTables: []SSTableInfo{s}, GCBefore: now.Unix() - 1, Now: now}
	if got := o.NextBackground(b); !slices.Equal(gens(got), []int{1}) {
		t.Fatalf("picked %v", gens(got))
	}
	if r := EstimatedDroppableTombstoneRatio(s.Stats, b.GCBefore); r != 0.9 {
		t.Errorf("ratio %v", r)
	}
	// Not before the interval, not before the tombstones are droppable,
	// and not with the default threshold when only a fifth are.
	b.Now = written.Add(999 * time.Millisecond)
	if got := o.NextBackground(b); got != nil {
		t.Errorf("inside the interval: %v", gens(got))
	}
	b.Now, b.GCBefore = now, written.Unix()
	if got := o.NextBackground(b); got != nil {
		t.Errorf("tombstones not yet droppable: %v", gens(got))
	}
	b.GCBefore = now.Unix() - 1
	b.SSTables[0].Stats = tombstoneStats(10, 10, 20, written.Unix()+3, 1, 2, written.Unix()+3)
	if got := o.NextBackground(b); got != nil { // 0.2 ≤ 0.2f
		t.Errorf("ratio at the threshold: %v", gens(got))
	}
	b.SSTables[0].Stats = tombstoneStats(10, 10, 21, written.Unix()+3, 1, 2, written.Unix()+3)
	if got := o.NextBackground(b); got == nil {
		t.Error("ratio 0.21 not picked")
	}
}

func TestUncheckedTombstoneSizeTieredCompaction(t *testing.T) {
	// CompactionsTest.testUncheckedTombstoneSizeTieredCompaction: two
	// SSTables of expiring rows whose token ranges overlap (keys
	// "0aaaaaaaaaaa"… and "0bbbbbbbbbbb"…), each with one live cell per
	// partition: neither fully expired, and too few summary entries to
	// estimate the overlap, so no tombstone compaction; with
	// unchecked_tombstone_compaction each is compacted alone (the larger
	// first).
	now := time.Unix(1_700_000_000, 0)
	written := now.Add(-5 * time.Second)
	s1, s2 := info(1, 6000), info(2, 6100)
	for i, s := range []*SSTableInfo{&s1, &s2} {
		s.Created = written
		s.Stats = tombstoneStats(30, 10, 270, written.Unix()+3, 10+int64(i), 20+int64(i), math.MaxInt64)
		s.First, s.Last = mtoken(-9000+int64(i)), mtoken(9000+int64(i))
		s.IndexSummarySize, s.EstimatedKeys = 1, 128
	}
	o, _ := ParseSTCSOptions(map[string]string{"tombstone_compaction_interval": "1", "unchecked_tombstone_compaction": "false"})
	b := Background{SSTables: []SSTableInfo{s1, s2}, GCBefore: now.Unix() - 1, Now: now}
	if got := o.NextBackground(b); got != nil {
		t.Errorf("overlapping SSTables compacted alone: %v", gens(got))
	}
	o.UncheckedTombstoneCompaction = true
	if got := o.NextBackground(b); !slices.Equal(gens(got), []int{2}) {
		t.Errorf("unchecked: %v", gens(got))
	}
	// Without overlap each qualifies; the larger is taken.
	o.UncheckedTombstoneCompaction = false
	b.SSTables[1].First, b.SSTables[1].Last = mtoken(9500), mtoken(9600)
	if got := o.NextBackground(b); !slices.Equal(gens(got), []int{2}) {
		t.Errorf("disjoint: %v", gens(got))
	}
}

func TestTombstoneCompactionOverlapChecks(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	old := now.Add(-48 * time.Hour)
	gcBefore := now.Unix() - 864000
	// s is entirely expired data written at timestamps 100–200; o overlaps.
	s := info(1, 1000)
	s.Created = old
	s.Stats = tombstoneStats(1000, 4, 4000, gcBefore-10, 100, 200, gcBefore-10)
	s.First, s.Last = mtoken(0), mtoken(1000)
	s.IndexSummarySize, s.EstimatedKeys = 8, 1024
	o := info(2, 100000)
	o.Stats = tombstoneStats(10, 1, 0, 0, 300, 400, math.MaxInt64)
	o.First, o.Last = mtoken(500), mtoken(2000)
	opts := STCSOptions{}
	bg := func(ss ...SSTableInfo) Background {
		return Background{SSTables: ss, GCBefore: gcBefore, Now: now}
	}
	if got := opts.NextBackground(bg(s, o)); !slices.Equal(gens(got), []int{1}) {
		t.Errorf("fully expired, overlapping newer data: %v", gens(got))
	}
	// Older live data in the overlap keeps it from being fully expired…
	o.Stats.MinTimestamp = 150
	if got := opts.NextBackground(bg(s, o)); got != nil {
		t.Errorf("older overlapping data: %v", gens(got))
	}
	// …and so does an older memtable write.
	o.Stats.MinTimestamp = 300
	if b := bg(s, o); true {
		b.MemtableMinTimestamps = []int64{50}
		if got := opts.NextBackground(b); got != nil {
			t.Errorf("older memtable data: %v", gens(got))
		}
	}
	// only_purge_repaired_tombstones: an unrepaired SSTable is never fully
	// expired.
	opts.OnlyPurgeRepairedTombstones = true
	if got := opts.NextBackground(bg(s, o)); got != nil {
		t.Errorf("unrepaired with only_purge_repaired_tombstones: %v", gens(got))
	}
	s.Stats.RepairedAt = 1
	if got := opts.NextBackground(bg(s, o)); got == nil {
		t.Error("repaired with only_purge_repaired_tombstones not picked")
	}
	opts.OnlyPurgeRepairedTombstones = false
	// Not fully expired: the share of keys outside the overlap decides.
	s.Stats.MaxLocalDeletionTime = math.MaxInt64
	var asked []dht.Range
	s.KeysInRanges = func(r []dht.Range) int64 { asked = r; return 512 }          // half the keys overlap
	if got := opts.NextBackground(bg(s, o)); !slices.Equal(gens(got), []int{1}) { // 0.5 × 1.0 > 0.2
		t.Errorf("half outside the overlap: %v", gens(got))
	}
	if len(asked) != 1 || !asked[0].Left.Equal(o.First.Token) || !asked[0].Right.Equal(o.Last.Token) {
		t.Errorf("ranges asked: %v", asked)
	}
	s.KeysInRanges = func([]dht.Range) int64 { return 900 } // 124/1024 × 1.0 ≤ 0.2
	if got := opts.NextBackground(bg(s, o)); got != nil {
		t.Errorf("mostly overlapping: %v", gens(got))
	}
	s.IndexSummarySize = 1
	s.KeysInRanges = func([]dht.Range) int64 { return 1 }
	if got := opts.NextBackground(bg(s, o)); got != nil {
		t.Errorf("one summary entry: %v", gens(got))
	}
}

func TestDroppableRatioOverflow(t *testing.T) {
	st := tombstoneStats(10, 10, 50, 100, 0, 0, 100)
	st.CellsPerPartition.Add(1 << 62) // past the last offset: mean() throws in Cassandra
	if r, ok := droppableRatio(st, 200); ok || r != 0 {
		t.Errorf("overflowed histogram: %v %v", r, ok)
	}
	if r := EstimatedDroppableTombstoneRatio(&sstables.Stats{}, 200); r != 0 {
		t.Errorf("no histograms: %v", r)
	}
}

func TestStreamingSum(t *testing.T) {
	// StreamingHistogram.sum's interpolation: bins (10, 4), (20, 8).
	h := sstables.NewStreamingHistogram(100)
	h.UpdateN(10, 4)
	h.UpdateN(20, 8)
	for b, want := range map[float64]float64{5: 0, 10: 2, 15: 2 + (4+6)*0.5/2, 20: 12, 25: 12} {
		if got := streamingSum(h, b); got != want {
			t.Errorf("sum(%v) = %v, want %v", b, got, want)
		}
	}
}

// TestBucketsProperties checks, over random sizes and options, what the
// bucketing promises: every SSTable lands in exactly one bucket (with
// 0 < bucket_low < 1 < bucket_high and positive sizes), a bucket's members
// are in ascending size and each joined within (low, high) of the
// bucket's average at the time (or both were small), buckets do not
// interleave, and NextBackground honours the thresholds.
func TestBucketsProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 2000 {
		o := STCSOptions{
			MinThreshold:   2 + rng.IntN(4),
			BucketLow:      0.1 + 0.8*rng.Float64(),
			BucketHigh:     1.05 + 2*rng.Float64(),
			MinSSTableSize: int64(rng.IntN(3)) * 1000,
		}
		o.MaxThreshold = o.MinThreshold + rng.IntN(8)
		o.explicit |= setMinSSTableSize // 0 means 0 here, not 50 MiB
		o = o.resolve()
		n := rng.IntN(60)
		var ss []SSTableInfo
		for i := range n {
			size := int64(1 + rng.IntN(100000))
			if rng.IntN(4) == 0 {
				size = int64(1 + rng.IntN(2000))
			}
			ss = append(ss, info(i+1, size))
		}
		buckets := o.Buckets(ss)
		seen := map[int]bool{}
		for _, b := range buckets {
			if len(b) == 0 {
				t.Fatalf("iter %d: empty bucket", iter)
			}
			avg := b[0].DataSize
			for i, s := range b {
				if seen[s.Descriptor.Generation] {
					t.Fatalf("iter %d: generation %d twice", iter, s.Descriptor.Generation)
				}
				seen[s.Descriptor.Generation] = true
				if i == 0 {
					continue
				}
				if s.DataSize < b[i-1].DataSize {
					t.Fatalf("iter %d: bucket not ascending: %v", iter, b)
				}
				size, fa := float64(s.DataSize), float64(avg)
				if !(size > fa*o.BucketLow && size < fa*o.BucketHigh) && !(s.DataSize < o.MinSSTableSize && avg < o.MinSSTableSize) {
					t.Fatalf("iter %d: size %d joined a bucket of average %d (low %v high %v min %d)", iter, s.DataSize, avg, o.BucketLow, o.BucketHigh, o.MinSSTableSize)
				}
				avg = (int64(i)*avg + s.DataSize) / int64(i+1)
			}
		}
		if len(seen) != n {
			t.Fatalf("iter %d: %d of %d SSTables in buckets", iter, len(seen), n)
		}
		// Buckets do not interleave: sorted by their smallest member, each
		// bucket's sizes lie at or above the previous bucket's largest.
		sorted := slices.Clone(buckets)
		slices.SortFunc(sorted, func(a, b []SSTableInfo) int { return int(a[0].DataSize - b[0].DataSize) })
		for i := 1; i < len(sorted); i++ {
			if sorted[i][0].DataSize < sorted[i-1][len(sorted[i-1])-1].DataSize {
				t.Fatalf("iter %d: buckets interleave: %v / %v", iter, sizes(sorted[i-1]), sizes(sorted[i]))
			}
		}
		got := o.NextBackground(Background{SSTables: ss})
		if got != nil && (len(got) < o.MinThreshold || len(got) > o.MaxThreshold) {
			t.Fatalf("iter %d: picked %d SSTables, thresholds %d–%d", iter, len(got), o.MinThreshold, o.MaxThreshold)
		}
		eligible := false
		for _, b := range buckets {
			eligible = eligible || len(b) >= o.MinThreshold
		}
		if eligible != (got != nil) {
			t.Fatalf("iter %d: a bucket reaches min_threshold: %v, picked %v", iter, eligible, gens(got))
		}
	}
}

func sizes(b []SSTableInfo) []int64 {
	var out []int64
	for _, s := range b {
		out = append(out, s.DataSize)
	}
	return out
}

// TestBucketAverageDrifts records what the property above does not claim:
// a bucket's members are within (low, high) of its average when they
// join, not of its final average, which keeps rising as larger SSTables
// join — so a bucket's first member can end below bucket_low of it.
func TestBucketAverageDrifts(t *testing.T) {
	// Each size just under 1.5 × the bucket's average so far (Cassandra's
	// running average, rounded down).
	in := []int64{1000}
	avg := int64(1000)
	for range 12 {
		s := avg*3/2 - 1
		in = append(in, s)
		n := int64(len(in) - 1)
		avg = (n*avg + s) / (n + 1)
	}
	buckets := SizeBuckets(in, func(v int64) int64 { return v }, 1.5, 0.5, 0)
	if len(buckets) != 1 {
		t.Fatalf("%d buckets: %v", len(buckets), buckets)
	}
	if float64(buckets[0][0]) >= 0.5*float64(avg) {
		t.Errorf("first member %d within half of the final average %d: the example no longer shows the drift", buckets[0][0], avg)
	}
}

// TestBucketsHashMapQuirks pins behaviour that follows from Cassandra's
// HashMap of buckets by average and that a simpler grouping would not
// reproduce.
func TestBucketsHashMapQuirks(t *testing.T) {
	id := func(v int64) int64 { return v }
	// min_sstable_size 0 and empty files: no rule takes a 0-byte file into
	// the bucket of average 0, so each starts one under the same key and
	// replaces the last; one survives.
	if got := SizeBuckets([]int64{0, 0, 0}, id, 1.5, 0.5, 0); len(got) != 1 || len(got[0]) != 1 {
		t.Errorf("zero sizes: %v", got)
	}
	// bucket_low ≥ 1: a size equal to a bucket's average starts a new
	// bucket under the same key, replacing it.
	if got := SizeBuckets([]int64{10, 10, 30}, id, 2.0, 1.0, 0); !equalBuckets(got, [][]int64{{10}, {30}}) {
		t.Errorf("bucket_low 1: %v", got)
	}
	// With several buckets that would take a file, the first in the
	// HashMap's order wins. bucket_low 1.2, bucket_high 3: 15 starts a
	// bucket (slot 15 of 16), 16 another (16 ≤ 15 × 1.2; slot 0), and 20
	// would join either: the bucket of 16 comes first.
	if got := SizeBuckets([]int64{15, 16, 20}, id, 3, 1.2, 0); !equalBuckets(got, [][]int64{{16, 20}, {15}}) {
		t.Errorf("first match: %v", got)
	}
	// Buckets come out in the HashMap's order, not by size: averages 1,
	// 100, 17 sit in slots 1, 4 (100 = 0x64) and 1 (17 = 0x11; after 1 in
	// its slot).
	got := SizeBuckets([]int64{1, 17, 100}, id, 1.01, 0.99, 0)
	if !equalBuckets(got, [][]int64{{1}, {17}, {100}}) {
		t.Errorf("order: %v", got)
	}
	got = SizeBuckets([]int64{16, 3, 100}, id, 1.01, 0.99, 0) // 16 in slot 0, 3 in slot 3, 100 in slot 4
	if !equalBuckets(got, [][]int64{{16}, {3}, {100}}) {
		t.Errorf("order: %v", got)
	}
}

func equalBuckets(a, b [][]int64) bool {
	return slices.EqualFunc(a, b, func(x, y []int64) bool { return slices.Equal(x, y) })
}
