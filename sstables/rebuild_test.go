package sstables

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"github.com/castable-db/castable/sstables/version"
	"math"
	"testing"

	"github.com/castable-db/castable/dht"
)

// TestRealSummaryRebuild rebuilds every Cassandra-written Summary.db from
// the Index.db keys and positions and compares bytes.
func TestRealSummaryRebuild(t *testing.T) {
	n := 0
	for _, s := range realSSTables(t) {
		if !s.has(ComponentSummary) || s.scylla {
			continue
		}
		tr := s.desc.Version
		want := s.read(t, ComponentSummary)
		compressed := s.has(ComponentCompressionInfo)
		sum, err := ParseSummary(want, "x", SummaryReadOptions{Boundaries: tr.SummaryBoundaries(), DataCompressed: compressed})
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		entries := indexEntries(t, s)
		opts := SummaryOptions{MinIndexInterval: sum.MinIndexInterval}
		if tr.SummaryBoundaries() {
			opts.Boundaries = sum.Boundaries
		}
		b := NewSummaryBuilder(opts)
		for _, e := range entries {
			b.Add(e.key, e.pos)
		}
		got, err := b.AppendTo(nil)
		if err != nil {
			t.Fatal(err)
		}
		want = want[:len(want)-sum.TrailingBytes]
		if !bytes.Equal(got, want) {
			t.Errorf("%s: rebuilt summary differs at byte %d\n got %x\nwant %x", s.name, firstDiff(got, want), got, want)
			continue
		}
		n++
		if tr.SummaryBoundaries() {
			// The default trailer is what a 2.2 flush of a small SSTable
			// writes; the real files match it except the one whose index
			// boundaries include the Index.db length.
			def := NewSummaryBuilder(SummaryOptions{MinIndexInterval: sum.MinIndexInterval, Boundaries: &SummaryBoundaries{DataCompressed: compressed}})
			for _, e := range entries {
				def.Add(e.key, e.pos)
			}
			d, _ := def.AppendTo(nil)
			if !bytes.Equal(d, want) {
				t.Logf("%s: default la trailer differs from the real one %+v", s.name, *sum.Boundaries)
			}
		}
		// Every key is found through the summary.
		for i, e := range entries {
			k := sum.Floor(s.part, e.key)
			if k < 0 || sum.IndexPosition(k) > e.pos || (k+1 < sum.Len() && sum.IndexPosition(k+1) <= e.pos) {
				t.Errorf("%s: key %d (%x) at %d: floor entry %d", s.name, i, e.key, e.pos, k)
				break
			}
		}
		if k := sum.Floor(s.part, nil); k != -1 && len(entries[0].key) > 0 {
			t.Errorf("%s: empty key floor %d", s.name, k)
		}
		if !bytes.Equal(sum.First, entries[0].key) || !bytes.Equal(sum.Last, entries[len(entries)-1].key) {
			t.Errorf("%s: first/last keys", s.name)
		}
	}
	if n < 20 {
		t.Fatalf("only %d summaries rebuilt", n)
	}
}

