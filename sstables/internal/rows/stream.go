package rows

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/castable-db/castable/internal/vint"
)

// Stream reads the uncompressed Data.db byte stream sequentially through
// its own buffer, tracking the absolute position and the stream's length so
// that every length read from the data is bounded by what is left before
// anything is allocated for it.
type Stream struct {
	src   io.Reader
	buf   []byte
	r, w  int   // unread bytes are buf[r:w]
	pos   int64 // absolute position of buf[r]
	limit int64 // length of the stream
	err   error // sticky read error of src
}

const streamBufferSize = 64 << 10

// streamBuffers recycles the buffers of the short-lived streams of key
// lookups (see release), which would otherwise allocate 64 KiB each.
var streamBuffers = sync.Pool{New: func() any { b := make([]byte, streamBufferSize); return &b }}

// NewStream returns a stream of src, whose first byte is at absolute
// position start and which ends at limit.
func NewStream(src io.Reader, start, limit int64) *Stream {
	return &Stream{src: src, buf: *streamBuffers.Get().(*[]byte), pos: start, limit: limit}
}

// Release gives s's buffer back for reuse; s must not be used again, nor
// anything decoded from it that aliases its buffer.
func (s *Stream) Release() {
	if s.buf != nil && cap(s.buf) == streamBufferSize {
		b := s.buf[:streamBufferSize]
		streamBuffers.Put(&b)
	}
	s.buf, s.src = nil, nil
	s.r, s.w = 0, 0
	s.err = errors.New("sstables: stream used after release")
}

// reset points s at a new source starting at absolute position start.
func (s *Stream) reset(src io.Reader, start int64) {
	s.src, s.r, s.w, s.pos, s.err = src, 0, 0, start, nil
}

// Pos is the absolute position of the next byte.
func (s *Stream) Pos() int64 { return s.pos }

// Limit is the stream's length.
func (s *Stream) Limit() int64 { return s.limit }

// Left is the number of bytes before the end of the stream.
func (s *Stream) Left() int64 { return s.limit - s.pos }

// fill makes at least n bytes available in buf[r:w] (n <= len(buf)).
func (s *Stream) fill(n int) error {
	if s.w-s.r >= n {
		return nil
	}
	if int64(n) > s.Left() {
		return ErrShort
	}
	if s.r > 0 {
		copy(s.buf, s.buf[s.r:s.w])
		s.w -= s.r
		s.r = 0
	}
	// buf[0] is at pos now; never read past the stream's end.
	want := len(s.buf)
	if rem := s.Left(); rem < int64(want) {
		want = int(rem)
	}
	for zero := 0; s.w < n; {
		if s.err != nil {
			return s.err
		}
		m, err := s.src.Read(s.buf[s.w:want])
		s.w += m
		switch {
		case err != nil:
			if errors.Is(err, io.EOF) {
				err = ErrShort
			}
			s.err = err
		case m == 0:
			if zero++; zero > 100 {
				s.err = io.ErrNoProgress
			}
		}
	}
	return nil
}

func (s *Stream) Byte() (byte, error) {
	if err := s.fill(1); err != nil {
		return 0, err
	}
	b := s.buf[s.r]
	s.r++
	s.pos++
	return b, nil
}

// unreadByte steps back over the byte the last call to byte returned; it
// is valid only directly after a successful byte.
func (s *Stream) unreadByte() {
	s.r--
	s.pos--
}

func (s *Stream) U16() (uint16, error) {
	if err := s.fill(2); err != nil {
		return 0, err
	}
	v := uint16(s.buf[s.r])<<8 | uint16(s.buf[s.r+1])
	s.r += 2
	s.pos += 2
	return v, nil
}

func (s *Stream) UVint() (uint64, error) {
	if err := s.fill(1); err != nil {
		return 0, err
	}
	n := vint.LenFromFirst(s.buf[s.r])
	if err := s.fill(n); err != nil {
		return 0, err
	}
	v, _ := vint.Decode(s.buf[s.r : s.r+n])
	s.r += n
	s.pos += int64(n)
	return v, nil
}

// Length reads a uvint length bounded by what is left of the stream.
func (s *Stream) Length() (int, error) {
	v, err := s.UVint()
	if err != nil {
		return 0, err
	}
	if v > uint64(s.Left()) {
		return 0, fmt.Errorf("length %d exceeds the %d bytes left in Data.db", v, s.Left())
	}
	return int(v), nil
}

// window returns at most n of the buffered unread bytes. It reads from the
// source only when nothing is buffered (the next byte is needed then
// whatever follows), never to top the buffer up: a read of one row must
// not pull in the next chunk of Data.db when the row ends inside the
// current one (a point read would read past its partition). A failure of
// that read is reported by the read that needs the bytes. The bytes stay
// valid until the next read that refills the buffer; consume marks how
// many of them were used.
func (s *Stream) window(n int) []byte {
	if s.w == s.r && s.Left() > 0 && s.err == nil {
		_ = s.fill(1)
	}
	return s.buf[s.r:min(s.w, s.r+n)]
}

// consume skips n bytes of the window (n <= its length).
func (s *Stream) consume(n int) {
	s.r += n
	s.pos += int64(n)
}

// ReadInto appends the next n bytes to dst.
func (s *Stream) ReadInto(dst []byte, n int) ([]byte, error) {
	if int64(n) > s.Left() {
		return dst, ErrShort
	}
	for n > 0 {
		if s.r == s.w {
			if err := s.fill(1); err != nil {
				return dst, err
			}
		}
		m := min(n, s.w-s.r)
		dst = append(dst, s.buf[s.r:s.r+m]...)
		s.r += m
		s.pos += int64(m)
		n -= m
	}
	return dst, nil
}

// Skip discards n bytes.
func (s *Stream) Skip(n int64) error {
	if n > s.Left() {
		return ErrShort
	}
	for n > 0 {
		if s.r == s.w {
			if err := s.fill(1); err != nil {
				return err
			}
		}
		m := min(n, int64(s.w-s.r))
		s.r += int(m)
		s.pos += m
		n -= m
	}
	return nil
}
