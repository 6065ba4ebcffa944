//go:build cgo && libdeflate

package compress

/*
#cgo pkg-config: libdeflate
#include <stddef.h>
#include <libdeflate.h>

typedef struct {
	int    result;
	size_t in;
	size_t out;
} castable_inflate_result;

// castable_zlib_inflate inflates one zlib stream (header, deflate data,
// Adler-32 trailer, all checked by libdeflate) into at most cap bytes.
static castable_inflate_result castable_zlib_inflate(struct libdeflate_decompressor *d,
		const void *src, size_t n, void *dst, size_t cap) {
	castable_inflate_result r = {0, 0, 0};
	r.result = (int)libdeflate_zlib_decompress_ex(d, src, n, dst, cap, &r.in, &r.out);
	return r;
}
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// haveLibDeflate reports whether the libdeflate inflater is built in.
const haveLibDeflate = true

// libDeflateDecoder is libdeflate's zlib decompressor, allocated once and
// freed when the decoder is collected. libdeflate checks the zlib header
// and the Adler-32 trailer itself; the caller's bound is the output buffer.
type libDeflateDecoder struct {
	d *C.struct_libdeflate_decompressor
}

func newLibDeflateDecoder() (deflateDecoder, error) {
	d := C.libdeflate_alloc_decompressor()
	if d == nil {
		return nil, errors.New("compress: deflate: libdeflate_alloc_decompressor failed")
	}
	dec := &libDeflateDecoder{d: d}
	runtime.AddCleanup(dec, func(d *C.struct_libdeflate_decompressor) { C.libdeflate_free_decompressor(d) }, d)
	return dec, nil
}

func (l *libDeflateDecoder) decode(dst, src []byte) (int, error) {
	r := C.castable_zlib_inflate(l.d,
		unsafe.Pointer(unsafe.SliceData(src)), C.size_t(len(src)),
		unsafe.Pointer(unsafe.SliceData(dst)), C.size_t(len(dst)))
	runtime.KeepAlive(l)
	switch r.result {
	case C.LIBDEFLATE_SUCCESS:
	case C.LIBDEFLATE_INSUFFICIENT_SPACE:
		return 0, corruptf(Deflate, "chunk inflates to more than the chunk bound %d", len(dst))
	default:
		return 0, corruptf(Deflate, "invalid zlib stream (libdeflate result %d): bad deflate data or Adler-32 mismatch", int(r.result))
	}
	if int(r.in) != len(src) {
		return 0, corruptf(Deflate, "%d bytes follow the zlib stream", len(src)-int(r.in))
	}
	return int(r.out), nil
}
