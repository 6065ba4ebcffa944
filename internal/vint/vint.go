// Package vint is Cassandra's variable-length integer coding (VIntCoding),
// used throughout the 3.x storage engine's files and by CQL durations.
package vint

import (
	"encoding/binary"
	"math/bits"
)

// Unsigned vint, 1 to 9 bytes, most significant byte first. The number of
// leading 1 bits of the first byte is the number of extra bytes (0..8); the
// bits of the first byte after that run and its terminating 0 (absent when
// there are 8 extra bytes) are the value's most significant bits, and the
// extra bytes carry the rest big-endian:
//
//	0xxxxxxx                       0 .. 2^7-1
//	10xxxxxx  +1 byte              .. 2^14-1
//	110xxxxx  +2 bytes             .. 2^21-1
//	...
//	11111110  +7 bytes             .. 2^56-1
//	11111111  +8 bytes             any 64-bit value
//
// Writers always use the smallest size. A signed vint is the zigzag form
// ((n << 1) ^ (n >> 63)) written as an unsigned vint.

// MaxLen is the longest encoding of a vint.
const MaxLen = 9

// Size returns the encoded length of v.
func Size(v uint64) int {
	// Number of significant bits, at least 1; every extra byte carries 7
	// more bits in the first byte's budget until 8 bytes, then 8.
	n := 64 - bits.LeadingZeros64(v|1)
	size := (n + 6) / 7
	if size > MaxLen {
		size = MaxLen
	}
	return size
}

// Append appends the unsigned vint encoding of v to dst.
func Append(dst []byte, v uint64) []byte {
	if v < 0x80 {
		return append(dst, byte(v))
	}
	size := Size(v)
	if size == MaxLen {
		dst = append(dst, 0xFF)
		return binary.BigEndian.AppendUint64(dst, v)
	}
	var tmp [8]byte
	binary.BigEndian.PutUint64(tmp[:], bitsOf(v, size))
	return append(dst, tmp[:size]...)
}

// bitsOf returns the size-byte encoding of v (size < MaxLen) in the
// top bytes of a 64-bit word: v fits the low 7·size bits of a size-byte
// big-endian number whose first size−1 bits are the run of ones (and the
// next one is 0).
func bitsOf(v uint64, size int) uint64 {
	extra := uint(size - 1)
	x := v | (1<<extra-1)<<(8*uint(size)-extra)
	return x << (64 - 8*uint(size))
}

// Put writes the unsigned vint encoding of v at the start of b, which
// must have room for it, and returns its length.
func Put(b []byte, v uint64) int {
	size := Size(v)
	if size == MaxLen {
		b[0] = 0xFF
		binary.BigEndian.PutUint64(b[1:], v)
		return size
	}
	var tmp [8]byte
	binary.BigEndian.PutUint64(tmp[:], bitsOf(v, size))
	copy(b[:size], tmp[:size])
	return size
}

// AppendSigned appends the signed (zigzag) vint encoding of v to dst.
func AppendSigned(dst []byte, v int64) []byte {
	return Append(dst, Zigzag(v))
}

// Decode decodes an unsigned vint from the start of b. It returns the
// value and the number of bytes used, or n == 0 when b is too short.
func Decode(b []byte) (v uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	first := b[0]
	if first < 0x80 {
		return uint64(first), 1
	}
	extra := bits.LeadingZeros8(^first)
	if len(b) < 1+extra {
		return 0, 0
	}
	v = uint64(first & (0xFF >> extra))
	for _, c := range b[1 : 1+extra] {
		v = v<<8 | uint64(c)
	}
	return v, 1 + extra
}

// LenFromFirst returns the total length of the vint whose first byte
// is first.
func LenFromFirst(first byte) int {
	return 1 + bits.LeadingZeros8(^first)
}

// Zigzag maps a signed value to the unsigned one a signed vint writes: 0,
// -1, 1, -2 … → 0, 1, 2, 3 ….
func Zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// DecodeSigned decodes a signed (zigzag) vint from the start of b; n == 0
// when b is too short.
func DecodeSigned(b []byte) (v int64, n int) {
	u, n := Decode(b)
	return Unzigzag(u), n
}

// Unzigzag inverts the zigzag mapping of a signed vint.
func Unzigzag(u uint64) int64 {
	return int64(u>>1) ^ -int64(u&1)
}
