package schema

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/big"
	"math/rand"
	"testing"
)

func hx(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// comparableKey is the form of v as a single clustering component: what the
// order of the encodings is defined on (weak prefix-freedom needs the
// following separator).
func comparableKey(t *Type, v []byte) []byte {
	return append(t.AppendComparableComponent(nil, v), 0x38)
}

// Golden vectors: ByteComparable.md (Cassandra 5.0) and the comments of
// ByteSource.java, IntegerType.java and ClusteringComparator.java.
func TestComparableGolden(t *testing.T) {
	dec := func(unscaled int64, scale int32) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(scale))
		return append(b, bigToVarint(big.NewInt(unscaled))...)
	}
	uuid := func(s string) []byte { return hx(s) }
	for _, c := range []struct {
		name string
		t    *Type
		v    []byte
		want string
	}{
		{"int 1", Int, hx("00000001"), "80000001"},
		{"smallint -1", Smallint, hx("ffff"), "7fff"},
		{"tinyint 0", Tinyint, hx("00"), "80"},
		{"int max", Int, hx("7fffffff"), "ffffffff"},
		{"timestamp min", Timestamp, hx("8000000000000000"), "0000000000000000"},
		{"float 1", Float, hx("3f800000"), "bf800000"},
		{"float -0", Float, hx("80000000"), "7fffffff"},
		{"float -1", Float, hx("bf800000"), "407fffff"},
		{"double -inf", Double, hx("fff0000000000000"), "000fffffffffffff"},
		{"double NaN", Double, hx("7ff8000000000000"), "fff8000000000000"},
		{"uuid v4", UUID, uuid("cc520882950744fb8fc9b349ecdee658"), "4cc52088295074fb8fc9b349ecdee658"},
		{"uuid v1", UUID, uuid("2a92d750d8dc11e6a2decf8ecd4cf053"), "11e6d8dc2a92d750a2decf8ecd4cf053"},
		{"timeuuid v1", Timeuuid, uuid("2a92d750d8dc11e6a2decf8ecd4cf053"), "11e6d8dc2a92d750225e4f0e4dcc70d3"},
		{"bigint 0", Bigint, hx("0000000000000000"), "80"},
		{"bigint 1", Bigint, hx("0000000000000001"), "81"},
		{"bigint -1", Bigint, hx("ffffffffffffffff"), "7f"},
		{"bigint 64", Bigint, hx("0000000000000040"), "c040"},
		{"bigint min", Bigint, hx("8000000000000000"), "000000000000000000"},
		{"varint -1", Varint, hx("ff"), "7f"},
		{"varint 0", Varint, hx("00"), "80"},
		{"varint 1", Varint, hx("01"), "81"},
		{"varint 127", Varint, hx("7f"), "c07f"},
		{"varint 255", Varint, hx("00ff"), "c0ff"},
		{"varint 2^32-1", Varint, hx("00ffffffff"), "f8ffffffff"},
		{"varint 2^32", Varint, hx("0100000000"), "f900000000"},
		// ByteComparable's comments give 2^56-1 as FEFFFFFFFFFFFFFF and
		// 2^56 as FF000100000000000000; Cassandra's and ScyllaDB's code
		// both produce these (7 significant bytes take the full form).
		{"varint 2^56-1", Varint, hx("00ffffffffffffff"), "ff00ffffffffffffff"},
		{"varint 2^56", Varint, hx("0100000000000000"), "ff010100000000000000"},
		{"varint 2^48-1", Varint, hx("00ffffffffffff"), "feffffffffffff"},
		{"varint -2^48", Varint, hx("ff000000000000"), "01000000000000"},
		{"decimal 1.1", Decimal, dec(11, 1), "c101818a00"},
		{"decimal 1", Decimal, dec(1, 0), "c1018100"},
		{"decimal 0.01", Decimal, dec(1, 2), "c08100"},
		{"decimal 0", Decimal, dec(0, 0), "80"},
		// ByteComparable.md lists 40·81·00, which would sort -0.02 above
		// -0.01; the code writes 0x80 + (-1).
		{"decimal -0.01", Decimal, dec(-1, 2), "407f00"},
		{"decimal -1", Decimal, dec(-1, 0), "3fff7f00"},
		{"decimal -1.1", Decimal, dec(-11, 1), "3fff7eda00"},
		{"decimal -98.9", Decimal, dec(-989, 1), "3fff1d8a00"},
		{"decimal -99", Decimal, dec(-99, 0), "3fff1d00"},
		{"decimal -99.9", Decimal, dec(-999, 1), "3fff1c8a00"},
		{"decimal -8.1e2000", Decimal, dec(-81, -1999), "3efc1777da00"},
		{"decimal -8.1e-2000", Decimal, dec(-81, 2001), "4203e777da00"},
		{"decimal 8.1e-2000", Decimal, dec(81, 2001), "befc19888a00"},
		{"decimal 8.1e2000", Decimal, dec(81, -1999), "c203e9888a00"},
		{"text 22 00", Blob, hx("2200"), "2200fe"},
		{"text 22 00 00 33", Blob, hx("22000033"), "2200feff3300"},
		{"text 22 00 11", Blob, hx("220011"), "2200ff1100"},
		{"text 0", Text, []byte("0"), "3000"},
		{"empty text", Text, []byte{}, "00"},
		{"reversed int 1", ReversedOf(Int), hx("00000001"), "7ffffffe"},
		{"boolean true", Boolean, hx("05"), "01"},
	} {
		if got := hex.EncodeToString(c.t.AppendComparable(nil, c.v)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// Sequences of ByteComparable.md: (short 1, float 1.0) → 40 8001 40 bf800000 38.
	seq := Smallint.AppendComparableComponent(nil, hx("0001"))
	seq = Float.AppendComparableComponent(seq, hx("3f800000"))
	if got := hex.EncodeToString(append(seq, 0x38)); got != "40800140bf80000038" {
		t.Errorf("sequence = %s", got)
	}
	// (blob 22, short 0) component forms: 40 2200 40 8000.
	seq = Blob.AppendComparableComponent(nil, hx("22"))
	seq = Smallint.AppendComparableComponent(seq, hx("0000"))
	if got := hex.EncodeToString(seq); got != "402200408000" {
		t.Errorf("sequence = %s", got)
	}
	if got := Int.AppendComparableComponent(nil, nil); !bytes.Equal(got, []byte{0x3f}) {
		t.Errorf("empty int component = %x", got)
	}
	if got := ReversedOf(Int).AppendComparableComponent(nil, nil); !bytes.Equal(got, []byte{0x41}) {
		t.Errorf("empty reversed int component = %x", got)
	}
}

func bigToVarint(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// two's complement
	n := len(x.Bytes()) + 1
	m := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	m.Add(m, x)
	b := m.Bytes()
	for len(b) < n {
		b = append([]byte{0xff}, b...)
	}
	for len(b) > 1 && b[0] == 0xff && b[1]&0x80 != 0 {
		b = b[1:]
	}
	return b
}

type gen func(r *rand.Rand) []byte

func fixedGen(n int) gen {
	return func(r *rand.Rand) []byte {
		b := make([]byte, n)
		r.Read(b)
		// Bias towards edge values.
		switch r.Intn(8) {
		case 0:
			for i := range b {
				b[i] = 0
			}
		case 1:
			for i := range b {
				b[i] = 0xff
			}
		case 2:
			b[0] = 0x80
			for i := 1; i < n; i++ {
				b[i] = 0
			}
		}
		return b
	}
}

func bytesGen(max int) gen {
	return func(r *rand.Rand) []byte {
		b := make([]byte, r.Intn(max+1))
		for i := range b {
			switch r.Intn(4) {
			case 0:
				b[i] = 0
			case 1:
				b[i] = byte(r.Intn(3))
			default:
				b[i] = byte(r.Intn(256))
			}
		}
		return b
	}
}

func varintGen(r *rand.Rand) []byte {
	n := 1 + r.Intn(20)
	if r.Intn(3) == 0 {
		n = 1 + r.Intn(3)
	}
	b := make([]byte, n)
	r.Read(b)
	if r.Intn(4) == 0 {
		// redundant sign bytes
		if b[0]&0x80 != 0 {
			b = append([]byte{0xff, 0xff}, b...)
		} else {
			b = append([]byte{0, 0}, b...)
		}
	}
	return b
}

func decimalGen(r *rand.Rand) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(int32(r.Intn(41)-20)))
	u := varintGen(r)
	if r.Intn(5) == 0 {
		u = []byte{byte(r.Intn(200))}
	}
	return append(b, u...)
}

