package checksummer

import (
	"hash/adler32"
	"hash/crc32"
	"math/rand/v2"
)

// updater is one Update implementation under test: every registered
// checksummer plus the internal code paths the registry does not expose.
type updater struct {
	name   string
	alg    Algorithm
	update func(prev uint32, p []byte) uint32
}

// updaters returns every Update implementation in this build.
func updaters() []updater {
	var out []updater
	for _, c := range All() {
		out = append(out, updater{c.Name(), c.Algorithm(), c.Update})
	}
	out = append(out,
		updater{"crc32-slicing8", CRC32, crc32Slicing8},
		updater{"adler32-generic", Adler32, adler32Generic},
	)
	return append(out, kernelUpdaters()...)
}

// reference returns the checksum of p continuing prev, from the standard
// library (independent of everything in this package).
func reference(alg Algorithm, prev uint32, p []byte) uint32 {
	if alg == CRC32 {
		return crc32.Update(prev, crc32.IEEETable, p)
	}
	if len(p) == 0 {
		return prev
	}
	if prev == 1 {
		return adler32.Checksum(p)
	}
	// Continue prev byte by byte: RFC 1950 directly.
	a, b := prev&0xffff, prev>>16
	for _, c := range p {
		a = (a + uint32(c)) % adler32Mod
		b = (b + a) % adler32Mod
	}
	return b<<16 | a
}

// randomBytes returns n bytes from a seeded generator.
func randomBytes(r *rand.Rand, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

// cutLengths are the lengths the cross-checks use: every length up to 300,
// then powers of two and their neighbours up to 1 MiB, plus the sizes the
// SSTable writers see.
func cutLengths() []int {
	var ls []int
	for n := 0; n <= 300; n++ {
		ls = append(ls, n)
	}
	for p := 512; p <= 1<<20; p <<= 1 {
		ls = append(ls, p-1, p, p+1)
	}
	return append(ls, 514, 5552, 5553, 4096+4, 65536*3+17, adler32Block+63)
}
