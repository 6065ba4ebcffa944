package schema

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand"
	"strings"
	"testing"
)

func mustVector(t testing.TB, elem *Type, n int) *Type {
	t.Helper()
	v, err := VectorOf(elem, n)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// vec is mustVector for package-level tables.
func vec(elem *Type, n int) *Type {
	v, err := VectorOf(elem, n)
	if err != nil {
		panic(err)
	}
	return v
}

const mp = MarshalPackage

// The names a Cassandra 5.0 node wrote into the serialization headers of
// the tables it flushed (CREATE TABLE … vector<…> columns; read back from
// Statistics.db with strings), and the types they name.
var nodeVectorNames = []struct {
	name string
	typ  *Type
	cql  string
}{
	{mp + "VectorType(" + mp + "FloatType , 2)", vec(Float, 2), "vector<float, 2>"},
	{mp + "VectorType(" + mp + "UTF8Type , 2)", vec(Text, 2), "vector<text, 2>"},
	{mp + "VectorType(" + mp + "Int32Type , 2)", vec(Int, 2), "vector<int, 2>"},
	{mp + "VectorType(" + mp + "FrozenType(" + mp + "ListType(" + mp + "Int32Type)) , 2)", vec(ListOf(Int, true), 2), "vector<frozen<list<int>>, 2>"},
	{mp + "VectorType(" + mp + "ListType(" + mp + "Int32Type) , 2)", vec(ListOf(Int, false), 2), "vector<list<int>, 2>"},
	{mp + "VectorType(" + mp + "TupleType(" + mp + "Int32Type," + mp + "UTF8Type) , 2)", vec(TupleOf(Int, Text), 2), "vector<tuple<int, text>, 2>"},
	{mp + "VectorType(" + mp + "VectorType(" + mp + "Int32Type , 2) , 2)", vec(vec(Int, 2), 2), "vector<vector<int, 2>, 2>"},
	{mp + "ListType(" + mp + "VectorType(" + mp + "Int32Type , 2))", ListOf(vec(Int, 2), false), "list<vector<int, 2>>"},
	{mp + "MapType(" + mp + "UTF8Type," + mp + "VectorType(" + mp + "FloatType , 2))", MapOf(Text, vec(Float, 2), false), "map<text, vector<float, 2>>"},
	{mp + "VectorType(" + mp + "DurationType , 1)", vec(Duration, 1), "vector<duration, 1>"},
	{mp + "VectorType(" + mp + "CounterColumnType , 1)", vec(Counter, 1), "vector<counter, 1>"},
	{mp + "VectorType(" + mp + "UserType(ks,75,61:" + mp + "Int32Type,62:" + mp + "UTF8Type) , 2)",
		vec(UDTOf("ks", "u", []string{"a", "b"}, []*Type{Int, Text}, false), 2), "vector<ks.u, 2>"},
	{mp + "VectorType(" + mp + "FrozenType(" + mp + "UserType(ks,75,61:" + mp + "Int32Type,62:" + mp + "UTF8Type)) , 2)",
		vec(UDTOf("ks", "u", []string{"a", "b"}, []*Type{Int, Text}, true), 2), "vector<frozen<ks.u>, 2>"},
	// Not seen on the node, from the printing rules: a frozen list's
	// elements print without FrozenType, a DESC clustering column is
	// ReversedType.
	{mp + "FrozenType(" + mp + "ListType(" + mp + "VectorType(" + mp + "ListType(" + mp + "Int32Type) , 2)))", ListOf(vec(ListOf(Int, false), 2), true), "frozen<list<vector<list<int>, 2>>>"},
	{mp + "ReversedType(" + mp + "VectorType(" + mp + "DoubleType , 4))", ReversedOf(vec(Double, 4)), "vector<double, 4>"},
}

func TestVectorMarshalNames(t *testing.T) {
	for _, c := range nodeVectorNames {
		if got := c.typ.MarshalName(); got != c.name {
			t.Errorf("%s.MarshalName():\n got %s\nwant %s", c.typ, got, c.name)
		}
		back, err := ParseMarshalName(c.name)
		if err != nil {
			t.Errorf("ParseMarshalName(%s): %v", c.name, err)
			continue
		}
		if !back.Equal(c.typ) || back.MarshalName() != c.name {
			t.Errorf("ParseMarshalName(%s) = %s (%s)", c.name, back, back.MarshalName())
		}
		if got := c.typ.String(); got != c.cql {
			t.Errorf("%s.String() = %q, want %q", c.name, got, c.cql)
		}
		// ScyllaDB spells the parameters "(T, n)" (vector_type_impl::make_name).
		scylla := strings.ReplaceAll(c.name, " , ", ", ")
		if got := c.typ.MarshalNameStyle(MarshalScylla); got != scylla {
			t.Errorf("%s in ScyllaDB's spelling:\n got %s\nwant %s", c.typ, got, scylla)
		}
		if back, err := ParseMarshalName(scylla); err != nil || !back.Equal(c.typ) {
			t.Errorf("ParseMarshalName(%s) = %v, %v", scylla, back, err)
		}
	}
	// Lenient forms: unqualified, no blanks, blanks anywhere.
	for _, s := range []string{"VectorType(FloatType,3)", "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType,3)",
		" VectorType ( FloatType ,  3 ) ", "VectorType(FloatType , +3)"} {
		typ, err := ParseMarshalName(s)
		if err != nil || !typ.Equal(mustVector(t, Float, 3)) {
			t.Errorf("ParseMarshalName(%q) = %v, %v", s, typ, err)
		}
	}
	for _, bad := range []string{"VectorType(FloatType , 0)", "VectorType(FloatType , -3)", "VectorType(FloatType)",
		"VectorType(FloatType , x)", "VectorType(FloatType , 2147483648)", "VectorType(FloatType , 3", "VectorType",
		"VectorType(FloatType , 3, 4)", "VectorType(EmptyType , 2)", "VectorType(LongType , 1073741824)", "VectorType(NoSuchType , 2)"} {
		if typ, err := ParseMarshalName(bad); err == nil {
			t.Errorf("ParseMarshalName(%q) = %s, want an error", bad, typ)
		}
	}
	if _, err := ParseMarshalName("VectorType(FloatType , 0)"); err == nil || !strings.Contains(err.Error(), "positive dimensions") {
		t.Errorf("dimension 0: %v", err)
	}
}

func TestVectorOf(t *testing.T) {
	for _, c := range []struct {
		elem *Type
		n    int
		want string
	}{
		{Float, 0, "positive dimensions"},
		{Float, -1, "positive dimensions"},
		{Float, MaxVectorDimension + 1, "larger than"},
		{Bigint, 1 << 28, "more than"},
		{Empty, 2, "not a vector element"},
		{nil, 2, "without an element"},
	} {
		if _, err := VectorOf(c.elem, c.n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("VectorOf(%v, %d) = %v, want %q", c.elem, c.n, err, c.want)
		}
	}
	if v := mustVector(t, Text, MaxVectorDimension); v.FixedLength() != 0 {
		t.Errorf("vector<text, max> is fixed")
	}
	// FixedLength is Cassandra's valueLengthIfFixed: n × the element's for a
	// fixed-length element (smallint, tinyint, date and time are not fixed
	// in Cassandra).
	for typ, want := range map[*Type]int{vec(Float, 3): 12, vec(Text, 2): 0, vec(vec(Int, 2), 2): 16, vec(UUID, 2): 32,
		vec(Timeuuid, 1): 16, vec(Boolean, 5): 5, vec(Double, 4): 32, vec(Date, 2): 0, vec(Smallint, 2): 0,
		vec(ListOf(Int, true), 2): 0, ReversedOf(vec(Bigint, 2)): 16, vec(CustomType(mp+"DateType"), 2): 16} {
		if got := typ.FixedLength(); got != want {
			t.Errorf("%s.FixedLength() = %d, want %d", typ, got, want)
		}
	}
	if vec(ListOf(Int, false), 2).IsComplex() || !vec(Int, 2).Freeze().Equal(vec(Int, 2)) {
		t.Error("a vector is a single cell")
	}
	if vec(Int, 2).Equal(vec(Int, 3)) || vec(ListOf(Int, false), 2).Equal(vec(ListOf(Int, true), 2)) || !vec(Int, 2).Equal(vec(Int, 2)) {
		t.Error("Equal on vectors")
	}
}

func TestVectorCQLType(t *testing.T) {
	udts := UDTs{"u": UDTOf("ks", "u", []string{"a", "b"}, []*Type{Int, Text}, false)}
	for _, c := range []struct{ in, want string }{
		{"vector<float, 3>", "vector<float, 3>"},
		{"VECTOR < FLOAT , 3 >", "vector<float, 3>"},
		{"frozen<vector<int, 2>>", "vector<int, 2>"},
		{"vector<list<int>, 2>", "vector<list<int>, 2>"},
		{"vector<frozen<list<int>>, 2>", "vector<frozen<list<int>>, 2>"},
		{"vector<vector<int, 2>, 2>", "vector<vector<int, 2>, 2>"},
		{"list<vector<int, 2>>", "list<vector<int, 2>>"},
		{"map<text, vector<float, 2>>", "map<text, vector<float, 2>>"},
		{"vector<u, 2>", "vector<ks.u, 2>"},
		{"vector<frozen<u>, 2>", "vector<frozen<ks.u>, 2>"},
		{"vector<counter, 1>", "vector<counter, 1>"},
		{"vector<text, 2147483647>", "vector<text, 2147483647>"},
		{"frozen<list<vector<list<int>, 2>>>", "frozen<list<vector<list<int>, 2>>>"},
	} {
		typ, err := ParseCQLType(c.in, udts)
		if err != nil {
			t.Errorf("ParseCQLType(%q): %v", c.in, err)
			continue
		}
		if got := typ.String(); got != c.want {
			t.Errorf("ParseCQLType(%q).String() = %q, want %q", c.in, got, c.want)
		}
		back, err := ParseCQLType(typ.String(), udts)
		if err != nil || !back.Equal(typ) {
			t.Errorf("re-parse of %q: %v, %v", typ.String(), back, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"vector<float, 0>", "positive dimensions"},
		{"vector<float, -2>", "positive dimensions"},
		{"vector<float>", "expected ','"},
		{"vector<float, x>", "dimension"},
		{"vector<float, 2147483648>", "not an int"},
		{"vector<list<list<int>>, 2>", "non-frozen collection"},
		{"vector<float, 3", "expected '>'"},
	} {
		if typ, err := ParseCQLType(c.in, udts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseCQLType(%q) = %v, %v, want an error with %q", c.in, typ, err, c.want)
		}
	}
}

func TestVectorSerialization(t *testing.T) {
	f3 := mustVector(t, Float, 3)
	v, err := f3.AppendVector(nil, [][]byte{AppendFloat(nil, 1), AppendFloat(nil, 2.5), AppendFloat(nil, -3)})
	if err != nil {
		t.Fatal(err)
	}
	// Fixed-length elements: concatenated, no count, no lengths.
	if got := hex.EncodeToString(v); got != "3f80000040200000c0400000" {
		t.Fatalf("vector<float, 3> [1, 2.5, -3] = %s", got)
	}
	elems, err := f3.VectorElements(v)
	if err != nil || len(elems) != 3 || !bytes.Equal(elems[1], AppendFloat(nil, 2.5)) {
		t.Fatalf("VectorElements: %x, %v", elems, err)
	}
	// Variable-length elements: each with an unsigned vint length; the
	// bytes a 5.0 node returned for ['a', 'bc'] and ['', 'z'].
	t2 := mustVector(t, Text, 2)
	for _, c := range []struct {
		elems []string
		hex   string
	}{{[]string{"a", "bc"}, "0161026263"}, {[]string{"", "z"}, "00017a"}, {[]string{strings.Repeat("x", 200), ""}, "80c8" + strings.Repeat("78", 200) + "00"}} {
		v, err := t2.AppendVector(nil, [][]byte{[]byte(c.elems[0]), []byte(c.elems[1])})
		if err != nil || hex.EncodeToString(v) != c.hex {
			t.Errorf("vector<text, 2> %q = %x, %v; want %s", c.elems, v, err, c.hex)
		}
		if err := t2.Validate(v); err != nil {
			t.Errorf("Validate(%x): %v", v, err)
		}
		back, err := t2.VectorElements(v)
		if err != nil || string(back[0]) != c.elems[0] || string(back[1]) != c.elems[1] {
			t.Errorf("VectorElements(%x) = %q, %v", v, back, err)
		}
	}
	// The node's bytes for vector<vector<int, 2>, 2> [[1,2],[3,4]] (fixed,
	// 16 bytes) and vector<frozen<list<int>>, 2> [[5], []].
	nested := mustVector(t, mustVector(t, Int, 2), 2)
	if err := nested.Validate(mustHex("00000001000000020000000300000004")); err != nil {
		t.Error(err)
	}
	if err := mustVector(t, ListOf(Int, true), 2).Validate(mustHex("0c0000000100000004000000050400000000")); err != nil {
		t.Error(err)
	}

	for _, c := range []struct {
		typ   *Type
		elems [][]byte
		want  string
	}{
		{f3, [][]byte{AppendFloat(nil, 1)}, "exactly 3 elements"},
		{f3, [][]byte{AppendFloat(nil, 1), nil, AppendFloat(nil, 1)}, "null"},
		{f3, [][]byte{AppendFloat(nil, 1), {}, AppendFloat(nil, 1)}, "null"},
		{f3, [][]byte{AppendFloat(nil, 1), {1, 2}, AppendFloat(nil, 1)}, "want 4 bytes"},
		{mustVector(t, Varint, 1), [][]byte{{}}, "null"},
		{t2, [][]byte{[]byte("a"), {0xff}}, "UTF-8"},
	} {
		if _, err := c.typ.AppendVector(nil, c.elems); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s AppendVector(%x) = %v, want %q", c.typ, c.elems, err, c.want)
		}
	}
	// An empty text, ascii or blob element is a value, not a null.
	if _, err := mustVector(t, Blob, 2).AppendVector(nil, [][]byte{{}, {}}); err != nil {
		t.Error(err)
	}
	if _, err := Int.AppendVector(nil, nil); err == nil {
		t.Error("AppendVector of an int")
	}
}

func TestVectorValidate(t *testing.T) {
	f2 := mustVector(t, Float, 2)
	t2 := mustVector(t, Text, 2)
	for _, c := range []struct {
		typ  *Type
		hex  string
		want string // "" for valid
	}{
		{f2, "3fc00000c0000000", ""},
		{f2, "", "never empty"},
		{f2, "3fc00000", "want 8 bytes"},
		{f2, "3fc00000c000000000", "want 8 bytes"},
		{t2, "0161026263", ""},
		{t2, "", "never empty"},
		{t2, "0161", "1 elements, want 2"},
		{t2, "01610263", "element 1 truncated"},
		{t2, "0161026263ff", "1 extraneous bytes"},
		{t2, "01610180", "not UTF-8"},
		{t2, "ff", "truncated"},
		{mustVector(t, Varint, 2), "000101", ""}, // an empty element passes, as Cassandra's validate lets it
		{mustVector(t, Varint, 2), "02000101", "minimal"},
		{mustVector(t, mustVector(t, Text, 1), 1), "00", "element 0"}, // an empty inner vector
		{mustVector(t, mustVector(t, Text, 1), 1), "0100", ""},        // [[""]]
		{mustVector(t, Timeuuid, 1), "00000000000040008000000000000000", "version 4"},
	} {
		err := c.typ.Validate(mustHex(c.hex))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s.Validate(%s) = %v, want %q", c.typ, c.hex, err, c.want)
		}
	}
}