func floatGen(r *rand.Rand) []byte {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40, -1e-40}
	var f float32
	if r.Intn(3) == 0 {
		f = vals[r.Intn(len(vals))]
	} else {
		f = float32(r.NormFloat64() * math.Pow(10, float64(r.Intn(20)-10)))
	}
	if math.IsNaN(float64(f)) {
		return binary.BigEndian.AppendUint32(nil, 0x7fc00000)
	}
	return binary.BigEndian.AppendUint32(nil, math.Float32bits(f))
}

func doubleGen(r *rand.Rand) []byte {
	var f float64
	switch r.Intn(4) {
	case 0:
		f = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 5e-324}[r.Intn(6)]
	default:
		f = r.NormFloat64() * math.Pow(10, float64(r.Intn(40)-20))
	}
	if math.IsNaN(f) {
		return binary.BigEndian.AppendUint64(nil, 0x7ff8000000000000)
	}
	return binary.BigEndian.AppendUint64(nil, math.Float64bits(f))
}

func uuidGen(versions ...int) gen {
	return func(r *rand.Rand) []byte {
		b := make([]byte, 16)
		r.Read(b)
		v := versions[r.Intn(len(versions))]
		b[6] = b[6]&0x0f | byte(v<<4)
		if r.Intn(4) == 0 {
			copy(b[8:], []byte{0x80, 0, 0, 0, 0, 0, 0, 0})
		}
		return b
	}
}

