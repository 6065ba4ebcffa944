package checksummer

// adler32Mod is the Adler-32 modulus, the largest prime below 2^16.
const adler32Mod = 65521

// Adler32Combine returns the Adler-32 of A‖B given a = adler32(A),
// b = adler32(B) and lenB = len(B), with zlib's arithmetic: the byte sum of
// A‖B is sumA + sumB − 1 and the weighted sum gains lenB·sumA, all modulo
// 65521. A handful of integer operations; no tables.
//
// lenB ≤ 0 returns a.
func Adler32Combine(a, b uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return a
	}
	rem := uint32(uint64(lenB) % adler32Mod)
	a1, a2 := a&0xffff, a>>16
	b1, b2 := b&0xffff, b>>16
	// a1, b1 < 65536 and rem < 65521, so every term below fits in 32 bits.
	sum1 := a1 + b1 + adler32Mod - 1
	sum2 := (rem*a1)%adler32Mod + a2 + b2 + adler32Mod - rem
	if sum1 >= adler32Mod {
		sum1 -= adler32Mod
	}
	if sum1 >= adler32Mod {
		sum1 -= adler32Mod
	}
	if sum2 >= 2*adler32Mod {
		sum2 -= 2 * adler32Mod
	}
	if sum2 >= adler32Mod {
		sum2 -= adler32Mod
	}
	return sum2<<16 | sum1
}
