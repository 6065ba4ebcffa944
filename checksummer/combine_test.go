package checksummer

import (
	"math/rand/v2"
	"testing"
)

// crc32CombineImpls returns every CRC-32 combine in this build, including
// fixed-length combiners built for the length asked.
func combineImpls(alg Algorithm) []CombineImpl {
	var out []CombineImpl
	for _, c := range Combines() {
		if c.Algorithm == alg {
			out = append(out, c)
		}
	}
	if alg == CRC32 {
		out = append(out, CombineImpl{Name: "crc32-fixed", Algorithm: CRC32,
			Combine: func(a, b uint32, lenB int64) uint32 { return NewCRC32Combiner(lenB).Combine(a, b) }})
	}
	// Every checksummer's own Combine as wired in the registry.
	for _, c := range All() {
		if c.Algorithm() == alg {
			out = append(out, CombineImpl{Name: "checksummer:" + c.Name(), Algorithm: alg, Combine: c.Combine})
		}
	}
	return out
}

// TestCombineProperty checks combine(sum(A), sum(B), len(B)) == sum(A‖B)
// against the standard library for random A and B, empty ones included.
func TestCombineProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lengths := []int{0, 1, 2, 3, 4, 7, 8, 255, 256, 257, 514, 1023, 1024, 4100, 65535, 65536, 65537, 1 << 20, 1<<24 + 3}
	pool := randomBytes(r, 100+lengths[len(lengths)-1])
	for _, alg := range []Algorithm{CRC32, Adler32} {
		impls := combineImpls(alg)
		for _, lenA := range []int{0, 1, 100} {
			for _, lenB := range lengths {
				off := r.IntN(len(pool) - lenA - lenB + 1)
				a, b := pool[off:off+lenA], pool[off+lenA:off+lenA+lenB]
				sumA, sumB := reference(alg, initOf(alg), a), reference(alg, initOf(alg), b)
				want := reference(alg, initOf(alg), pool[off:off+lenA+lenB])
				for _, impl := range impls {
					if got := impl.Combine(sumA, sumB, int64(lenB)); got != want {
						t.Fatalf("%s: len(A)=%d len(B)=%d: got %#08x, want %#08x", impl.Name, lenA, lenB, got, want)
					}
				}
			}
		}
	}
}

// scyllaGrid is the len2 grid of ScyllaDB's checksum_utils_test.
var scyllaGrid = []int64{0, 1, 2, 3, 8, 255, 256, 1023, 1024, 1025, 0xffff, 0x10000,
	0xdeadbeef, 0xffffffff, 0x100000000, 0x200000000, 0x10000000001,
	0x7eadbeefcafebabe, 0x7fffffffffffffff}

// TestCombineLengthGrid compares every combine on ScyllaDB's grid of huge
// second lengths (crc1 = 0x12381237, crc2 = 0x73747474, crc2 = 0 for
// len2 = 0), where no reference checksum can be computed directly: the
// fast method, the GF(2) matrix, and zlib's own when built in must agree.
func TestCombineLengthGrid(t *testing.T) {
	for _, alg := range []Algorithm{CRC32, Adler32} {
		impls := combineImpls(alg)
		for _, n := range scyllaGrid {
			a, b := uint32(0x12381237), uint32(0x73747474)
			if alg == Adler32 {
				a, b = 0x1238_1237%adler32Mod|(0x1238%adler32Mod)<<16, 0x0747_0474
			}
			if n == 0 {
				b = 0
			}
			want := impls[0].Combine(a, b, n)
			if n == 0 && want != a {
				t.Errorf("%s: len 0 gave %#08x, want a = %#08x", impls[0].Name, want, a)
			}
			for _, impl := range impls[1:] {
				if got := impl.Combine(a, b, n); got != want {
					t.Errorf("len2 %#x: %s = %#08x, %s = %#08x", n, impl.Name, got, impls[0].Name, want)
				}
			}
		}
	}
}

// TestCRC32CombineExhaustiveBytes runs every value of each length byte
// through the assembly and the pure-Go multiply, against the GF(2) matrix.
func TestCRC32CombineExhaustiveBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := range 4 {
		for v := range int64(256) {
			n := v << (8 * k)
			if k > 0 {
				n |= int64(r.Uint32() & (1<<(8*k) - 1))
			}
			a, b := r.Uint32(), r.Uint32()
			want := CRC32CombineGF2(a, b, n)
			if got := CRC32Combine(a, b, n); got != want {
				t.Fatalf("CRC32Combine(%#x, %#x, %#x) = %#08x, want %#08x", a, b, n, got, want)
			}
			if got := crc32CombineGeneric(a, b, n); got != want {
				t.Fatalf("crc32CombineGeneric(%#x, %#x, %#x) = %#08x, want %#08x", a, b, n, got, want)
			}
		}
	}
}