func timeGen(r *rand.Rand) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(r.Int63n(86400*1e9)))
}

func collectionGen(elem gen, maxN int) gen {
	return func(r *rand.Rand) []byte {
		n := r.Intn(maxN + 1)
		b := binary.BigEndian.AppendUint32(nil, uint32(n))
		for i := 0; i < n; i++ {
			e := elem(r)
			b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
			b = append(b, e...)
		}
		return b
	}
}

func mapGen(k, v gen, maxN int) gen {
	return func(r *rand.Rand) []byte {
		n := r.Intn(maxN + 1)
		b := binary.BigEndian.AppendUint32(nil, uint32(n))
		for i := 0; i < n; i++ {
			for _, g := range []gen{k, v} {
				e := g(r)
				b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
				b = append(b, e...)
			}
		}
		return b
	}
}

// tupleGen makes tuples with null fields, fewer fields than the type, and
// no trailing empty (non-null) field (Compare ignores trailing fields of
// length 0 while the encoding keeps them; see the report).
func tupleGen(fields ...gen) gen { return tupleGenNulls(true, fields...) }

// tupleGenNulls is tupleGen, with null fields only when nulls is set: an
// empty field of a type without a form (an empty int) is a null byte
// source in Cassandra's encoding, 3E like a null field, while Compare puts
// null before empty (TestComparableEmptyFieldIsNullSource).
func tupleGenNulls(nulls bool, fields ...gen) gen {
	return func(r *rand.Rand) []byte {
		n := r.Intn(len(fields) + 1)
		var b []byte
		for i := 0; i < n; i++ {
			if nulls && r.Intn(4) == 0 {
				b = binary.BigEndian.AppendUint32(b, 0xffffffff)
				continue
			}
			e := fields[i](r)
			if len(e) == 0 && i == n-1 {
				b = binary.BigEndian.AppendUint32(b, 0xffffffff)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
			b = append(b, e...)
		}
		return b
	}
}

func withEmpty(g gen) gen {
	return func(r *rand.Rand) []byte {
		if r.Intn(10) == 0 {
			return []byte{}
		}
		return g(r)
	}
}

func TestComparableOrderProperty(t *testing.T) {
	nonEmpty := func(g gen) gen {
		return func(r *rand.Rand) []byte {
			for {
				if b := g(r); len(b) > 0 {
					return b
				}
			}
		}
	}
	textElem := bytesGen(4)
	intElem := fixedGen(4)
	cases := []struct {
		t *Type
		g gen
	}{
		{Int, withEmpty(fixedGen(4))},
		{Smallint, withEmpty(fixedGen(2))},
		{Tinyint, withEmpty(fixedGen(1))},
		{Bigint, withEmpty(fixedGen(8))},
		{Timestamp, withEmpty(fixedGen(8))},
		{Counter, withEmpty(fixedGen(8))},
		{Float, withEmpty(floatGen)},
		{Double, withEmpty(doubleGen)},
		{Boolean, withEmpty(fixedGen(1))},
		{Date, withEmpty(fixedGen(4))},
		{Time, withEmpty(timeGen)},
		{Varint, withEmpty(varintGen)},
		{Decimal, withEmpty(decimalGen)},
		{UUID, withEmpty(uuidGen(1, 2, 3, 4, 5, 8, 15))},
		{Timeuuid, withEmpty(uuidGen(1))},
		{Text, bytesGen(6)},
		{Ascii, bytesGen(6)},
		{Blob, bytesGen(6)},
		{Inet, withEmpty(fixedGen(4))},
		{Duration, bytesGen(6)},
		{ListOf(Text, true), withEmpty(collectionGen(textElem, 3))},
		{SetOf(Int, true), withEmpty(collectionGen(intElem, 3))},
		{ListOf(ReversedOf(Int), true), withEmpty(collectionGen(intElem, 3))},
		{MapOf(Text, Int, true), withEmpty(mapGen(textElem, intElem, 3))},
		{TupleOf(Int, Text, Bigint), withEmpty(tupleGen(intElem, nonEmpty(textElem), fixedGen(8)))},
		{TupleOf(Int, Text, Bigint), withEmpty(tupleGenNulls(false, withEmpty(intElem), nonEmpty(textElem), fixedGen(8)))},
		{ListOf(Varint, true), withEmpty(collectionGen(withEmpty(varintGen), 3))},
		{UDTOf("ks", "u", []string{"a", "b"}, []*Type{Text, Double}, true), withEmpty(tupleGen(nonEmpty(textElem), doubleGen))},
		{CustomType("org.apache.cassandra.db.marshal.LexicalUUIDType"), withEmpty(fixedGen(16))},
		{ReversedOf(Text), bytesGen(6)},
		{ReversedOf(Int), withEmpty(fixedGen(4))},
		{ReversedOf(Varint), withEmpty(varintGen)},
		{ReversedOf(Decimal), withEmpty(decimalGen)},
		{ReversedOf(Timeuuid), withEmpty(uuidGen(1))},
		{ReversedOf(ListOf(Text, true)), withEmpty(collectionGen(textElem, 3))},
		{ListOf(TupleOf(Int, Text), true), collectionGen(nonEmpty(tupleGen(intElem, textElem)), 2)},
	}
	r := rand.New(rand.NewSource(42))
	for _, c := range cases {
		for i := 0; i < 4000; i++ {
			a, b := c.g(r), c.g(r)
			if i%7 == 0 {
				b = append([]byte(nil), a...)
			}
			want := c.t.Compare(a, b)
			ea, eb := comparableKey(c.t, a), comparableKey(c.t, b)
			got := bytes.Compare(ea, eb)
			if sign(got) != sign(want) {
				t.Fatalf("%v: Compare(%x, %x) = %d but encodings %x, %x compare %d", c.t, a, b, want, ea, eb, got)
			}
		}
	}
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func TestComparableMalformedNoPanic(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	types := []*Type{Int, Bigint, Decimal, Varint, UUID, Timeuuid, ListOf(Int, true), MapOf(Text, Int, true),
		TupleOf(Int, Text), Float, Boolean, Date, Time, ReversedOf(Decimal)}
	for i := 0; i < 20000; i++ {
		v := bytesGen(24)(r)
		for _, ty := range types {
			ty.AppendComparable(nil, v)
		}
	}
}

// An element without a byte-comparable form inside a collection or tuple is
// a null byte source, which ByteSource.Multi writes as 3E (hex from
// Cassandra 5.0's TupleType.asComparableBytes of (empty int, text
// "\x02\x00")), not the 3F of an empty clustering component.
func TestComparableEmptyFieldIsNullSource(t *testing.T) {
	typ := TupleOf(Int, Text)
	v, _ := hex.DecodeString("00000000000000020200")
	if got := hex.EncodeToString(typ.AppendComparable(nil, v)); got != "3e400200fe38" {
		t.Fatalf("tuple with an empty int: %s, want 3e400200fe38", got)
	}
	list := ListOf(Varint, true)
	v = AppendCollectionSize(nil, 2)
	v = AppendCollectionValue(v, nil)
	v = AppendCollectionValue(v, []byte{1})
	want := append([]byte{0x3e, 0x40}, Varint.AppendComparable(nil, []byte{1})...)
	if got := list.AppendComparable(nil, v); !bytes.Equal(got, append(want, 0x38)) {
		t.Fatalf("list with an empty varint: %x, want %x38", got, want)
	}
}
