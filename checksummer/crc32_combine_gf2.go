package checksummer

// CRC32CombineGF2 returns the CRC-32 of A‖B given a = crc(A), b = crc(B) and
// lenB = len(B), by the method of zlib up to 1.2.11: the operator "append one
// zero bit" is a 32×32 matrix over GF(2); it is squared until it appends one
// byte, then squared once per bit of lenB and applied to a where that bit is
// set. That costs about 35 matrix squarings (32 matrix-vector products each)
// for a 64 KiB lenB, tens of microseconds: the reference the fast
// CRC32Combine is checked against, and the slow baseline of perf_checksum.
//
// lenB ≤ 0 returns a.
func CRC32CombineGF2(a, b uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return a
	}
	// Column i of a matrix is the image of bit i (the reflected x^(31-i)).
	var even, odd [32]uint32
	odd[0] = crc32Poly // x^31 · x = x^32 ≡ G − x^32
	for i := 1; i < 32; i++ {
		odd[i] = 1 << (i - 1) // x^(31-i) · x = x^(32-i)
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four zero bits
	for {
		gf2Square(&even, &odd) // first pass: one zero byte
		if lenB&1 != 0 {
			a = gf2Times(&even, a)
		}
		lenB >>= 1
		if lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			a = gf2Times(&odd, a)
		}
		lenB >>= 1
		if lenB == 0 {
			break
		}
	}
	return a ^ b
}

// gf2Times returns mat·vec: the xor of the columns selected by vec's bits.
func gf2Times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

// gf2Square sets dst to mat·mat.
func gf2Square(dst, mat *[32]uint32) {
	for i := range mat {
		dst[i] = gf2Times(mat, mat[i])
	}
}
