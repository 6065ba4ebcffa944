//go:build (amd64 || arm64) && !purego

package compress

import "unsafe"

// lz4Src reads little-endian words of an LZ4 encoder's input without bounds
// checks, where unaligned loads are cheap and the byte order is little
// endian (-tags purego builds the portable lz4_load_other.go). The encoder
// only reads within the input: every position it loads from is at most 12
// bytes before the end for 4 bytes, and 8 bytes before its match limit for
// 8 bytes.
type lz4Src struct{ p unsafe.Pointer }

// newLZ4Src returns the reader of b, which is not empty.
func newLZ4Src(b []byte) lz4Src { return lz4Src{unsafe.Pointer(unsafe.SliceData(b))} }

func (s lz4Src) load32(_ []byte, i int) uint32 { return *(*uint32)(unsafe.Add(s.p, i)) }
func (s lz4Src) load64(_ []byte, i int) uint64 { return *(*uint64)(unsafe.Add(s.p, i)) }
