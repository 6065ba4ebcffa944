package checksummer

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// clmul64 returns the 128-bit carry-less product of a and b (what one
// PCLMULQDQ computes), bit by bit.
func clmul64(a, b uint64) (lo, hi uint64) {
	for i := range 64 {
		if b>>i&1 != 0 {
			lo ^= a << i
			if i > 0 {
				hi ^= a >> (64 - i)
			}
		}
	}
	return lo, hi
}

// xPowReflected returns x^e mod G, reflected, by e multiplications by x with
// the package's own reflected arithmetic (independent of the generator).
func xPowReflected(e int) uint32 {
	r := uint32(crc32One)
	for range e {
		if r&1 != 0 {
			r = r>>1 ^ crc32Poly
		} else {
			r >>= 1
		}
	}
	return r
}

// TestCRC32FoldConsts recomputes every multiplier of crc32FoldConsts and
// checks the Barrett constants by their defining identities.
func TestCRC32FoldConsts(t *testing.T) {
	want := func(i int, e int) {
		t.Helper()
		if got, w := crc32FoldConsts[i], uint64(xPowReflected(e)); got != w {
			t.Errorf("word %d: %#x, want x^%d mod G = %#x", i, got, e, w)
		}
	}
	for k := range crc32DistLanes {
		i := crc32DistEnd - 2*(k+1)
		want(i, 128*k+95)
		want(i+1, 128*k+31)
	}
	want(crc32Fold4096, 4096+31)
	want(crc32Fold4096+1, 4096-33)
	want(crc32Fold2048, 2048+31)
	want(crc32Fold2048+1, 2048-33)

	for n := 1; n < crc32SeedLen; n++ {
		if got, want := crc32SeedConsts[n], xPowReflected(8*n-1); got != want {
			t.Errorf("seed multiplier %d: %#x, want x^%d mod G = %#x", n, got, 8*n-1, want)
		}
	}

	// floor(x^95/G)·G ⊕ (x^95 mod G) = x^95, in normal bit order.
	mu := bits.Reverse64(crc32FoldConsts[crc32BarrettConsts])
	lo, hi := clmul64(mu, 0x104C11DB7)
	lo ^= uint64(bits.Reverse32(xPowReflected(95)))
	if lo != 0 || hi != 1<<31 {
		t.Errorf("floor(x^95/G) = %#x fails µ·G ⊕ x^95 mod G = x^95 (got %#x:%#x)", mu, hi, lo)
	}
	if g := crc32FoldConsts[crc32BarrettConsts+1]; g != crc32BarrettG {
		t.Errorf("G reflected over 33 bits = %#x, want %#x", g, uint64(crc32BarrettG))
	}
}

// lane is one 128-bit lane: q[0] the first 8 message bytes, q[1] the next 8.
type lane [2]uint64

// fold returns clmul(v.lo, k.lo) ⊕ clmul(v.hi, k.hi) for the multiplier
// pair at word i of crc32FoldConsts (a VPCLMULQDQ pair on one lane).
func (v lane) fold(i int) lane {
	a0, a1 := clmul64(v[0], crc32FoldConsts[i])
	b0, b1 := clmul64(v[1], crc32FoldConsts[i+1])
	return lane{a0 ^ b0, a1 ^ b1}
}

func (v lane) xor(w lane) lane { return lane{v[0] ^ w[0], v[1] ^ w[1]} }

func laneAt(p []byte) lane {
	return lane{binary.LittleEndian.Uint64(p), binary.LittleEndian.Uint64(p[8:])}
}

// barrett reduces w ≡ M·x^64 to the raw CRC, as the kernels end.
func barrett(w lane) uint32 {
	q, _ := clmul64(w[0], crc32FoldConsts[crc32BarrettConsts])
	t0, t1 := clmul64(q, crc32FoldConsts[crc32BarrettConsts+1])
	w = w.xor(lane{t0, t1})
	return uint32(w[1])
}

// distanceSum returns the xor of every lane of buf multiplied by its
// distance multipliers; buf ends at the end of the message and its length
// is a multiple of 16 (at most 64 lanes).
func distanceSum(buf []byte) lane {
	var w lane
	n := len(buf) / 16
	for i := range n {
		k := n - 1 - i
		w = w.xor(laneAt(buf[16*i:]).fold(crc32DistEnd - 2*(k+1)))
	}
	return w
}

// crc32ModelShort is the short path of crc32AVX512 in pure Go: the message
// is padded with zeros at the front to whole 64-byte vectors, every lane is
// multiplied straight to the end, the seed ^prev by its own multiplier, and
// the sum is reduced.
func crc32ModelShort(prev uint32, p []byte) uint32 {
	if len(p) == 0 {
		return prev
	}
	nv := (len(p) + 63) / 64
	buf := make([]byte, 64*nv)
	copy(buf[len(buf)-len(p):], p)
	w := distanceSum(buf)
	// The seed goes in the high half of its 64-bit operand (read as x^31 …
	// x^0), the multiplier in the low half (as m·x^32): the product is
	// prev'·m·x^33 ≡ prev'·x^(8n+32).
	s0, s1 := clmul64(uint64(^prev)<<32, uint64(crc32SeedConsts[len(p)]))
	return ^barrett(w.xor(lane{s0, s1}))
}

// crc32ModelLong is the long path: accumulators of `lanes` lanes each
// (eight of them) fold forward by the given pair until fewer than eight
// vectors remain; the accumulators and the rest then go to the end by
// distance multipliers. len(p) is a multiple of 16·lanes, at least
// 8·16·lanes.
func crc32ModelLong(prev uint32, p []byte, lanes, foldPair int) uint32 {
	vec := 16 * lanes
	buf := append([]byte(nil), p...)
	binary.LittleEndian.PutUint32(buf, binary.LittleEndian.Uint32(buf)^^prev)
	acc := make([]lane, 8*lanes)
	for i := range acc {
		acc[i] = laneAt(buf[16*i:])
	}
	buf = buf[8*vec:]
	for len(buf) >= 8*vec {
		for i := range acc {
			acc[i] = acc[i].fold(foldPair).xor(laneAt(buf[16*i:]))
		}
		buf = buf[8*vec:]
	}
	rest := make([]byte, 0, 16*len(acc)+len(buf))
	for _, a := range acc {
		rest = binary.LittleEndian.AppendUint64(rest, a[0])
		rest = binary.LittleEndian.AppendUint64(rest, a[1])
	}
	return ^barrett(distanceSum(append(rest, buf...)))
}

// TestCRC32Models checks the arithmetic of both kernels, in pure Go on any
// platform, against hash/crc32.
func TestCRC32Models(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	buf := randomBytes(r, 4096)
	for n := 0; n <= 1024; n++ {
		prev := r.Uint32()
		if got, want := crc32ModelShort(prev, buf[:n]), crc32.Update(prev, crc32.IEEETable, buf[:n]); got != want {
			t.Fatalf("short model, len %d: %#08x, want %#08x", n, got, want)
		}
	}
	for _, m := range []struct{ lanes, pair int }{{4, crc32Fold4096}, {2, crc32Fold2048}} {
		vec := 16 * m.lanes
		for n := 8 * vec; n <= len(buf); n += vec {
			prev := r.Uint32()
			if got, want := crc32ModelLong(prev, buf[:n], m.lanes, m.pair), crc32.Update(prev, crc32.IEEETable, buf[:n]); got != want {
				t.Fatalf("long model (%d lanes), len %d: %#08x, want %#08x", m.lanes, n, got, want)
			}
		}
	}
}
