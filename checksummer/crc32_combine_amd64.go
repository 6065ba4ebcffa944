//go:build amd64 && !purego

package checksummer

import "golang.org/x/sys/cpu"

// hasCLMUL reports whether the CPU has PCLMULQDQ (every x86-64 CPU since
// 2010); without it CRC32Combine uses the pure-Go multiply.
var hasCLMUL = cpu.X86.HasPCLMULQDQ

// crc32CombineImpl names the code behind CRC32Combine.
var crc32CombineImpl = map[bool]string{
	true:  "amd64 PCLMULQDQ assembly",
	false: "pure Go carry-less multiply (no PCLMULQDQ)",
}[hasCLMUL]

// crc32Combine is CRC32Combine: PCLMULQDQ assembly with Barrett reduction,
// reading crc32CombineTable (crc32_combine_amd64.s), or crc32CombineGeneric
// when the CPU lacks PCLMULQDQ.
//
//go:noescape
func crc32Combine(a, b uint32, lenB int64) uint32
