//go:build amd64 && !purego

package checksummer

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The Adler-32 kernels are chosen once, from the CPU's features.
var (
	useAdler32AVX2   = cpu.X86.HasAVX2
	useAdler32AVX512 = useAdler32AVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW
	useAdler32VNNI   = useAdler32AVX512 && cpu.X86.HasAVX512VNNI && cpu.X86.HasBMI2
)

// adler32BlockVNNI is the most the VNNI kernel sums in one call: its 32-bit
// lanes stay below 2^31 up to 512 KiB (adler32_amd64.s).
const adler32BlockVNNI = 512 << 10

// adler32Short is the length below which UpdateAdler32's scalar loop in
// assembly beats any vector kernel's set-up (the VNNI kernel breaks even at
// 12–16 bytes).
const adler32Short = 16

// adler32Impl names the code behind UpdateAdler32.
func adler32Impl() string {
	switch {
	case useAdler32VNNI:
		return "amd64 AVX-512 VNNI assembly"
	case useAdler32AVX512:
		return "amd64 AVX-512BW assembly"
	case useAdler32AVX2:
		return "amd64 AVX2 assembly"
	}
	return "pure Go (no AVX2)"
}

// UpdateAdler32 returns the Adler-32 of prev's input followed by p.
//
// It sums fewer than adler32Short bytes itself, in a scalar loop, and is a
// tail jump in assembly (adler32_amd64.s) to adler32VNNIBlock for up to
// adler32BlockVNNI bytes on CPUs with VNNI, and to adler32UpdateOther
// otherwise, so that a call through the registry costs one call.
//
//go:noescape
func UpdateAdler32(prev uint32, p []byte) uint32

// adler32UpdateOther is UpdateAdler32 for what the assembly dispatch does
// not send to the VNNI kernel directly.
func adler32UpdateOther(prev uint32, p []byte) uint32 {
	if useAdler32VNNI {
		return adler32VNNI(prev, p)
	}
	return adler32Vector(prev, p, useAdler32AVX2, useAdler32AVX512)
}

// adler32AlignMin is the length from which adler32VNNI sums the bytes
// before the first 64-byte boundary on their own, so that the kernel's
// loads are aligned (the kernel jumps to adler32VNNI for such inputs): a
// load that straddles two cache lines takes two of the load ports' slots,
// and the kernel runs at the load ports' limit (a 64 KiB input one byte
// past a boundary took 1.6× as long). Below 32 KiB, where the input is in
// L1, the extra call costs more than it saves.
const adler32AlignMin = 32 << 10

// adler32VNNI is UpdateAdler32 with the VNNI kernel, which takes any length
// (the last bytes through a masked load), one block of up to
// adler32BlockVNNI bytes per call.
func adler32VNNI(prev uint32, p []byte) uint32 {
	if len(p) >= adler32AlignMin {
		if h := int(-uintptr(unsafe.Pointer(unsafe.SliceData(p))) & 63); h != 0 {
			prev = adler32VNNIBlock(prev, p[:h])
			p = p[h:]
		}
	}
	for len(p) > adler32BlockVNNI {
		prev = adler32VNNIBlock(prev, p[:adler32BlockVNNI])
		p = p[adler32BlockVNNI:]
	}
	if len(p) == 0 {
		return prev
	}
	return adler32VNNIBlock(prev, p)
}

// adler32Vector is UpdateAdler32 with the kernels to use given explicitly
// (the tests run every combination the CPU supports).
func adler32Vector(prev uint32, p []byte, avx2, avx512 bool) uint32 {
	if !avx2 || len(p) < 32 {
		return adler32Generic(prev, p)
	}
	a, b := uint64(prev&0xffff), uint64(prev>>16)
	for len(p) >= 32 {
		n := min(len(p), adler32Block)
		var sum, weighted uint64
		if avx512 && n >= 64 {
			n &^= 63
			sum, weighted = adler32SumsAVX512(p[:n])
		} else {
			n &^= 31
			sum, weighted = adler32SumsAVX2(p[:n])
		}
		b = (b + uint64(n)*a + weighted) % adler32Mod
		a = (a + sum) % adler32Mod
		p = p[n:]
	}
	for _, c := range p { // fewer than 32 bytes
		a += uint64(c)
		b += a
	}
	return uint32(b%adler32Mod)<<16 | uint32(a%adler32Mod)
}

// adler32SumsAVX2 returns Σ d_i and Σ (n − i)·d_i for p; len(p) is a
// non-zero multiple of 32, at most adler32Block (adler32_amd64.s).
//
//go:noescape
func adler32SumsAVX2(p []byte) (sum, weighted uint64)

// adler32SumsAVX512 is adler32SumsAVX2 for lengths that are multiples of 64.
//
//go:noescape
func adler32SumsAVX512(p []byte) (sum, weighted uint64)

// adler32VNNIBlock returns the Adler-32 of adler's input followed by p, for
// len(p) from 1 to adler32BlockVNNI (AVX-512 VNNI, adler32_amd64.s).
//
//go:noescape
func adler32VNNIBlock(adler uint32, p []byte) uint32
