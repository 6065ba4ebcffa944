package checksummer

import (
	"maps"
	"slices"
)

// Describer is implemented by every checksummer of this package: Describe
// says which code computes it in this build (assembly, cgo library and
// version, pure-Go fallback), for perf_checksum and the CLI.
type Describer interface {
	Describe() string
}

// Describe returns c's description, or its name when c is not a Describer.
func Describe(c Checksummer) string {
	if d, ok := c.(Describer); ok {
		return d.Describe()
	}
	return c.Name()
}

// All returns the checksummers available in this build, CRC-32 first, in a
// fixed order:
//
//	crc32              default CRC-32: UpdateCRC32, castable's VPCLMULQDQ
//	                   assembly (hash/crc32 without it)
//	crc32-stdlib       Go's hash/crc32
//	crc32-klauspost    github.com/klauspost/crc32
//	zlib-crc32         system zlib via cgo (tag zlib); otherwise a pure-Go
//	                   slicing-by-8 table CRC; combine: zlib's crc32_combine or
//	                   the GF(2) matrix, PreferCombine false (the slow baseline)
//	libdeflate-crc32   system libdeflate via cgo (tag libdeflate only)
//	adler32            default Adler-32: UpdateAdler32, castable's SIMD
//	                   assembly (VNNI, AVX-512BW or AVX2) / SWAR Go
//	adler32-stdlib     Go's hash/adler32
//	libdeflate-adler32 system libdeflate via cgo (tag libdeflate only)
//
// Every CRC-32 except zlib-crc32 combines with CRC32Combine, every Adler-32
// with Adler32Combine.
func All() []Checksummer {
	out := []Checksummer{defaultCRC32, crc32Stdlib{}, crc32Klauspost{}, zlibCRC32Checksummer{}}
	for _, c := range libdeflateCheckers {
		if c.Algorithm() == CRC32 {
			out = append(out, c)
		}
	}
	out = append(out, defaultAdler32, adler32Stdlib{})
	for _, c := range libdeflateCheckers {
		if c.Algorithm() == Adler32 {
			out = append(out, c)
		}
	}
	return out
}

// The default checksummers, one value each.
var (
	defaultCRC32   Checksummer = &crc32Fast{}
	defaultAdler32 Checksummer = &adler32Fast{}
)

// Lookup returns the checksummer called name, and false when no such
// implementation exists in this build (see Unavailable for why).
func Lookup(name string) (Checksummer, bool) {
	for _, c := range All() {
		if c.Name() == name {
			return c, true
		}
	}
	return nil, false
}

// Unavailable maps the names of the checksummers this build does not
// contain to the reason (for example "libdeflate-crc32" without cgo).
func Unavailable() map[string]string {
	return maps.Clone(libdeflateMissing)
}

// Default returns the fastest available checksummer for alg — the one the
// SSTable writers and verify use (CRC-32 for mc and later, Adler-32 for
// la): "crc32" (UpdateCRC32) and "adler32" (UpdateAdler32), castable's own
// assembly, with no cgo call per chunk. It returns nil for an unknown
// Algorithm.
func Default(alg Algorithm) Checksummer {
	switch alg {
	case CRC32:
		return defaultCRC32
	case Adler32:
		return defaultAdler32
	}
	return nil
}

// CombineOrFeed returns the checksum of A‖chunk given full = checksum(A)
// and chunkSum = checksum(chunk): by c.Combine when c.PreferCombine(),
// otherwise by feeding the chunk bytes again with c.Update. Both give the
// same value; only the cost differs (ScyllaDB's checksum_combine_or_feed).
func CombineOrFeed(c Checksummer, full, chunkSum uint32, chunk []byte) uint32 {
	if c.PreferCombine() {
		return c.Combine(full, chunkSum, int64(len(chunk)))
	}
	return c.Update(full, chunk)
}

// CombineImpl is one implementation of a combine function, for tests and
// perf_checksum to compare.
type CombineImpl struct {
	// Name identifies the implementation, e.g. "crc32" or "zlib-adler32".
	Name string
	// Algorithm is the checksum whose values it combines.
	Algorithm Algorithm
	// Describe says which code computes it in this build.
	Describe string
	// Combine returns the checksum of A‖B from a = checksum(A),
	// b = checksum(B) and lenB = len(B); lenB ≤ 0 returns a.
	Combine func(a, b uint32, lenB int64) uint32
}

// Combines returns the combine implementations available in this build:
//
//	crc32          CRC32Combine (PCLMULQDQ assembly or pure Go)
//	crc32-generic  CRC32Combine's algorithm in pure Go
//	crc32-gf2      CRC32CombineGF2, zlib ≤ 1.2.11's GF(2)-matrix method
//	zlib-crc32     system zlib's crc32_combine via cgo (tag zlib only)
//	adler32        Adler32Combine
//	zlib-adler32   system zlib's adler32_combine via cgo (tag zlib only)
func Combines() []CombineImpl {
	out := []CombineImpl{
		{Name: "crc32", Algorithm: CRC32, Combine: CRC32Combine, Describe: crc32CombineImpl},
		{Name: "crc32-generic", Algorithm: CRC32, Combine: crc32CombineGeneric, Describe: "pure Go carry-less multiply"},
		{Name: "crc32-gf2", Algorithm: CRC32, Combine: CRC32CombineGF2, Describe: "GF(2) matrix (zlib ≤ 1.2.11), pure Go"},
	}
	for _, c := range zlibCombines {
		if c.Algorithm == CRC32 {
			out = append(out, c)
		}
	}
	out = append(out, CombineImpl{Name: "adler32", Algorithm: Adler32, Combine: Adler32Combine, Describe: "zlib's arithmetic, pure Go"})
	for _, c := range zlibCombines {
		if c.Algorithm == Adler32 {
			out = append(out, c)
		}
	}
	return out
}

// LookupCombine returns the combine implementation called name, and false
// when it does not exist in this build (see UnavailableCombines).
func LookupCombine(name string) (CombineImpl, bool) {
	i := slices.IndexFunc(Combines(), func(c CombineImpl) bool { return c.Name == name })
	if i < 0 {
		return CombineImpl{}, false
	}
	return Combines()[i], true
}

// UnavailableCombines maps the names of the combine implementations this
// build does not contain to the reason.
func UnavailableCombines() map[string]string {
	return maps.Clone(zlibMissingCombines)
}

// zlibCRC32Checksummer is "zlib-crc32": zlib's crc32 and crc32_combine
// through cgo with tag zlib, otherwise the pure-Go table CRC and the GF(2)
// combine. Its combine is slow, so PreferCombine is false and writers using
// it feed bytes twice, as ScyllaDB's zlib_crc32_checksummer did.
type zlibCRC32Checksummer struct{}

func (zlibCRC32Checksummer) Name() string                        { return "zlib-crc32" }
func (zlibCRC32Checksummer) Algorithm() Algorithm                { return CRC32 }
func (zlibCRC32Checksummer) Init() uint32                        { return 0 }
func (zlibCRC32Checksummer) Update(prev uint32, p []byte) uint32 { return zlibCRC32(prev, p) }
func (zlibCRC32Checksummer) Combine(a, b uint32, lenB int64) uint32 {
	return zlibCRC32Combine(a, b, lenB)
}
func (zlibCRC32Checksummer) PreferCombine() bool { return false }
func (zlibCRC32Checksummer) Describe() string    { return zlibCRC32Describe() }
