package checksummer

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// The cross-checks below compare every fast Update (UpdateCRC32 and
// UpdateAdler32 as dispatched, and every assembly kernel forced) with the
// pure-Go code of this package — slicing-by-8 for CRC-32, the SWAR loop for
// Adler-32 — which TestUpdateCutLengths and TestGoldenVectors check against
// the standard library and known values.

// fastUpdaters returns the implementations under cross-check.
func fastUpdaters() []updater {
	out := []updater{{"UpdateCRC32", CRC32, UpdateCRC32}, {"UpdateAdler32", Adler32, UpdateAdler32}}
	return append(out, kernelUpdaters()...)
}

// generic returns the pure-Go oracle for alg.
func generic(alg Algorithm) func(uint32, []byte) uint32 {
	if alg == CRC32 {
		return crc32Slicing8
	}
	return adler32Generic
}

// randomPrev returns a valid running checksum of alg.
func randomPrev(r *rand.Rand, alg Algorithm) uint32 {
	v := r.Uint32()
	if alg == Adler32 {
		v = (v>>16%adler32Mod)<<16 | v&0xffff%adler32Mod
	}
	return v
}

// alignedBuffer returns n random bytes starting at a 64-byte boundary, so
// that buf[off:] is misaligned by exactly off.
func alignedBuffer(r *rand.Rand, n int) []byte {
	raw := randomBytes(r, n+64)
	skip := int(-uintptrOf(&raw[0]) & 63)
	return raw[skip : skip+n]
}

func uintptrOf[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

// laneCutoffs are the lengths around every vector and lane width the kernels
// use (16, 32, 64 bytes; 128–512 bytes of accumulators; the 1 KiB switch to
// the folding loop and the 1 KiB step of the Adler-32 main loop), ±1, plus
// the sizes the writers see.
func laneCutoffs() []int {
	ls := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 514, 5552, 5553}
	for _, w := range []int{16, 32, 64, 128, 256, 512, 1024, 2048, 4096} {
		for k := 1; k <= 3; k++ {
			ls = append(ls, k*w-1, k*w, k*w+1)
		}
	}
	slices.Sort(ls)
	return slices.Compact(ls)
}

// TestCrossCheckEveryLength compares at every length from 0 to 4096, from
// an aligned and a misaligned start, continuing a random checksum.
func TestCrossCheckEveryLength(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	buf := alignedBuffer(r, 4096+64)
	for _, u := range fastUpdaters() {
		ref := generic(u.alg)
		for _, off := range []int{0, 1} {
			for n := 0; n <= 4096; n++ {
				p, prev := buf[off:off+n], randomPrev(r, u.alg)
				if got, want := u.update(prev, p), ref(prev, p); got != want {
					t.Fatalf("%s: len %d offset %d prev %#08x: got %#08x, want %#08x", u.name, n, off, prev, got, want)
				}
			}
		}
	}
}

// TestCrossCheckMisalignment compares at every start misalignment 0…63 for
// every lane cut-off length.
func TestCrossCheckMisalignment(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	lengths := laneCutoffs()
	buf := alignedBuffer(r, lengths[len(lengths)-1]+64)
	for _, u := range fastUpdaters() {
		ref := generic(u.alg)
		for off := range 64 {
			for _, n := range lengths {
				p, prev := buf[off:off+n], randomPrev(r, u.alg)
				if got, want := u.update(prev, p), ref(prev, p); got != want {
					t.Fatalf("%s: len %d offset %d prev %#08x: got %#08x, want %#08x", u.name, n, off, prev, got, want)
				}
			}
		}
	}
}

// TestCrossCheckSplits feeds each cut-off length in two pieces, split at
// every cut-off below it and in the middle: Update(Update(prev, A), B) must
// be the checksum of A‖B.
func TestCrossCheckSplits(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	lengths := laneCutoffs()
	buf := alignedBuffer(r, lengths[len(lengths)-1]+64)
	for _, u := range fastUpdaters() {
		ref := generic(u.alg)
		for _, n := range lengths {
			off := r.IntN(64)
			p, prev := buf[off:off+n], randomPrev(r, u.alg)
			want := ref(prev, p)
			for _, cut := range append(lengths, n/2, n-1) {
				if cut < 0 || cut > n {
					continue
				}
				if got := u.update(u.update(prev, p[:cut]), p[cut:]); got != want {
					t.Fatalf("%s: len %d offset %d split at %d: got %#08x, want %#08x", u.name, n, off, cut, got, want)
				}
			}
		}
	}
}

// TestCrossCheckLarge covers what the short tests cannot: many folding
// iterations, the Adler-32 block boundaries (adler32Block and the VNNI
// kernel's 512 KiB), all-0xFF input (the largest sums) and all-zero input.
func TestCrossCheckLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	random := alignedBuffer(r, 3<<20+64)
	ones := make([]byte, len(random))
	for i := range ones {
		ones[i] = 0xff
	}
	zeros := make([]byte, len(random))
	for _, u := range fastUpdaters() {
		ref := generic(u.alg)
		for _, n := range []int{65535, 65536, 65537, 512<<10 - 1, 512 << 10, 512<<10 + 1, 1<<20 + 33, 3 << 20} {
			for _, src := range [][]byte{random, ones, zeros} {
				off := r.IntN(64)
				p, prev := src[off:off+n], randomPrev(r, u.alg)
				if got, want := u.update(prev, p), ref(prev, p); got != want {
					t.Fatalf("%s: len %d offset %d: got %#08x, want %#08x", u.name, n, off, got, want)
				}
			}
		}
	}
}