// Order: Cassandra 5.0's VectorType serializers compare element by element
// with the element type (results from Cassandra's own compare).
func TestVectorCompare(t *testing.T) {
	f2, t2, i1 := mustVector(t, Float, 2), mustVector(t, Text, 2), mustVector(t, Int, 1)
	for _, c := range []struct {
		typ  *Type
		a, b string
		want int
	}{
		{f2, "7fc0000080000000", "0000000000000000", 1},  // [NaN, -0.0] > [0.0, 0.0]
		{f2, "800000003f800000", "0000000000000000", -1}, // -0.0 < 0.0
		{f2, "3f80000040000000", "3f80000040000000", 0},
		{t2, "01620161", "026161016161", 1}, // ["b","a"] > ["aa","aa"] though 01 < 02
		{i1, "ffffffff", "00000001", -1},    // signed, not bytes
		{ReversedOf(i1), "ffffffff", "00000001", 1},
		{mustVector(t, Varint, 1), "0201ff", "0100", 1}, // [511] > [0]
		{f2, "", "0000000000000000", -1},                // empty (never valid) first
		{t2, "0161", "0162", -1},                        // malformed: unsigned bytes
	} {
		if got := c.typ.Compare(mustHex(c.a), mustHex(c.b)); sign(got) != c.want {
			t.Errorf("%s Compare(%s, %s) = %d, want %d", c.typ, c.a, c.b, got, c.want)
		}
		if got := c.typ.Compare(mustHex(c.b), mustHex(c.a)); sign(got) != -c.want {
			t.Errorf("%s Compare(%s, %s) = %d, want %d", c.typ, c.b, c.a, got, -c.want)
		}
	}
}

