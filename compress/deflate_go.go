package compress

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"io"

	"github.com/klauspost/compress/flate"
)

// goDeflateEncoder is the pure-Go zlib writer: klauspost/compress/flate at
// level 6 between our own zlib header and Adler-32 trailer. Its output is a
// valid zlib stream that any inflater (Cassandra's included) reads, but not
// byte-identical to zlib's.
type goDeflateEncoder struct {
	w   *flate.Writer
	out appendWriter
}

// appendWriter is an io.Writer appending to a reused slice.
type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

func newGoDeflateEncoder(level int) (deflateEncoder, error) {
	e := &goDeflateEncoder{}
	w, err := flate.NewWriter(&e.out, level)
	if err != nil {
		return nil, err
	}
	e.w = w
	return e, nil
}

func (e *goDeflateEncoder) encode(dst, src []byte) ([]byte, error) {
	e.out.b = append(dst, zlibCMF, zlibFLGLevel6)
	e.w.Reset(&e.out)
	if _, err := e.w.Write(src); err != nil {
		return nil, err
	}
	if err := e.w.Close(); err != nil {
		return nil, err
	}
	out := appendAdler32(e.out.b, adler32.Checksum(src))
	e.out.b = nil
	return out, nil
}

// goDeflateDecoder is the pure-Go inflater (klauspost/compress/flate, reused
// through flate.Resetter). It reads the deflate data from a bytes.Reader,
// which is an io.ByteReader, so the inflater consumes exactly the deflate
// stream and the Adler-32 trailer is what remains.
type goDeflateDecoder struct {
	src bytes.Reader
	r   io.ReadCloser
	one [1]byte
}

func newGoDeflateDecoder() (deflateDecoder, error) {
	d := &goDeflateDecoder{}
	d.r = flate.NewReader(&d.src)
	return d, nil
}

func (d *goDeflateDecoder) decode(dst, src []byte) (int, error) {
	d.src.Reset(src[zlibHeaderLen:])
	if err := d.r.(flate.Resetter).Reset(&d.src, nil); err != nil {
		return 0, corruptWrap(Deflate, err, "inflate")
	}
	n := 0
	for {
		if n == len(dst) {
			// The bound is reached: the stream must end here.
			m, err := d.r.Read(d.one[:])
			if m > 0 {
				return 0, corruptf(Deflate, "chunk inflates to more than the chunk bound %d", len(dst))
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return 0, corruptWrap(Deflate, err, "inflate")
			}
			continue
		}
		m, err := d.r.Read(dst[n:])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, corruptf(Deflate, "truncated deflate data after %d output bytes", n)
			}
			return 0, corruptWrap(Deflate, err, "inflate")
		}
	}
	rest := d.src.Len()
	if rest != zlibTrailerLen {
		return 0, corruptf(Deflate, "%d bytes follow the deflate data, want the 4-byte Adler-32 trailer", rest)
	}
	tail := src[len(src)-zlibTrailerLen:]
	want := binary.BigEndian.Uint32(tail)
	if got := adler32.Checksum(dst[:n]); got != want {
		return 0, corruptf(Deflate, "Adler-32 of the inflated chunk is %08x, trailer says %08x", got, want)
	}
	return n, nil
}