func TestSummaryManyEntries(t *testing.T) {
	b := NewSummaryBuilder(SummaryOptions{MinIndexInterval: 4})
	type kp struct {
		tok dht.Token
		key []byte
	}
	var keys []kp
	for i := 0; i < 1000; i++ {
		k := []byte(fmt.Sprintf("key-%d", i))
		keys = append(keys, kp{dht.Murmur3.Token(k), k})
	}
	sortKeys := func(a, b kp) int { return dht.ComparePartitions(a.tok, a.key, b.tok, b.key) }
	slicesSortFunc(keys, sortKeys)
	for i, k := range keys {
		b.Add(k.key, int64(i*10))
	}
	enc, err := b.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSummary(enc, "x", SummaryReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 250 || s.SizeAtFullSampling != 250 || s.TrailingBytes != 0 {
		t.Fatalf("len %d full %d trailing %d", s.Len(), s.SizeAtFullSampling, s.TrailingBytes)
	}
	for i, k := range keys {
		if f := s.Floor(dht.Murmur3, k.key); f != i/4 || s.IndexPosition(f) != int64(i/4*40) {
			t.Fatalf("key %d: floor %d", i, f)
		}
	}
	for cut := 0; cut < len(enc)-1; cut += 7 {
		if _, err := ParseSummary(enc[:cut], "x", SummaryReadOptions{}); err == nil {
			t.Fatalf("truncated to %d accepted", cut)
		}
	}
}

func TestSummaryEffectiveInterval(t *testing.T) {
	if got := (SummaryOptions{}).EffectiveIndexInterval(); got != 128 {
		t.Fatal(got)
	}
	if got := (SummaryOptions{MinIndexInterval: 128, ExpectedKeys: 1e9}).EffectiveIndexInterval(); got != 128 {
		t.Fatalf("1e9 keys: %d", got)
	}
	// 1e10 keys / 128 × 72 bytes > 2^31−1: ceil(1e10·72 / (2^31−1)) = 336.
	if got := (SummaryOptions{MinIndexInterval: 128, ExpectedKeys: 1e10}).EffectiveIndexInterval(); got != 336 {
		t.Fatalf("1e10 keys: %d", got)
	}
}

// swappedFilterHashOrder are the real SSTables whose Filter.db uses the
// other hash order than their version's, with why.
var swappedFilterHashOrder = map[string]string{
	// Cassandra's BloomFilterTest reads this file with oldBfHashOrder =
	// false: it was written with the ma order although named la, so
	// Cassandra's own SSTable reader, which uses the la order, would miss
	// its keys.
	"cassandra-legacy/other/bloom-filter/la/foo/la-1-big": "Filter.db written with the ma hash order (Cassandra's BloomFilterTest reads it so)",
}

// TestRealFilterRebuild rebuilds every Filter.db from the Index.db keys and
// Statistics.db's fp chance.
func TestRealFilterRebuild(t *testing.T) {
	n, shaChecked := 0, 0
	for _, s := range realSSTables(t) {
		if !s.has(ComponentFilter) || !s.has(ComponentIndex) {
			continue // the keys come from Index.db (BTI: sstables/conformance rewrites Filter.db)
		}
		fv := s.desc.Version // the version whose filter layout the file has
		if why, ok := swappedFilterHashOrder[s.name]; ok {
			t.Logf("%s: %s", s.name, why)
			fv = version.MustParse("ma")
		}
		entries := indexEntries(t, s)
		real, err := ParseBloomFilter(s.read(t, ComponentFilter), s.desc.Path(ComponentFilter), fv)
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		for _, e := range entries {
			if !real.MightContain(e.key) {
				t.Errorf("%s: key %x absent from the real filter", s.name, e.key)
				break
			}
		}
		f, err := NewBloomFilter(int64(len(entries)), fpChance(t, s), fv)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			h1, h2 := dht.Murmur3Hash(e.key)
			f.AddHash(h1, h2)
		}
		got := f.AppendTo(nil)
		want := s.read(t, ComponentFilter)
		if !bytes.Equal(got, want) && compactionOutput(t, s) {
			// Compaction sizes the filter from an estimated key count.
			t.Logf("%s: compaction output, filter sized from an estimate (K=%d, %d words; rebuilt %d)", s.name, real.HashCount(), real.Words(), f.Words())
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: rebuilt filter (K=%d W=%d) differs from the real one (%x)", s.name, f.HashCount(), f.Words(), want[:8])
			continue
		}
		if sha := expectedSHA256(t, s, s.desc.Filename(ComponentFilter)); sha != "" {
			shaChecked++
			if sha256Hex(got) != sha {
				t.Errorf("%s: sha256 differs from expected.sha256", s.name)
			}
		}
		n++
	}
	if n < 30 || shaChecked < 15 {
		t.Fatalf("rebuilt %d filters, %d against expected.sha256", n, shaChecked)
	}
}

func TestBloomSpec(t *testing.T) {
	for _, c := range []struct {
		fp   float64
		k, b int
	}{{0.5, 2, 1}, {0.393, 2, 1}, {0.2, 2, 4}, {0.1, 3, 5}, {0.05, 3, 7}, {0.01, 5, 10}, {0.001, 7, 15}, {0.0001, 10, 20}} {
		k, b, err := BloomSpec(100, c.fp)
		if err != nil || k != c.k || b != c.b {
			t.Errorf("fp %v: K=%d b=%d %v, want K=%d b=%d", c.fp, k, b, err, c.k, c.b)
		}
	}
	if _, _, err := BloomSpec(100, 1e-6); err == nil {
		t.Error("fp 1e-6 accepted")
	}
	if f, err := NewBloomFilter(10, 1, version.MustParse("mc")); f != nil || err != nil {
		t.Error("fp 1 must mean no filter")
	}
	for n, words := range map[int64]int{4: 1, 5: 2, 130: 21, 1000000: 156251} {
		f, _ := NewBloomFilter(n, 0.01, version.MustParse("mc"))
		if f.Words() != words {
			t.Errorf("n=%d: %d words, want %d", n, f.Words(), words)
		}
	}
	for _, bad := range [][]byte{{}, {0, 0, 0, 5}, {0, 0, 0, 5, 0, 0, 0, 2, 1}, {0, 0, 0, 0, 0, 0, 0, 0}, {0xff, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}} {
		if _, err := ParseBloomFilter(bad, "x", version.MustParse("mc")); err == nil {
			t.Errorf("%x accepted", bad)
		}
	}
}

