package checksummer

import "encoding/binary"

// crc32Slicing8 returns the CRC-32 of prev's input followed by p with the
// table-driven slicing-by-8 method — eight table lookups per 8 bytes, no
// carry-less multiplication — the same class of algorithm as zlib's portable
// crc32 (its braided tables) and Java's pre-intrinsic CRC32. It stands in for
// zlib's crc32 when the system zlib is not built in, and it is the slow
// baseline of perf_checksum: about 1.5–2.5 GB/s.
func crc32Slicing8(prev uint32, p []byte) uint32 {
	t := crc32Slicing
	crc := ^prev
	for ; len(p) >= 8; p = p[8:] {
		lo := crc ^ binary.LittleEndian.Uint32(p)
		hi := binary.LittleEndian.Uint32(p[4:])
		crc = t[7][lo&0xff] ^ t[6][lo>>8&0xff] ^ t[5][lo>>16&0xff] ^ t[4][lo>>24] ^
			t[3][hi&0xff] ^ t[2][hi>>8&0xff] ^ t[1][hi>>16&0xff] ^ t[0][hi>>24]
	}
	for _, c := range p {
		crc = t[0][byte(crc)^c] ^ crc>>8
	}
	return ^crc
}
