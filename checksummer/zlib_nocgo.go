//go:build !(cgo && zlib)

package checksummer

// zlibBuiltIn reports whether the system zlib is linked (cgo and -tags zlib).
const zlibBuiltIn = false

// zlibMissingReason says why zlib's own functions are absent from this build.
const zlibMissingReason = "built without the system zlib (needs cgo and -tags zlib)"

// zlibCRC32 stands in for zlib's crc32 with the pure-Go table CRC.
func zlibCRC32(prev uint32, p []byte) uint32 { return crc32Slicing8(prev, p) }

// zlibCRC32Combine stands in for zlib's crc32_combine with the GF(2)-matrix
// method of zlib ≤ 1.2.11.
func zlibCRC32Combine(a, b uint32, lenB int64) uint32 { return CRC32CombineGF2(a, b, lenB) }

// zlibCRC32Describe says which code is behind "zlib-crc32".
func zlibCRC32Describe() string {
	return "pure-Go slicing-by-8 table CRC standing in for zlib (" + zlibMissingReason + "); combine: GF(2) matrix"
}

// zlibCombines are the combine implementations zlib brings: none here.
var zlibCombines []CombineImpl

// zlibMissingCombines names the combine implementations this build lacks.
var zlibMissingCombines = map[string]string{
	"zlib-crc32":   zlibMissingReason,
	"zlib-adler32": zlibMissingReason,
}
