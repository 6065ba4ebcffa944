package sstables

import "fmt"

// The key count compaction sizes its output with. CompactionAwareWriter
// takes estimatedTotalKeys = SSTableReader.getApproximateKeyCount(inputs),
// which merges the inputs' HyperLogLog++ sketches (Statistics.db,
// COMPACTION) and estimates the union, or, when a sketch is missing or
// cannot be read or merged, adds up every input's estimatedKeys(). The
// writer then sizes Filter.db from it (FilterFactory.getFilter(keys, fp):
// DefaultCompactionWriter passes it whole, MaxSSTableSizeWriter and
// MajorLeveledCompactionWriter divide it by their estimated SSTable count,
// SplittingSizeTieredCompactionWriter scales it by each output's ratio),
// and the big format's IndexSummaryBuilder with it, whose bytes it changes
// only past (keys / min_index_interval) · 72 > 2^31 − 1 (SummaryOptions).

// KeyCountRules names the getApproximateKeyCount ApproximateKeyCount
// follows.
type KeyCountRules int

const (
	// KeyCountCassandra311 is Cassandra 3.11's (3.11.17
	// io/sstable/format/SSTableReader.java:242-306; 3.0's reads the same):
	// the sketches are read only when every input's version has the new
	// Statistics.db (ka on: every version castable reads); a missing
	// COMPACTION component, an IOException reading it (a sketch whose bytes
	// end early: EOFException) or a merge of sketches of different sizes
	// falls back to the sum of estimatedKeys() added to the −1 the count
	// starts from (so −1 for no input); other failures of
	// HyperLogLogPlus.Builder.build are RuntimeExceptions that fail the
	// compaction.
	KeyCountCassandra311 KeyCountRules = iota + 1
	// KeyCountCassandra50 is Cassandra 5.0's (October 2024 trunk
	// io/sstable/format/SSTableReader.java:284-339): no input gives −1; the
	// sketches come from StatsComponent.load, which turns every
	// IOException into a CorruptSSTableException, so only a missing
	// COMPACTION component or a failed merge falls back, to the sum of
	// estimatedKeys() from 0.
	KeyCountCassandra50
)

// String returns the release the rules are of.
func (r KeyCountRules) String() string {
	switch r {
	case KeyCountCassandra311:
		return "Cassandra 3.11"
	case KeyCountCassandra50:
		return "Cassandra 5.0"
	}
	return fmt.Sprintf("KeyCountRules(%d)", int(r))
}

// KeyCountInput is one input SSTable of ApproximateKeyCount.
type KeyCountInput struct {
	// Path names the SSTable's Statistics.db in errors.
	Path string
	// Statistics is its decoded Statistics.db (whose Cardinality, nil when
	// the file has no COMPACTION component, is the sketch); nil when the
	// SSTable has no Statistics.db, which Cassandra reads as no sketch.
	Statistics *Statistics
	// EstimatedKeys is the SSTable's SSTableReader.estimatedKeys(), the
	// fallback: Summary.EstimatedKeys for the big format, the key count in
	// Partitions.db's footer (PartitionIndex.size()) for BTI.
	EstimatedKeys int64
}

// ApproximateKeyCount returns what SSTableReader.getApproximateKeyCount of
// the release the rules name returns for these inputs, in the order
// Cassandra iterates them (the compaction's set of non-expired SSTables):
// the order can change the result, because stream-lib 2.5.2's sparse merge
// is not associative. Sketches are merged with MergeHyperLogLogs and
// estimated with Cardinality; sums wrap as Java's long arithmetic does.
//
// What would make Cassandra fail the compaction is an error: a sketch
// stream-lib cannot read (a CorruptionError naming Path, the Statistics.db
// component and the offset; under 3.11 rules one that merely ends early
// falls back instead, as there), and a sketch stream-lib reads but castable
// does not model (another precision or encoding) whose merge would not fail.
// Cassandra skips SSTables opened early (a compaction's inputs never are).
// Callers that pass the result on reproduce their call site: CompactionAware
// Writer uses it as is, while cleanup, Upgrader and the scrubber take
// Math.max(min_index_interval, count) and anticompaction that of (int)
// count.
func ApproximateKeyCount(rules KeyCountRules, inputs []KeyCountInput) (int64, error) {
	if rules != KeyCountCassandra311 && rules != KeyCountCassandra50 {
		return 0, fmt.Errorf("sstables: ApproximateKeyCount: unknown rules %v", rules)
	}
	count := int64(-1)
	if len(inputs) == 0 {
		return count, nil
	}
	card, ok, err := sketchKeyCount(rules, inputs)
	if err != nil {
		return 0, err
	}
	if ok {
		count = card
	}
	if count < 0 {
		if rules == KeyCountCassandra50 {
			count = 0
		}
		for _, in := range inputs {
			count += in.EstimatedKeys
		}
	}
	return count, nil
}

