package dht

import (
	"encoding/hex"
	"math"
	"strconv"
	"testing"
)

// Vectors from components.md §9.4; the last three need the sign-extending
// tail (textbook Murmur3 gives 7997733593212108677, -1557526832178613705 and
// -3009980482956785127).
var tokenVectors = []struct {
	key    string
	h1, h2 uint64
	token  int64
}{
	{"00000001", 0xc78499982ae4e0cf, 0x798c330cbcdfe0e6, -4069959284402364209},
	{"00000005", 0x97c910bde509c14a, 0xd002e4d4ae611dc1, -7509452495886106294},
	{"76696e6e61", 0xa65d58d132ea6d75, 0x134baeb45f9bd72b, -6458908635053789835},
	{"00000080", 0x81f6570a90ba6fb9, 0xf90a31e8913e8710, -9081975895656599623},
	{"00000081", 0x8b906b18585eb00f, 0x9ae327cbd08407c0, -8390088353485246449},
	{"00000082", 0xcb36c6b33ee52a77, 0xc823cff6f5a8114d, -3803634362111153545},
}

func TestTokenVectors(t *testing.T) {
	for _, v := range tokenVectors {
		key, _ := hex.DecodeString(v.key)
		h1, h2 := Murmur3Hash(key)
		if h1 != v.h1 || h2 != v.h2 {
			t.Errorf("Murmur3(%s) = %016x %016x, want %016x %016x", v.key, h1, h2, v.h1, v.h2)
		}
		if got := Murmur3.Token(key).Murmur3Value(); got != v.token {
			t.Errorf("Token(%s) = %d, want %d", v.key, got, v.token)
		}
		if got := Murmur3.String(Murmur3.Token(key)); got != strconv.FormatInt(v.token, 10) {
			t.Errorf("String(Token(%s)) = %s", v.key, got)
		}
	}
}

func TestEmptyKeyIsMinToken(t *testing.T) {
	for _, p := range partitioners {
		if got := p.Token(nil); !got.IsMinimum() || !got.Equal(p.MinToken()) {
			t.Errorf("%s: Token(empty) = %+v, want the minimum", p.Name(), got)
		}
	}
	if Murmur3Token(math.MinInt64).Murmur3Value() != math.MaxInt64 {
		t.Fatal("Long.MIN_VALUE must map to Long.MAX_VALUE")
	}
}

func BenchmarkToken(b *testing.B) {
	key := []byte{0, 0, 0, 42}
	b.ReportAllocs()
	b.SetBytes(int64(len(key)))
	for b.Loop() {
		Murmur3.Token(key)
	}
}
