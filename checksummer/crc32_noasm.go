//go:build !amd64 || purego

package checksummer

import "hash/crc32"

// crc32Impl names the code behind UpdateCRC32.
func crc32Impl() string { return "Go hash/crc32" }

// UpdateCRC32 returns the CRC-32 (IEEE) of prev's input followed by p:
// crc32.Update(prev, crc32.IEEETable, p).
func UpdateCRC32(prev uint32, p []byte) uint32 { return crc32.Update(prev, crc32.IEEETable, p) }
