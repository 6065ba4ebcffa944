package checksummer

// Polynomial arithmetic for CRC-32 (IEEE 802.3, as zlib and
// java.util.zip.CRC32 compute it).
//
// Representation ("reflected", the order zlib and every table-driven CRC-32
// use): a polynomial of degree < 32 is a uint32 whose bit 31 holds the
// coefficient of x^0 and bit 0 the coefficient of x^31. So "1" is 0x80000000,
// x^8 is 0x00800000 and the generator G(x) = x^32 + x^26 + x^23 + x^22 + x^16
// + x^12 + x^11 + x^10 + x^8 + x^7 + x^5 + x^4 + x^2 + x + 1 without its x^32
// term is 0xEDB88320.
//
// A 64-bit product is held in the same order: bit 63 is x^0, bit 0 is x^63.
// Its high half (bits 63..32) is then a reflected polynomial of degree < 32,
// and its low half L stands for L(x)·x^32.
//
// The raw CRC of a message M is M(x)·x^32 mod G; the zlib value adds the
// 0xFFFFFFFF pre- and post-conditioning, which cancels out of the combine
// identity crc(A‖B) = crc(A)·x^(8·len(B)) mod G ⊕ crc(B).

const (
	// crc32Poly is G(x) without its x^32 term, reflected.
	crc32Poly = 0xEDB88320
	// crc32One is the polynomial 1, reflected.
	crc32One = 0x80000000
	// crc32X8 is x^8, reflected: the factor one zero byte multiplies by.
	crc32X8 = 0x00800000

	// Barrett reduction constants of a 64-bit product to 32 bits (used by the
	// carry-less-multiply assembly), both 33-bit values reflected over 33
	// bits: bit 0 holds x^32 and bit 32 holds x^0.
	//
	// crc32BarrettMu is floor(x^64 / G) (0x104D101DF in normal order).
	crc32BarrettMu = 0x1F7011641
	// crc32BarrettG is G itself (0x104C11DB7 in normal order).
	crc32BarrettG = 0x1DB710641
)

// crc32Slicing holds the eight 256-entry tables of slicing-by-8: entry
// [k][v] is the raw CRC of byte v followed by k zero bytes. Table 0 is the
// classic byte-at-a-time table; tables 0..3 with zero data also multiply a
// polynomial by x^32 mod G (see mulX32).
var crc32Slicing = makeSlicingTables()

func makeSlicingTables() *[8][256]uint32 {
	t := new([8][256]uint32)
	for v := range 256 {
		c := uint32(v)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ crc32Poly
			} else {
				c >>= 1
			}
		}
		t[0][v] = c
	}
	for v := range 256 {
		c := t[0][v]
		for k := 1; k < 8; k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][v] = c
		}
	}
	return t
}

// mulX32 returns l(x)·x^32 mod G: four zero-byte steps of the table CRC,
// done at once with the slicing tables.
func mulX32(l uint32) uint32 {
	t := crc32Slicing
	return t[3][l&0xff] ^ t[2][l>>8&0xff] ^ t[1][l>>16&0xff] ^ t[0][l>>24]
}

// clmul32 returns the carry-less product of x and y as integers (63 bits).
//
// Plain integer multiplication adds with carries; spreading the bits of each
// operand over four masks with three-bit holes keeps every carry inside its
// hole (at most 8 one-bit terms meet in one position), so four groups of
// four multiplications give the exact carry-less result. Constant time, no
// tables.
func clmul32(x, y uint32) uint64 {
	const (
		m0 = 0x11111111
		m1 = 0x22222222
		m2 = 0x44444444
		m3 = 0x88888888
	)
	x0, x1, x2, x3 := uint64(x&m0), uint64(x&m1), uint64(x&m2), uint64(x&m3)
	y0, y1, y2, y3 := uint64(y&m0), uint64(y&m1), uint64(y&m2), uint64(y&m3)
	z0 := x0*y0 ^ x1*y3 ^ x2*y2 ^ x3*y1
	z1 := x0*y1 ^ x1*y0 ^ x2*y3 ^ x3*y2
	z2 := x0*y2 ^ x1*y1 ^ x2*y0 ^ x3*y3
	z3 := x0*y3 ^ x1*y2 ^ x2*y1 ^ x3*y0
	return z0&0x1111111111111111 | z1&0x2222222222222222 |
		z2&0x4444444444444444 | z3&0x8888888888888888
}

// mulModGeneric returns a·b mod G for reflected a and b, in pure Go.
func mulModGeneric(a, b uint32) uint32 {
	// The integer product has bit m for x^(62-m); shifting left once puts it
	// in the 64-bit reflected frame (bit m for x^(63-m)).
	p := clmul32(a, b) << 1
	return uint32(p>>32) ^ mulX32(uint32(p))
}

// mulModBitwise returns a·b mod G one coefficient at a time: for every
// term x^i of a it adds b·x^i. It is the slow, obviously correct reference
// for the tests and the table generator.
func mulModBitwise(a, b uint32) uint32 {
	var p uint32
	for i := range 32 {
		if a&(crc32One>>i) != 0 {
			p ^= b
		}
		// b ← b·x mod G: the x^31 coefficient (bit 0) overflows into x^32.
		if b&1 != 0 {
			b = b>>1 ^ crc32Poly
		} else {
			b >>= 1
		}
	}
	return p
}

// foldCRC32Length maps a byte count n ≥ 0 to n' < 2^32 with
// x^(8·n') ≡ x^(8·n) mod G.
//
// The multiplicative order of x modulo G divides 2^32 − 1 (checked by
// TestCRC32PowerPeriod), so x^(8·2^32) ≡ x^8 and lengths can be reduced
// modulo 2^32 − 1 by adding their 32-bit halves (twice, to absorb the carry).
// The result is 0 only for n ≡ 0, where the factor is 1.
func foldCRC32Length(n uint64) uint32 {
	s := n&0xffffffff + n>>32 // < 2^33
	s = s&0xffffffff + s>>32  // ≤ 2^32 − 1
	if s == 0xffffffff {      // ≡ 0 (mod 2^32 − 1)
		return 0
	}
	return uint32(s)
}
