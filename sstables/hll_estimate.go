package sstables

import (
	"math"
	"slices"
)

// Merging and estimating, as stream-lib 2.5.2's HyperLogLogPlus does it
// (the version Cassandra 3.11.17 bundles and 5.0's build declares), for the
// key count compaction sizes its output with (ApproximateKeyCount).
//
// addAll(other), which Merge is:
//
//	NORMAL + NORMAL   RegisterSet.merge: each 5-bit field the larger (the
//	                  word is rebuilt from its six fields, bits 30-31 drop)
//	SPARSE + SPARSE   mergeEstimators: both temporary lists merged first,
//	                  then the two sparse lists merged in one pass, equal
//	                  sparse indexes giving the smaller int, others ordered
//	                  by the raw int (not the index, as mergeTempList);
//	                  more than 6144 + 1536 entries convert to NORMAL
//	SPARSE + NORMAL   convert to NORMAL, then NORMAL + NORMAL
//	NORMAL + SPARSE   each sparse entry updates its register
//
// merge(others...), which MergeHyperLogLogs chains, starts a new
// HyperLogLogPlus(13, 25), adds this, then each other.
//
// cardinality(), which Cardinality is:
//
//	SPARSE  pending values merged (no conversion), then linear counting at
//	        precision 25: (int) Math.round(2^25 · ln(2^25 / (2^25 − n)))
//	NORMAL  E = alphaMM / Σ 1.0/(1 << r) over the 8192 registers r (an int
//	        shift: r = 31 adds −2^−31), alphaMM = (0.7213 / (1 + 1.079 /
//	        8192)) · 8192 · 8192; E' = E − bias(E) when E ≤ 5 · 8192, else
//	        E; H = 8192 · ln(8192 / zeros) when a register is zero, else E';
//	        Math.round(H) when H < 6500, else Math.round(E')
//	bias(E) the mean of the biases of the 6 raw estimates nearest E,
//	        taken from a TreeMap of squared distance to index: of equal
//	        distances only the later index stays, the sum runs in order of
//	        distance, and missing neighbours are index 0
//
// Every floating-point step is the same IEEE-754 double operation as
// Java's, in the same order (the register sum is exact, so it is summed in
// integers), except ln: Go's math.Log and HotSpot's Math.log differ in the
// last bit on about 0.5% of the arguments cardinality() takes it of, and
// TestHLLLogMargin shows that no result can change: every linear counting
// estimate lies more than 4 ulps from a rounding boundary and from the
// threshold, for any ln within an ulp.

// Clone returns a deep copy of h.
func (h *HyperLogLog) Clone() *HyperLogLog {
	c := &HyperLogLog{}
	if h.registers != nil {
		c.registers = slices.Clone(h.registers)
		return c
	}
	if len(h.temp) > 0 {
		c.temp = make([]int32, len(h.temp), hllTempMax+1)
		copy(c.temp, h.temp)
	}
	c.sparse = slices.Clone(h.sparse)
	return c
}

// Reset empties h (an empty sparse estimator, as NewHyperLogLog returns),
// keeping its buffers: Reset and Merge, or Offer, reuse them without
// allocating.
func (h *HyperLogLog) Reset() {
	h.temp, h.sparse, h.scratch = h.temp[:0], h.sparse[:0], h.scratch[:0]
	if h.registers != nil {
		h.spare, h.registers = h.registers, nil
	}
}

