package cql

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/schema"
)

const vectorSchema = `
CREATE TYPE ks.pt (x int, y int);
CREATE TABLE ks.v (
  k vector<int, 2>, c vector<text, 2>, d vector<float, 2>,
  s vector<float, 2> STATIC,
  f vector<float, 3>, t vector<text, 2>, n vector<vector<int, 2>, 2>, l vector<list<int>, 2>,
  fl vector<frozen<list<int>>, 2>, u vector<frozen<pt>, 1>, li list<vector<int, 2>>, m map<text, vector<float, 2>>,
  PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (c ASC, d DESC);
`

func TestVectorSchema(t *testing.T) {
	s, err := ParseSchema(vectorSchema)
	if err != nil {
		t.Fatal(err)
	}
	tab := s.Table("ks.v")
	for name, want := range map[string]string{
		"k": "vector<int, 2>", "c": "vector<text, 2>", "d": "vector<float, 2>", "s": "vector<float, 2>",
		"f": "vector<float, 3>", "n": "vector<vector<int, 2>, 2>", "l": "vector<list<int>, 2>",
		"fl": "vector<frozen<list<int>>, 2>", "u": "vector<frozen<ks.pt>, 1>", "li": "list<vector<int, 2>>",
		"m": "map<text, vector<float, 2>>"} {
		c := tab.Column(name)
		if c == nil || c.Type.Unreversed().String() != want {
			t.Errorf("column %s: %v, want %s", name, c, want)
		}
	}
	if !tab.Column("d").Type.Reversed || tab.Column("f").Type.IsComplex() || !tab.Column("li").Type.IsComplex() {
		t.Error("vector columns: reversal and cells")
	}
	// Vectors are single cells: the non-frozen vector<list<int>, 2> is
	// not a complex column, and a vector is allowed in the key.
	for _, bad := range []string{
		"CREATE TABLE ks.b (k int PRIMARY KEY, v vector<float, 0>)",
		"CREATE TABLE ks.b (k int PRIMARY KEY, v vector<float>)",
		"CREATE TABLE ks.b (k int PRIMARY KEY, v vector<list<list<int>>, 2>)",
		"CREATE TABLE ks.b (k int PRIMARY KEY, v 'com.example.NoSuchType')",
	} {
		if _, err := ParseSchema(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	if s, err := ParseSchemaOptions("CREATE TABLE ks.b (k int PRIMARY KEY, v 'com.example.Opaque')", schema.TypeOptions{OpaqueUnknownTypes: true}); err != nil || s.Tables[0].Column("v").Type.Kind != schema.KindCustom {
		t.Errorf("opaque custom class: %v", err)
	}
}

func TestVectorLiterals(t *testing.T) {
	s, err := ParseSchema(vectorSchema)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(s, Options{Now: time.Unix(testNow, 0), DefaultTimestamp: testTS})
	tab := s.Table("ks.v")
	for _, c := range []struct{ col, lit, hex string }{
		{"f", "[1.0, 2.5, -3]", "3f80000040200000c0400000"},
		{"t", "['a', 'bc']", "0161026263"},
		{"t", "['', 'z']", "00017a"},
		{"n", "[[1, 2], [3, 4]]", "00000001000000020000000300000004"},
		{"l", "[[1], [2, 3]]", "0c000000010000000400000001140000000200000004000000020000000400000003"},
		{"fl", "[[5], []]", "0c0000000100000004000000050400000000"},
		{"u", "[{x: 1}]", "0c0000000400000001ffffffff"},
		{"k", "[1, 2]", "0000000100000002"},
		{"d", "[1.5, -2]", "3fc00000c0000000"},
	} {
		term, err := parseTerm(c.lit)
		if err != nil {
			t.Fatal(err)
		}
		col := tab.Column(c.col)
		v, err := b.value(term, col.Type, col.Name)
		if err != nil || hex.EncodeToString(v) != c.hex {
			t.Errorf("%s as %s = %x, %v; want %s", c.lit, col.Type, v, err, c.hex)
		}
	}
	for _, c := range []struct{ col, lit, msg string }{
		{"f", "[1.0, 2.5]", "2 elements, want 3"},
		{"f", "[1.0, 2.5, 3, 4]", "4 elements, want 3"},
		{"f", "[1.0, null, 3]", "null is not supported inside vectors"},
		{"f", "[1.0, 'x', 3]", "invalid string constant"},
		{"f", "{1.0, 2.0, 3.0}", "invalid literal"},
		{"t", "[1, 'a']", "invalid literal"},
		{"n", "[[1], [2, 3]]", "1 elements, want 2"},
		{"f", "0x3f800000", "blob constant"},
	} {
		term, err := parseTerm(c.lit)
		if err == nil {
			col := tab.Column(c.col)
			_, err = b.value(term, col.Type, col.Name)
		}
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s as %s: %v, want %q", c.lit, c.col, err, c.msg)
		}
	}
	// INSERT and UPDATE write a vector as one cell; the list operations
	// are refused, a vector being frozen.
	ms, err := b.Exec(`INSERT INTO ks.v (k, c, d, f, t) VALUES ([1, 2], ['a', 'b'], [0, 0], [1, 2, 3], ['x', 'y']) USING TIMESTAMP 5;
		UPDATE ks.v USING TIMESTAMP 6 SET f = [4, 5, 6], s = [7, 8] WHERE k = [1, 2] AND c = ['a', 'b'] AND d = [0, 0]`)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("%d mutations", len(ms))
	}
	p := ms[1].Partition
	if len(p.Static.Cells) != 1 || hex.EncodeToString(p.Static.Cells[0].Value) != "40e0000041000000" {
		t.Errorf("static vector cell: %+v", p.Static)
	}
	if len(p.Rows) != 1 || len(p.Rows[0].Cells) != 1 || p.Rows[0].Cells[0].Path != nil ||
		hex.EncodeToString(p.Rows[0].Cells[0].Value) != "4080000040a0000040c00000" {
		t.Errorf("vector cell: %+v", p.Rows)
	}
	for _, bad := range []string{
		"UPDATE ks.v SET f = f + [1, 2, 3] WHERE k = [1, 2] AND c = ['a', 'b'] AND d = [0, 0]",
		"UPDATE ks.v SET f[0] = 1 WHERE k = [1, 2] AND c = ['a', 'b'] AND d = [0, 0]",
		"INSERT INTO ks.v (k, c, d) VALUES ([1], ['a', 'b'], [0, 0])",
	} {
		if _, err := b.Exec(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
