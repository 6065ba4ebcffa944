package la

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/castable-db/castable/sstables"
)

// input decodes one component as a stream of big-endian fields. It buffers
// the underlying reader, knows the stream's total length (so that every
// length read from the file is checked against the bytes that remain before
// anything is allocated), tracks the offset of every field, and turns short
// reads and bad values into sstables.CorruptionError naming the file, the
// component and the offset.
//
// Slices returned by the read methods alias the internal buffer and are
// valid until the next call.
type input struct {
	r         io.Reader
	path      string
	component sstables.Component

	buf        []byte
	start, end int   // unread bytes are buf[start:end]
	base       int64 // stream offset of buf[0]
	length     int64 // total stream length
	rerr       error // sticky error of r
	// maxValue bounds intBytes (cell values; sstables.ReaderOptions.
	// MaxValueSize); 0 means no bound beyond the bytes left.
	maxValue int64
}

const inputChunk = 64 << 10

// newInput decodes r, which yields exactly length bytes starting at stream
// offset base.
func newInput(r io.Reader, base, length int64, path string, component sstables.Component) *input {
	return &input{r: r, path: path, component: component, base: base, length: length}
}

// newSliceInput decodes b, whose first byte is at stream offset base.
func newSliceInput(b []byte, base int64, path string, component sstables.Component) *input {
	return &input{path: path, component: component, buf: b, end: len(b), base: base, length: base + int64(len(b)), rerr: io.EOF}
}

// reset makes in decode r from stream offset base, keeping its buffer.
func (in *input) reset(r io.Reader, base, length int64) {
	in.r, in.base, in.length, in.rerr = r, base, length, nil
	in.start, in.end = 0, 0
}

// offset is the stream offset of the next unread byte.
func (in *input) offset() int64 { return in.base + int64(in.start) }

// remaining is the number of bytes left in the stream.
func (in *input) remaining() int64 { return in.length - in.offset() }

// corrupt returns a CorruptionError at offset off.
func (in *input) corrupt(off int64, format string, args ...any) error {
	return sstables.Corruptf(in.path, string(in.component), off, format, args...)
}

// fill makes at least n unread bytes available; n must not exceed
// remaining().
func (in *input) fill(n int) error {
	if in.end-in.start >= n {
		return nil
	}
	if in.start > 0 {
		copy(in.buf, in.buf[in.start:in.end])
		in.base += int64(in.start)
		in.end -= in.start
		in.start = 0
	}
	if n > len(in.buf) {
		size := max(n, inputChunk, 2*len(in.buf))
		if rem := in.length - in.base; int64(size) > rem {
			size = int(rem)
		}
		nb := make([]byte, size)
		copy(nb, in.buf[:in.end])
		in.buf = nb
	}
	for in.end < n {
		if in.rerr != nil {
			return in.truncated(n)
		}
		want := len(in.buf)
		if rem := in.length - in.base; int64(want) > rem {
			want = int(rem)
		}
		m, err := in.r.Read(in.buf[in.end:want])
		in.end += m
		if err != nil {
			in.rerr = err
		} else if m == 0 && in.end < n {
			// A reader returning 0, nil forever must not spin.
			in.rerr = io.ErrNoProgress
		}
	}
	return nil
}

func (in *input) truncated(n int) error {
	if in.rerr != nil && !errors.Is(in.rerr, io.EOF) && !errors.Is(in.rerr, io.ErrUnexpectedEOF) {
		return &sstables.CorruptionError{Path: in.path, Component: string(in.component), Offset: in.offset(),
			Reason: "read failed", Err: in.rerr}
	}
	return in.corrupt(in.offset(), "truncated: need %d bytes, %d left", n, in.end-in.start)
}

// next returns the next n bytes. n is checked against the bytes left in the
// stream first, so a corrupt length never causes a large allocation.
func (in *input) next(n int) ([]byte, error) {
	if n < 0 || int64(n) > in.remaining() {
		return nil, in.corrupt(in.offset(), "length %d exceeds the %d bytes left", n, in.remaining())
	}
	if err := in.fill(n); err != nil {
		return nil, err
	}
	b := in.buf[in.start : in.start+n : in.start+n]
	in.start += n
	return b, nil
}

// skip discards n bytes.
func (in *input) skip(n int64) error {
	if n < 0 || n > in.remaining() {
		return in.corrupt(in.offset(), "length %d exceeds the %d bytes left", n, in.remaining())
	}
	for n > 0 {
		step := int(min(n, int64(inputChunk)))
		if _, err := in.next(step); err != nil {
			return err
		}
		n -= int64(step)
	}
	return nil
}

func (in *input) u8() (byte, error) {
	b, err := in.next(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (in *input) u16() (uint16, error) {
	b, err := in.next(2)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint16(b), nil
}

func (in *input) i32() (int32, error) {
	b, err := in.next(4)
	if err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

func (in *input) i64() (int64, error) {
	b, err := in.next(8)
	if err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// shortBytes reads a u16 length and that many bytes.
func (in *input) shortBytes() ([]byte, error) {
	n, err := in.u16()
	if err != nil {
		return nil, err
	}
	return in.next(int(n))
}

// intBytes reads an i32 length and that many bytes.
func (in *input) intBytes() ([]byte, error) {
	off := in.offset()
	n, err := in.i32()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, in.corrupt(off, "negative length %d", n)
	}
	if in.maxValue > 0 && int64(n) > in.maxValue {
		return nil, &sstables.CorruptionError{Path: in.path, Component: string(in.component), Offset: off, Reason: "refused",
			Err: fmt.Errorf("%w: value of %d bytes, limit %d", sstables.ErrValueTooLarge, n, in.maxValue)}
	}
	return in.next(int(n))
}