// Byte-comparable forms: what Cassandra 5.0's VectorType.asComparableBytes
// (OSS50) returned for these values, run on Cassandra's own classes.
func TestVectorComparableGolden(t *testing.T) {
	for _, c := range []struct {
		typ       *Type
		val, want string
	}{
		{vec(Float, 2), "3fc00000c0000000", "40bfc00000403fffffff38"},
		{vec(Text, 2), "0161026263", "4061004062630038"},
		{vec(vec(Int, 2), 2), "00000001000000020000000300000004", "40408000000140800000023840408000000340800000043838"},
		{vec(ListOf(Int, true), 2), "0c0000000100000004000000050400000000", "40408000000538403838"},
		{vec(Varint, 2), "000101", "3e408138"},
		{vec(Double, 2), "7ff80000000000008000000000000000", "40fff8000000000000407fffffffffffffff38"},
		{vec(Int, 1), "ffffffff", "407fffffff38"},
		{vec(UUID, 1), "550e8400e29b41d4a716446655440000", "404550e8400e29b1d4a71644665544000038"},
		{vec(TupleOf(Int, Text), 2), "0d000000040000000100000001780c0000000400000002ffffffff", "404080000001407800384040800000023838"},
		{vec(Boolean, 2), "0102", "4001400138"},
		{vec(Decimal, 2), "050000000001050000000102", "40c101810040c0940038"},
		{vec(Timeuuid, 1), "00000000000010008000000000000000", "401000000000000000008080808080808038"},
		{vec(Timestamp, 2), "0000000000000001ffffffffffffffff", "408000000000000001407fffffffffffffff38"},
		{vec(Bigint, 2), "0000000000000001ffffffffffffffff", "4081407f38"},
		{vec(Duration, 1), "03020406", "400204060038"},
		{vec(Blob, 2), "000100", "40004000fe38"},
		{vec(Ascii, 2), "0161026263", "4061004062630038"},
		{vec(Inet, 1), "047f000001", "407f00feff010038"},
		{vec(Smallint, 1), "02ffff", "407fff38"},
		{vec(Date, 1), "0480000000", "408000000038"},
		{ListOf(vec(Float, 2), true), "000000010000000840000000c0000000", "4040c0000000403fffffff3838"},
		{ReversedOf(vec(Float, 2)), "3fc00000c0000000", "bf403fffffbfc0000000c7"},
	} {
		if got := hex.EncodeToString(c.typ.AppendComparable(nil, mustHex(c.val))); got != c.want {
			t.Errorf("%s AppendComparable(%s) = %s, want %s", c.typ, c.val, got, c.want)
		}
	}
	if vec(Float, 2).HasComparable(nil) {
		t.Error("an empty vector has a form")
	}
}

