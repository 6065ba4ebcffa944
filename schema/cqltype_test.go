package schema

import (
	"errors"
	"testing"
)

func TestParseCQLType(t *testing.T) {
	addr := UDTOf("ks", "address", []string{"street", "zip"}, []*Type{Text, Int}, false)
	udts := UDTs{"address": addr, "ks.address": addr}
	cases := []struct {
		in   string
		want *Type
	}{
		{"int", Int},
		{"VARCHAR", Text},
		{" frozen < map < int , text > > ", MapOf(Int, Text, true)},
		{"list<frozen<set<int>>>", ListOf(SetOf(Int, false), false)},
		{"frozen<list<list<int>>>", ListOf(ListOf(Int, true), true)},
		{"map<text, frozen<tuple<int, list<int>>>>", MapOf(Text, TupleOf(Int, ListOf(Int, true)), false)},
		{"tuple<int, text>", TupleOf(Int, Text)},
		{"address", addr},
		{"ks.address", addr},
		{"frozen<address>", addr.Freeze()},
		{"list<frozen<address>>", ListOf(addr, false)},
		{"'org.apache.cassandra.db.marshal.DateType'", CustomType(MarshalPackage + "DateType")},
	}
	for _, c := range cases {
		got, err := ParseCQLType(c.in, udts)
		if err != nil {
			t.Errorf("ParseCQLType(%q): %v", c.in, err)
			continue
		}
		if !got.Equal(c.want) {
			t.Errorf("ParseCQLType(%q) = %s, want %s", c.in, got, c.want)
		}
		// String() parses back to the same type.
		again, err := ParseCQLType(got.String(), udts)
		if err != nil || !again.Equal(got) {
			t.Errorf("re-parse of %s: %v %v", got, again, err)
		}
	}
	for _, bad := range []string{"", "in", "list<int", "list<list<int>>", "map<int>", "frozen<int>", "nope",
		"list<address>", "set<counter>", "int extra", "'unterminated", "\"\"", "map<int,>"} {
		_, err := ParseCQLType(bad, udts)
		var se *TypeSyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseCQLType(%q) = %v, want a TypeSyntaxError", bad, err)
		}
	}
	if ft, err := ParseCQLFieldType("list<int>", nil); err != nil || !ft.Equal(ListOf(Int, true)) {
		t.Errorf("field type %v %v", ft, err)
	}
}
