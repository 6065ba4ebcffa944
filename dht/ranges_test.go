package dht

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func formatAll(p Partitioner, rs []Range) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.Format(p))
	}
	return strings.Join(parts, " ")
}

// TestSplitRingPoints pins the split points of each partitioner.
func TestSplitRingPoints(t *testing.T) {
	for _, tc := range []struct {
		p    Partitioner
		n    int
		want string
	}{
		{Murmur3, 1, "(-9223372036854775808, -9223372036854775808]"},
		{Murmur3, 4, "(-9223372036854775808, -4611686018427387904] (-4611686018427387904, 0] (0, 4611686018427387904] (4611686018427387904, -9223372036854775808]"},
		{Murmur3, 3, "(-9223372036854775808, -3074457345618258603] (-3074457345618258603, 3074457345618258602] (3074457345618258602, -9223372036854775808]"},
		// Random: -1 .. 2^127; 2^127+1 values split in two at 2^126-1.
		{Random, 2, "(-1, 85070591730234615865843651857942052863] (85070591730234615865843651857942052863, -1]"},
		{ByteOrdered, 4, "(, 40] (40, 80] (80, c0] (c0, ]"},
		{OrderPreserving, 5, "(, 3] (3, F] (F, Y] (Y, l] (l, ]"},
	} {
		rs, err := SplitRing(tc.p, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if got := formatAll(tc.p, rs); got != tc.want {
			t.Errorf("%s n=%d:\n got %s\nwant %s", shortName(tc.p.Name()), tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		p Partitioner
		n int
	}{{Murmur3, 0}, {ByteOrdered, 257}, {OrderPreserving, 96}} {
		if _, err := SplitRing(tc.p, tc.n); err == nil {
			t.Errorf("%s n=%d: no error", shortName(tc.p.Name()), tc.n)
		}
	}
}

// randomKey returns a key of 1 to 12 bytes (text-like half of the time).
func randomKey(r *rand.Rand) []byte {
	k := make([]byte, 1+r.IntN(12))
	for i := range k {
		if r.IntN(2) == 0 {
			k[i] = byte(' ' + r.IntN(95))
		} else {
			k[i] = byte(r.IntN(256))
		}
	}
	return k
}

// TestSplitRingCoversOnce: every token is in exactly one range, the one
// RangeIndex finds; the hash partitioners' ranges get equal shares of random
// keys.
func TestSplitRingCoversOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range partitioners {
		for _, n := range []int{1, 2, 3, 4, 7, 16, 64} {
			rs, err := SplitRing(p, n)
			if err != nil {
				t.Fatal(err)
			}
			x, err := NewRangeIndex(rs)
			if err != nil {
				t.Fatalf("%s n=%d: %v", shortName(p.Name()), n, err)
			}
			counts := make([]int, n)
			const keys = 20000
			for range keys {
				tok := p.Token(randomKey(r))
				in := -1
				for i, rg := range rs {
					if rg.Contains(tok) {
						if in >= 0 {
							t.Fatalf("%s n=%d: token %s in ranges %d and %d", shortName(p.Name()), n, p.String(tok), in, i)
						}
						in = i
					}
				}
				if in < 0 {
					t.Fatalf("%s n=%d: token %s in no range", shortName(p.Name()), n, p.String(tok))
				}
				if got := x.Find(tok); got != in {
					t.Fatalf("%s n=%d: Find(%s) = %d, want %d", shortName(p.Name()), n, p.String(tok), got, in)
				}
				counts[in]++
			}
			// Split points themselves belong to the range they end.
			for i, rg := range rs {
				if !rg.Contains(rg.Right) || (n > 1 && rg.Contains(rg.Left)) {
					t.Errorf("%s n=%d: range %d %s and its bounds", shortName(p.Name()), n, i, rg.Format(p))
				}
				if got := x.Find(rg.Right); got != i {
					t.Errorf("%s n=%d: Find(right end of %d) = %d", shortName(p.Name()), n, i, got)
				}
			}
			if p.PreservesOrder() {
				continue
			}
			for i, c := range counts {
				// Five standard deviations of a binomial count.
				want := float64(keys) / float64(n)
				if d := float64(c) - want; d*d > 25*want {
					t.Errorf("%s n=%d: range %d got %d of %d keys, want about %.0f", shortName(p.Name()), n, i, c, keys, want)
				}
			}
		}
	}
}

// TestRingRanges: a ring's tokens delimit (previous, token] ranges, the
// first wrapping; containment follows Cassandra's (left, right].
func TestRingRanges(t *testing.T) {
	toks := []Token{Murmur3Token(100), Murmur3Token(-50), Murmur3Token(3000)}
	rs, err := RingRanges(toks)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := formatAll(Murmur3, rs), "(3000, -50] (-50, 100] (100, 3000]"; got != want {
		t.Fatalf("ranges %s, want %s", got, want)
	}
	x, err := NewRangeIndex(rs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    int64
		want int
	}{{-50, 0}, {-49, 1}, {100, 1}, {101, 2}, {3000, 2}, {3001, 0}, {-1 << 62, 0}, {1<<63 - 1, 0}} {
		if got := x.Find(Murmur3Token(tc.v)); got != tc.want || !rs[tc.want].Contains(Murmur3Token(tc.v)) {
			t.Errorf("token %d: range %d, want %d", tc.v, got, tc.want)
		}
	}
	if _, err := RingRanges([]Token{Murmur3Token(1), Murmur3Token(1)}); err == nil {
		t.Error("a token given twice was accepted")
	}
	if _, err := RingRanges(nil); err == nil {
		t.Error("an empty ring was accepted")
	}
	one, _ := RingRanges([]Token{Murmur3Token(7)})
	if !one[0].Contains(Murmur3Token(-1<<63+1)) || !one[0].Contains(Murmur3Token(7)) {
		t.Error("a one-token ring does not hold every token")
	}
}

// TestRangeIndexRejectsGaps: ranges that leave a gap or overlap are not
// indexed.
func TestRangeIndexRejectsGaps(t *testing.T) {
	a, b, c := Murmur3Token(-10), Murmur3Token(0), Murmur3Token(10)
	for i, rs := range [][]Range{
		{{a, b}, {c, a}},         // gap (0, 10]
		{{a, c}, {b, a}},         // overlap
		{{a, b}, {b, c}},         // nothing wraps: (10, -10] missing
		{{a, b}, {b, c}, {c, b}}, // overlap at the wrap
	} {
		if _, err := NewRangeIndex(rs); err == nil {
			t.Errorf("case %d: %v accepted", i, rs)
		}
	}
	if _, err := NewRangeIndex(nil); err == nil {
		t.Error("no ranges accepted")
	}
}

// BenchmarkRangeIndexFind: finding the range of a Murmur3 token among n.
func BenchmarkRangeIndexFind(b *testing.B) {
	for _, n := range []int{4, 256, 4096} {
		b.Run(fmt.Sprintf("ranges=%d", n), func(b *testing.B) {
			rs, _ := SplitRing(Murmur3, n)
			x, _ := NewRangeIndex(rs)
			toks := make([]Token, 1024)
			for i := range toks {
				var k [8]byte
				binary.LittleEndian.PutUint64(k[:], uint64(i))
				toks[i] = Murmur3.Token(k[:])
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = x.Find(toks[i&1023])
			}
		})
	}
}
