package sstables

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/prefetch"
	"github.com/castable-db/castable/sstables/version"
)

// Filter.db layout (big-endian header):
//
//	+0    i32  hashCount K
//	+4    i32  W            number of 64-bit words
//	+8    W × 8 bytes       filter bit i is bit (i mod 64) of word[i / 64];
//	                        before 4.0 (version.OldBloomFilterFormat) each
//	                        word is written big-endian, from na on
//	                        little-endian (the in-memory bytes: bit i in byte
//	                        i / 8, mask 1 << (i mod 8))
//	file size = 8 + 8·W
//
// Sizing (FilterFactory / BloomCalculations): for n expected keys and false
// positive chance fp (< 1; fp = 1 means no filter and no Filter.db), K and
// bucketsPerElement b come from bloomProbs (see BloomSpec), numBits =
// n·b + 20 (BITSET_EXCESS), W = ((numBits − 1) >> 6) + 1. Bits are taken
// modulo the capacity 64·W, not numBits.
//
// Hashing a key: (h1, h2) = the two halves of Cassandra's Murmur3
// (dht.Murmur3, the token's hash). Before "ma" base = h1, increment = h2
// (the "old" order); from "ma" on base = h2, increment = h1. For i in
// 0 … K−1 bit_i = |base % capacity| with Java's signed % and abs, then
// base += increment (wrapping signed 64-bit). (The remainder is computed
// with a precomputed reciprocal, see fastMod.)
const (
	// bitsetExcess is added to the bit count (FilterFactory.BITSET_EXCESS).
	bitsetExcess = 20
	// maxBloomFileSize bounds the Filter.db a reader loads.
	maxBloomFileSize = 1 << 34
	// maxHashCount bounds K when reading.
	maxHashCount = 1 << 10
)

// bloomProbs[b][k] is the false positive rate with b buckets per element
// and k hash functions (column 0 is a dummy); Cassandra's BloomCalculations
// table, part of the sizing rule and thus of the file format.
var bloomProbs = [][]float64{
	{1.0},
	{1.0, 1.0},
	{1.0, 0.393, 0.400},
	{1.0, 0.283, 0.237, 0.253},
	{1.0, 0.221, 0.155, 0.147, 0.160},
	{1.0, 0.181, 0.109, 0.092, 0.092, 0.101},
	{1.0, 0.154, 0.0804, 0.0609, 0.0561, 0.0578, 0.0638},
	{1.0, 0.133, 0.0618, 0.0423, 0.0359, 0.0347, 0.0364},
	{1.0, 0.118, 0.0489, 0.0306, 0.024, 0.0217, 0.0216, 0.0229},
	{1.0, 0.105, 0.0397, 0.0228, 0.0166, 0.0141, 0.0133, 0.0135, 0.0145},
	{1.0, 0.0952, 0.0329, 0.0174, 0.0118, 0.00943, 0.00844, 0.00819, 0.00846},
	{1.0, 0.0869, 0.0276, 0.0136, 0.00864, 0.0065, 0.00552, 0.00513, 0.00509},
	{1.0, 0.08, 0.0236, 0.0108, 0.00646, 0.00459, 0.00371, 0.00329, 0.00314},
	{1.0, 0.074, 0.0203, 0.00875, 0.00492, 0.00332, 0.00255, 0.00217, 0.00199, 0.00194},
	{1.0, 0.0689, 0.0177, 0.00718, 0.00381, 0.00244, 0.00179, 0.00146, 0.00129, 0.00121, 0.0012},
	{1.0, 0.0645, 0.0156, 0.00596, 0.003, 0.00183, 0.00128, 0.001, 0.000852, 0.000775, 0.000744},
	{1.0, 0.0606, 0.0138, 0.005, 0.00239, 0.00139, 0.000935, 0.000702, 0.000574, 0.000505, 0.00047, 0.000459},
	{1.0, 0.0571, 0.0123, 0.00423, 0.00193, 0.00107, 0.000692, 0.000499, 0.000394, 0.000335, 0.000302, 0.000287, 0.000284},
	{1.0, 0.054, 0.0111, 0.00362, 0.00158, 0.000839, 0.000519, 0.00036, 0.000275, 0.000226, 0.000198, 0.000183, 0.000176},
	{1.0, 0.0513, 0.00998, 0.00312, 0.0013, 0.000663, 0.000394, 0.000264, 0.000194, 0.000155, 0.000132, 0.000118, 0.000111, 0.000109},
	{1.0, 0.0488, 0.00906, 0.0027, 0.00108, 0.00053, 0.000303, 0.000196, 0.00014, 0.000108, 8.89e-05, 7.77e-05, 7.12e-05, 6.79e-05, 6.71e-05},
}

