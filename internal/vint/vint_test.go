package vint

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// referenceUvint is VIntCoding.writeUnsignedVInt written plainly: the
// number of extra bytes as leading ones of the first byte, then the value
// big-endian.
func referenceUvint(v uint64) []byte {
	size := Size(v)
	if size == 9 {
		return binary.BigEndian.AppendUint64([]byte{0xFF}, v)
	}
	out := make([]byte, size)
	for i := size - 1; i >= 0; i-- {
		out[i] = byte(v)
		v >>= 8
	}
	out[0] |= byte(0xFF << (8 - (size - 1)))
	return out
}

// TestUvintEncoding checks the vint encoder against the reference and the
// decoder at every size boundary and on a spread of values, appended after
// other bytes.
func TestUvintEncoding(t *testing.T) {
	var values []uint64
	for bits := 0; bits <= 64; bits++ {
		var v uint64
		if bits > 0 {
			v = uint64(1)<<(bits-1) | 1
			values = append(values, uint64(1)<<(bits-1), (uint64(1)<<(bits-1))-1)
		}
		values = append(values, v, v*0x9E3779B97F4A7C15>>uint(64-max(bits, 1)))
	}
	values = append(values, math.MaxUint64, 0, 127, 128, 16383, 16384)
	for _, v := range values {
		want := referenceUvint(v)
		got := Append([]byte{0xAA}, v)
		if !bytes.Equal(got[1:], want) || got[0] != 0xAA {
			t.Fatalf("Append(%#x) = % x, want % x", v, got[1:], want)
		}
		if len(want) != Size(v) {
			t.Fatalf("Size(%#x) = %d, encoding has %d", v, Size(v), len(want))
		}
		d, n := Decode(got[1:])
		if d != v || n != len(want) {
			t.Fatalf("Decode(% x) = %#x, %d; want %#x, %d", want, d, n, v, len(want))
		}
		var buf [MaxLen + 2]byte
		if n := Put(buf[:], v); !bytes.Equal(buf[:n], want) {
			t.Fatalf("Put(%#x) = % x, want % x", v, buf[:n], want)
		}
	}
}
