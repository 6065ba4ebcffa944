package dht

import (
	"encoding/hex"

	"fmt"
	bc "github.com/castable-db/castable/internal/bytecomparable"
	"unicode/utf16"
	"unicode/utf8"
)

// byteOrdered is ByteOrderedPartitioner: a key's token is the key itself,
// ordered as unsigned bytes; the empty key is the minimum. The Token refers
// to the key's bytes.
type byteOrdered struct{}

func (byteOrdered) Name() string         { return ByteOrderedName }
func (byteOrdered) PreservesOrder() bool { return true }
func (byteOrdered) MinToken() Token      { return Token{} }

func (byteOrdered) Token(key []byte) Token {
	if len(key) == 0 {
		return Token{}
	}
	return bytesToken(key)
}

func (b byteOrdered) TokenFromHash(key []byte, _ uint64) Token { return b.Token(key) }

// String renders the token as Cassandra's BytesToken does: the key in
// lower-case hex.
func (byteOrdered) String(t Token) string { return hex.EncodeToString(t.rest) }

func (byteOrdered) ParseToken(s string) (Token, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return Token{}, tokenError(ByteOrderedName, s, "hex digits")
	}
	if len(b) == 0 {
		return Token{}, nil
	}
	return bytesToken(b), nil
}

// orderPreserving is OrderPreservingPartitioner: a key's token is the key
// decoded as UTF-8, compared as Java compares strings (by UTF-16 code
// units, which puts characters beyond the Basic Multilingual Plane before
// U+E000…U+FFFF, unlike UTF-8 byte order). The order form is therefore the
// string in UTF-16BE; bytes that are not UTF-8 decode as U+FFFD, as Java's
// decoder replaces them.
type orderPreserving struct{}

func (orderPreserving) Name() string         { return OrderPreservingName }
func (orderPreserving) PreservesOrder() bool { return true }
func (orderPreserving) MinToken() Token      { return Token{} }

func (o orderPreserving) TokenFromHash(key []byte, _ uint64) Token { return o.Token(key) }

func (orderPreserving) Token(key []byte) Token {
	if len(key) == 0 {
		return Token{}
	}
	return bytesToken(utf16BE(string(key)))
}

// utf16BE returns s (UTF-8) as UTF-16 code units, big-endian.
func utf16BE(s string) []byte {
	out := make([]byte, 0, 2*len(s))
	for _, r := range s { // invalid UTF-8 yields U+FFFD
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			out = append(out, byte(r1>>8), byte(r1), byte(r2>>8), byte(r2))
			continue
		}
		out = append(out, byte(r>>8), byte(r))
	}
	return out
}

// String returns the token's string.
func (orderPreserving) String(t Token) string {
	b := t.rest
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	return string(utf16.Decode(u))
}

func (orderPreserving) ParseToken(s string) (Token, error) {
	if !utf8.ValidString(s) {
		return Token{}, fmt.Errorf("dht: an OrderPreservingPartitioner token must be UTF-8 text")
	}
	if s == "" {
		return Token{}, nil
	}
	return bytesToken(utf16BE(s)), nil
}

func (byteOrdered) AppendComparable(dst []byte, t Token) []byte {
	return bc.AppendEscaped(dst, t.rest)
}

// AppendComparable is StringToken's: the string's UTF-8 bytes, escaped.
func (o orderPreserving) AppendComparable(dst []byte, t Token) []byte {
	return bc.AppendEscaped(dst, []byte(o.String(t)))
}