// bloomOptK[b] is the first k reaching row b's minimum, at least 1.
var bloomOptK = func() []int {
	opt := make([]int, len(bloomProbs))
	for b, row := range bloomProbs {
		best := math.MaxFloat64
		for k, p := range row {
			if p < best {
				best = p
				opt[b] = max(1, k)
			}
		}
	}
	return opt
}()

// BloomSpec returns the hash count K and buckets per element that
// Cassandra chooses for false positive chance fp with n expected keys. fp
// must be in (0, 1); 1 means no filter.
func BloomSpec(n int64, fp float64) (k, bucketsPerElement int, err error) {
	if !(fp > 0 && fp < 1) {
		return 0, 0, fmt.Errorf("sstables: bloom filter fp chance %v outside (0, 1)", fp)
	}
	maxBuckets := len(bloomProbs) - 1
	if v := float64(math.MaxInt64-bitsetExcess) / float64(max(1, n)); v < 1 {
		return 0, 0, fmt.Errorf("sstables: cannot size a bloom filter for %d keys", n)
	} else if v < float64(maxBuckets) {
		maxBuckets = int(v)
	}
	if fp >= bloomProbs[2][1] {
		// Cassandra passes (2, optK[2]) as (K, buckets) here.
		return 2, bloomOptK[2], nil
	}
	last := bloomProbs[maxBuckets]
	if fp < last[len(last)-1] {
		return 0, 0, fmt.Errorf("sstables: bloom filter fp chance %v is below the smallest supported %v", fp, last[len(last)-1])
	}
	b := 2
	k = bloomOptK[b]
	for bloomProbs[b][k] > fp {
		b++
		k = bloomOptK[b]
	}
	for bloomProbs[b][k-1] <= fp {
		k--
	}
	return k, b, nil
}

// BloomFilter is the SSTable bloom filter over partition keys.
type BloomFilter struct {
	hashCount int
	words     []uint64
	capacity  int64 // 64·len(words)
	mod       fastMod
	oldOrder  bool // version.OldBloomHashOrder
	oldFormat bool // version.OldBloomFilterFormat
}

// NewBloomFilter sizes an empty filter for n keys and false positive
// chance fp as Cassandra does (exact for a flush, where n is the partition
// count), with the hash order and serialization of version v. fp = 1 means
// no filter: it returns nil, nil.
func NewBloomFilter(n int64, fp float64, v version.Version) (*BloomFilter, error) {
	if fp == 1 {
		return nil, nil
	}
	k, b, err := BloomSpec(n, fp)
	if err != nil {
		return nil, err
	}
	numBits := n*int64(b) + bitsetExcess
	words := ((numBits - 1) >> 6) + 1
	if words > math.MaxInt32 {
		return nil, fmt.Errorf("sstables: a bloom filter of %d bits is too large", numBits)
	}
	return newBloomFilter(k, make([]uint64, words), v.OldBloomHashOrder(), v.OldBloomFilterFormat()), nil
}

func newBloomFilter(k int, words []uint64, oldHashOrder, oldFormat bool) *BloomFilter {
	c := 64 * int64(len(words))
	return &BloomFilter{hashCount: k, words: words, capacity: c, mod: newFastMod(uint64(c)), oldOrder: oldHashOrder, oldFormat: oldFormat}
}

// HashCount returns K.
func (f *BloomFilter) HashCount() int { return f.hashCount }

// Words returns the number of 64-bit words.
func (f *BloomFilter) Words() int { return len(f.words) }

// Add sets the bits of a partition key.
func (f *BloomFilter) Add(key []byte) {
	h1, h2 := dht.Murmur3Hash(key)
	f.AddHash(h1, h2)
}

// AddHash sets the bits of a key whose Murmur3 halves the caller already
// computed (for the token), so a key is hashed once.
func (f *BloomFilter) AddHash(h1, h2 uint64) {
	base, inc := int64(h2), int64(h1)
	if f.oldOrder {
		base, inc = inc, base
	}
	m := f.mod
	for i := 0; i < f.hashCount; i++ {
		bit := m.javaAbsMod(base)
		f.words[bit>>6] |= 1 << (uint(bit) & 63)
		base += inc
	}
}

