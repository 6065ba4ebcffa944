package sstables

import (
	"slices"
	"testing"
)

// addHashReference is AddHash as the format states it: every bit
// |base % capacity| computed by division.
func addHashReference(f *BloomFilter, h1, h2 uint64) {
	base, inc := int64(h2), int64(h1)
	if f.oldOrder {
		base, inc = inc, base
	}
	c := f.capacity
	for i := 0; i < f.hashCount; i++ {
		bit := base % c
		if bit < 0 {
			bit = -bit
		}
		f.words[bit>>6] |= 1 << (uint(bit) & 63)
		base += inc
	}
}

// TestAddHashMatchesDivision checks AddHash's reciprocal remainders against
// division for capacities of many kinds (powers of two, odd word counts,
// large), halves near the int64 limits (so that base += inc wraps both
// ways, often) and random ones, in both hash orders.
func TestAddHashMatchesDivision(t *testing.T) {
	r := newTestRand(11)
	edges := []uint64{0, 1, 2, 1 << 63, 1<<63 - 1, 1<<63 + 1, ^uint64(0), ^uint64(0) - 1, 1 << 62, 3 << 62}
	for _, words := range []int{1, 2, 3, 7, 64, 1000, 1 << 14, 123457, 1<<21 + 5} {
		for _, old := range []bool{false, true} {
			for _, k := range []int{1, 7, 20} {
				got := newBloomFilter(k, make([]uint64, words), old, true)
				want := newBloomFilter(k, make([]uint64, words), old, true)
				for i := 0; i < 3000; i++ {
					h1, h2 := r.Uint64(), r.Uint64()
					if i < len(edges)*len(edges) {
						h1, h2 = edges[i%len(edges)], edges[i/len(edges)]
					} else if i%3 == 0 {
						h1 = h1>>1 | 1<<63 // large negative increments
					}
					got.AddHash(h1, h2)
					addHashReference(want, h1, h2)
					if i%500 == 0 || i < 200 {
						if !slices.Equal(got.words, want.words) {
							t.Fatalf("words=%d old=%v k=%d: bits differ after key %d (h1 %#x, h2 %#x)", words, old, k, i, h1, h2)
						}
					}
				}
				if !slices.Equal(got.words, want.words) {
					t.Fatalf("words=%d old=%v k=%d: bits differ", words, old, k)
				}
			}
		}
	}
}

// TestAddHashesMatchesAddHash requires the prefetching batch insertion to
// set exactly the bits of one AddHash per key, for batch lengths around the
// prefetch distance and both hash orders.
func TestAddHashesMatchesAddHash(t *testing.T) {
	r := newTestRand(12)
	for _, old := range []bool{false, true} {
		for _, n := range []int{0, 1, bloomAhead - 1, 2 * bloomAhead, 2*bloomAhead + 1, 1000} {
			for _, k := range []int{1, 7, maxPrefetchedHashes, maxPrefetchedHashes + 1} {
				hashes := make([]uint64, 2*n)
				for i := range hashes {
					hashes[i] = r.Uint64()
				}
				got := newBloomFilter(k, make([]uint64, 4099), old, true)
				want := newBloomFilter(k, make([]uint64, 4099), old, true)
				got.AddHashes(hashes)
				for i := 0; i < n; i++ {
					want.AddHash(hashes[2*i], hashes[2*i+1])
				}
				if !slices.Equal(got.words, want.words) {
					t.Fatalf("old=%v n=%d k=%d: bits differ", old, n, k)
				}
			}
		}
	}
}
