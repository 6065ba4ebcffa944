package bytecomparable

import (
	"bytes"
	"encoding/hex"
	"math"
	"math/rand"
	"testing"
)

func h(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// Golden vectors from Cassandra's ByteComparable.md and ByteSource.java.
func TestEscapedGolden(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2200", "2200fe"},
		{"22000033", "2200feff3300"},
		{"220011", "2200ff1100"},
		{"30", "3000"},
		{"", "00"},
		{"41000042", "4100feff4200"},
		{"41004200", "4100ff4200fe"},
		{"4100", "4100fe"},
		{"4142", "414200"},
		{"00", "00fe"},
		{"0000", "00fefe"},
	} {
		got := AppendEscaped(nil, h(c.in))
		if hex.EncodeToString(got) != c.want {
			t.Errorf("escape %s = %x, want %s", c.in, got, c.want)
		}
		n, vl, ok := UnescapeLen(append(got, 0x38))
		if !ok || n != len(got) || vl != len(h(c.in)) {
			t.Errorf("UnescapeLen(%x) = %d, %d, %v", got, n, vl, ok)
		}
	}
}

func TestVarIntGolden(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want string
	}{
		{0, "80"}, {1, "81"}, {-1, "7f"}, {63, "bf"}, {64, "c040"}, {-64, "40"},
		{-65, "3fbf"}, {1<<20 - 1, "efffff"}, {1 << 20, "f0100000"}, {-1 << 20, "100000"},
		{math.MaxInt64, "ffffffffffffffffff"}, {math.MinInt64, "000000000000000000"},
	} {
		if got := hex.EncodeToString(AppendVarInt(nil, c.v)); got != c.want {
			t.Errorf("varint %d = %s, want %s", c.v, got, c.want)
		}
	}
}

func TestVarUint(t *testing.T) {
	for _, c := range []struct {
		v    uint64
		want string
	}{{0, "00"}, {1, "01"}, {127, "7f"}, {128, "8080"}, {1<<14 - 1, "bfff"}, {1 << 14, "c04000"}} {
		if got := hex.EncodeToString(AppendVarUint(nil, c.v)); got != c.want {
			t.Errorf("varuint %d = %s, want %s", c.v, got, c.want)
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		v := r.Uint64() >> uint(r.Intn(64))
		a, b := AppendVarUint(nil, v), AppendVarUint(nil, v+1)
		if v != math.MaxUint64 && bytes.Compare(a, b) >= 0 {
			t.Fatalf("varuint %d ≥ %d: %x %x", v, v+1, a, b)
		}
	}
}

func TestVarIntOrder(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 50000; i++ {
		a := int64(r.Uint64()) >> uint(r.Intn(64))
		b := int64(r.Uint64()) >> uint(r.Intn(64))
		ea, eb := AppendVarInt(nil, a), AppendVarInt(nil, b)
		want := 0
		if a < b {
			want = -1
		} else if a > b {
			want = 1
		}
		if got := bytes.Compare(ea, eb); got != want {
			t.Fatalf("varint %d vs %d: %x vs %x = %d", a, b, ea, eb, got)
		}
		if a != b && (bytes.HasPrefix(ea, eb) || bytes.HasPrefix(eb, ea)) {
			t.Fatalf("prefix: %x %x", ea, eb)
		}
	}
}

func TestFloatGolden(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"3f800000", "bf800000"}, {"00000000", "80000000"}, {"80000000", "7fffffff"},
		{"bf800000", "407fffff"}, {"3ff0000000000000", "bff0000000000000"},
		{"7ff0000000000000", "fff0000000000000"}, {"fff0000000000000", "000fffffffffffff"},
		{"7ff8000000000000", "fff8000000000000"},
	} {
		if got := hex.EncodeToString(AppendFloat(nil, h(c.in))); got != c.want {
			t.Errorf("float %s = %s, want %s", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"00000001", "80000001"}, {"ffff", "7fff"}, {"00", "80"}, {"7fffffff", "ffffffff"},
		{"8000000000000000", "0000000000000000"},
	} {
		if got := hex.EncodeToString(AppendSignedFixed(nil, h(c.in))); got != c.want {
			t.Errorf("signed %s = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestEscapedOrderAndWeakPrefixFree(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	gen := func() []byte {
		b := make([]byte, r.Intn(6))
		for i := range b {
			switch r.Intn(4) {
			case 0:
				b[i] = 0
			case 1:
				b[i] = 0xFF
			default:
				b[i] = byte(r.Intn(256))
			}
		}
		return b
	}
	for i := 0; i < 100000; i++ {
		a, b := gen(), gen()
		// With any separator byte in 10..EF appended, the order is the
		// order of the inputs.
		sa := append(AppendEscaped(nil, a), 0x38)
		sb := append(AppendEscaped(nil, b), 0x40)
		want := bytes.Compare(a, b)
		got := bytes.Compare(sa, sb)
		if want != 0 && got != want {
			t.Fatalf("%x vs %x: %x vs %x", a, b, sa, sb)
		}
		if n, vl, ok := UnescapeLen(sa); !ok || n != len(sa)-1 || vl != len(a) {
			t.Fatalf("UnescapeLen %x: %d %d %v", sa, n, vl, ok)
		}
	}
}

func TestPrefixHelpers(t *testing.T) {
	if d := DiffPoint(h("403000"), h("403100")); d != 2 {
		t.Errorf("DiffPoint = %d", d)
	}
	if d := DiffPoint(h("40"), h("40")); d != 2 {
		t.Errorf("DiffPoint equal = %d", d)
	}
	for _, c := range []struct{ prev, curr, want string }{
		{"4031313233", "4032", "4032"},
		{"40313132", "40313233", "403132"},
		{"4031", "403100", "403100"},
		{"", "40", "00"},
	} {
		if got := hex.EncodeToString(AppendSeparatorGt(nil, h(c.prev), h(c.curr))); got != c.want {
			t.Errorf("separatorGt(%s, %s) = %s, want %s", c.prev, c.curr, got, c.want)
		}
	}
	for _, c := range []struct {
		v    string
		at   int
		want string
	}{
		{"40393030", 1, "403a"},
		{"40ff10", 1, "40ff11"},
		{"40ffff", 1, "40ffff00"},
		{"40", 1, "4000"},
		{"40", 0, "41"},
	} {
		if got := hex.EncodeToString(AppendNudge(nil, h(c.v), c.at)); got != c.want {
			t.Errorf("nudge(%s, %d) = %s, want %s", c.v, c.at, got, c.want)
		}
	}
	if got := Cut(h("010203"), 2); !bytes.Equal(got, h("0102")) {
		t.Errorf("Cut = %x", got)
	}
	b := h("00ff0f")
	Invert(b)
	if !bytes.Equal(b, h("ff00f0")) {
		t.Errorf("Invert = %x", b)
	}
}

func TestSeparatorProperty(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for i := 0; i < 50000; i++ {
		a := make([]byte, r.Intn(5))
		b := make([]byte, r.Intn(5))
		for j := range a {
			a[j] = byte(r.Intn(4))
		}
		for j := range b {
			b[j] = byte(r.Intn(4))
		}
		if bytes.Compare(a, b) >= 0 {
			continue
		}
		s := AppendSeparatorGt(nil, a, b)
		if bytes.Compare(s, a) <= 0 || bytes.Compare(s, b) > 0 {
			t.Fatalf("separatorGt(%x, %x) = %x", a, b, s)
		}
	}
}
