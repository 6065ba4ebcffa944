package sstables

import (
	"encoding/binary"
	"fmt"
	"github.com/castable-db/castable/internal/vint"
	"math"
	"unicode/utf8"
)

// Shared encodings of the BIG format components.
//
// Every fixed-width integer is big-endian two's complement (Java
// DataOutput) unless a component's layout comment says LITTLE-ENDIAN.
// Strings written with Java's DataOutput.writeUTF ("Java UTF") are a
// big-endian u16 byte length followed by the string in Java *modified*
// UTF-8, which differs from UTF-8 in two places only:
//
//	U+0000                 -> C0 80 (two bytes, never a zero byte)
//	U+10000 .. U+10FFFF    -> the UTF-16 surrogate pair, each surrogate
//	                          encoded as a 3-byte sequence (6 bytes total)
//
// Everything else (1-, 2- and 3-byte sequences) is plain UTF-8.
const maxJavaUTFLen = math.MaxUint16

// AppendJavaUTF appends s as Java's DataOutput.writeUTF writes it: a
// big-endian u16 byte length, then s in modified UTF-8. Invalid UTF-8 in s
// is written as U+FFFD. A string whose encoding exceeds 65535 bytes is an
// error, as in Java.
func AppendJavaUTF(dst []byte, s string) ([]byte, error) {
	n := javaUTFLen(s)
	if n > maxJavaUTFLen {
		return dst, fmt.Errorf("sstables: string of %d encoded bytes is too long for a Java UTF field (max %d)", n, maxJavaUTFLen)
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(n))
	if n == len(s) && isPlainASCII(s) {
		return append(dst, s...), nil
	}
	for _, r := range s {
		switch {
		case r == 0:
			dst = append(dst, 0xC0, 0x80)
		case r < 0x80:
			dst = append(dst, byte(r))
		case r < 0x800:
			dst = append(dst, 0xC0|byte(r>>6), 0x80|byte(r&0x3F))
		case r < 0x10000:
			dst = appendJava3(dst, r)
		default:
			r -= 0x10000
			dst = appendJava3(dst, 0xD800+(r>>10))
			dst = appendJava3(dst, 0xDC00+(r&0x3FF))
		}
	}
	return dst, nil
}

func appendJava3(dst []byte, r rune) []byte {
	return append(dst, 0xE0|byte(r>>12), 0x80|byte((r>>6)&0x3F), 0x80|byte(r&0x3F))
}

// javaUTFLen returns the modified UTF-8 length of s.
func javaUTFLen(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r == 0:
			n += 2
		case r < 0x80:
			n++
		case r < 0x800:
			n += 2
		case r < 0x10000:
			n += 3
		default:
			n += 6
		}
	}
	return n
}

func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 || s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// DecodeJavaUTF decodes modified UTF-8 bytes (without the length prefix)
// into a Go string. Lone surrogates become U+FFFD; malformed sequences are
// an error, as Java's readUTF throws UTFDataFormatException.
func DecodeJavaUTF(b []byte) (string, error) {
	plain := true
	for _, c := range b {
		if c == 0 || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return string(b), nil
	}
	out := make([]byte, 0, len(b))
	var pendingHigh rune = -1
	flushHigh := func() {
		if pendingHigh >= 0 {
			out = utf8.AppendRune(out, utf8.RuneError)
			pendingHigh = -1
		}
	}
	for i := 0; i < len(b); {
		c := b[i]
		var r rune
		switch {
		case c < 0x80:
			if c == 0 {
				return "", fmt.Errorf("malformed modified UTF-8: zero byte at %d", i)
			}
			r = rune(c)
			i++
		case c&0xE0 == 0xC0:
			if i+1 >= len(b) || b[i+1]&0xC0 != 0x80 {
				return "", fmt.Errorf("malformed modified UTF-8 at byte %d", i)
			}
			r = rune(c&0x1F)<<6 | rune(b[i+1]&0x3F)
			i += 2
		case c&0xF0 == 0xE0:
			if i+2 >= len(b) || b[i+1]&0xC0 != 0x80 || b[i+2]&0xC0 != 0x80 {
				return "", fmt.Errorf("malformed modified UTF-8 at byte %d", i)
			}
			r = rune(c&0x0F)<<12 | rune(b[i+1]&0x3F)<<6 | rune(b[i+2]&0x3F)
			i += 3
		default:
			return "", fmt.Errorf("malformed modified UTF-8 at byte %d", i)
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			flushHigh()
			pendingHigh = r
			continue
		case r >= 0xDC00 && r < 0xE000:
			if pendingHigh >= 0 {
				r = 0x10000 + (pendingHigh-0xD800)<<10 + (r - 0xDC00)
				pendingHigh = -1
			} else {
				r = utf8.RuneError
			}
		default:
			flushHigh()
		}
		out = utf8.AppendRune(out, r)
	}
	flushHigh()
	return string(out), nil
}

