//go:build cgo && zlib

package checksummer

import "github.com/castable-db/castable/checksummer/internal/clib"

// zlibBuiltIn reports whether the system zlib is linked (cgo and -tags zlib).
const zlibBuiltIn = true

// zlibCRC32 is zlib's crc32 (its braided table code): one cgo call.
func zlibCRC32(prev uint32, p []byte) uint32 { return clib.ZlibCRC32(prev, p) }

// zlibCRC32Combine is zlib's crc32_combine (zlib ≥ 1.2.12 multiplies by
// precomputed x^2^k powers bit by bit; older releases use the GF(2) matrix).
func zlibCRC32Combine(a, b uint32, lenB int64) uint32 { return clib.ZlibCRC32Combine(a, b, lenB) }

// zlibCRC32Describe says which code is behind "zlib-crc32".
func zlibCRC32Describe() string {
	return "system zlib " + clib.ZlibVersion + " crc32 via cgo; combine: zlib crc32_combine via cgo"
}

// zlibCombines are the combine implementations zlib brings.
var zlibCombines = []CombineImpl{
	{Name: "zlib-crc32", Algorithm: CRC32, Combine: clib.ZlibCRC32Combine,
		Describe: "system zlib " + clib.ZlibVersion + " crc32_combine via cgo"},
	{Name: "zlib-adler32", Algorithm: Adler32, Combine: clib.ZlibAdler32Combine,
		Describe: "system zlib " + clib.ZlibVersion + " adler32_combine via cgo"},
}

// zlibMissingCombines lists nothing: zlib is built in.
var zlibMissingCombines = map[string]string{}
