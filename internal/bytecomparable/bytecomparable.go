// Package bytecomparable holds the primitive byte-comparable encodings of
// Cassandra 5.0 (ByteComparable version OSS50): translations of values into
// byte strings whose unsigned lexicographic order is the order of the
// values, and the prefix helpers the BTI tries use to shorten keys.
//
// Everything here appends to a caller's buffer ((dst, src) style) and
// allocates only when dst must grow. The package imports nothing of the
// project.
//
// # Encodings
//
// Escaped byte strings (text, ascii, blob, inet, duration, partition keys,
// ByteOrderedPartitioner tokens): the input bytes are copied; a 00 byte is
// written as 00 and puts the escaper in the "escaped" state, in which each
// further 00 is written as FE and the first non-zero byte is preceded by
// FF (leaving the state). At the end, FE is written if escaped, else 00.
// The result is weakly prefix-free: a prefix is always followed by FE or
// FF in the longer value, both above every separator byte.
//
//	22 00       → 22 00 FE
//	22 00 00 33 → 22 00 FE FF 33 00
//	22 00 11    → 22 00 FF 11 00
//
// Fixed-length signed numbers (int, smallint, tinyint, timestamp): the
// big-endian bytes with the sign bit of the first byte flipped.
//
// Floats (float, double): positive values get their sign bit set; negative
// values have every bit inverted.
//
// Variable-length signed integers (bigint in OSS50, varint up to 6 bytes):
// 1 to 9 bytes; the first bits are the inverted sign followed by as many
// copies as there are extra bytes, then the two's complement value
// (0 → 80, 1 → 81, -1 → 7F, 64 → C0 40, -65 → 3F BF, MinInt64 → 9 × 00).
//
// Variable-length unsigned integers (the varint length prefix): as many
// leading one bits as extra bytes, a zero bit, then the value (0..127 in
// one byte, 128 → 80 80).
//
// # Sequences
//
// A sequence of components (a clustering, a decorated key, a tuple) writes
// NextComponent (40) before each component, NextComponentNull (3E) for a
// null component, NextComponentEmpty (3F; 41 for a reversed type) for an
// empty value that has no encoding, and ends with a terminator chosen by
// what the sequence is (38, 20, 60 or 18).
package bytecomparable

import "math/bits"

// Separator and terminator bytes of multi-component sequences. These are
// part of the on-disk format of BTI tries.
const (
	// Escape ends an escaped string and starts the escape of a 00 byte.
	Escape = 0x00
	// Escaped0Cont stands for each further 00 of a run of zeros.
	Escaped0Cont = 0xFE
	// Escaped0Done ends a run of zeros followed by a non-zero byte.
	Escaped0Done = 0xFF

	// NextComponent precedes every non-null component of a sequence.
	NextComponent = 0x40
	// NextComponentEmpty stands for an empty value of a type that encodes
	// empty as "no bytes" (int, bigint, uuid, ...).
	NextComponentEmpty = 0x3F
	// NextComponentEmptyReversed is NextComponentEmpty for a reversed type.
	NextComponentEmptyReversed = 0x41
	// NextComponentNull stands for a null component (tuple fields,
	// collection elements, clustering values of compact tables).
	NextComponentNull = 0x3E

	// Terminator ends a complete sequence: a clustering, a decorated key, a
	// tuple, a collection.
	Terminator = 0x38
	// LtNextComponent ends a bound that sorts before everything it
	// prefixes: inclusive start, exclusive end, and the exclusive-end /
	// inclusive-start boundary.
	LtNextComponent = 0x20
	// GtNextComponent ends a bound that sorts after everything it
	// prefixes: inclusive end, exclusive start, and the inclusive-end /
	// exclusive-start boundary.
	GtNextComponent = 0x60
	// Excluded ends the static clustering (sorts before every row).
	Excluded = 0x18
)

