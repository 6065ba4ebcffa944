package big

import (
	"encoding/binary"
	"fmt"
	"github.com/castable-db/castable/internal/vint"
	"github.com/castable-db/castable/sstables"
)

// errShort reports input that ends inside a value.
var errShort = sstables.ErrShortValues

// sliceReader decodes big-endian values and vints from a byte slice with a
// sticky error: after the first failure every read returns zero values and
// err (with off at the failing read) stays set. Nothing it returns aliases
// more than the slice it was given.
type sliceReader struct {
	b   []byte
	off int
	err error
}

func (r *sliceReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// remaining is the number of unread bytes.
func (r *sliceReader) remaining() int { return len(r.b) - r.off }

func (r *sliceReader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail(errShort)
		return false
	}
	return true
}

func (r *sliceReader) u8() byte {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *sliceReader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *sliceReader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *sliceReader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.BigEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v
}

// bytes returns the next n bytes (aliasing the input).
func (r *sliceReader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	v := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return v
}

// uvint reads an unsigned vint; the second result is its encoded length.
func (r *sliceReader) uvint() (uint64, int) {
	if r.err != nil {
		return 0, 0
	}
	v, n := vint.Decode(r.b[r.off:])
	if n == 0 {
		r.fail(errShort)
		return 0, 0
	}
	r.off += n
	return v, n
}

// vint reads a signed (zigzag) vint.
func (r *sliceReader) vint() int64 {
	u, _ := r.uvint()
	return vint.Unzigzag(u)
}

// length reads a uvint length and checks that that many bytes remain.
func (r *sliceReader) length() int {
	v, _ := r.uvint()
	if r.err != nil {
		return 0
	}
	if v > uint64(r.remaining()) {
		r.fail(fmt.Errorf("length %d exceeds the %d bytes left", v, r.remaining()))
		return 0
	}
	return int(v)
}

// count reads a uvint element count and bounds it by the bytes left,
// given that every element takes at least minSize bytes.
func (r *sliceReader) count(minSize int) int {
	v, _ := r.uvint()
	if r.err != nil {
		return 0
	}
	if v > uint64(r.remaining()/minSize) {
		r.fail(fmt.Errorf("count %d exceeds what the %d bytes left can hold", v, r.remaining()))
		return 0
	}
	return int(v)
}

// vbytes reads a uvint length and that many bytes.
func (r *sliceReader) vbytes() []byte {
	n := r.length()
	return r.bytes(n)
}

// vstr reads a uvint-length string.
func (r *sliceReader) vstr() string {
	return string(r.vbytes())
}
