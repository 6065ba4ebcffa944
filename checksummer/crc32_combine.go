package checksummer

//go:generate go run gen_combine_tables.go

// CRC32Combine returns the CRC-32 of A‖B given a = crc(A), b = crc(B) and
// lenB = len(B), for any length, in constant time:
//
//	crc(A‖B) = a·x^(8·lenB) mod G ⊕ b
//
// The factor x^(8·lenB) is the product of one precomputed table entry per
// non-zero byte of the (folded) length — crc32CombineTable, 4 KiB — and the
// products are carry-less multiplications reduced modulo G: PCLMULQDQ with
// Barrett reduction on amd64, a pure-Go carry-less multiply elsewhere or
// with the purego tag. This is ScyllaDB's fast_crc32_combine; it is what
// lets a writer checksum every byte once and fold chunk checksums into the
// whole-file digest.
//
// lenB ≤ 0 returns a.
func CRC32Combine(a, b uint32, lenB int64) uint32 { return crc32Combine(a, b, lenB) }

// crc32CombineGeneric is CRC32Combine computed in pure Go on every
// platform; the tests cross-check the assembly against it.
func crc32CombineGeneric(a, b uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return a
	}
	return crc32MulXPow8Generic(a, foldCRC32Length(uint64(lenB))) ^ b
}

// crc32MulXPow8Generic returns a·x^(8·n) mod G in pure Go. The factor is
// built from the table entries of the non-zero bytes of n first (it does not
// depend on a), then a is multiplied once — as the assembly does.
func crc32MulXPow8Generic(a, n uint32) uint32 {
	f, have := uint32(crc32One), false
	for k := 0; n != 0; k, n = k+1, n>>8 {
		if b := n & 0xff; b != 0 {
			if have {
				f = mulModGeneric(f, crc32CombineTable[k][b])
			} else {
				f, have = crc32CombineTable[k][b], true
			}
		}
	}
	if !have {
		return a
	}
	return mulModGeneric(a, f)
}

// crc32XPow8 returns x^(8·n) mod G for n ≥ 0.
func crc32XPow8(n int64) uint32 {
	if n <= 0 {
		return crc32One
	}
	return crc32MulXPow8Generic(crc32One, foldCRC32Length(uint64(n)))
}

// CRC32Combiner combines CRC-32 values for one fixed second length, the
// common case of fixed-size chunks (64 KiB chunks of an uncompressed
// Data.db, the 4-byte chunk trailers). Multiplication by the constant
// K = x^(8·len) mod G is linear, so it is precomputed as four 256-entry
// tables (one per byte of a): Combine is four lookups and four xors.
//
// Building one costs 32 carry-less multiplications and 1024 xors (about a
// microsecond); keep and reuse it. A CRC32Combiner is 4 KiB, immutable and
// safe for concurrent use.
type CRC32Combiner struct {
	tab  [4][256]uint32
	lenB int64
}

// NewCRC32Combiner returns a combiner for second pieces of lenB bytes.
// lenB ≤ 0 gives a combiner whose Combine returns a.
func NewCRC32Combiner(lenB int64) *CRC32Combiner {
	c := &CRC32Combiner{lenB: max(lenB, 0)}
	k := crc32XPow8(lenB)
	for i := range 4 {
		row := &c.tab[i]
		// Entries for single bits, then every other entry by linearity.
		for j := range 8 {
			row[1<<j] = mulModGeneric(uint32(1)<<(8*i+j), k)
		}
		for u := 3; u < 256; u++ {
			if low := u & -u; low != u {
				row[u] = row[u&^low] ^ row[low]
			}
		}
	}
	return c
}

// Len returns the second length the combiner was built for.
func (c *CRC32Combiner) Len() int64 { return c.lenB }

// Combine returns the CRC-32 of A‖B given a = crc(A) and b = crc(B) where
// len(B) is c.Len().
func (c *CRC32Combiner) Combine(a, b uint32) uint32 {
	if c.lenB == 0 {
		return a
	}
	return c.tab[0][a&0xff] ^ c.tab[1][a>>8&0xff] ^ c.tab[2][a>>16&0xff] ^ c.tab[3][a>>24] ^ b
}
