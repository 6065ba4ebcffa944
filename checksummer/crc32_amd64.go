//go:build amd64 && !purego

package checksummer

import (
	"hash/crc32"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The CRC-32 kernels are chosen once, from the CPU's features.
//
// x/sys/cpu reports VPCLMULQDQ only together with AVX-512, so the 256-bit
// kernel (for CPUs with VPCLMULQDQ and AVX2 but no AVX-512, such as Zen 3
// or Alder Lake) reads CPUID leaf 7 itself; cpu.X86.HasAVX2 already says
// the OS saves the YMM state.
var (
	haveCRC32AVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL &&
		cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512VPCLMULQDQ && cpu.X86.HasBMI2
	haveCRC32AVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ && cpuHasVPCLMULQDQ()

	useCRC32AVX512 = haveCRC32AVX512
	useCRC32AVX2   = haveCRC32AVX2 && !useCRC32AVX512
)

// crc32AVX2Min is the shortest input the 256-bit kernel takes (its eight
// accumulators); shorter ones, and the last len mod 32 bytes, go to
// hash/crc32.
const crc32AVX2Min = 256

// cpuHasVPCLMULQDQ reports CPUID.(EAX=7,ECX=0):ECX bit 10.
func cpuHasVPCLMULQDQ() bool {
	if maxLeaf, _, _, _ := cpuid(0, 0); maxLeaf < 7 {
		return false
	}
	_, _, ecx, _ := cpuid(7, 0)
	return ecx&(1<<10) != 0
}

// crc32Impl names the code behind UpdateCRC32.
func crc32Impl() string {
	switch {
	case useCRC32AVX512:
		return "amd64 AVX-512 VPCLMULQDQ assembly (512-bit lanes, 8 accumulators)"
	case useCRC32AVX2:
		return "amd64 AVX2 VPCLMULQDQ assembly (256-bit lanes, 8 accumulators), hash/crc32 below 256 B"
	}
	return "Go hash/crc32 (no VPCLMULQDQ)"
}

// UpdateCRC32 returns the CRC-32 (IEEE) of prev's input followed by p:
// crc32.Update(prev, crc32.IEEETable, p), computed by castable's
// VPCLMULQDQ assembly where the CPU has it.
//
// It is a tail jump in assembly (crc32_amd64.s) to crc32AVX512 or to
// crc32UpdateOther, so that a call through the registry costs one call.
//
//go:noescape
func UpdateCRC32(prev uint32, p []byte) uint32

// crc32AlignMin is the length from which the AVX-512 kernel checksums the
// bytes after the last 64-byte boundary on their own (crc32UpdateSplit): it
// reads vectors aligned to the end of its input, so this makes its loads
// aligned. A load that straddles two cache lines takes two load-port slots;
// a 64 KiB input one byte off took 1.2× as long. Below 32 KiB, where the
// input is in L1, the extra call costs more than it saves.
const crc32AlignMin = 32 << 10

// crc32UpdateSplit is crc32AVX512 for inputs of at least crc32AlignMin
// bytes that do not end on a 64-byte boundary, to which the kernel jumps:
// it takes them up to the last boundary, then the rest.
func crc32UpdateSplit(prev uint32, p []byte) uint32 {
	t := int(uintptr(unsafe.Pointer(unsafe.SliceData(p)))+uintptr(len(p))) & 63
	prev = crc32AVX512(prev, p[:len(p)-t])
	return crc32AVX512(prev, p[len(p)-t:])
}

// crc32UpdateOther is UpdateCRC32 without the AVX-512 kernel.
func crc32UpdateOther(prev uint32, p []byte) uint32 {
	if useCRC32AVX2 {
		return crc32Update256(prev, p)
	}
	return crc32.Update(prev, crc32.IEEETable, p)
}

// crc32Update256 is UpdateCRC32 with the 256-bit kernel.
func crc32Update256(prev uint32, p []byte) uint32 {
	if len(p) >= crc32AVX2Min {
		n := len(p) &^ 31
		prev = crc32AVX2(prev, p[:n])
		p = p[n:]
	}
	return crc32.Update(prev, crc32.IEEETable, p)
}

// crc32Table is crc32FoldConsts at a 64-byte aligned address, so that no
// 512-bit load of multipliers straddles two cache lines.
var crc32Table = func() *[crc32ConstsLen]uint64 {
	buf := make([]uint64, crc32ConstsLen+7)
	off := int(-uintptr(unsafe.Pointer(&buf[0])) / 8 & 7)
	t := (*[crc32ConstsLen]uint64)(buf[off:])
	*t = crc32FoldConsts
	return t
}()

// crc32AVX512 returns the CRC-32 of prev's input followed by p, any length
// (crc32_amd64.s). The CPU must have haveCRC32AVX512's features.
//
//go:noescape
func crc32AVX512(crc uint32, p []byte) uint32

// crc32AVX2 is crc32AVX512 with 256-bit vectors for len(p) a multiple of 32
// and at least crc32AVX2Min. The CPU must have haveCRC32AVX2's features.
//
//go:noescape
func crc32AVX2(crc uint32, p []byte) uint32

// cpuid executes CPUID with EAX = leaf and ECX = sub.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