// Merge adds other to h as stream-lib 2.5.2's HyperLogLogPlus.addAll does:
// two NORMAL sketches keep the larger of each register; two SPARSE ones
// merge their lists in one pass (equal indexes keep the smaller entry, the
// others go in the order of their raw ints, as stream-lib compares them),
// turning NORMAL past 6144 + 1536 entries; a SPARSE h turns NORMAL before
// it takes a NORMAL other; a NORMAL h takes each entry of a SPARSE other.
// Like addAll it first merges the values other was offered since its last
// merge into other's own sparse list; it does not otherwise change other,
// which may be h.
func (h *HyperLogLog) Merge(other *HyperLogLog) {
	switch {
	case h.registers != nil && other.registers != nil:
		mergeRegisters(h.registers, other.registers)
	case h.registers == nil && other.registers == nil:
		other.mergeTemp()
		h.mergeTemp()
		h.scratch = mergeSparse(slices.Grow(h.scratch[:0], len(h.sparse)+len(other.sparse)), h.sparse, other.sparse)
		h.sparse, h.scratch = h.scratch, h.sparse[:0]
		if len(h.sparse) > hllSparseMax+hllTempMax {
			h.toNormal()
		}
	case h.registers == nil:
		h.toNormal()
		mergeRegisters(h.registers, other.registers)
	default:
		other.mergeTemp()
		for _, k := range other.sparse {
			h.updateRegister(int(uint32(sparseIndex(k))>>(hllSP-hllP)), sparseRank(k))
		}
	}
}

// MergeHyperLogLogs returns what stream-lib 2.5.2 returns for
// hs[0].merge(hs[1]).merge(hs[2])…, the chain SSTableReader's
// getApproximateKeyCount builds over the SSTables in their order (nil for
// none; for one, a copy of it, on which Cassandra calls cardinality()
// directly). The result shares nothing with hs; after its first merge it
// allocates only when it turns NORMAL or its sparse list outgrows its
// buffers.
func MergeHyperLogLogs(hs ...*HyperLogLog) *HyperLogLog {
	if len(hs) == 0 {
		return nil
	}
	acc := hs[0].Clone()
	if acc.registers == nil && len(hs) > 1 {
		// Room for the longest sparse list the merges can make.
		n := 0
		for _, h := range hs {
			n += len(h.sparse) + len(h.temp)
		}
		n = max(min(n, hllSparseMax+hllTempMax+1), len(acc.sparse))
		acc.sparse = slices.Grow(acc.sparse, n-len(acc.sparse))
		acc.scratch = make([]int32, 0, n)
	}
	for _, o := range hs[1:] {
		acc.remerge()
		acc.Merge(o)
	}
	return acc
}

// remerge turns h into new HyperLogLogPlus(13, 25) after addAll(h), the
// start of every merge(): a sparse list loses nothing (mergeEstimators of
// an empty list copies it) but converts past 6144 + 1536 entries; NORMAL
// registers are RegisterSet.merge into zeros, which clears bits 30 and 31
// of every word.
func (h *HyperLogLog) remerge() {
	if h.registers == nil {
		h.mergeTemp()
		if len(h.sparse) > hllSparseMax+hllTempMax {
			h.toNormal()
		}
		return
	}
	for i, w := range h.registers {
		h.registers[i] = w & 0x3fffffff
	}
}

// mergeSparse is mergeEstimators' loop: set and tmp merged into out.
func mergeSparse(out, set, tmp []int32) []int32 {
	i, j := 0, 0
	for i < len(set) && j < len(tmp) {
		s, t := set[i], tmp[j]
		switch {
		case sparseIndex(s) == sparseIndex(t):
			out = append(out, min(s, t))
			i++
			j++
		case s < t:
			out = append(out, s)
			i++
		default:
			out = append(out, t)
			j++
		}
	}
	out = append(out, set[i:]...)
	return append(out, tmp[j:]...)
}

// mergeRegisters is RegisterSet.merge: each 5-bit field of dst takes the
// larger of its value and src's; dst's words keep only their six fields.
// The fields are compared three at a time, spread into 10-bit lanes whose
// sixth bit says a ≥ b after (a | guard) − b.
func mergeRegisters(dst, src []int32) {
	src = src[:len(dst)]
	for i, a := range dst {
		x, y := uint32(a), uint32(src[i])
		dst[i] = int32(maxLanes(x&hllLanes, y&hllLanes) | maxLanes(x>>5&hllLanes, y>>5&hllLanes)<<5)
	}
}