// AppendEscaped appends the escaped form of src (see the package comment).
func AppendEscaped(dst, src []byte) []byte {
	escaped := false
	for len(src) > 0 {
		if escaped {
			b := src[0]
			if b == 0 {
				dst = append(dst, Escaped0Cont)
				src = src[1:]
				continue
			}
			dst = append(dst, Escaped0Done)
			escaped = false
		}
		// Copy the run up to and including the next zero byte.
		i := 0
		for i < len(src) && src[i] != 0 {
			i++
		}
		if i < len(src) {
			dst = append(dst, src[:i+1]...)
			src = src[i+1:]
			escaped = true
			continue
		}
		dst = append(dst, src...)
		src = nil
	}
	if escaped {
		return append(dst, Escaped0Cont)
	}
	return append(dst, Escape)
}

// UnescapeLen parses an escaped string at the start of b, returning the
// number of bytes of b it occupies (up to and including its final 00 or
// FE) and the length of the unescaped value, or ok false when b ends
// before the string does.
func UnescapeLen(b []byte) (n, valueLen int, ok bool) {
	escaped := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !escaped {
			if c == Escape {
				escaped = true
				continue
			}
			valueLen++
			continue
		}
		switch c {
		case Escaped0Cont:
			valueLen++
		case Escaped0Done:
			valueLen++
			escaped = false
		default:
			// The string ended at the previous byte (a 00 or FE).
			return i, valueLen, true
		}
	}
	if escaped {
		// A 00 or FE at the end of b ends the string.
		return len(b), valueLen, true
	}
	return 0, 0, false
}

// AppendSignedFixed appends a fixed-length big-endian signed number with
// the sign bit of its first byte flipped.
func AppendSignedFixed(dst, src []byte) []byte {
	if len(src) == 0 {
		return dst
	}
	dst = append(dst, src[0]^0x80)
	return append(dst, src[1:]...)
}

// AppendFloat appends a big-endian IEEE-754 float or double: the sign bit
// set for a positive value, every bit inverted for a negative one. This
// orders as Java's Float/Double.compare (-0.0 before 0.0, NaN last).
func AppendFloat(dst, src []byte) []byte {
	if len(src) == 0 {
		return dst
	}
	if src[0]&0x80 == 0 {
		dst = append(dst, src[0]|0x80)
		return append(dst, src[1:]...)
	}
	for _, b := range src {
		dst = append(dst, ^b)
	}
	return dst
}

// AppendVarInt appends v as a variable-length signed integer (1 to 9
// bytes, see the package comment).
func AppendVarInt(dst []byte, v int64) []byte {
	neg := uint64(v >> 63) // all ones for negative values
	u := uint64(v) ^ neg   // magnitude-like: non-negative
	nbits := 64 - leadingZeros64(u|1)
	n := nbits/7 + 1
	if n >= 9 {
		// The ninth length bit does not fit the first byte: a whole byte
		// of length bits (FF positive, 00 negative), then 8 value bytes
		// whose top bit is the last length bit.
		u |= 1 << 63
		u ^= neg
		dst = append(dst, byte(^neg))
		return appendBE(dst, u, 8)
	}
	mask := uint64(0xFF00>>n) & 0xFF // sign bit plus n-1 length bits
	u |= mask << (8*n - 8)
	u ^= neg
	return appendBE(dst, u, n)
}

// AppendVarUint appends v as a variable-length unsigned integer: the count
// of extra bytes as leading one bits of the first byte, then a zero bit,
// then v big-endian.
func AppendVarUint(dst []byte, v uint64) []byte {
	bitsMinusOne := 63 - leadingZeros64(v|1)
	extra := bitsMinusOne / 7
	if extra >= 8 {
		// 9 (or 10) bytes: the first byte is all length bits.
		dst = append(dst, 0xFF)
		if extra == 9 {
			dst = append(dst, 0x80)
		}
		return appendBE(dst, v, 8)
	}
	mask := uint64(0xFF00>>uint(extra)) & 0xFF
	return appendBE(dst, v|mask<<(8*extra), extra+1)
}

