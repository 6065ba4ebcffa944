package schema

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func bigOf(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

// checkAscending asserts that vals are strictly increasing under typ and
// that Compare is antisymmetric and reflexive on them.
func checkAscending(t *testing.T, typ *Type, vals [][]byte) {
	t.Helper()
	for i := range vals {
		if c := typ.Compare(vals[i], vals[i]); c != 0 {
			t.Errorf("%s: Compare(%x, itself) = %d", typ, vals[i], c)
		}
		for j := i + 1; j < len(vals); j++ {
			if c := typ.Compare(vals[i], vals[j]); c >= 0 {
				t.Errorf("%s: Compare(%x, %x) = %d, want < 0", typ, vals[i], vals[j], c)
			}
			if c := typ.Compare(vals[j], vals[i]); c <= 0 {
				t.Errorf("%s: Compare(%x, %x) = %d, want > 0", typ, vals[j], vals[i], c)
			}
		}
	}
	rev := ReversedOf(typ)
	for i := 0; i+1 < len(vals); i++ {
		if c := rev.Compare(vals[i], vals[i+1]); c <= 0 {
			t.Errorf("reversed %s: Compare(%x, %x) = %d, want > 0", typ, vals[i], vals[i+1], c)
		}
	}
}

func TestCompareNumbers(t *testing.T) {
	checkAscending(t, Int, [][]byte{{}, AppendInt(nil, math.MinInt32), AppendInt(nil, -1), AppendInt(nil, 0), AppendInt(nil, 1), AppendInt(nil, 256), AppendInt(nil, math.MaxInt32)})
	checkAscending(t, Bigint, [][]byte{{}, AppendBigint(nil, math.MinInt64), AppendBigint(nil, -2), AppendBigint(nil, 3), AppendBigint(nil, math.MaxInt64)})
	checkAscending(t, Smallint, [][]byte{AppendSmallint(nil, -300), AppendSmallint(nil, -1), AppendSmallint(nil, 2)})
	checkAscending(t, Tinyint, [][]byte{{}, AppendTinyint(nil, -128), AppendTinyint(nil, -1), AppendTinyint(nil, 127)})
	checkAscending(t, Timestamp, [][]byte{AppendTimestamp(nil, -1000), AppendTimestamp(nil, 0), AppendTimestamp(nil, 1)})
	checkAscending(t, Time, [][]byte{AppendTime(nil, 0), AppendTime(nil, 1), AppendTime(nil, MaxTimeNanos)})
	checkAscending(t, Date, [][]byte{AppendDate(nil, -100), AppendDate(nil, 0), AppendDate(nil, 17291)})
	checkAscending(t, Boolean, [][]byte{{}, {0}, {1}})
	if Boolean.Compare([]byte{1}, []byte{2}) != 0 {
		t.Error("boolean: non-zero bytes are all true")
	}
	checkAscending(t, Varint, [][]byte{{}, AppendVarint(nil, bigOf("-100000000000000000000")), AppendVarintInt64(nil, -129),
		AppendVarintInt64(nil, -128), AppendVarintInt64(nil, -1), {0}, AppendVarintInt64(nil, 1), AppendVarintInt64(nil, 127),
		AppendVarintInt64(nil, 128), AppendVarint(nil, bigOf("100000000000000000000"))})
	if Varint.Compare([]byte{0, 0, 5}, []byte{5}) != 0 || Varint.Compare([]byte{0xff, 0xff}, []byte{0xff}) != 0 {
		t.Error("varint: non-minimal encodings compare numerically")
	}
	dec := func(u string, scale int32) []byte { return AppendDecimal(nil, bigOf(u), scale) }
	checkAscending(t, Decimal, [][]byte{{}, dec("-5", -3), dec("-545", 2), dec("0", 0), dec("1", 9), dec("545", 2), dec("546", 2), dec("5", -3), dec("1", -2147483648)})
	if Decimal.Compare(dec("10", 1), dec("1000", 3)) != 0 || Decimal.Compare(dec("0", 5), dec("0", -7)) != 0 {
		t.Error("decimal: equal values with different scales")
	}
	checkAscending(t, Double, [][]byte{{}, AppendDouble(nil, math.Inf(-1)), AppendDouble(nil, -1.5), AppendDouble(nil, math.Copysign(0, -1)),
		AppendDouble(nil, 0), AppendDouble(nil, 1e-300), AppendDouble(nil, math.Inf(1)), AppendDouble(nil, math.NaN())})
	checkAscending(t, Float, [][]byte{AppendFloat(nil, -3), AppendFloat(nil, float32(math.Copysign(0, -1))), AppendFloat(nil, 0), AppendFloat(nil, 7.62), AppendFloat(nil, float32(math.NaN()))})
}

func TestCompareUUIDs(t *testing.T) {
	// Version 1 UUIDs whose timestamps order differently from their bytes:
	// time_low ffffffff with time_mid 0000 is earlier than time_low 00000000
	// with time_mid 0001.
	early := mustHex("ffffffff000011e5b345feff819cdc9f")
	later := mustHex("00000000000111e5b345feff819cdc9f")
	latest := mustHex("00000000000011e6b345feff819cdc9f")
	checkAscending(t, Timeuuid, [][]byte{{}, early, later, latest})
	// TimeUUIDType: same timestamp, the last 8 bytes compare as signed bytes.
	neg := mustHex("00000000000011e580000000000000ff")
	pos := mustHex("00000000000011e50000000000000000")
	checkAscending(t, Timeuuid, [][]byte{neg, pos})
	// UUIDType: version first; version 1 by time; others unsigned; low half
	// unsigned.
	v4a := mustHex("0123456701234123a123456789abcdef")
	v4b := mustHex("f123456701234123a123456789abcdef")
	checkAscending(t, UUID, [][]byte{{}, early, later, latest, mustHex("00000000000011e6ffffffffffffffff"), v4a, v4b})
	checkAscending(t, UUID, [][]byte{pos, neg})
}

func TestCompareCollections(t *testing.T) {
	list := func(vs ...int32) []byte {
		b := AppendCollectionSize(nil, len(vs))
		for _, v := range vs {
			b = AppendCollectionValue(b, AppendInt(nil, v))
		}
		return b
	}
	lt := ListOf(Int, true)
	checkAscending(t, lt, [][]byte{{}, list(), list(-5), list(-5, 1), list(1), list(1, 2)})
	mp := func(kv ...int32) []byte {
		b := AppendCollectionSize(nil, len(kv)/2)
		for _, v := range kv {
			b = AppendCollectionValue(b, AppendInt(nil, v))
		}
		return b
	}
	checkAscending(t, MapOf(Int, Int, true), [][]byte{mp(), mp(1, 5), mp(1, 6), mp(1, 6, 0, 0), mp(2, 0)})
	tuple := func(fields ...[]byte) []byte {
		var b []byte
		for _, f := range fields {
			b = AppendTupleField(b, f)
		}
		return b
	}
	tt := TupleOf(Int, Text)
	checkAscending(t, tt, [][]byte{{}, tuple(nil, []byte("z")), tuple(AppendInt(nil, -1)), tuple(AppendInt(nil, -1), []byte("a")), tuple(AppendInt(nil, 3), []byte("a"))})
	if tt.Compare(tuple(AppendInt(nil, 1)), tuple(AppendInt(nil, 1), nil)) != 0 {
		t.Error("trailing null fields are ignored")
	}
	// Malformed values fall back to bytes and never panic.
	for _, bad := range [][]byte{{0}, {0, 0, 0, 5, 0}, {0, 0, 0, 1, 0, 0, 0, 9, 1}, {0x7f, 0xff, 0xff, 0xff}} {
		_ = lt.Compare(bad, list(1))
		_ = tt.Compare(bad, tuple(nil))
		_ = MapOf(Int, Int, true).Compare(bad, mp(1, 1))
	}
}

func TestCompareBytesTypes(t *testing.T) {
	for _, typ := range []*Type{Text, Ascii, Blob, Inet, Duration} {
		vals := [][]byte{{}, {0x00}, {0x00, 0x01}, {0x7f}, {0x80}, {0xff}}
		checkAscending(t, typ, vals)
	}
	// Sorting with Compare is a total order.
	vals := [][]byte{AppendInt(nil, 3), {}, AppendInt(nil, -7), AppendInt(nil, 0)}
	sort.Slice(vals, func(i, j int) bool { return Int.Compare(vals[i], vals[j]) < 0 })
	if len(vals[0]) != 0 || Int.Compare(vals[1], AppendInt(nil, -7)) != 0 {
		t.Errorf("sorted %x", vals)
	}
}

// TestCompareSignedFastMatchesBytes: the integer comparison of 4- and
// 8-byte values gives what the byte-by-byte one gives, on edge values and
// random ones.
func TestCompareSignedFastMatchesBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, width := range []int{4, 8} {
		edges := [][]byte{}
		for _, v := range []uint64{0, 1, 0x7f, 0x80, 0xff, 0x100, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1<<63 - 1, 1 << 63, math.MaxUint64} {
			b := binary.BigEndian.AppendUint64(nil, v)
			edges = append(edges, b[8-width:])
		}
		vals := edges
		for i := 0; i < 300; i++ {
			b := make([]byte, width)
			for j := range b {
				b[j] = byte(r.IntN(256))
			}
			if r.IntN(2) == 0 {
				b[width-1] = vals[r.IntN(len(vals))][width-1] // near-ties
			}
			vals = append(vals, b)
		}
		for _, a := range vals {
			for _, b := range vals {
				if got, want := compareSigned(a, b), compareSignedBytes(a, b); got != want {
					t.Fatalf("compareSigned(%x, %x) = %d, byte by byte %d", a, b, got, want)
				}
			}
		}
	}
}

