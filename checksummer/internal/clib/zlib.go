//go:build cgo && zlib

package clib

/*
#cgo pkg-config: zlib
#include <stdint.h>
#include <zlib.h>

_Static_assert(sizeof(z_off_t) >= 8, "castable needs a 64-bit z_off_t for zlib's combine");

static uint32_t castable_zlib_crc32(uint32_t crc, const void *p, size_t n) {
	return (uint32_t)crc32_z(crc, (const Bytef *)p, n);
}
static uint32_t castable_zlib_crc32_combine(uint32_t a, uint32_t b, int64_t n) {
	return (uint32_t)crc32_combine(a, b, (z_off_t)n);
}
static uint32_t castable_zlib_adler32_combine(uint32_t a, uint32_t b, int64_t n) {
	return (uint32_t)adler32_combine(a, b, (z_off_t)n);
}
*/
import "C"

import "unsafe"

// ZlibVersion is the linked zlib's version string.
var ZlibVersion = C.GoString(C.zlibVersion())

// ZlibCRC32 is zlib's crc32_z: the CRC-32 of prev's input followed by p.
func ZlibCRC32(prev uint32, p []byte) uint32 {
	if len(p) == 0 { // zlib treats a NULL buffer as "return the initial value"
		return prev
	}
	return uint32(C.castable_zlib_crc32(C.uint32_t(prev), unsafe.Pointer(unsafe.SliceData(p)), C.size_t(len(p))))
}

// ZlibCRC32Combine is zlib's crc32_combine; lenB ≤ 0 returns a.
func ZlibCRC32Combine(a, b uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return a
	}
	return uint32(C.castable_zlib_crc32_combine(C.uint32_t(a), C.uint32_t(b), C.int64_t(lenB)))
}

// ZlibAdler32Combine is zlib's adler32_combine; lenB ≤ 0 returns a.
func ZlibAdler32Combine(a, b uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return a
	}
	return uint32(C.castable_zlib_adler32_combine(C.uint32_t(a), C.uint32_t(b), C.int64_t(lenB)))
}
