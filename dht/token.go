// Package dht holds Cassandra's partitioners — Murmur3Partitioner,
// RandomPartitioner, ByteOrderedPartitioner and OrderPreservingPartitioner:
// the token of a partition key, its string and byte-comparable forms, and
// the order of partitions (token, then key bytes) that SSTables keep.
//
// Every partitioner's tokens share one order-preserving representation,
// Token: its leading 128 bits as two integers and, for partitioners whose
// tokens are longer (the key-ordered ones), the whole order form as bytes.
// Murmur3 tokens are one integer, so comparing them costs one instruction.
package dht

import (
	"bytes"
	"fmt"
)

// signBit flips the sign of a 64-bit value so that signed order becomes
// unsigned order.
const signBit = 1 << 63

// Token is a partition key's position on the ring, in an order-preserving
// form shared by every partitioner: two tokens of one partitioner compare
// with Compare as the partitioner orders them. The zero Token is every
// partitioner's minimum token, the token of the empty key.
//
// A Token computed from a key by a key-ordered partitioner
// (ByteOrderedPartitioner) refers to the key's bytes: it is valid while they
// are unchanged.
type Token struct {
	// hi and lo are the first 16 bytes of the order form, big-endian
	// (zero-padded when it is shorter).
	hi, lo uint64
	// rest is the whole order form when it may be longer than 16 bytes
	// (key-ordered partitioners); nil otherwise.
	rest []byte
}

// Compare orders two tokens of one partitioner: -1, 0 or +1.
func Compare(a, b Token) int {
	switch {
	case a.hi != b.hi:
		if a.hi < b.hi {
			return -1
		}
		return 1
	case a.lo != b.lo:
		if a.lo < b.lo {
			return -1
		}
		return 1
	case a.rest == nil && b.rest == nil:
		return 0
	}
	// hi and lo are the zero-padded prefix of rest, so when they tie the
	// whole forms decide, consistently with the prefix.
	return bytes.Compare(a.rest, b.rest)
}

// ComparePartitions orders partitions as SSTables store them: by token,
// then by key bytes (unsigned, a prefix first).
func ComparePartitions(tokenA Token, keyA []byte, tokenB Token, keyB []byte) int {
	if tokenA.hi != tokenB.hi {
		if tokenA.hi < tokenB.hi {
			return -1
		}
		return 1
	}
	if c := Compare(tokenA, tokenB); c != 0 {
		return c
	}
	return bytes.Compare(keyA, keyB)
}

// Prefix returns the token's leading 64 bits in its order: Prefix(a) <
// Prefix(b) implies Compare(a, b) < 0. Sorted structures compare it first.
func (t Token) Prefix() uint64 { return t.hi }

// Equal reports whether a and b are the same token.
func (t Token) Equal(o Token) bool { return Compare(t, o) == 0 }

// IsMinimum reports whether t is the minimum token (the empty key's).
func (t Token) IsMinimum() bool { return t.hi == 0 && t.lo == 0 && len(t.rest) == 0 }

// bytesToken returns the Token whose order form is b (not copied).
func bytesToken(b []byte) Token {
	var pad [16]byte
	copy(pad[:], b)
	return Token{hi: be64(pad[:8]), lo: be64(pad[8:]), rest: b}
}

func be64(b []byte) uint64 {
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

func tokenError(partitioner, s, want string) error {
	return fmt.Errorf("dht: %q is not a %s token (want %s)", s, shortName(partitioner), want)
}
