package sstables

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// hllKey is key j of seed: the 8 big-endian bytes of seed·φ + j, as
// HLLGround makes it.
func hllKey(seed, j uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, seed*0x9E3779B97F4A7C15+j)
}

// hllSerialize writes a sketch of any precision and content the way
// getBytes does (a sparse list as given, deltas wrapping).
func hllSerialize(p, sp uint32, normal bool, words, sparse []int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0xFFFFFFFE)
	b = binary.AppendUvarint(b, uint64(p))
	b = binary.AppendUvarint(b, uint64(sp))
	if normal {
		b = binary.AppendUvarint(b, 0)
		b = binary.AppendUvarint(b, uint64(4*len(words)))
		for _, w := range words {
			b = binary.BigEndian.AppendUint32(b, uint32(w))
		}
		return b
	}
	b = binary.AppendUvarint(b, 1)
	b = binary.AppendUvarint(b, uint64(len(sparse)))
	var prev int32
	for _, k := range sparse {
		b = binary.AppendUvarint(b, uint64(uint32(k-prev)))
		prev = k
	}
	return b
}

// hllOf returns a sketch offered keys j = start … start+n−1 of seed.
func hllOf(seed, start, n uint64) *HyperLogLog {
	h := NewHyperLogLog()
	for j := start; j < start+n; j++ {
		h.OfferKey(hllKey(seed, j))
	}
	return h
}

// TestHLLMergeRules checks addAll's representation changes and that
// MergeHyperLogLogs leaves its inputs alone.
func TestHLLMergeRules(t *testing.T) {
	// 4000 + 3600 sparse entries stay sparse (up to 6144 + 1536), 4000 +
	// 4000 turn NORMAL.
	for _, c := range []struct {
		n      uint64
		normal bool
	}{{3600, false}, {4000, true}} {
		x, y := hllOf(3, 0, 4000), hllOf(4, 0, c.n)
		bx, by := x.AppendTo(nil), y.AppendTo(nil)
		m := MergeHyperLogLogs(x, y)
		if m.Normal() != c.normal {
			t.Errorf("4000 + %d keys: NORMAL %v, want %v", c.n, m.Normal(), c.normal)
		}
		if !bytes.Equal(x.AppendTo(nil), bx) || !bytes.Equal(y.AppendTo(nil), by) {
			t.Error("MergeHyperLogLogs changed an input")
		}
		self := x.Clone()
		self.Merge(self)
		if !bytes.Equal(self.AppendTo(nil), bx) {
			t.Error("a sparse sketch merged with itself changed")
		}
	}
	big := hllOf(5, 0, 50000)
	sparse := hllOf(5, 0, 100)
	for _, order := range [][2]*HyperLogLog{{big, sparse}, {sparse, big}} {
		m := MergeHyperLogLogs(order[0], order[1])
		if !m.Normal() || m.Cardinality() != big.Cardinality() {
			t.Errorf("NORMAL with a subset: %v %d, want NORMAL %d", m.Normal(), m.Cardinality(), big.Cardinality())
		}
	}
	if MergeHyperLogLogs() != nil {
		t.Error("no sketch merged into one")
	}
	h := hllOf(6, 0, 3000)
	want := h.AppendTo(nil)
	h.Reset()
	if h.Cardinality() != 0 || h.Normal() {
		t.Error("Reset left values")
	}
	h.Merge(hllOf(6, 0, 3000))
	if !bytes.Equal(h.AppendTo(nil), want) {
		t.Error("an empty sketch merged with another does not equal it")
	}
}

// treeMapBias is getEstimateBias as stream-lib writes it: every squared
// distance put in a sorted map (a later index replacing an earlier one of
// the same distance), the first six values' biases summed in key order.
func treeMapBias(pr *hllPrecision, e float64) float64 {
	m := map[float64]int{}
	for i, x := range pr.raw {
		m[math.Pow(e-x, 2)] = i
	}
	keys := make([]float64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	var idx [6]int
	for i := 0; i < len(idx) && i < len(keys); i++ {
		idx[i] = m[keys[i]]
	}
	var total float64
	for _, i := range idx {
		total += pr.bias[i]
	}
	return total / 6
}

// TestHLLBiasNeighbours compares the outward walk with the TreeMap on the
// table's points, the midpoints between them (equal distances), their
// neighbouring doubles, estimates outside the table and random ones.
func TestHLLBiasNeighbours(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, pr := range []*hllPrecision{hllPrecision13, hllPrecision4} {
		var es []float64
		for i, x := range pr.raw {
			es = append(es, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
			if i > 0 {
				mid := (pr.raw[i-1] + x) / 2
				es = append(es, mid, math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1)))
			}
		}
		lo, hi := pr.raw[0], pr.raw[len(pr.raw)-1]
		es = append(es, 0, -1, -1e12, lo-1000, hi+1000, 5*float64(pr.m), 1e12)
		for range 20000 {
			es = append(es, lo-(hi-lo)/10+rng.Float64()*(hi-lo)*1.2)
		}
		ties := 0
		for _, e := range es {
			got, want := pr.estimateBias(e), treeMapBias(pr, e)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("m=%d e=%v: bias %v, the TreeMap's %v", pr.m, e, got, want)
			}
			for i := 1; i < len(pr.raw); i++ {
				if a, b := e-pr.raw[i-1], e-pr.raw[i]; a*a == b*b {
					ties++
				}
			}
		}
		if ties == 0 {
			t.Errorf("m=%d: no estimate equidistant from two points", pr.m)
		}
	}
}

// TestJavaRound checks Math.round's corners.
func TestJavaRound(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want int64
	}{
		{0, 0}, {0.49999999999999994, 0}, {0.5, 1}, {-0.5, 0}, {1.5, 2}, {2.5, 3}, {-1.5, -1},
		{-2.5, -2}, {-2.5000000000000004, -3}, {5.0000004, 5}, {4503599627370497, 4503599627370497},
		{-4503599627370497, -4503599627370497}, {9007199254740993, 9007199254740992},
		{1e19, math.MaxInt64}, {-1e19, math.MinInt64}, {math.Inf(1), math.MaxInt64},
		{math.Inf(-1), math.MinInt64}, {math.NaN(), 0}, {1e-300, 0}, {-1e-300, 0}, {0x1p62, 1 << 62},
	} {
		if got := javaRound(c.x); got != c.want {
			t.Errorf("Math.round(%v) = %d, castable %d", c.x, c.want, got)
		}
	}
}
