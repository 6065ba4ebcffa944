//go:build !amd64 || purego

package checksummer

// crc32CombineImpl names the code behind CRC32Combine.
const crc32CombineImpl = "pure Go carry-less multiply"

// crc32Combine is CRC32Combine.
func crc32Combine(a, b uint32, lenB int64) uint32 { return crc32CombineGeneric(a, b, lenB) }