// TestRealHLL recomputes the HyperLogLog++ bytes of every Cassandra-written
// Statistics.db from the Index.db keys.
func TestRealHLL(t *testing.T) {
	n, normal := 0, 0
	for _, s := range realSSTables(t) {
		if s.scylla || !s.has(ComponentStatistics) {
			continue
		}
		if s.desc.Version.Tries() {
			// The keys come from Index.db here; the BTI rewrite of
			// sstables/conformance reproduces da's HLL.
			continue
		}
		want := statistics(t, s).Cardinality
		if len(want) > 4 && want[4] != hllP {
			// ScyllaDB regenerated these Statistics.db files (its HLL has
			// p=4, sp=0): not reference material.
			t.Logf("%s: HLL with p=%d written by ScyllaDB, skipped", s.name, want[4])
			continue
		}
		h := NewHyperLogLog()
		for _, e := range indexEntries(t, s) {
			h.OfferKey(e.key)
		}
		got := h.AppendTo(nil)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: HLL differs at byte %d (%d vs %d bytes)", s.name, firstDiff(got, want), len(got), len(want))
			continue
		}
		parsed, err := ParseHyperLogLog(want, "x", ComponentStatistics, 0)
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
		} else if again := parsed.AppendTo(nil); !bytes.Equal(again, want) {
			t.Errorf("%s: parsed HLL re-encodes differently", s.name)
		}
		if h.Normal() {
			normal++
		}
		n++
	}
	if n < 30 {
		t.Fatalf("checked only %d HLLs", n)
	}
}