func vectorGen(typ *Type, elem gen) gen {
	return func(r *rand.Rand) []byte {
		for {
			elems := make([][]byte, typ.Dimension)
			for i := range elems {
				elems[i] = elem(r)
			}
			if v, err := typ.AppendVector(nil, elems); err == nil {
				return v
			}
		}
	}
}

// The byte-comparable forms order vectors as Compare does.
func TestVectorComparableOrder(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	cases := []struct {
		t *Type
		g gen
	}{
		{vec(Float, 3), vectorGen(vec(Float, 3), floatGen)},
		{vec(Text, 2), vectorGen(vec(Text, 2), bytesGen(3))},
		{vec(Varint, 2), vectorGen(vec(Varint, 2), varintGen)},
		{ReversedOf(vec(Int, 2)), vectorGen(vec(Int, 2), fixedGen(4))},
		{vec(vec(Double, 2), 2), vectorGen(vec(vec(Double, 2), 2), vectorGen(vec(Double, 2), doubleGen))},
		{vec(ListOf(Int, true), 2), vectorGen(vec(ListOf(Int, true), 2), collectionGen(fixedGen(4), 2))},
	}
	for _, c := range cases {
		for i := 0; i < 3000; i++ {
			a, b := c.g(r), c.g(r)
			if i%7 == 0 {
				b = append([]byte(nil), a...)
			}
			want := c.t.Compare(a, b)
			got := bytes.Compare(comparableKey(c.t, a), comparableKey(c.t, b))
			if sign(got) != sign(want) {
				t.Fatalf("%v: Compare(%x, %x) = %d but the encodings compare %d", c.t, a, b, want, got)
			}
		}
	}
}

