package dht

// Cassandra's MurmurHash3_x64_128 differs from the textbook algorithm in one
// place: tail bytes (the last len%16) are sign-extended to 64 bits before they
// are shifted into k1/k2 (Java's (long) byte). Keys whose tail holds a byte
// >= 0x80 therefore hash differently; tokens, bloom filter bits and partition
// order all depend on reproducing it.
import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
)

const (
	c1 = 0x87c37b91114253d5
	c2 = 0x4cf5ad432745937f
)

// Murmur3Hash returns Cassandra's MurmurHash3_x64_128 of key with seed 0, as the
// two 64-bit halves (h1, h2). The bloom filter uses both; the token is h1.
func Murmur3Hash(key []byte) (h1, h2 uint64) {
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

// murmur3 is Murmur3Partitioner: a key's token is the first half of its
// MurmurHash3_x64_128 as a signed 64-bit value, Long.MIN_VALUE (the
// minimum token, the empty key's) mapped to Long.MAX_VALUE. Tokens live in
// hi alone, as the signed value with its sign bit flipped, which orders like
// the value.
type murmur3 struct{}

func (murmur3) Name() string         { return Murmur3Name }
func (murmur3) PreservesOrder() bool { return false }
func (murmur3) MinToken() Token      { return Token{} }
func (m murmur3) Token(key []byte) Token {
	if len(key) == 0 {
		return Token{}
	}
	h1, _ := Murmur3Hash(key)
	return m.TokenFromHash(key, h1)
}

// TokenFromHash implements Partitioner: the token is h1 itself.
func (murmur3) TokenFromHash(key []byte, h1 uint64) Token {
	if len(key) == 0 {
		return Token{}
	}
	return Murmur3Token(int64(h1))
}

// Murmur3Token returns the Token of the Murmur3Partitioner token value v
// (Long.MIN_VALUE, which no key hashes to, is mapped to Long.MAX_VALUE as
// Cassandra maps it).
func Murmur3Token(v int64) Token {
	if v == math.MinInt64 {
		v = math.MaxInt64
	}
	return Token{hi: uint64(v) ^ signBit}
}

// Murmur3Value returns the signed token value of a Murmur3Partitioner token.
func (t Token) Murmur3Value() int64 { return int64(t.hi ^ signBit) }

func (murmur3) String(t Token) string { return strconv.FormatInt(t.Murmur3Value(), 10) }

func (murmur3) ParseToken(s string) (Token, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return Token{}, tokenError(Murmur3Name, s, "a signed 64-bit integer")
	}
	if v == math.MinInt64 {
		return Token{}, nil
	}
	return Murmur3Token(v), nil
}

func (murmur3) AppendComparable(dst []byte, t Token) []byte {
	return binary.BigEndian.AppendUint64(dst, t.hi)
}
