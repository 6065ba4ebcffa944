package dht

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"
)

// Golden tokens computed outside this package: RandomPartitioner's with
// Python's abs(int.from_bytes(hashlib.md5(key).digest(), "big",
// signed=True)); ByteOrdered's are the key in hex.
var randomVectors = []struct{ key, token string }{
	{"00000001", "19580090105725936846312850328329299579"},
	{"6b657931", "81509516161424251288255223397843705139"},
	{"76696e6e61", "142915890544710798149086969333403114595"},
	{"ffffff", "162706688412082095103064631352303179814"},
	{"61", "16955237001963240173058271559858726497"},
}

func TestRandomGoldenTokens(t *testing.T) {
	for _, v := range randomVectors {
		key, _ := hex.DecodeString(v.key)
		tok := Random.Token(key)
		if got := Random.String(tok); got != v.token {
			t.Errorf("Random token of %s = %s, want %s", v.key, got, v.token)
		}
		back, err := Random.ParseToken(v.token)
		if err != nil || !back.Equal(tok) {
			t.Errorf("ParseToken(%s) = %+v, %v", v.token, back, err)
		}
	}
	if got := Random.String(Random.MinToken()); got != "-1" {
		t.Errorf("Random minimum renders %s, want -1", got)
	}
}

func TestByteOrderedTokens(t *testing.T) {
	key := []byte("0\x00\xff")
	tok := ByteOrdered.Token(key)
	if got := ByteOrdered.String(tok); got != "3000ff" {
		t.Errorf("String = %s", got)
	}
	back, err := ByteOrdered.ParseToken("3000ff")
	if err != nil || !back.Equal(tok) {
		t.Errorf("ParseToken: %+v, %v", back, err)
	}
	if OrderPreserving.String(OrderPreserving.Token([]byte("héllo 𝄞"))) != "héllo 𝄞" {
		t.Error("OrderPreserving String does not give the key back")
	}
}

// reference orders partitions as Cassandra does, from an independent
// computation of each partitioner's token.
func reference(p Partitioner, a, b []byte) int {
	var c int
	switch p {
	case Murmur3:
		ta, tb := refMurmur3(a), refMurmur3(b)
		c = cmpInt(ta.Cmp(tb))
	case Random:
		c = refRandom(a).Cmp(refRandom(b))
	case ByteOrdered:
		c = bytes.Compare(a, b)
	case OrderPreserving:
		c = slices.Compare(utf16.Encode([]rune(string(a))), utf16.Encode([]rune(string(b))))
	}
	if c != 0 {
		return c
	}
	return bytes.Compare(a, b)
}

func cmpInt(c int) int { return c }

func refMurmur3(k []byte) *big.Int {
	if len(k) == 0 {
		return big.NewInt(-1 << 63)
	}
	h1, _ := Murmur3Hash(k)
	v := int64(h1)
	if v == -1<<63 {
		v = 1<<63 - 1
	}
	return big.NewInt(v)
}