// TestCRC32CombineTables recomputes the generated tables one coefficient at
// a time: crc32_combine_tables.go must match gen_combine_tables.go.
func TestCRC32CombineTables(t *testing.T) {
	pow := uint32(crc32X8) // x^(8·2^i)
	var pows [32]uint32
	for i := range pows {
		pows[i] = pow
		pow = mulModBitwise(pow, pow)
	}
	for k := range 4 {
		for u := range 256 {
			f := uint32(crc32One)
			for j := range 8 {
				if u&(1<<j) != 0 {
					f = mulModBitwise(f, pows[8*k+j])
				}
			}
			if crc32CombineTable[k][u] != f {
				t.Fatalf("crc32CombineTable[%d][%d] = %#08x, want %#08x (run go generate)", k, u, crc32CombineTable[k][u], f)
			}
		}
	}
}

// TestCRC32PowerPeriod checks the fact foldCRC32Length relies on:
// x^(2^(i+32)) ≡ x^(2^i) mod G, hence x^(8·(2^32−1)) ≡ 1.
func TestCRC32PowerPeriod(t *testing.T) {
	p := uint32(crc32One >> 1) // x
	var pows [64]uint32
	for i := range pows {
		pows[i] = p
		p = mulModBitwise(p, p)
	}
	for i := range 32 {
		if pows[i+32] != pows[i] {
			t.Fatalf("x^(2^%d) = %#08x but x^(2^%d) = %#08x", i+32, pows[i+32], i, pows[i])
		}
	}
	if got := crc32XPow8(0xffffffff); got != crc32One {
		t.Fatalf("x^(8·(2^32−1)) = %#08x, want 1", got)
	}
	for _, n := range []uint64{0, 1, 0xfffffffe, 0xffffffff, 0x100000000, 0x1fffffffe, 0x1ffffffff, 1<<64 - 1} {
		want := n % 0xffffffff
		if got := foldCRC32Length(n); uint64(got) != want {
			t.Errorf("foldCRC32Length(%#x) = %#x, want %#x", n, got, want)
		}
	}
}

// TestMulMod checks the pure-Go carry-less multiply and reduction against
// the one-coefficient-at-a-time product.
func TestMulMod(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	cases := [][2]uint32{{0, 0}, {0, 1}, {crc32One, 0xdeadbeef}, {0xffffffff, 0xffffffff}, {1, 1}}
	for range 2000 {
		cases = append(cases, [2]uint32{r.Uint32(), r.Uint32()})
	}
	for _, c := range cases {
		if got, want := mulModGeneric(c[0], c[1]), mulModBitwise(c[0], c[1]); got != want {
			t.Fatalf("mulModGeneric(%#08x, %#08x) = %#08x, want %#08x", c[0], c[1], got, want)
		}
		var want uint64
		for i := range 32 {
			if c[0]&(1<<i) != 0 {
				want ^= uint64(c[1]) << i
			}
		}
		if got := clmul32(c[0], c[1]); got != want {
			t.Fatalf("clmul32(%#08x, %#08x) = %#x, want %#x", c[0], c[1], got, want)
		}
	}
}

func TestCRC32CombinerZeroAndNegative(t *testing.T) {
	for _, n := range []int64{0, -1, -65536} {
		c := NewCRC32Combiner(n)
		if got := c.Combine(0x12345678, 0x9abcdef0); got != 0x12345678 {
			t.Errorf("NewCRC32Combiner(%d).Combine = %#08x, want a", n, got)
		}
		if c.Len() != 0 {
			t.Errorf("NewCRC32Combiner(%d).Len() = %d, want 0", n, c.Len())
		}
	}
	for _, impl := range append(combineImpls(CRC32), combineImpls(Adler32)...) {
		if got := impl.Combine(0x12345678, 0x9abcdef0, -5); got != 0x12345678 {
			t.Errorf("%s with negative length = %#08x, want a", impl.Name, got)
		}
	}
}
