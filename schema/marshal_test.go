package schema

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// headerTypeStrings decodes the type strings of the serialization header
// (mc-format.md §5.5) of a real Statistics.db: the partition key type, the
// clustering types and the static and regular column types.
func headerTypeStrings(b []byte) (pk string, clustering []string, columns map[string]string, err error) {
	fail := func(msg string) (string, []string, map[string]string, error) {
		return "", nil, nil, errors.New(msg)
	}
	if len(b) < 4 {
		return fail("short TOC")
	}
	n := int(binary.BigEndian.Uint32(b))
	off := -1
	for i := 0; i < n; i++ {
		p := 4 + 8*i
		if p+8 > len(b) {
			return fail("short TOC entry")
		}
		if binary.BigEndian.Uint32(b[p:]) == 3 {
			off = int(binary.BigEndian.Uint32(b[p+4:]))
		}
	}
	if off < 0 || off > len(b) {
		return fail("no serialization header")
	}
	r := b[off:]
	uvint := func() uint64 {
		if len(r) == 0 {
			err = errors.New("truncated vint")
			return 0
		}
		extra := 0
		for extra < 8 && r[0]&(0x80>>extra) != 0 {
			extra++
		}
		if len(r) < 1+extra {
			err = errors.New("truncated vint")
			r = nil
			return 0
		}
		v := uint64(r[0] & (0xff >> extra))
		if extra == 8 {
			v = 0
		}
		for i := 1; i <= extra; i++ {
			v = v<<8 | uint64(r[i])
		}
		r = r[1+extra:]
		return v
	}
	vstr := func() string {
		l := uvint()
		if err != nil || uint64(len(r)) < l {
			err = errors.New("truncated string")
			return ""
		}
		s := string(r[:l])
		r = r[l:]
		return s
	}
	uvint()
	uvint()
	uvint()
	pk = vstr()
	nc := uvint()
	for i := uint64(0); i < nc && err == nil; i++ {
		clustering = append(clustering, vstr())
	}
	columns = map[string]string{}
	for g := 0; g < 2 && err == nil; g++ {
		ncol := uvint()
		for i := uint64(0); i < ncol && err == nil; i++ {
			name := vstr()
			columns[name] = vstr()
		}
	}
	return pk, clustering, columns, err
}

// realHeaderTypeStrings returns every type string found in the
// serialization headers of the reference mc/me sstables.
func realHeaderTypeStrings(t testing.TB) (all []string, partitionKeys []string) {
	all, partitionKeys, err := collectHeaderTypeStrings(testdata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no serialization headers found")
	}
	return all, partitionKeys
}

// collectHeaderTypeStrings walks root for mc/me Statistics.db files.
func collectHeaderTypeStrings(root string) (all []string, partitionKeys []string, err error) {
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := filepath.Base(path)
		if d.IsDir() || !strings.HasSuffix(base, "-big-Statistics.db") ||
			!(strings.HasPrefix(base, "mc-") || strings.HasPrefix(base, "me-")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pk, cl, cols, err := headerTypeStrings(b)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		partitionKeys = append(partitionKeys, pk)
		for _, s := range append(cl, mapValues(cols)...) {
			if !seen[s] {
				seen[s] = true
				all = append(all, s)
			}
		}
		return nil
	})
	return all, partitionKeys, err
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestMarshalNameRealHeaders(t *testing.T) {
	all, pks := realHeaderTypeStrings(t)
	for _, s := range all {
		typ, err := ParseMarshalName(s)
		if err != nil {
			t.Errorf("ParseMarshalName(%q): %v", s, err)
			continue
		}
		if typ.Kind == KindCustom {
			t.Errorf("ParseMarshalName(%q): unexpectedly custom", s)
		}
		if got := typ.MarshalName(); got != s {
			t.Errorf("round trip:\n got %s\nwant %s", got, s)
		}
	}
	composite := 0
	for _, s := range pks {
		types, err := ParseMarshalNames(s)
		if err != nil {
			t.Errorf("ParseMarshalNames(%q): %v", s, err)
			continue
		}
		var got string
		if len(types) == 1 {
			got = types[0].MarshalName()
		} else {
			composite++
			got = CompositeMarshalName(types)
		}
		if got != s {
			t.Errorf("partition key round trip:\n got %s\nwant %s", got, s)
		}
	}
	if composite == 0 {
		t.Error("no CompositeType partition key among the reference headers")
	}
	t.Logf("%d distinct column type strings, %d partition key types", len(all), len(pks))
}