func refRandom(k []byte) *big.Int {
	if len(k) == 0 {
		return big.NewInt(-1)
	}
	s := md5.Sum(k)
	v := new(big.Int).SetBytes(s[:])
	if s[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	return v.Abs(v)
}

// TestPartitionOrder sorts random keys (short ones, shared prefixes, zero
// bytes, non-ASCII) by ComparePartitions and by the reference order.
func TestPartitionOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{0, 1, 'a', 'b', 0x7f, 0x80, 0xff}
	var keys [][]byte
	for range 3000 {
		k := make([]byte, r.IntN(20))
		for i := range k {
			k[i] = alphabet[r.IntN(len(alphabet))]
		}
		keys = append(keys, k)
	}
	keys = append(keys, []byte("a"), []byte("a\x00"), []byte("a\x00\x00"), []byte("héllo"), []byte("𝄞"), []byte("\uffff"))
	for _, p := range partitioners {
		got := slices.Clone(keys)
		sort.SliceStable(got, func(i, j int) bool {
			return ComparePartitions(p.Token(got[i]), got[i], p.Token(got[j]), got[j]) < 0
		})
		for i := 1; i < len(got); i++ {
			if reference(p, got[i-1], got[i]) > 0 {
				t.Fatalf("%s: %x sorted before %x", shortName(p.Name()), got[i-1], got[i])
			}
		}
		for i := 0; i+1 < len(keys); i++ {
			a, b := keys[i], keys[i+1]
			if sign(Compare(p.Token(a), p.Token(b))) != sign(reference(p, a, b)) && !bytes.Equal(a, b) && p.PreservesOrder() {
				t.Fatalf("%s: token order of %x and %x wrong", shortName(p.Name()), a, b)
			}
		}
	}
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

func TestStringRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, p := range partitioners {
		for range 500 {
			k := make([]byte, 1+r.IntN(30))
			for i := range k {
				k[i] = byte('a' + r.IntN(26))
			}
			tok := p.Token(k)
			s := p.String(tok)
			back, err := p.ParseToken(s)
			if err != nil || !back.Equal(tok) {
				t.Fatalf("%s: %q → %s → %+v, %v", shortName(p.Name()), k, s, back, err)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	for _, c := range []struct {
		name string
		want Partitioner
	}{
		{"", Murmur3},
		{"org.apache.cassandra.dht.Murmur3Partitioner", Murmur3},
		{"Murmur3Partitioner", Murmur3},
		{"random", Random},
		{"ByteOrdered", ByteOrdered},
		{"byteorderedpartitioner", ByteOrdered},
		{"org.apache.cassandra.dht.OrderPreservingPartitioner", OrderPreserving},
	} {
		got, err := Lookup(c.name)
		if err != nil || got != c.want {
			t.Errorf("Lookup(%q) = %v, %v", c.name, got, err)
		}
	}
	for _, bad := range []string{"Md5", "org.apache.cassandra.dht.LocalPartitioner", "x.y.Murmur4Partitioner"} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) succeeded", bad)
		}
	}
	for _, bad := range []string{"12a", "-9223372036854775809"} {
		if _, err := Murmur3.ParseToken(bad); err == nil {
			t.Errorf("Murmur3.ParseToken(%q) succeeded", bad)
		}
	}
	for _, bad := range []string{"-2", "170141183460469231731687303715884105729", "x"} {
		if _, err := Random.ParseToken(bad); err == nil {
			t.Errorf("Random.ParseToken(%q) succeeded", bad)
		}
	}
}

func TestTokenFromHash(t *testing.T) {
	for _, p := range partitioners {
		for _, k := range [][]byte{{}, {0}, {0x80}, []byte("hello"), {0, 0, 0, 1}, bytes.Repeat([]byte{0xff}, 33)} {
			h1, _ := Murmur3Hash(k)
			if got, want := p.TokenFromHash(k, h1), p.Token(k); !got.Equal(want) {
				t.Errorf("%s: TokenFromHash(%x) = %s, want %s", shortName(p.Name()), k, p.String(got), p.String(want))
			}
		}
	}
}

// TestComparableOrder: the byte-comparable forms of tokens sort as the
// tokens do, for every partitioner.
func TestComparableOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, p := range partitioners {
		for range 3000 {
			a, b := make([]byte, 1+r.IntN(12)), make([]byte, 1+r.IntN(12))
			for i := range a {
				a[i] = byte(r.IntN(4)) * 0x3f
			}
			for i := range b {
				b[i] = byte(r.IntN(4)) * 0x3f
			}
			if p == OrderPreserving { // valid UTF-8 only: Java decodes the rest lossily
				a, b = []byte(strings.ToValidUTF8(string(a), "?")), []byte(strings.ToValidUTF8(string(b), "?"))
			}
			ta, tb := p.Token(a), p.Token(b)
			ca, cb := p.AppendComparable(nil, ta), p.AppendComparable(nil, tb)
			if got, want := sign(bytes.Compare(ca, cb)), sign(Compare(ta, tb)); got != want && p != OrderPreserving {
				t.Fatalf("%s: %x vs %x: comparable order %d, token order %d", shortName(p.Name()), a, b, got, want)
			}
		}
	}
	if got := hex.EncodeToString(ByteOrdered.AppendComparable(nil, ByteOrdered.Token([]byte("0")))); got != "3000" {
		t.Errorf("ByteOrdered comparable of \"0\" = %s, want 3000", got)
	}
	if got := hex.EncodeToString(Murmur3.AppendComparable(nil, Murmur3Token(1))); got != "8000000000000001" {
		t.Errorf("Murmur3 comparable of token 1 = %s", got)
	}
	// Random: 1 is a one-byte variable-length integer, 2^127 takes the
	// long form (FF, length − 7 = 9, the 16 significant bytes).
	one, _ := Random.ParseToken("1")
	if got := hex.EncodeToString(Random.AppendComparable(nil, one)); got != "81" {
		t.Errorf("Random comparable of 1 = %s, want 81", got)
	}
	top, _ := Random.ParseToken("170141183460469231731687303715884105728")
	if got := hex.EncodeToString(Random.AppendComparable(nil, top)); got != "ff09"+"80"+strings.Repeat("00", 15) {
		t.Errorf("Random comparable of 2^127 = %s", got)
	}
}
