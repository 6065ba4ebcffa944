package dht

import (
	"crypto/md5"

	"encoding/binary"
	bc "github.com/castable-db/castable/internal/bytecomparable"
	"math/big"
	"math/bits"
)

// random is RandomPartitioner: a key's token is abs(MD5(key)) read as a
// signed 128-bit BigInteger, from 0 to 2^127; the empty key's is the
// minimum, -1. A token is kept as value+1 in hi:lo (128 bits, unsigned), so
// that the minimum is the zero Token and order is integer order.
type random struct{}

func (random) Name() string         { return RandomName }
func (random) PreservesOrder() bool { return false }
func (random) MinToken() Token      { return Token{} }

func (r random) TokenFromHash(key []byte, _ uint64) Token { return r.Token(key) }

func (random) Token(key []byte) Token {
	if len(key) == 0 {
		return Token{}
	}
	sum := md5.Sum(key)
	hi, lo := binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:])
	if hi&signBit != 0 { // negative: abs is the two's complement negation
		var borrow uint64
		lo, borrow = bits.Sub64(0, lo, 0)
		hi, _ = bits.Sub64(0, hi, borrow)
	}
	var carry uint64
	lo, carry = bits.Add64(lo, 1, 0)
	hi += carry
	return Token{hi: hi, lo: lo}
}

// randomValue returns the BigInteger value of a RandomPartitioner token.
func randomValue(t Token) *big.Int {
	v := new(big.Int).SetUint64(t.hi)
	v.Lsh(v, 64)
	v.Or(v, new(big.Int).SetUint64(t.lo))
	return v.Sub(v, big.NewInt(1))
}

func (random) String(t Token) string { return randomValue(t).String() }

// randomMax is the largest RandomPartitioner token, 2^127.
var randomMax = new(big.Int).Lsh(big.NewInt(1), 127)

func (random) ParseToken(s string) (Token, error) {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Cmp(big.NewInt(-1)) < 0 || v.Cmp(randomMax) > 0 {
		return Token{}, tokenError(RandomName, s, "an integer from -1 to 2^127")
	}
	v.Add(v, big.NewInt(1))
	var b [16]byte
	v.FillBytes(b[:])
	return Token{hi: binary.BigEndian.Uint64(b[:8]), lo: binary.BigEndian.Uint64(b[8:])}, nil
}

func (random) AppendComparable(dst []byte, t Token) []byte {
	v := randomValue(t)
	var b []byte
	if v.Sign() < 0 {
		b = []byte{0xff} // the minimum, -1
	} else {
		b = append([]byte{0}, v.Bytes()...) // BigInteger.toByteArray keeps a sign byte; AppendBigInteger drops redundant ones
	}
	return bc.AppendBigInteger(dst, b)
}
