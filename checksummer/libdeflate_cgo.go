//go:build cgo && libdeflate

package checksummer

import "github.com/castable-db/castable/checksummer/internal/clib"

// libdeflateCRC32 is "libdeflate-crc32": libdeflate_crc32 through one cgo
// call (about 60 ns of call overhead), PCLMULQDQ folding in C.
type libdeflateCRC32 struct{ crc32Family }

func (libdeflateCRC32) Name() string { return "libdeflate-crc32" }

func (libdeflateCRC32) Update(prev uint32, p []byte) uint32 { return clib.LibdeflateCRC32(prev, p) }

func (libdeflateCRC32) Describe() string {
	return "system libdeflate " + clib.LibdeflateVersion + " libdeflate_crc32 via cgo; combine: " + crc32CombineImpl
}

// libdeflateAdler32 is "libdeflate-adler32": libdeflate_adler32 through one
// cgo call.
type libdeflateAdler32 struct{ adler32Family }

func (libdeflateAdler32) Name() string { return "libdeflate-adler32" }

func (libdeflateAdler32) Update(prev uint32, p []byte) uint32 { return clib.LibdeflateAdler32(prev, p) }

func (libdeflateAdler32) Describe() string {
	return "system libdeflate " + clib.LibdeflateVersion + " libdeflate_adler32 via cgo"
}

// libdeflateCheckers are the checksummers libdeflate brings.
var libdeflateCheckers = []Checksummer{libdeflateCRC32{}, libdeflateAdler32{}}

// libdeflateMissing lists nothing: libdeflate is built in.
var libdeflateMissing = map[string]string{}
