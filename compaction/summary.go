package compaction

import (
	"slices"
	"sort"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/sstables"
)

// SetSummary fills in the key estimates of the tombstone checks from the
// SSTable's Summary.db, as Cassandra's SSTableReader makes them from its
// index summary: IndexSummarySize (the entries), EstimatedKeys ((size at
// full sampling + 1) × min index interval) and KeysInRanges
// (estimatedKeysForRanges: the entries whose token falls in the ranges,
// made disjoint, × 128 × min index interval / sampling level, at least 1).
// p is the SSTable's partitioner; sum must stay unchanged while s is used.
func (s *SSTableInfo) SetSummary(sum *sstables.Summary, p dht.Partitioner) {
	s.IndexSummarySize = sum.Len()
	s.EstimatedKeys = (int64(sum.SizeAtFullSampling) + 1) * int64(sum.MinIndexInterval)
	var tokens []dht.Token
	s.KeysInRanges = func(ranges []dht.Range) int64 {
		if tokens == nil {
			tokens = make([]dht.Token, sum.Len())
			for i := range tokens {
				tokens[i] = p.Token(sum.Key(i))
			}
		}
		var samples int64
		for _, r := range normalizeRanges(ranges) {
			// Entries up to a token's max key bound: those of token ≤ t
			// (the minimum token's bound is before every key).
			upTo := func(t dht.Token) int {
				if t.Equal(dht.Token{}) {
					return 0
				}
				return sort.Search(len(tokens), func(i int) bool { return dht.Compare(tokens[i], t) > 0 })
			}
			left := upTo(r.Left) // ranges are start exclusive
			if left == len(tokens) {
				continue
			}
			right := len(tokens) - 1
			if dht.Compare(r.Left, r.Right) < 0 { // not wrapping around
				n := upTo(r.Right)
				if n == 0 {
					continue
				}
				right = n - 1
			}
			if left > right {
				continue
			}
			samples += int64(right - left + 1)
		}
		return max(1, samples*int64(sstables.BaseSamplingLevel*sum.MinIndexInterval)/int64(sum.SamplingLevel))
	}
}

// normalizeRanges is Range.normalize: the ranges unwrapped at the minimum
// token, sorted by left bound, overlapping and adjacent ones merged (a
// range ending at the minimum token reaches the end of the ring).
func normalizeRanges(ranges []dht.Range) []dht.Range {
	minT := dht.Token{}
	var out []dht.Range
	for _, r := range ranges {
		if dht.Compare(r.Left, r.Right) >= 0 && !r.Right.Equal(minT) {
			out = append(out, dht.Range{Left: r.Left, Right: minT}, dht.Range{Left: minT, Right: r.Right})
		} else {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil
	}
	slices.SortStableFunc(out, func(a, b dht.Range) int { return dht.Compare(a.Left, b.Left) })
	var merged []dht.Range
	cur := out[0]
	for _, next := range out[1:] {
		if cur.Right.Equal(minT) {
			if cur.Left.Equal(minT) {
				return []dht.Range{cur}
			}
			return append(merged, dht.Range{Left: cur.Left, Right: minT})
		}
		if dht.Compare(next.Left, cur.Right) <= 0 {
			if next.Right.Equal(minT) || dht.Compare(cur.Right, next.Right) < 0 {
				cur = dht.Range{Left: cur.Left, Right: next.Right}
			}
		} else {
			merged = append(merged, cur)
			cur = next
		}
	}
	return append(merged, cur)
}