// AddHashes sets the bits of many keys whose Murmur3 halves are given as
// (h1, h2) pairs. The bits of a key are spread over the whole filter, so
// each is a likely cache miss: AddHashes computes the bit positions of the
// key bloomAhead keys ahead and prefetches their words, so that the misses
// of several keys overlap instead of stalling one after another.
func (f *BloomFilter) AddHashes(hashes []uint64) {
	k := f.hashCount
	n := len(hashes) / 2
	if k > maxPrefetchedHashes || n < 2*bloomAhead {
		for i := 0; i < n; i++ {
			f.AddHash(hashes[2*i], hashes[2*i+1])
		}
		return
	}
	var ring [bloomAhead][maxPrefetchedHashes]int64
	for j := 0; j < bloomAhead; j++ {
		f.positions(hashes[2*j], hashes[2*j+1], ring[j][:k])
	}
	words := f.words
	for i := 0; i < n; i++ {
		slot := &ring[i%bloomAhead]
		for _, bit := range slot[:k] {
			words[bit>>6] |= 1 << (uint(bit) & 63)
		}
		if j := i + bloomAhead; j < n {
			f.positions(hashes[2*j], hashes[2*j+1], slot[:k])
			for _, bit := range slot[:k] {
				prefetch.Pointer(unsafe.Pointer(&words[bit>>6]))
			}
		}
	}
}

const (
	// bloomAhead is how many keys ahead AddHashes prefetches.
	bloomAhead = 8
	// maxPrefetchedHashes is the largest hash count AddHashes prefetches
	// for (Cassandra's fp chances give at most 20 or so).
	maxPrefetchedHashes = 24
)

// positions writes the len(dst) bit positions of a key into dst.
func (f *BloomFilter) positions(h1, h2 uint64, dst []int64) {
	base, inc := int64(h2), int64(h1)
	if f.oldOrder {
		base, inc = inc, base
	}
	m := f.mod
	for i := range dst {
		dst[i] = m.javaAbsMod(base)
		base += inc
	}
}

// MightContain reports whether key may have been added (false means it was
// not).
func (f *BloomFilter) MightContain(key []byte) bool {
	h1, h2 := dht.Murmur3Hash(key)
	return f.MightContainHash(h1, h2)
}

// MightContainHash is MightContain for precomputed Murmur3 halves.
func (f *BloomFilter) MightContainHash(h1, h2 uint64) bool {
	base, inc := int64(h2), int64(h1)
	if f.oldOrder {
		base, inc = inc, base
	}
	m := f.mod
	for i := 0; i < f.hashCount; i++ {
		bit := m.javaAbsMod(base)
		if f.words[bit>>6]&(1<<(uint(bit)&63)) == 0 {
			return false
		}
		base += inc
	}
	return true
}

// SerializedSize returns the length of the Filter.db encoding.
func (f *BloomFilter) SerializedSize() int { return 8 + 8*len(f.words) }

// AppendTo appends the Filter.db encoding of f.
func (f *BloomFilter) AppendTo(dst []byte) []byte {
	dst = slices.Grow(dst, 8+8*len(f.words)) // one allocation, not doubling
	dst = binary.BigEndian.AppendUint32(dst, uint32(f.hashCount))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(f.words)))
	if f.oldFormat {
		for _, w := range f.words {
			dst = binary.BigEndian.AppendUint64(dst, w)
		}
		return dst
	}
	for _, w := range f.words {
		dst = binary.LittleEndian.AppendUint64(dst, w)
	}
	return dst
}

// ParseBloomFilter parses Filter.db content of version v; path names the
// file in errors.
func ParseBloomFilter(b []byte, path string, v version.Version) (*BloomFilter, error) {
	r := NewByteReader(b, path, ComponentFilter, 0)
	k := r.I32()
	words := r.I32()
	if err := r.Err(); err != nil {
		return nil, err
	}
	if k <= 0 || k > maxHashCount {
		return nil, Corruptf(path, string(ComponentFilter), 0, "hash count %d out of range", k)
	}
	if words <= 0 || int64(words)*8 != int64(r.Remaining()) {
		return nil, Corruptf(path, string(ComponentFilter), 4, "%d words, but %d bytes follow", words, r.Remaining())
	}
	f := newBloomFilter(int(k), make([]uint64, words), v.OldBloomHashOrder(), v.OldBloomFilterFormat())
	for i := range f.words {
		w := r.U64()
		if !f.oldFormat {
			w = bits.ReverseBytes64(w)
		}
		f.words[i] = w
	}
	return f, nil
}

// ReadBloomFilter reads desc's Filter.db.
func ReadBloomFilter(fsys FS, desc Descriptor) (*BloomFilter, error) {
	path := desc.Path(ComponentFilter)
	b, err := readWholeFile(fsOrDefault(fsys), path, ComponentFilter, maxBloomFileSize)
	if err != nil {
		return nil, err
	}
	return ParseBloomFilter(b, path, desc.Version)
}
