package checksummer

import (
	"hash/crc32"

	kcrc32 "github.com/klauspost/crc32"
)

// crc32Family gives the CRC-32 checksummers their shared methods: the empty
// checksum 0 and the fast combine.
type crc32Family struct{}

// Algorithm returns CRC32.
func (crc32Family) Algorithm() Algorithm { return CRC32 }

// Init returns 0, the CRC-32 of no bytes.
func (crc32Family) Init() uint32 { return 0 }

// Combine is CRC32Combine.
func (crc32Family) Combine(a, b uint32, lenB int64) uint32 { return CRC32Combine(a, b, lenB) }

// PreferCombine returns true: CRC32Combine costs nanoseconds.
func (crc32Family) PreferCombine() bool { return true }

// crc32Fast is "crc32": UpdateCRC32, castable's own (VPCLMULQDQ assembly on
// amd64 CPUs that have it, hash/crc32 elsewhere). Measured against the
// other candidates with BenchmarkCRC32 and perf_checksum (README,
// "Checksummers and codecs").
//
// Its methods have pointer receivers and Update is one inlined call, so a
// call through the Checksummer interface reaches UpdateCRC32 directly (a
// value receiver would add a wrapper frame, about a nanosecond a call).
type crc32Fast struct{ crc32Family }

func (*crc32Fast) Name() string { return "crc32" }

func (*crc32Fast) Update(prev uint32, p []byte) uint32 { return UpdateCRC32(prev, p) }

func (*crc32Fast) Describe() string {
	return "castable CRC-32: " + crc32Impl() + "; combine: " + crc32CombineImpl
}

// crc32Stdlib is "crc32-stdlib": Go's hash/crc32.
type crc32Stdlib struct{ crc32Family }

func (crc32Stdlib) Name() string { return "crc32-stdlib" }

func (crc32Stdlib) Update(prev uint32, p []byte) uint32 {
	return crc32.Update(prev, crc32.IEEETable, p)
}

func (crc32Stdlib) Describe() string {
	return "Go hash/crc32 (PCLMULQDQ/VPCLMULQDQ folding where available); combine: " + crc32CombineImpl
}

// crc32Klauspost is "crc32-klauspost": github.com/klauspost/crc32.
type crc32Klauspost struct{ crc32Family }

func (crc32Klauspost) Name() string { return "crc32-klauspost" }

func (crc32Klauspost) Update(prev uint32, p []byte) uint32 {
	return kcrc32.Update(prev, kcrc32.IEEETable, p)
}

func (crc32Klauspost) Describe() string {
	return "github.com/klauspost/crc32 (AVX-512 VPCLMULQDQ from 1 KiB); combine: " + crc32CombineImpl
}
