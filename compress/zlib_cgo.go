//go:build cgo && zlib

package compress

/*
#cgo pkg-config: zlib
#include <stdlib.h>
#include <zlib.h>

// castable_deflate_new allocates and initializes a z_stream for zlib
// streams at the given level with java.util.zip.Deflater's parameters.
static z_stream *castable_deflate_new(int level) {
	z_stream *s = calloc(1, sizeof(z_stream));
	if (s == NULL) return NULL;
	if (deflateInit2(s, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(s);
		return NULL;
	}
	return s;
}

static void castable_deflate_free(z_stream *s) {
	deflateEnd(s);
	free(s);
}

// castable_deflate compresses src into dst as one zlib stream (what
// compress2 does, on a reused stream). It returns the output length, or a
// negative zlib status. The stream keeps no pointer to src or dst.
static long castable_deflate(z_stream *s, const unsigned char *src, size_t n, unsigned char *dst, size_t cap) {
	int rc = deflateReset(s);
	if (rc != Z_OK) return rc < 0 ? rc : -100;
	s->next_in = (Bytef *)src;
	s->avail_in = (uInt)n;
	s->next_out = dst;
	s->avail_out = (uInt)cap;
	rc = deflate(s, Z_FINISH);
	long out = (long)(cap - s->avail_out);
	s->next_in = Z_NULL;
	s->next_out = Z_NULL;
	s->avail_in = 0;
	s->avail_out = 0;
	if (rc != Z_STREAM_END) return rc < 0 ? rc : -101;
	return out;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// haveZlib reports whether the zlib deflater is built in.
const haveZlib = true

// zlibEncoder is the C zlib deflater: deflateInit2(level 6, Z_DEFLATED, 15,
// 8, Z_DEFAULT_STRATEGY) once, then deflateReset and deflate(Z_FINISH) per
// chunk. It reproduces java.util.zip.Deflater's (Cassandra's) bytes. The
// z_stream lives in C memory and is freed when the encoder is collected.
type zlibEncoder struct {
	s *C.z_stream
}

func newZlibEncoder(level int) (deflateEncoder, error) {
	s := C.castable_deflate_new(C.int(level))
	if s == nil {
		return nil, errors.New("compress: deflate: zlib deflateInit2 failed")
	}
	e := &zlibEncoder{s: s}
	runtime.AddCleanup(e, func(s *C.z_stream) { C.castable_deflate_free(s) }, s)
	return e, nil
}

func (e *zlibEncoder) encode(dst, src []byte) ([]byte, error) {
	dst = dst[:cap(dst)]
	n := C.castable_deflate(e.s,
		(*C.uchar)(unsafe.Pointer(unsafe.SliceData(src))), C.size_t(len(src)),
		(*C.uchar)(unsafe.Pointer(unsafe.SliceData(dst))), C.size_t(len(dst)))
	runtime.KeepAlive(e)
	if n < 0 {
		return nil, fmt.Errorf("compress: deflate: zlib deflate failed with status %d", int(n))
	}
	return dst[:n], nil
}
