// Package dht is Cassandra's Murmur3Partitioner: the token of a partition key
// and the order of partitions (token, then key bytes).
//
// Cassandra's MurmurHash3_x64_128 differs from the textbook algorithm in one
// place: tail bytes (the last len%16) are sign-extended to 64 bits before they
// are shifted into k1/k2 (Java's (long) byte). Keys whose tail holds a byte
// >= 0x80 therefore hash differently; tokens, bloom filter bits and partition
// order all depend on reproducing it.
package dht

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
)

const (
	c1 = 0x87c37b91114253d5
	c2 = 0x4cf5ad432745937f
)

// MinToken is the partitioner's minimum token, the token of the empty key.
const MinToken int64 = math.MinInt64

// Murmur3 returns Cassandra's MurmurHash3_x64_128 of key with seed 0, as the
// two 64-bit halves (h1, h2). The bloom filter uses both; the token is h1.
func Murmur3(key []byte) (h1, h2 uint64) {
	n := len(key)
	p := key
	for len(p) >= 16 {
		k1 := binary.LittleEndian.Uint64(p)
		k2 := binary.LittleEndian.Uint64(p[8:])
		p = p[16:]

		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729

		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	if len(p) > 0 {
		var k1, k2 uint64
		// Sign-extend every tail byte (Java's (long) byte), then shift.
		for i := len(p) - 1; i >= 8; i-- {
			k2 ^= uint64(int64(int8(p[i]))) << (8 * uint(i-8))
		}
		for i := min(len(p), 8) - 1; i >= 0; i-- {
			k1 ^= uint64(int64(int8(p[i]))) << (8 * uint(i))
		}
		if len(p) > 8 {
			k2 *= c2
			k2 = bits.RotateLeft64(k2, 33)
			k2 *= c1
			h2 ^= k2
		}
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix(h1)
	h2 = fmix(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}

func fmix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// Token returns the Murmur3Partitioner token of a serialized partition key:
// MinToken for the empty key, otherwise h1 as a signed value with
// Long.MIN_VALUE mapped to Long.MAX_VALUE.
func Token(key []byte) int64 {
	if len(key) == 0 {
		return MinToken
	}
	h1, _ := Murmur3(key)
	return normalize(int64(h1))
}

func normalize(t int64) int64 {
	if t == math.MinInt64 {
		return math.MaxInt64
	}
	return t
}

// Compare orders partitions as SSTables store them: by token (signed), then
// by key bytes (unsigned, a prefix first).
func Compare(tokenA int64, keyA []byte, tokenB int64, keyB []byte) int {
	switch {
	case tokenA < tokenB:
		return -1
	case tokenA > tokenB:
		return 1
	}
	return bytes.Compare(keyA, keyB)
}