func TestMarshalNameForms(t *testing.T) {
	const p = MarshalPackage
	udt := UDTOf("sst3", "ut", []string{"my_int", "my_text"}, []*Type{Int, Text}, true)
	cases := []struct {
		typ  *Type
		want string
	}{
		{Int, p + "Int32Type"},
		{Varint, p + "IntegerType"},
		{Date, p + "SimpleDateType"},
		{Empty, p + "EmptyType"},
		{ReversedOf(Int), p + "ReversedType(" + p + "Int32Type)"},
		{ListOf(Text, false), p + "ListType(" + p + "UTF8Type)"},
		{MapOf(Int, Text, true), p + "FrozenType(" + p + "MapType(" + p + "Int32Type," + p + "UTF8Type))"},
		{ListOf(ListOf(Int, true), true), p + "FrozenType(" + p + "ListType(" + p + "ListType(" + p + "Int32Type)))"},
		{ListOf(ListOf(Int, true), false), p + "ListType(" + p + "FrozenType(" + p + "ListType(" + p + "Int32Type)))"},
		{TupleOf(Int, ListOf(Int, true)), p + "TupleType(" + p + "Int32Type," + p + "ListType(" + p + "Int32Type))"},
		{udt, p + "FrozenType(" + p + "UserType(sst3,7574,6d795f696e74:" + p + "Int32Type,6d795f74657874:" + p + "UTF8Type))"},
		{UDTOf("ks", "u", []string{"l"}, []*Type{ListOf(Int, false)}, false),
			p + "UserType(ks,75,6c:" + p + "FrozenType(" + p + "ListType(" + p + "Int32Type)))"},
		{ReversedOf(SetOf(Int, true)), p + "ReversedType(" + p + "FrozenType(" + p + "SetType(" + p + "Int32Type)))"},
		{CustomType(p + "DateType"), p + "DateType"},
	}
	for _, c := range cases {
		if got := c.typ.MarshalName(); got != c.want {
			t.Errorf("%s.MarshalName():\n got %s\nwant %s", c.typ, got, c.want)
		}
		back, err := ParseMarshalName(c.want)
		if err != nil {
			t.Errorf("ParseMarshalName(%s): %v", c.want, err)
			continue
		}
		if !back.Equal(c.typ) {
			t.Errorf("ParseMarshalName(%s) = %s, want %s", c.want, back, c.typ)
		}
	}
}

func TestParseMarshalNameLenient(t *testing.T) {
	typ, err := ParseMarshalName(" MapType( Int32Type , org.apache.cassandra.db.marshal.UTF8Type ) ")
	if err != nil {
		t.Fatal(err)
	}
	if !typ.Equal(MapOf(Int, Text, false)) {
		t.Fatalf("got %s", typ)
	}
	dyn := "org.apache.cassandra.db.marshal.DynamicCompositeType(a=>BytesType,b=>UTF8Type)"
	if _, err := ParseMarshalName(dyn); !errors.Is(err, ErrUnknownType) {
		t.Fatalf("DynamicCompositeType without the opt-in: %v, want ErrUnknownType", err)
	}
	custom, err := TypeOptions{OpaqueUnknownTypes: true}.ParseMarshalName(dyn)
	if err != nil {
		t.Fatal(err)
	}
	if custom.Kind != KindCustom || custom.MarshalName() != "org.apache.cassandra.db.marshal.DynamicCompositeType(a=>BytesType,b=>UTF8Type)" {
		t.Fatalf("custom: %+v", custom)
	}
	short, err := ParseMarshalName("LexicalUUIDType")
	if err != nil || short.Custom != MarshalPackage+"LexicalUUIDType" || short.FixedLength() != 16 {
		t.Fatalf("LexicalUUIDType: %+v %v", short, err)
	}
	for _, bad := range []string{"", "(", "ListType(", "ListType(Int32Type", "MapType(Int32Type)",
		"ListType(Int32Type,Int32Type)", "UserType(ks,zz,61:Int32Type)", "UserType(ks,61,61 Int32Type)",
		"Int32Type)", "CompositeType(Int32Type)", "ReversedType()", "X(((", strings.Repeat("ListType(", 100) + "Int32Type" + strings.Repeat(")", 100)} {
		if typ, err := ParseMarshalName(bad); err == nil {
			t.Errorf("ParseMarshalName(%q) = %s, want an error", bad, typ)
		}
	}
}

func FuzzParseMarshalName(f *testing.F) {
	for _, s := range []string{"org.apache.cassandra.db.marshal.Int32Type", "FrozenType(MapType(Int32Type,UTF8Type))",
		"UserType(ks,75,6c:FrozenType(ListType(Int32Type)))", "TupleType(Int32Type,BytesType)", "ReversedType(TimeUUIDType)",
		"org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)",
		"VectorType(UTF8Type, 2)", "VectorType(VectorType(Int32Type , 2) , 2)", "VectorType(ListType(Int32Type) , 2)",
		"FrozenType(ListType(VectorType(FrozenType(ListType(Int32Type)) , 2)))", "ReversedType(VectorType(DoubleType,4))",
		"VectorType(FloatType , 0)", "VectorType(FloatType , 2147483648)", "com.example.MyType", "DateType", "LexicalUUIDType"} {
		f.Add(s)
	}
	if all, pks, err := collectHeaderTypeStrings(testdata.Root()); err == nil {
		for _, s := range append(all, pks...) {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseMarshalName(s)
		if err != nil {
			if _, err := ParseMarshalNames(s); err == nil && !strings.Contains(s, "CompositeType") {
				t.Fatalf("ParseMarshalNames accepts %q that ParseMarshalName rejects", s)
			}
			return
		}
		name := typ.MarshalName()
		again, err := ParseMarshalName(name)
		if err != nil {
			t.Fatalf("re-parse of %q (from %q): %v", name, s, err)
		}
		// A vector's element keeps its declared frozenness, which the name
		// shows only outside a frozen collection, tuple or UDT (there
		// Cassandra prints every nested type without FrozenType): a
		// FrozenType element written there parses as a frozen element and
		// prints without it, so only the name is stable.
		if !strings.Contains(name, "VectorType") && !again.Equal(typ) || again.MarshalName() != name {
			t.Fatalf("unstable: %q -> %q -> %q", s, name, again.MarshalName())
		}
		if scylla := typ.MarshalNameStyle(MarshalScylla); !strings.Contains(name, "VectorType") && scylla != name {
			t.Fatalf("ScyllaDB spelling %q differs from %q without a vector", scylla, name)
		} else if back, err := ParseMarshalName(scylla); err != nil || back.MarshalName() != name {
			t.Fatalf("ScyllaDB spelling %q: %v, %v", scylla, back, err)
		}
		_ = typ.String()
	})
}
