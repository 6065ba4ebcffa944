package rows

import (
	"encoding/binary"
	"fmt"
	"github.com/castable-db/castable/internal/vint"
	"github.com/castable-db/castable/sstables"
)

// ErrShort reports input that ends inside a value.
var ErrShort = sstables.ErrShortValues

// SliceReader decodes big-endian values and vints from a byte slice with a
// sticky error: after the first failure every read returns zero values and
// err (with off at the failing read) stays set. Nothing it returns aliases
// more than the slice it was given.
type SliceReader struct {
	// B is the input, Off the offset of the next read, Err the first
	// failure.
	B   []byte
	Off int
	Err error
}

// Fail records err unless an error is already recorded.
func (r *SliceReader) Fail(err error) {
	if r.Err == nil {
		r.Err = err
	}
}

// Remaining is the number of unread bytes.
func (r *SliceReader) Remaining() int { return len(r.B) - r.Off }

func (r *SliceReader) need(n int) bool {
	if r.Err != nil {
		return false
	}
	if n < 0 || n > len(r.B)-r.Off {
		r.Fail(ErrShort)
		return false
	}
	return true
}

func (r *SliceReader) U8() byte {
	if !r.need(1) {
		return 0
	}
	v := r.B[r.Off]
	r.Off++
	return v
}

func (r *SliceReader) U16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.B[r.Off:])
	r.Off += 2
	return v
}

func (r *SliceReader) U32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.B[r.Off:])
	r.Off += 4
	return v
}

func (r *SliceReader) U64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.BigEndian.Uint64(r.B[r.Off:])
	r.Off += 8
	return v
}

// Bytes returns the next n bytes (aliasing the input).
func (r *SliceReader) Bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	v := r.B[r.Off : r.Off+n : r.Off+n]
	r.Off += n
	return v
}

// UVint reads an unsigned vint; the second result is its encoded length.
func (r *SliceReader) UVint() (uint64, int) {
	if r.Err != nil {
		return 0, 0
	}
	v, n := vint.Decode(r.B[r.Off:])
	if n == 0 {
		r.Fail(ErrShort)
		return 0, 0
	}
	r.Off += n
	return v, n
}

// Vint reads a signed (zigzag) vint.
func (r *SliceReader) Vint() int64 {
	u, _ := r.UVint()
	return vint.Unzigzag(u)
}

// Length reads a uvint length and checks that that many bytes remain.
func (r *SliceReader) Length() int {
	v, _ := r.UVint()
	if r.Err != nil {
		return 0
	}
	if v > uint64(r.Remaining()) {
		r.Fail(fmt.Errorf("length %d exceeds the %d bytes left", v, r.Remaining()))
		return 0
	}
	return int(v)
}

// Count reads a uvint element count and bounds it by the bytes left,
// given that every element takes at least minSize bytes.
func (r *SliceReader) Count(minSize int) int {
	v, _ := r.UVint()
	if r.Err != nil {
		return 0
	}
	if v > uint64(r.Remaining()/minSize) {
		r.Fail(fmt.Errorf("count %d exceeds what the %d bytes left can hold", v, r.Remaining()))
		return 0
	}
	return int(v)
}

// VBytes reads a uvint length and that many bytes.
func (r *SliceReader) VBytes() []byte {
	n := r.Length()
	return r.Bytes(n)
}

// VStr reads a uvint-length string.
func (r *SliceReader) VStr() string {
	return string(r.VBytes())
}
