//go:build cgo && libdeflate

package clib

/*
#cgo pkg-config: libdeflate
#include <libdeflate.h>
*/
import "C"

import "unsafe"

// LibdeflateVersion is the version of the libdeflate headers built against.
const LibdeflateVersion = C.LIBDEFLATE_VERSION_STRING

// LibdeflateCRC32 is libdeflate_crc32: the CRC-32 of prev's input followed
// by p.
func LibdeflateCRC32(prev uint32, p []byte) uint32 {
	if len(p) == 0 {
		return prev
	}
	return uint32(C.libdeflate_crc32(C.uint32_t(prev), unsafe.Pointer(unsafe.SliceData(p)), C.size_t(len(p))))
}

// LibdeflateAdler32 is libdeflate_adler32: the Adler-32 of prev's input
// followed by p.
func LibdeflateAdler32(prev uint32, p []byte) uint32 {
	if len(p) == 0 {
		return prev
	}
	return uint32(C.libdeflate_adler32(C.uint32_t(prev), unsafe.Pointer(unsafe.SliceData(p)), C.size_t(len(p))))
}
