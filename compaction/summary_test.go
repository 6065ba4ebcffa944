package compaction

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/sstables"
)

func TestSetSummary(t *testing.T) {
	p := dht.Murmur3
	rng := rand.New(rand.NewPCG(5, 6))
	type pk struct {
		key []byte
		tok dht.Token
	}
	var keys []pk
	for range 3000 {
		k := binary.BigEndian.AppendUint64(nil, rng.Uint64())
		keys = append(keys, pk{k, p.Token(k)})
	}
	slices.SortFunc(keys, func(a, b pk) int { return dht.ComparePartitions(a.tok, a.key, b.tok, b.key) })
	b := sstables.NewSummaryBuilder(sstables.SummaryOptions{})
	for i, k := range keys {
		b.Add(k.key, int64(i))
	}
	raw, err := b.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sstables.ParseSummary(raw, "Summary.db", sstables.SummaryReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var s SSTableInfo
	s.SetSummary(sum, p)
	if s.IndexSummarySize != 24 || s.EstimatedKeys != (24+1)*128 {
		t.Errorf("entries %d, keys %d", s.IndexSummarySize, s.EstimatedKeys)
	}
	// Brute force: the sampled entries whose token is in one of the ranges.
	count := func(ranges []dht.Range) int64 {
		var n int64
		for i := range sum.Len() {
			tok := p.Token(sum.Key(i))
			if slices.ContainsFunc(ranges, func(r dht.Range) bool { return r.Contains(tok) }) {
				n++
			}
		}
		return max(1, n*128)
	}
	tok := func(v int64) dht.Token { return dht.Murmur3Token(v) }
	for _, ranges := range [][]dht.Range{
		{{Left: tok(0), Right: tok(math.MaxInt64)}},
		{{Left: tok(-1 << 62), Right: tok(1 << 62)}},
		{{Left: tok(1 << 62), Right: tok(-1 << 62)}},                                       // wraps around
		{{Left: tok(5), Right: tok(5)}},                                                    // the whole ring
		{{Left: tok(-100), Right: tok(100)}},                                               // nothing sampled: 1
		{{Left: tok(-1 << 62), Right: tok(0)}, {Left: tok(-1 << 61), Right: tok(1 << 61)}}, // overlapping
		{{Left: tok(-1 << 62), Right: tok(0)}, {Left: tok(0), Right: tok(1 << 62)}},        // adjacent
		{{Left: dht.Token{}, Right: tok(0)}},
		{{Left: tok(0), Right: dht.Token{}}}, // to the end of the ring
	} {
		if got, want := s.KeysInRanges(ranges), count(ranges); got != want {
			t.Errorf("%v: %d, want %d", ranges, got, want)
		}
	}
}

func TestNormalizeRanges(t *testing.T) {
	tok := func(v int64) dht.Token { return dht.Murmur3Token(v) }
	min := dht.Token{}
	got := normalizeRanges([]dht.Range{{Left: tok(10), Right: tok(-10)}, {Left: tok(-20), Right: tok(-15)}})
	want := []dht.Range{{Left: min, Right: tok(-10)}, {Left: tok(10), Right: min}}
	if !slices.EqualFunc(got, want, func(a, b dht.Range) bool { return a.Left.Equal(b.Left) && a.Right.Equal(b.Right) }) {
		t.Errorf("%v, want %v", got, want)
	}
	if got := normalizeRanges([]dht.Range{{Left: tok(3), Right: tok(3)}, {Left: tok(1), Right: tok(2)}}); len(got) != 1 || !got[0].Left.Equal(min) || !got[0].Right.Equal(min) {
		t.Errorf("whole ring: %v", got)
	}
}