func appendBE(dst []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

func leadingZeros64(x uint64) int { return bits.LeadingZeros64(x) }

// Invert inverts every byte of b in place (the encoding of a reversed type
// is the inverted encoding of its base type).
func Invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

// CommonPrefix returns the length of the longest common prefix of a and b.
func CommonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// DiffPoint is ByteComparable.diffPoint: 1 + the length of the common
// prefix of a and b, i.e. the length of the shortest prefix of either that
// includes the first position where they differ (an exhausted stream
// differs from any byte).
func DiffPoint(a, b []byte) int {
	return CommonPrefix(a, b) + 1
}

// Cut returns the first n bytes of a (all of a if it is shorter).
func Cut(a []byte, n int) []byte {
	if n < len(a) {
		return a[:n]
	}
	return a
}

// AppendSeparatorGt appends ByteComparable.separatorGt(prevMax, currMin):
// the common prefix of the two followed by prevMax's next byte plus one (a
// 00 if prevMax ends there). For prevMax < currMin the result is > prevMax
// and ≤ currMin. When prevMax is not smaller the result is still the
// common prefix plus that byte, but the order guarantee is lost.
func AppendSeparatorGt(dst, prevMax, currMin []byte) []byte {
	p := CommonPrefix(prevMax, currMin)
	dst = append(dst, prevMax[:p]...)
	if p < len(prevMax) {
		return append(dst, prevMax[p]+1)
	}
	if p < len(currMin) {
		return append(dst, 0x00)
	}
	// Equal streams: Cassandra's separator never ends; stop at the prefix.
	return dst
}

// AppendNudge appends the RowIndexWriter nudge of v at position at:
// v[:at], then the first byte of v[at:] that is below FF incremented by
// one, with the FF bytes before it copied unchanged; when v runs out first,
// a 00 byte ends the result. The result is greater than v's prefix of the
// same length.
func AppendNudge(dst, v []byte, at int) []byte {
	if at > len(v) {
		at = len(v)
	}
	dst = append(dst, v[:at]...)
	for i := at; i < len(v); i++ {
		if v[i] < 0xFF {
			return append(dst, v[i]+1)
		}
		dst = append(dst, 0xFF)
	}
	return append(dst, 0x00)
}

// CompareBytes is bytes.Compare (kept here so callers comparing
// byte-comparable forms need no other import).
func CompareBytes(a, b []byte) int {
	n := CommonPrefix(a, b)
	switch {
	case n < len(a) && n < len(b):
		if a[n] < b[n] {
			return -1
		}
		return 1
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// AppendBigInteger is IntegerType.asComparableBytes (OSS50) of v, an
// integer's two's-complement big-endian bytes (Java's
// BigInteger.toByteArray), which must not be empty: up to 6 significant
// bytes as AppendVarInt, else a sign byte (FF positive, 00 negative), the
// significant length minus 7 as AppendVarUint (inverted when negative) and
// the significant bytes.
func AppendBigInteger(dst, v []byte) []byte {
	sign := v[0]
	p := 0
	if sign == 0x00 || sign == 0xFF {
		for p+1 < len(v) {
			p++
			if v[p] != sign {
				break
			}
		}
	}
	if len(v)-p < 7 {
		// Sign-extend the significant bytes into an int64.
		var x int64
		if v[0]&0x80 != 0 {
			x = -1
		}
		for _, b := range v[p:] {
			x = x<<8 | int64(b)
		}
		return AppendVarInt(dst, x)
	}
	neg := byte(0)
	if sign&0x80 != 0 {
		neg = 0xFF
	}
	dst = append(dst, neg^0xFF)
	start := len(dst)
	dst = AppendVarUint(dst, uint64(len(v)-p-7))
	for i := start; i < len(dst); i++ {
		dst[i] ^= neg
	}
	return append(dst, v[p:]...)
}
