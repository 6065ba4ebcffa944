//go:build cgo && liblz4

package compress

/*
#cgo pkg-config: liblz4
#include <lz4.h>
#include <lz4hc.h>
*/
import "C"

import "unsafe"

// haveLibLZ4 reports whether the liblz4 implementation is built in.
const haveLibLZ4 = true

// lz4C is the LZ4 block codec of the system liblz4: LZ4_compress_fast
// (acceleration 1, the same as LZ4_compress_default and lz4-java's fast
// compressor) or LZ4_compress_HC, and LZ4_decompress_safe. The compression
// state is Go memory handed to C for the duration of one call (the
// *_extState variants), so nothing needs freeing.
type lz4C struct {
	high    bool
	hcLevel C.int
	state   []byte // LZ4_sizeofState() or LZ4_sizeofStateHC() bytes, 8-aligned by the Go allocator
}

func newLZ4C(s lz4Settings) lz4Block {
	c := &lz4C{high: s.high, hcLevel: C.int(s.hcLevel)}
	if s.high {
		c.state = make([]byte, int(C.LZ4_sizeofStateHC()))
	} else {
		c.state = make([]byte, int(C.LZ4_sizeofState()))
	}
	return c
}

func (c *lz4C) encode(dst, src []byte) (int, error) {
	in := (*C.char)(unsafe.Pointer(unsafe.SliceData(src)))
	out := (*C.char)(unsafe.Pointer(unsafe.SliceData(dst)))
	state := unsafe.Pointer(&c.state[0])
	var n C.int
	if c.high {
		n = C.LZ4_compress_HC_extStateHC(state, in, out, C.int(len(src)), C.int(len(dst)), c.hcLevel)
	} else {
		n = C.LZ4_compress_fast_extState(state, in, out, C.int(len(src)), C.int(len(dst)), lz4AccelDefault)
	}
	if n <= 0 {
		return 0, errLZ4Output
	}
	return int(n), nil
}

func (c *lz4C) decode(dst, src []byte) (int, bool) {
	if len(src) == 0 {
		return 0, false
	}
	n := C.LZ4_decompress_safe((*C.char)(unsafe.Pointer(&src[0])), (*C.char)(unsafe.Pointer(unsafe.SliceData(dst))), C.int(len(src)), C.int(len(dst)))
	if n < 0 {
		return 0, false
	}
	return int(n), true
}