// TestCompareClusteringMatchesTypeCompare: Table.CompareClustering, which
// orders the common kinds by their compare class, gives what comparing
// component by component with Type.Compare gives, for clustering columns
// of every class, ascending and descending, on values of every length
// (4 and 8 bytes, others, empty) and nulls.
func TestCompareClusteringMatchesTypeCompare(t *testing.T) {
	types := []*Type{Int, Bigint, Smallint, Tinyint, Timestamp, Time, Text, Ascii, Blob, Inet, Date, Boolean, Double, Float, UUID, Timeuuid, Varint, Decimal}
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range types {
		for _, rev := range []bool{false, true} {
			ct := typ
			if rev {
				ct = ReversedOf(typ)
			}
			tab, err := NewTable("ks", "t", []ColumnDef{{Name: "pk", Type: Int, Kind: PartitionKey}, {Name: "c", Type: ct, Kind: ClusteringKey}, {Name: "d", Type: ct, Kind: ClusteringKey}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			value := func() []byte {
				switch r.IntN(10) {
				case 0:
					return nil
				case 1:
					return []byte{}
				}
				n := []int{1, 2, 4, 4, 8, 8, 16, 3}[r.IntN(8)]
				b := make([]byte, n)
				for i := range b {
					b[i] = byte(r.IntN(256))
					if r.IntN(3) == 0 {
						b[i] = []byte{0, 0x7f, 0x80, 0xff}[r.IntN(4)]
					}
				}
				return b
			}
			reference := func(a, b [][]byte) int {
				for i := 0; i < min(len(a), len(b)); i++ {
					x, y := a[i], b[i]
					switch {
					case x == nil && y == nil:
						continue
					case x == nil:
						return -1
					case y == nil:
						return 1
					}
					if c := tab.Clustering[i].Type.Compare(x, y); c != 0 {
						return c
					}
				}
				return 0
			}
			var vals [][][]byte
			for i := 0; i < 120; i++ {
				v := [][]byte{value(), value()}
				if r.IntN(4) == 0 && len(vals) > 0 {
					v[0] = vals[r.IntN(len(vals))][0] // ties on the first component
				}
				vals = append(vals, v[:1+r.IntN(2)])
			}
			for _, a := range vals {
				for _, b := range vals {
					if got, want := tab.CompareClustering(a, b), reference(a, b); got != want {
						t.Fatalf("%s: CompareClustering(%x, %x) = %d, Type.Compare gives %d", ct, a, b, got, want)
					}
				}
			}
		}
	}
}