// sketchKeyCount is getApproximateKeyCount's loop over the sketches: the
// merged estimate, or ok false when it falls back.
func sketchKeyCount(rules KeyCountRules, inputs []KeyCountInput) (card int64, ok bool, err error) {
	// "Reading cardinality from Statistics.db failed" for an input
	// without a sketch: the loop breaks there, reading no later sketch.
	n := len(inputs)
	for i, in := range inputs {
		if in.Statistics == nil || in.Statistics.Cardinality == nil {
			n = i
			break
		}
	}
	c := chainHLL(n, func(i int) ([]byte, string, int64) {
		st := inputs[i].Statistics
		return st.Cardinality, inputs[i].Path, st.CardinalityOffset
	})
	switch {
	case c.failure == hllMerge:
		return 0, false, nil // "Cardinality merge failed"
	case c.failure == hllEOF && rules == KeyCountCassandra311:
		return 0, false, nil // the IOException is caught
	case c.err != nil:
		return 0, false, c.err
	case n < len(inputs):
		return 0, false, nil
	}
	return c.cardinality(), true, nil
}

// hllMerge is a CardinalityMergeException: addAll of sketches whose
// sizeof() differ.
const hllMerge hllFailure = hllRuntime + 1

// hllChainResult is the outcome of stream-lib's c = build(b0);
// c = c.merge(build(b1)); … over serialized sketches.
type hllChainResult struct {
	// h is the merge (nil on failure, and for a sketch of precision 4
	// alone, whose registers are words4).
	h      *HyperLogLog
	words4 []int32
	// failure and err say what stream-lib throws, at input at: a decoding
	// failure (err a CorruptionError) or hllMerge; err is also set, with
	// failure 0, for sketches stream-lib reads and castable does not model
	// (a precision other than 13/25, the legacy encoding, a register array
	// too short for cardinality()).
	failure hllFailure
	err     error
	at      int
}

// chainHLL runs the merge chain over the n sketches blob returns (the
// bytes, the file they are in and their offset there), stopping where
// stream-lib would throw.
func chainHLL(n int, blob func(i int) (b []byte, path string, base int64)) hllChainResult {
	hs := make([]*HyperLogLog, 0, n)
	var first hllDecoded
	var unmodeled error
	unmodeledAt := -1
	for i := range n {
		b, path, base := blob(i)
		d := decodeHLL(b, path, ComponentStatistics, base)
		if d.err != nil {
			return hllChainResult{failure: d.failure, err: d.err, at: i}
		}
		if d.h == nil && unmodeled == nil {
			unmodeled = fmt.Errorf("sstables: %s: %s: stream-lib reads this sketch, castable does not model it", path, d.unmodeled)
			unmodeledAt = i
		}
		if i == 0 {
			first = d
		} else if first.javaWords < 0 || d.javaWords < 0 {
			// The legacy encoding, whose size is not read here.
			return hllChainResult{err: unmodeled, at: unmodeledAt}
		} else if std := hllJavaWords(first.p); (i == 1 && first.javaWords != std) || d.javaWords != std {
			// cardinality.merge(next): a new HyperLogLogPlus of the first
			// sketch's precision addAll's the sketch so far, then next;
			// addAll throws on a sizeof() other than its own.
			return hllChainResult{failure: hllMerge, err: fmt.Errorf("sstables: %s: stream-lib cannot merge HyperLogLogs of %d and %d register words", path, first.javaWords, d.javaWords), at: i}
		}
		hs = append(hs, d.h)
	}
	if n == 1 && first.words4 != nil {
		return hllChainResult{words4: first.words4}
	}
	if unmodeled != nil {
		return hllChainResult{err: unmodeled, at: unmodeledAt}
	}
	return hllChainResult{h: MergeHyperLogLogs(hs...)}
}

// cardinality is cardinality() of the chain's result.
func (c *hllChainResult) cardinality() int64 {
	if c.h == nil {
		return hllPrecision4.normalCardinality(c.words4)
	}
	return c.h.Cardinality()
}
