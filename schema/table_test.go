package schema

import (
	"bytes"
	"strings"
	"testing"
)

func TestNewTableCanonicalOrder(t *testing.T) {
	cols := []ColumnDef{
		{"pk", Int, PartitionKey},
		{"ck", ReversedOf(Int), ClusteringKey},
		{"val2", Int, Regular},
		{"val10", Int, Regular},
		{"val1", Int, Regular},
		{"aset", SetOf(Int, false), Regular},
		{"frozen_l", ListOf(Int, true), Regular},
		{"Zed", Text, Regular},
		{"éa", Text, Regular}, // first byte >= 0x80 sorts before ASCII
		{"s2", Int, Static},
		{"s1", MapOf(Int, Int, false), Static},
		{"s0", Int, Static},
	}
	tab, err := NewTable("ks", "t", cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, c := range tab.Regular {
		if c.Index != i || c.Kind != Regular {
			t.Errorf("column %s: index %d kind %v", c.Name, c.Index, c.Kind)
		}
		names = append(names, c.Name)
	}
	if got, want := strings.Join(names, ","), "éa,Zed,frozen_l,val1,val10,val2,aset"; got != want {
		t.Errorf("regular order %s, want %s", got, want)
	}
	names = nil
	for _, c := range tab.Static {
		names = append(names, c.Name)
	}
	if got, want := strings.Join(names, ","), "s0,s2,s1"; got != want {
		t.Errorf("static order %s, want %s", got, want)
	}
	if c := tab.Column("val10"); c == nil || c.Index != 4 {
		t.Errorf("Column(val10) = %+v", c)
	}
	if tab.Column("VAL10") != nil || tab.Column("nope") != nil {
		t.Error("Column is not case-exact")
	}
	if !tab.IsCompound() || tab.IsDense() {
		t.Error("a CQL table is compound and sparse")
	}
	if got := tab.ClusteringTypes()[0].MarshalName(); got != MarshalPackage+"ReversedType("+MarshalPackage+"Int32Type)" {
		t.Errorf("clustering marshal %s", got)
	}
	// Column order also through a Table built without NewTable.
	lit := &Table{Regular: tab.Regular}
	if lit.Column("aset") == nil {
		t.Error("Column on a literal Table")
	}
}

func TestNewTableErrors(t *testing.T) {
	bad := [][]ColumnDef{
		{{"v", Int, Regular}},
		{{"pk", Int, PartitionKey}, {"pk", Int, Regular}},
		{{"pk", SetOf(Int, false), PartitionKey}},
		{{"pk", Int, PartitionKey}, {"c", Counter, Regular}, {"v", Int, Regular}},
		{{"pk", Int, PartitionKey}, {"s", Int, Static}},
		{{"pk", Int, PartitionKey}, {"v", nil, Regular}},
		{{"pk", Int, PartitionKey}, {"ck", Duration, ClusteringKey}},
	}
	for _, cols := range bad {
		if _, err := NewTable("ks", "t", cols, Options{}); err == nil {
			t.Errorf("NewTable(%v) succeeded", cols)
		}
	}
}

func TestCompactStorageLayout(t *testing.T) {
	dense, err := NewTable("ks", "compact_table", []ColumnDef{
		{"pk", Int, PartitionKey}, {"ck1", Int, ClusteringKey}, {"ck2", Int, ClusteringKey}, {"rc", Int, Regular},
	}, Options{CompactStorage: true})
	if err != nil {
		t.Fatal(err)
	}
	if !dense.IsCompound() || !dense.IsDense() || len(dense.Regular) != 1 || dense.Regular[0].Hidden {
		t.Errorf("compound dense: %+v", dense)
	}
	noValue, err := NewTable("ks", "t", []ColumnDef{{"pk", Int, PartitionKey}, {"ck", Int, ClusteringKey}}, Options{CompactStorage: true})
	if err != nil {
		t.Fatal(err)
	}
	if noValue.IsCompound() || !noValue.IsDense() || len(noValue.Regular) != 1 ||
		!noValue.Regular[0].Hidden || noValue.Regular[0].Type.Kind != KindEmpty || noValue.Regular[0].Name != "value" {
		t.Errorf("simple dense without value: %+v", noValue.Regular)
	}
	static, err := NewTable("ks", "t", []ColumnDef{{"pk", Text, PartitionKey}, {"a", Int, Regular}, {"b", Text, Regular}}, Options{CompactStorage: true})
	if err != nil {
		t.Fatal(err)
	}
	if static.IsCompound() || static.IsDense() || len(static.Static) != 2 || static.Static[0].Kind != Static ||
		len(static.Clustering) != 1 || !static.Clustering[0].Hidden || len(static.Regular) != 1 || static.Regular[0].Type.Kind != KindBlob {
		t.Errorf("static compact: %+v", static)
	}
	if _, err := NewTable("ks", "t", []ColumnDef{{"pk", Int, PartitionKey}, {"ck", Int, ClusteringKey},
		{"a", Int, Regular}, {"b", Int, Regular}}, Options{CompactStorage: true}); err == nil {
		t.Error("dense compact table with two regular columns accepted")
	}
}

func TestPartitionKeyComposite(t *testing.T) {
	tab, err := NewTable("ks", "t", []ColumnDef{{"a", Int, PartitionKey}, {"b", Text, PartitionKey}, {"c", Boolean, PartitionKey}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := tab.MakePartitionKey([][]byte{{0, 0, 0, 1}, []byte("hello"), {1}})
	want := []byte{0, 4, 0, 0, 0, 1, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 1, 1, 0}
	if !bytes.Equal(key, want) {
		t.Fatalf("key %x, want %x", key, want)
	}
	parts, err := tab.SplitPartitionKey(key)
	if err != nil || len(parts) != 3 || string(parts[1]) != "hello" {
		t.Fatalf("split %q %v", parts, err)
	}
	if got := tab.PartitionKeyMarshalName(); got != "org.apache.cassandra.db.marshal.CompositeType(org.apache.cassandra.db.marshal.Int32Type,org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.BooleanType)" {
		t.Errorf("marshal %s", got)
	}
	for _, bad := range [][]byte{nil, {0}, {0, 4, 0, 0, 0}, key[:len(key)-1], append(append([]byte{}, key...), 0), {0, 4, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0}} {
		if _, err := tab.SplitPartitionKey(bad); err == nil {
			t.Errorf("SplitPartitionKey(%x) succeeded", bad)
		}
	}
	if tab.MakePartitionKey([][]byte{{1}}) != nil {
		t.Error("wrong component count accepted")
	}
	if tab.MakePartitionKey([][]byte{{1}, make([]byte, 70000), {1}}) != nil {
		t.Error("oversize component accepted")
	}
	single, _ := NewTable("ks", "t", []ColumnDef{{"a", Int, PartitionKey}}, Options{})
	if k := single.MakePartitionKey([][]byte{{0, 0, 0, 5}}); !bytes.Equal(k, []byte{0, 0, 0, 5}) {
		t.Errorf("single key %x", k)
	}
	if got := single.PartitionKeyMarshalName(); got != MarshalPackage+"Int32Type" {
		t.Errorf("single marshal %s", got)
	}
}

func TestCompareClustering(t *testing.T) {
	tab, _ := NewTable("ks", "t", []ColumnDef{{"pk", Int, PartitionKey}, {"a", Int, ClusteringKey},
		{"b", ReversedOf(Text), ClusteringKey}}, Options{})
	i := func(v int32) []byte { return AppendInt(nil, v) }
	cases := []struct {
		a, b [][]byte
		want int
	}{
		{[][]byte{i(1), []byte("x")}, [][]byte{i(1), []byte("x")}, 0},
		{[][]byte{i(1)}, [][]byte{i(1), []byte("x")}, 0},
		{[][]byte{i(-1)}, [][]byte{i(1)}, -1},
		{[][]byte{i(1), []byte("b")}, [][]byte{i(1), []byte("a")}, -1}, // DESC
		{[][]byte{i(1), nil}, [][]byte{i(1), []byte{}}, -1},
		{[][]byte{nil}, [][]byte{nil}, 0},
		{[][]byte{{}}, [][]byte{i(0)}, -1},
	}
	for _, c := range cases {
		if got := tab.CompareClustering(c.a, c.b); got != c.want {
			t.Errorf("CompareClustering(%x, %x) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := tab.CompareClustering(c.b, c.a); got != -c.want {
			t.Errorf("CompareClustering(%x, %x) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

func TestFixedLengthAndComplex(t *testing.T) {
	fixed := map[*Type]int{Int: 4, Bigint: 8, Boolean: 1, Timestamp: 8, UUID: 16, Timeuuid: 16, Double: 8, Float: 4,
		Smallint: 0, Tinyint: 0, Date: 0, Time: 0, Text: 0, Decimal: 0, Varint: 0, Counter: 0, Duration: 0, Empty: 0,
		ReversedOf(Bigint): 8, ListOf(Int, true): 0, CustomType(MarshalPackage + "DateType"): 8}
	for typ, want := range fixed {
		if got := typ.FixedLength(); got != want {
			t.Errorf("%s.FixedLength() = %d, want %d", typ.MarshalName(), got, want)
		}
	}
	for typ, want := range map[*Type]bool{ListOf(Int, false): true, ListOf(Int, true): false, MapOf(Int, Int, false): true,
		UDTOf("ks", "u", []string{"a"}, []*Type{Int}, false): true, TupleOf(Int): false, Int: false} {
		if got := typ.IsComplex(); got != want {
			t.Errorf("%s.IsComplex() = %v", typ, got)
		}
	}
}

func TestPathTypes(t *testing.T) {
	u := UDTOf("ks", "u", []string{"a", "b"}, []*Type{Int, Text}, false)
	if pt := u.PathType(); pt.Kind != kindFieldPath {
		t.Errorf("UDT path type %v", pt.Kind)
	}
	if et := u.ElementValueType([]byte{0, 1}); et != Text {
		t.Errorf("UDT field 1 type %v", et)
	}
	if et := u.ElementValueType([]byte{0, 2}); et != nil {
		t.Errorf("UDT field 2 type %v", et)
	}
	if ListOf(Text, false).PathType() != Timeuuid || ListOf(Text, false).ElementValueType(nil) != Text {
		t.Error("list path/value")
	}
	if SetOf(Int, false).PathType() != Int || SetOf(Int, false).ElementValueType(nil) != Empty {
		t.Error("set path/value")
	}
	m := MapOf(Int, Text, false)
	if m.PathType() != Int || m.ElementValueType(nil) != Text {
		t.Error("map path/value")
	}
	if Int.PathType() != nil || Int.ElementValueType(nil) != nil {
		t.Error("native path")
	}
}

func TestTypeString(t *testing.T) {
	cases := map[string]*Type{
		"frozen<map<int, text>>":                     MapOf(Int, Text, true),
		"list<frozen<set<int>>>":                     ListOf(SetOf(Int, false), false),
		"frozen<list<frozen<list<int>>>>":            ListOf(ListOf(Int, false), true),
		"tuple<int, frozen<list<int>>>":              TupleOf(Int, ListOf(Int, false)),
		"ks.\"MyType\"":                              UDTOf("ks", "MyType", nil, nil, false),
		"frozen<ks.udt>":                             UDTOf("ks", "udt", nil, nil, true),
		"text":                                       Text,
		"'org.apache.cassandra.db.marshal.DateType'": CustomType(MarshalPackage + "DateType"),
	}
	for want, typ := range cases {
		if got := typ.String(); got != want {
			t.Errorf("String() = %s, want %s", got, want)
		}
	}
}