func TestHash2_64(t *testing.T) {
	if got := Hash2_64([]byte{0, 0, 0, 0x80}, 0); got != 0x2602dd97fd9b6ea8 {
		t.Fatalf("%x", got)
	}
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], 5)
	if got := Hash2_64(k[:], 0); got != 0x1dab2c5f1af715ec {
		t.Fatalf("%x", got)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// compactionOutput reports whether s is an la compaction output (its
// Statistics.db lists ancestors).
func compactionOutput(t testing.TB, s realSSTable) bool {
	tr := s.desc.Version
	if !tr.CompactionAncestors() {
		return false
	}
	return len(statistics(t, s).Ancestors) > 0
}

// TestHLLNormalMode checks the NORMAL representation against a direct
// computation: after the switch every register holds the maximum rank of
// the hashes that map to it. (No Cassandra-written NORMAL blob is in the
// test data: many_deleted_partitions' Statistics.db was regenerated by
// ScyllaDB.) It uses the 65,536 keys of many_deleted_partitions (int
// 0 … 65535).
func TestHLLNormalMode(t *testing.T) {
	h := NewHyperLogLog()
	want := make([]int32, hllRegisters)
	var key [4]byte
	switched := -1
	for i := 0; i < 65536; i++ {
		binary.BigEndian.PutUint32(key[:], uint32(i))
		x := Hash2_64(key[:], 0)
		h.Offer(x)
		if switched < 0 && h.Normal() {
			switched = i + 1
		}
		idx := x >> (64 - hllP)
		rank := int32(bitsLeadingZeros64(x<<hllP|1<<(hllP-1)) + 1)
		want[idx] = max(want[idx], rank)
	}
	if switched < 0 {
		t.Fatal("65536 keys did not switch to NORMAL")
	}
	t.Logf("switched to NORMAL after %d keys", switched)
	for r := 0; r < hllRegisters; r++ {
		got := (h.registers[r/6] >> (5 * (r % 6))) & 0x1f
		if got != want[r] {
			t.Fatalf("register %d = %d, want %d", r, got, want[r])
		}
	}
	b := h.AppendTo(nil)
	if len(b) != 5473 || !bytes.Equal(b[:9], []byte{0xff, 0xff, 0xff, 0xfe, 0x0d, 0x19, 0x00, 0xd8, 0x2a}) {
		t.Fatalf("NORMAL blob of %d bytes starting %x", len(b), b[:9])
	}
	parsed, err := ParseHyperLogLog(b, "x", ComponentStatistics, 0)
	if err != nil || !bytes.Equal(parsed.AppendTo(nil), b) {
		t.Fatalf("round trip: %v", err)
	}
}

// TestHLLSparseMerges offers enough keys for several temp-list merges but
// fewer than the NORMAL switch, and checks that the sparse list is the
// deduplicated set of encodings with the best rank per sparse index.
// TestHLLSparsePast6144: stream-lib's getBytes merges the pending values
// without converting, so flushes of 6145 to 6147 keys are written SPARSE,
// and its reader takes the list back whole. Lengths and digests are those
// stream-lib 2.5.2 wrote for keys 8-byte big-endian φ + j (its a6145 …
// a6148 in testdata/hll/stream-lib-2.5.2.golden).
func TestHLLSparsePast6144(t *testing.T) {
	for _, c := range []struct {
		n, size int
		sha     string
	}{{6144, 14812, "8bdb16a54e6f49c7"}, {6145, 14814, "7044e0cedb219204"}, {6146, 14817, "781f813d345bcc14"},
		{6147, 14819, "811d680f1d9a484c"}, {6148, 5473, "9952080c1ac9b926"}} {
		h := NewHyperLogLog()
		for j := range c.n {
			h.OfferKey(binary.BigEndian.AppendUint64(nil, 0x9E3779B97F4A7C15+uint64(j)))
		}
		b := h.AppendTo(nil)
		sum := sha256.Sum256(b)
		if len(b) != c.size || hex.EncodeToString(sum[:8]) != c.sha {
			t.Errorf("%d keys: %d bytes %x, stream-lib 2.5.2 wrote %d bytes %s", c.n, len(b), sum[:8], c.size, c.sha)
		}
		back, err := ParseHyperLogLog(b, "x", ComponentStatistics, 0)
		if err != nil || !bytes.Equal(back.AppendTo(nil), b) {
			t.Errorf("%d keys: does not read back: %v", c.n, err)
		}
	}
}

func TestHLLSparseMerges(t *testing.T) {
	h := NewHyperLogLog()
	best := map[int32]int32{}
	var key [8]byte
	for i := 0; i < 5000; i++ {
		binary.LittleEndian.PutUint64(key[:], uint64(i)*0x9e3779b97f4a7c15)
		x := Hash2_64(key[:], 0)
		h.Offer(x)
		k := encodeSparse(x)
		if old, ok := best[sparseIndex(k)]; !ok || k < old {
			best[sparseIndex(k)] = k
		}
	}
	h.mergeTemp()
	if h.Normal() {
		t.Skip("switched to NORMAL")
	}
	if len(h.sparse) != len(best) {
		t.Fatalf("%d sparse entries, want %d", len(h.sparse), len(best))
	}
	for _, k := range h.sparse {
		if best[sparseIndex(k)] != k {
			t.Fatalf("entry %08x, want %08x", k, best[sparseIndex(k)])
		}
	}
}

func TestFastMod(t *testing.T) {
	rng := newTestRand(11)
	divisors := []uint64{1, 2, 3, 64, 128, 1344, 10000064, 1<<37 - 64, 1<<63 + 5, ^uint64(0)}
	for range 200 {
		divisors = append(divisors, 64*(1+rng.Uint64N(1<<31)))
	}
	for _, d := range divisors {
		m := newFastMod(d)
		for _, x := range []uint64{0, 1, d - 1, d, d + 1, 1 << 63, ^uint64(0), rng.Uint64(), rng.Uint64()} {
			if got := m.mod(x); got != x%d {
				t.Fatalf("%d mod %d = %d, want %d", x, d, got, x%d)
			}
		}
		if d < 1<<62 {
			for _, x := range []int64{-1, -int64(d), math.MinInt64, math.MaxInt64, int64(rng.Uint64())} {
				want := x % int64(d)
				if want < 0 {
					want = -want
				}
				if got := m.javaAbsMod(x); got != want {
					t.Fatalf("|%d %% %d| = %d, want %d", x, d, got, want)
				}
			}
		}
	}
}