// hllLanes are fields 0, 2 and 4 of a register word; hllGuards the bit
// above each.
const (
	hllLanes  = 0x1f | 0x1f<<10 | 0x1f<<20
	hllGuards = 1<<5 | 1<<15 | 1<<25
)

// maxLanes returns the lane-wise maximum of two words of 5-bit values in
// the lanes of hllLanes.
func maxLanes(a, b uint32) uint32 {
	ge := ((a | hllGuards) - b) & hllGuards
	m := ge >> 5 * 0x1f
	return a&m | b&^m
}

// Cardinality returns the estimate stream-lib 2.5.2's
// HyperLogLogPlus.cardinality() returns for h, bit for bit (see the notes
// above). Like cardinality() it first merges h's pending values into its
// sparse list (which changes no later result); it does not allocate.
func (h *HyperLogLog) Cardinality() int64 {
	if h.registers == nil {
		h.mergeTemp()
		return int64(int32(hllSparseCount(len(h.sparse))))
	}
	return hllPrecision13.normalCardinality(h.registers)
}

// hllRegisterTerm[r] is 2^31 · 1.0/(1 << r) with Java's int shift: 1 << 31
// is −2^31.
var hllRegisterTerm = func() (t [32]int64) {
	for r := range t {
		t[r] = 1 << (31 - r)
	}
	t[31] = -1
	return t
}()

// hllPrecision is what cardinality() needs of a precision: m = 2^p
// registers, alphaMM, and its row of stream-lib's bias tables.
type hllPrecision struct {
	m         int
	alphaMM   float64
	threshold float64
	raw, bias []float64
}

// hllPrecision13 is MetadataCollector's precision; hllPrecision4 is the
// one of ScyllaDB's sketches, estimated as Cassandra estimates such a file
// alone.
var (
	hllPrecision13 = newHLLPrecision(13, hllThreshold13, hllRawEstimate13[:], hllBias13[:])
	hllPrecision4  = newHLLPrecision(4, hllThreshold4, hllRawEstimate4[:], hllBias4[:])
)

// newHLLPrecision computes alphaMM as the constructor does
// (HyperLogLog.getAlphaMM in later versions): one double operation at a
// time, from the int m.
func newHLLPrecision(p int, threshold float64, raw, bias []float64) *hllPrecision {
	m := 1 << p
	fm := float64(m)
	var a float64
	switch p {
	case 4:
		a = 0.673 * fm * fm
	case 5:
		a = 0.697 * fm * fm
	case 6:
		a = 0.709 * fm * fm
	default:
		c, one := 1.079, 1.0
		a = 0.7213 / (one + c/fm) * fm * fm
	}
	return &hllPrecision{m: m, alphaMM: a, threshold: threshold, raw: raw, bias: bias}
}

// normalCardinality is cardinality() of NORMAL registers: registers 0 …
// m − 1 of words, six 5-bit fields a word.
func (pr *hllPrecision) normalCardinality(words []int32) int64 {
	var sum int64 // Σ 2^(31−r): the double sum times 2^31, exactly
	zeros := 0
	full := pr.m / 6
	for _, w := range words[:full] {
		x := uint32(w)
		a, b, c := x&0x3ff, x>>10&0x3ff, x>>20&0x3ff
		sum += hllPairTerm[a] + hllPairTerm[b] + hllPairTerm[c]
		zeros += int(hllPairZeros[a] + hllPairZeros[b] + hllPairZeros[c])
	}
	if rest := pr.m - 6*full; rest > 0 {
		x := uint32(words[full])
		for shift := 0; shift < 5*rest; shift += 5 {
			r := x >> shift & 0x1f
			sum += hllRegisterTerm[r]
			if r == 0 {
				zeros++
			}
		}
	}
	return pr.estimate(float64(sum)*0x1p-31, zeros)
}

