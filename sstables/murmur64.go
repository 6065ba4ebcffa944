package sstables

import "encoding/binary"

// Hash2_64 is Cassandra's MurmurHash.hash2_64 (MurmurHash64A), the hash
// Statistics.db's HyperLogLog++ is fed with. Arithmetic is unsigned 64-bit
// and wrapping; like Cassandra's Murmur3 it sign-extends the tail bytes
// (Java's (long) byte), so keys whose last len%8 bytes hold a byte ≥ 0x80
// hash differently from the textbook algorithm:
//
//	m = 0xc6a4a7935bd1e995, r = 47, h = seed ^ (m·len)
//	each 8-byte LITTLE-ENDIAN block k: k·=m; k^=k>>r; k·=m; h^=k; h·=m
//	tail t[0..len%8): h ^= signExtend(t[j]) << 8j for each j; h·=m
//	h^=h>>r; h·=m; h^=h>>r
func Hash2_64(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := (seed & 0xffffffff) ^ (m * uint64(len(key)))
	p := key
	for len(p) >= 8 {
		k := binary.LittleEndian.Uint64(p)
		p = p[8:]
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	if len(p) > 0 {
		for j := len(p) - 1; j >= 0; j-- {
			h ^= uint64(int64(int8(p[j]))) << (8 * uint(j))
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}
