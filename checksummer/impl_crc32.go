package checksummer

import (
	"hash/crc32"

	kcrc32 "github.com/klauspost/crc32"
)

// crc32UseKlauspost selects the code behind "crc32", the default CRC-32.
// Both candidates fold with carry-less multiplication (PCLMULQDQ, and an
// AVX-512 VPCLMULQDQ loop from 1 KiB up on CPUs that have it). Measured with
// BenchmarkChecksum/impl=crc32-{stdlib,klauspost}, 10 interleaved rounds of
// -benchtime 150ms on the shared 2-vCPU project machine (Emerald Rapids
// class, Go 1.26.8, heavily loaded: medians, best round in brackets):
//
//	              514 B            4 KiB              64 KiB
//	stdlib      109 ns (62 ns)   229 ns (133 ns)    4.15 µs (2.65 µs)
//	klauspost   114 ns (40 ns)   862 ns (381 ns)    4.08 µs (2.34 µs)
//
// They tie at 514 B and 64 KiB; at 4 KiB klauspost/crc32 is about 3.7×
// slower, so hash/crc32 is the default and klauspost/crc32 stays available
// as "crc32-klauspost".
const crc32UseKlauspost = false

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

// crc32Fast is "crc32": the fastest CRC-32 available in pure Go.
type crc32Fast struct{ crc32Family }

func (crc32Fast) Name() string { return "crc32" }

func (crc32Fast) Update(prev uint32, p []byte) uint32 {
	if crc32UseKlauspost {
		return kcrc32.Update(prev, kcrc32.IEEETable, p)
	}
	return crc32.Update(prev, crc32.IEEETable, p)
}

func (c crc32Fast) Describe() string {
	if crc32UseKlauspost {
		return crc32Klauspost{}.Describe()
	}
	return crc32Stdlib{}.Describe()
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