// JSON: sstabledump 5.0 prints a vector with VectorType.toJSONString (the
// elements' JSON forms, ", " between them; these strings are what
// Cassandra printed); castable's canonical form is the same, and both read
// back.
func TestVectorJSON(t *testing.T) {
	for _, c := range []struct {
		typ       *Type
		val, json string
	}{
		{vec(Float, 2), "3fc00000c0000000", "[1.5, -2.0]"},
		{vec(Text, 2), "0161026263", `["a", "bc"]`},
		{vec(Text, 2), "00017a", `["", "z"]`},
		{vec(vec(Int, 2), 2), "00000001000000020000000300000004", "[[1, 2], [3, 4]]"},
		{vec(ListOf(Int, true), 2), "0c0000000100000004000000050400000000", "[[5], []]"},
		{vec(TupleOf(Int, Text), 2), "0d000000040000000100000001780c0000000400000002ffffffff", `[[1, "x"], [2, null]]`},
		{vec(UUID, 1), "550e8400e29b41d4a716446655440000", `["550e8400-e29b-41d4-a716-446655440000"]`},
		{vec(Boolean, 2), "0100", "[true, false]"},
		{vec(Decimal, 2), "050000000001050000000102", "[1, 0.2]"},
		{vec(Timestamp, 2), "0000000000000001ffffffffffffffff", `["1970-01-01 00:00:00.001Z", "1969-12-31 23:59:59.999Z"]`},
		{vec(Duration, 1), "03020406", `["1mo2d3ns"]`},
		{vec(Blob, 2), "000100", `["0x", "0x00"]`},
		{vec(Inet, 1), "047f000001", `["127.0.0.1"]`},
		{vec(Date, 1), "0480000000", `["1970-01-01"]`},
		{vec(Varint, 2), "000101", `["", 1]`}, // an empty element: castable's "" (Cassandra prints "" too)
		{vec(Bigint, 1), "ffffffffffffffff", "[-1]"},
		{MapOf(Text, vec(Float, 2), true), "000000010000000161000000083f80000040000000", `{"a": [1.0, 2.0]}`},
	} {
		got, err := c.typ.AppendJSON(nil, mustHex(c.val))
		if err != nil || string(got) != c.json {
			t.Errorf("%s AppendJSON(%s) = %s, %v; want %s", c.typ, c.val, got, err, c.json)
			continue
		}
		back, err := c.typ.FromJSON(decodeJSON(t, c.json))
		if err != nil || !bytes.Equal(back, mustHex(c.val)) {
			t.Errorf("%s FromJSON(%s) = %x, %v; want %s", c.typ, c.json, back, err, c.val)
		}
	}
	// A JSON string holding the array (fromJSONObject decodes it), and
	// integers for float elements.
	if v, err := vec(Float, 3).FromJSON("[1, 2.5, -3]"); err != nil || hex.EncodeToString(v) != "3f80000040200000c0400000" {
		t.Errorf("FromJSON of a string: %x, %v", v, err)
	}
	for _, c := range []struct {
		typ  *Type
		json string
		want string
	}{
		{vec(Float, 2), "[1.0]", "want exactly 2"},
		{vec(Float, 2), "[1.0, 2.0, 3.0]", "want exactly 2"},
		{vec(Float, 2), "[1.0, null]", "null"},
		{vec(Float, 2), `[1.0, ""]`, "empty"},
		{vec(Float, 2), `""`, "never empty"},
		{vec(Float, 2), `{"a": 1}`, "want a JSON array"},
		{vec(Float, 2), `"nope"`, "want a JSON array"},
		{vec(Int, 1), `[1.5]`, "element 0"},
		{vec(Text, 1), `[1]`, "element 0"},
	} {
		if v, err := c.typ.FromJSON(decodeJSON(t, c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s FromJSON(%s) = %x, %v; want an error with %q", c.typ, c.json, v, err, c.want)
		}
	}
	// The string form (a partition key component in sstabledump) is the
	// hex of the value, as VectorType.getString is BytesType's.
	s, err := vec(Float, 2).AppendString(nil, mustHex("3fc00000c0000000"))
	if err != nil || string(s) != "3fc00000c0000000" {
		t.Errorf("AppendString: %s, %v", s, err)
	}
	if v, err := vec(Float, 2).FromString("0x3fc00000c0000000"); err != nil || hex.EncodeToString(v) != "3fc00000c0000000" {
		t.Errorf("FromString: %x, %v", v, err)
	}
	for _, bad := range []string{"", "3fc00000", "zz"} {
		if _, err := vec(Float, 2).FromString(bad); err == nil {
			t.Errorf("FromString(%q) accepted", bad)
		}
	}
}

// Unknown marshal classes are errors naming the class, unless the caller
// opts in to opaque values; the legacy classes castable models stay.
func TestUnknownMarshalClass(t *testing.T) {
	for _, s := range []string{"com.example.MyType", "org.apache.cassandra.db.marshal.DynamicCompositeType(a=>BytesType)",
		"org.apache.cassandra.db.marshal.PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner)",
		"ListType(com.example.MyType)", "VectorType(NewType , 2)", "DateType(x)", "SomethingType"} {
		_, err := ParseMarshalName(s)
		var ute *UnknownTypeError
		if !errors.As(err, &ute) || !errors.Is(err, ErrUnknownType) {
			t.Errorf("ParseMarshalName(%q) = %v, want an UnknownTypeError", s, err)
			continue
		}
		if !strings.Contains(err.Error(), ute.Class) || ute.Class == "" {
			t.Errorf("error %q does not name the class %q", err, ute.Class)
		}
		typ, err := TypeOptions{OpaqueUnknownTypes: true}.ParseMarshalName(s)
		if err != nil {
			t.Errorf("opaque ParseMarshalName(%q): %v", s, err)
			continue
		}
		if typ.MarshalName() != typ.MarshalName() || typ.FixedLength() != 0 && typ.Kind == KindCustom {
			t.Errorf("opaque %q: %s fixed %d", s, typ.MarshalName(), typ.FixedLength())
		}
	}
	if _, err := ParseMarshalNames("CompositeType(Int32Type,com.example.MyType)"); !errors.Is(err, ErrUnknownType) {
		t.Errorf("composite with an unknown component: %v", err)
	}
	if _, err := ParseCQLType("'com.example.MyType'", nil); err == nil || !strings.Contains(err.Error(), "com.example.MyType") {
		t.Errorf("CQL custom type: %v", err)
	}
	if typ, err := (TypeOptions{OpaqueUnknownTypes: true}).ParseCQLType("'com.example.MyType'", nil); err != nil || typ.Custom != "com.example.MyType" {
		t.Errorf("opaque CQL custom type: %v, %v", typ, err)
	}
	for s, fixed := range map[string]int{"DateType": 8, mp + "LexicalUUIDType": 16} {
		typ, err := ParseMarshalName(s)
		if err != nil || typ.Kind != KindCustom || typ.FixedLength() != fixed {
			t.Errorf("%s: %v, %v", s, typ, err)
		}
	}
}
