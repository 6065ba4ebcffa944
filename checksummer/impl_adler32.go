package checksummer

import "hash/adler32"

// adler32Family gives the Adler-32 checksummers their shared methods: the
// empty checksum 1 and zlib's combine arithmetic.
type adler32Family struct{}

// Algorithm returns Adler32.
func (adler32Family) Algorithm() Algorithm { return Adler32 }

// Init returns 1, the Adler-32 of no bytes.
func (adler32Family) Init() uint32 { return 1 }

// Combine is Adler32Combine.
func (adler32Family) Combine(a, b uint32, lenB int64) uint32 { return Adler32Combine(a, b, lenB) }

// PreferCombine returns true: Adler32Combine is a few integer operations.
func (adler32Family) PreferCombine() bool { return true }

// adler32Fast is "adler32": UpdateAdler32, castable's own (SIMD assembly on
// amd64, SWAR pure Go elsewhere). Pointer receivers, as crc32Fast's.
type adler32Fast struct{ adler32Family }

func (*adler32Fast) Name() string { return "adler32" }

func (*adler32Fast) Update(prev uint32, p []byte) uint32 { return UpdateAdler32(prev, p) }

func (*adler32Fast) Describe() string { return "castable Adler-32: " + adler32Impl() }

// adler32Stdlib is "adler32-stdlib": Go's hash/adler32 (byte at a time,
// zlib's speed).
type adler32Stdlib struct{ adler32Family }

func (adler32Stdlib) Name() string { return "adler32-stdlib" }

// Update checksums p with hash/adler32, which can only start from the
// empty checksum (its digest would allocate), and continues prev by
// Adler32Combine.
func (adler32Stdlib) Update(prev uint32, p []byte) uint32 {
	if len(p) == 0 {
		return prev
	}
	sum := adler32.Checksum(p)
	if prev == 1 {
		return sum
	}
	return Adler32Combine(prev, sum, int64(len(p)))
}

func (adler32Stdlib) Describe() string { return "Go hash/adler32 (byte at a time)" }