// ByteReader decodes a component held in memory. Every read is bounded by
// the buffer: a read past its end, or a value the caller rejects with
// Fail, records a CorruptionError naming the file, the component and the
// file offset, after which every read returns zero values. Callers decode a
// whole structure and check Err once.
type ByteReader struct {
	buf       []byte
	pos       int
	base      int64
	path      string
	component string
	err       error
}

// NewByteReader reads buf, the content of component c of the file at path.
// Offsets in errors are buf offsets plus base (the file offset of buf[0]).
func NewByteReader(buf []byte, path string, c Component, base int64) *ByteReader {
	return &ByteReader{buf: buf, path: path, component: string(c), base: base}
}

// Err returns the first error, or nil.
func (r *ByteReader) Err() error { return r.err }

// Offset returns the file offset of the next unread byte.
func (r *ByteReader) Offset() int64 { return r.base + int64(r.pos) }

// Remaining returns the number of unread bytes.
func (r *ByteReader) Remaining() int { return len(r.buf) - r.pos }

// Rest returns the unread bytes without consuming them.
func (r *ByteReader) Rest() []byte { return r.buf[r.pos:] }

// Fail records a CorruptionError at the current offset unless an error is
// already recorded.
func (r *ByteReader) Fail(format string, args ...any) {
	r.FailAt(r.Offset(), format, args...)
}

// FailAt records a CorruptionError at file offset off unless an error is
// already recorded.
func (r *ByteReader) FailAt(off int64, format string, args ...any) {
	if r.err == nil {
		r.err = Corruptf(r.path, r.component, off, format, args...)
	}
}

// FailWith records err as the reader's error, unless it has one already.
func (r *ByteReader) FailWith(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *ByteReader) need(n int, what string) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || n > len(r.buf)-r.pos {
		r.Fail("truncated: %s needs %d bytes, %d left", what, n, len(r.buf)-r.pos)
		return false
	}
	return true
}

// U8 reads one byte.
func (r *ByteReader) U8() uint8 {
	if !r.need(1, "u8") {
		return 0
	}
	v := r.buf[r.pos]
	r.pos++
	return v
}

// U16 reads a big-endian u16.
func (r *ByteReader) U16() uint16 {
	if !r.need(2, "u16") {
		return 0
	}
	v := binary.BigEndian.Uint16(r.buf[r.pos:])
	r.pos += 2
	return v
}

// U32 reads a big-endian u32.
func (r *ByteReader) U32() uint32 {
	if !r.need(4, "u32") {
		return 0
	}
	v := binary.BigEndian.Uint32(r.buf[r.pos:])
	r.pos += 4
	return v
}

// U64 reads a big-endian u64.
func (r *ByteReader) U64() uint64 {
	if !r.need(8, "u64") {
		return 0
	}
	v := binary.BigEndian.Uint64(r.buf[r.pos:])
	r.pos += 8
	return v
}

// I32 reads a big-endian two's-complement i32.
func (r *ByteReader) I32() int32 { return int32(r.U32()) }

// I64 reads a big-endian two's-complement i64.
func (r *ByteReader) I64() int64 { return int64(r.U64()) }

// F64 reads a big-endian IEEE-754 binary64.
func (r *ByteReader) F64() float64 { return math.Float64frombits(r.U64()) }

// Bytes returns the next n bytes (a sub-slice of the buffer, not a copy).
func (r *ByteReader) Bytes(n int) []byte {
	if !r.need(n, "byte string") {
		return nil
	}
	v := r.buf[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return v
}

// Skip skips n bytes.
func (r *ByteReader) Skip(n int) {
	if r.need(n, "skip") {
		r.pos += n
	}
}

// ShortBytes reads a u16 length and that many bytes (a partition key as
// Index.db and the Statistics.db min/max names store it).
func (r *ByteReader) ShortBytes() []byte {
	n := int(r.U16())
	return r.Bytes(n)
}

// IntBytes reads an i32 length and that many bytes; a negative length is
// corruption.
func (r *ByteReader) IntBytes() []byte {
	off := r.Offset()
	n := r.I32()
	if n < 0 {
		r.FailAt(off, "negative length %d", n)
		return nil
	}
	return r.Bytes(int(n))
}

// UVint reads an unsigned vint.
func (r *ByteReader) UVint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := vint.Decode(r.buf[r.pos:])
	if n == 0 {
		r.Fail("truncated vint")
		return 0
	}
	r.pos += n
	return v
}

// JavaUTF reads a string written by Java's writeUTF.
func (r *ByteReader) JavaUTF() string {
	off := r.Offset()
	b := r.Bytes(int(r.U16()))
	if r.err != nil {
		return ""
	}
	s, err := DecodeJavaUTF(b)
	if err != nil {
		r.FailAt(off, "bad Java UTF string: %v", err)
		return ""
	}
	return s
}
