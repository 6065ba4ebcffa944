package sstables

import (
	"errors"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables/version"
)

func vectorTable(t *testing.T) *schema.Table {
	t.Helper()
	f3, err := schema.VectorOf(schema.Float, 3)
	if err != nil {
		t.Fatal(err)
	}
	nested, err := schema.VectorOf(f3, 2)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := schema.NewTable("ks", "t", []schema.ColumnDef{
		{Name: "k", Type: schema.Int, Kind: schema.PartitionKey},
		{Name: "c", Type: schema.Text, Kind: schema.ClusteringKey},
		{Name: "v", Type: schema.MapOf(schema.Text, nested, false), Kind: schema.Regular},
	}, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// CheckTypes lets a vector column into the versions whose writers have
// the type and names column, type and version otherwise.
func TestCheckTypes(t *testing.T) {
	tab := vectorTable(t)
	plain, err := schema.NewTable("ks", "p", []schema.ColumnDef{{Name: "k", Type: schema.Int, Kind: schema.PartitionKey}}, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range version.All() {
		if err := CheckTypes(v, plain); err != nil {
			t.Errorf("%s: a table without vectors: %v", v, err)
		}
		err := CheckTypes(v, tab)
		if v.HasVectorType() != (err == nil) {
			t.Errorf("%s: CheckTypes = %v", v, err)
		}
		if err != nil {
			for _, want := range []string{"ks.t", "column v", "map<text, vector<vector<float, 3>, 2>>", "version " + v.String(), "nb, nc, oa, da, ms, mt"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %q lacks %q", v, err, want)
				}
			}
		}
	}
}

// The serialization header names vectors as the version's writer spells
// them, and a rewrite keeps the spelling the input shows.
func TestHeaderVectorSpelling(t *testing.T) {
	tab := vectorTable(t)
	cols := tab.Regular
	cass := NewSerializationHeader(tab, DefaultEncodingStats, nil, cols)
	scylla := NewSerializationHeaderStyle(tab, DefaultEncodingStats, nil, cols, schema.MarshalScylla)
	const p = schema.MarshalPackage
	if want := p + "MapType(" + p + "UTF8Type," + p + "VectorType(" + p + "VectorType(" + p + "FloatType , 3) , 2))"; cass.Regular[0].TypeName != want {
		t.Errorf("Cassandra spelling %s", cass.Regular[0].TypeName)
	}
	if want := p + "MapType(" + p + "UTF8Type," + p + "VectorType(" + p + "VectorType(" + p + "FloatType, 3), 2))"; scylla.Regular[0].TypeName != want {
		t.Errorf("ScyllaDB spelling %s", scylla.Regular[0].TypeName)
	}
	for _, h := range []*SerializationHeader{cass, scylla} {
		b := AppendSerializationHeader(nil, h)
		back, n, err := DecodeSerializationHeader(b, false)
		if err != nil || n != len(b) || !back.Regular[0].Type.Equal(cols[0].Type) || back.Regular[0].TypeName != h.Regular[0].TypeName {
			t.Fatalf("decode: %+v %d %v", back, n, err)
		}
		spelled, isScylla := vectorSpelling(back)
		if !spelled || isScylla != (h == scylla) {
			t.Errorf("vectorSpelling = %v, %v", spelled, isScylla)
		}
	}
	if version.MustParse("oa").Profile().ScyllaTypeNames || !version.MustParse("ms").Profile().ScyllaTypeNames {
		t.Error("profiles")
	}
	// A tuple holding a vector: the comma before the dimension decides.
	tu := &SerializationHeader{PartitionKeyType: p + "TupleType(" + p + "VectorType(" + p + "Int32Type , 2)," + p + "Int32Type)"}
	if spelled, isScylla := vectorSpelling(tu); !spelled || isScylla {
		t.Errorf("tuple: %v %v", spelled, isScylla)
	}
}

// A type the header names that castable does not know is an
// UnknownTypeError naming file, offset, column and class — also a
// CorruptionError match — unless opaque types were asked for.
func TestUnknownHeaderType(t *testing.T) {
	var src testdata.SSTable
	var st *Statistics
	for _, ts := range testdata.SSTables(t, "cassandra-legacy") {
		if ts.Version != "oa" || !ts.Has("Statistics.db") {
			continue
		}
		s, err := DecodeStatistics(readTestFile(t, ts.Path("Statistics.db")), version.MustParse("oa"), "x")
		if err == nil && s.Header != nil && len(s.Header.Regular) > 0 {
			src, st = ts, s
			break
		}
	}
	if st == nil {
		t.Skip("no oa SSTable with regular columns in the shared data")
	}
	v := version.MustParse("oa")
	const class = "com.example.cassandra.MyType"
	st.Header.Regular[0].TypeName = class
	st.Header.Regular[0].Type = schema.CustomType(class)
	b, err := AppendStatistics(nil, st, v)
	if err != nil {
		t.Fatal(err)
	}
	path := src.Path("Statistics.db")
	_, err = DecodeStatistics(b, v, path)
	var ute *UnknownTypeError
	if !errors.As(err, &ute) || !errors.Is(err, schema.ErrUnknownType) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("DecodeStatistics: %v, want an UnknownTypeError", err)
	}
	name := st.Header.Regular[0].Name
	if ute.Class != class || ute.Path != path || ute.Component != "Statistics.db" || ute.Offset <= 0 || !strings.Contains(ute.Column, name) {
		t.Errorf("error fields %+v", ute)
	}
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.Path != path || ce.Offset != ute.Offset || !strings.Contains(ce.Reason, class) {
		t.Errorf("no CorruptionError of the same place beneath: %+v", ce)
	}
	if got := string(b[ute.Offset+1 : ute.Offset+1+int64(len(class))]); got != class {
		t.Errorf("offset %d points at %q, not at the type name", ute.Offset, got)
	}
	for _, want := range []string{path, class, name, "--opaque-unknown-types"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	back, err := DecodeStatisticsWith(b, v, path, schema.TypeOptions{OpaqueUnknownTypes: true})
	if err != nil || back.Header.Regular[0].Type.Kind != schema.KindCustom || back.Header.Regular[0].Type.Custom != class {
		t.Fatalf("opaque: %v", err)
	}
	// A damaged known name (no checksum before na) reads the same way.
	if _, _, err := DecodeSerializationHeader(AppendSerializationHeader(nil, &SerializationHeader{PartitionKeyType: "org.apache.cassandra.db.marshal.Int32Typf"}), false); !errors.Is(err, schema.ErrUnknownType) {
		t.Errorf("damaged name: %v", err)
	}
}