// hllPairTerm and hllPairZeros are, for the 10 bits of two registers, the
// sum of their hllRegisterTerm and how many of them are zero.
var hllPairTerm, hllPairZeros = func() (t [1024]int64, z [1024]uint8) {
	for i := range t {
		lo, hi := i&0x1f, i>>5
		t[i] = hllRegisterTerm[lo] + hllRegisterTerm[hi]
		if lo == 0 {
			z[i]++
		}
		if hi == 0 {
			z[i]++
		}
	}
	return t, z
}()

// estimate is NORMAL's cardinality() from the register sum and the count
// of zero registers.
func (pr *hllPrecision) estimate(registerSum float64, zeros int) int64 {
	m := float64(pr.m)
	estimate := pr.alphaMM * (1 / registerSum)
	estimatePrime := estimate
	if estimate <= 5*m {
		estimatePrime = estimate - pr.estimateBias(estimate)
	}
	h := estimatePrime
	if zeros > 0 {
		h = m * math.Log(m/float64(zeros))
	}
	if h < pr.threshold {
		return javaRound(h)
	}
	return javaRound(estimatePrime)
}

// hllSparseCount is SPARSE's linearCounting(2^25, 2^25 − n), before its
// (int) cast.
func hllSparseCount(n int) int64 {
	const sm = 1 << hllSP
	v := float64(int32(sm - n))
	return javaRound(float64(sm) * math.Log(float64(sm)/v))
}

// estimateBias is getEstimateBias(e, p). The table is sorted, so walking
// outwards from e's place in it visits the squared distances
// (Math.pow(e − x, 2) is (e − x)·(e − x)) in the TreeMap's order, equal
// ones one after the other; of those the TreeMap keeps the largest index.
// e is finite: an infinite estimate (a register sum of zero, which takes
// registers at 31) is above 5m.
func (pr *hllPrecision) estimateBias(e float64) float64 {
	raw := pr.raw
	n := len(raw)
	hi, top := 0, n // the first raw estimate not below e
	for hi < top {
		mid := int(uint(hi+top) >> 1)
		if raw[mid] < e {
			hi = mid + 1
		} else {
			top = mid
		}
	}
	lo := hi - 1
	var idx [6]int // neighbours the TreeMap lacks are index 0
	var dist [6]float64
	k := 0
	for lo >= 0 || hi < n {
		var d float64
		var i int
		switch {
		case lo < 0:
			x := e - raw[hi]
			d, i = x*x, hi
		case hi >= n:
			x := e - raw[lo]
			d, i = x*x, lo
		default:
			xl, xr := e-raw[lo], e-raw[hi]
			if dl, dr := xl*xl, xr*xr; dl < dr {
				d, i = dl, lo
			} else {
				d, i = dr, hi
			}
		}
		if k > 0 && dist[k-1] == d {
			idx[k-1] = max(idx[k-1], i)
		} else if k == len(idx) {
			break
		} else {
			idx[k], dist[k] = i, d
			k++
		}
		if i == hi {
			hi++
		} else {
			lo--
		}
	}
	var total float64
	for _, i := range idx {
		total += pr.bias[i]
	}
	return total / float64(len(idx))
}

// javaRound is Java's Math.round(double) as Java 9 and later compute it,
// exactly: the nearest long, ties towards positive infinity, NaN 0,
// saturating (Java 8's floor(a + 0.5) agrees below 2^52).
func javaRound(a float64) int64 {
	b := math.Float64bits(a)
	shift := 1074 - int64(b>>52&0x7ff)
	if shift >= 0 && shift < 64 {
		r := int64(b&(1<<52-1) | 1<<52)
		if int64(b) < 0 {
			r = -r
		}
		return (r>>shift + 1) >> 1
	}
	switch {
	case a != a:
		return 0
	case a >= 0x1p63:
		return math.MaxInt64
	case a <= -0x1p63:
		return math.MinInt64
	}
	return int64(a)
}
