package export_test

import (
	"bytes"
	"testing"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/schema"
)

func TestParseTokenRangeAndKeep(t *testing.T) {
	r, err := export.ParseTokenRange(dht.Murmur3, " (-10, 20] ")
	if err != nil {
		t.Fatal(err)
	}
	if r.Format(dht.Murmur3) != "(-10, 20]" {
		t.Errorf("parsed %s", r.Format(dht.Murmur3))
	}
	for _, bad := range []string{"[1, 2]", "(1, 2)", "(1 2]", "(x, 2]"} {
		if _, err := export.ParseTokenRange(dht.Murmur3, bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	keep := export.Keep([][]byte{[]byte("a")}, []dht.Range{r})
	if keep(dht.Murmur3Token(0), []byte("a")) != true || keep(dht.Murmur3Token(30), []byte("a")) || keep(dht.Murmur3Token(0), []byte("b")) {
		t.Error("keys and ranges must both hold")
	}
	if export.Keep(nil, nil) != nil {
		t.Error("no filter is nil")
	}
}

// TestWritersByHand: the writers' forms of values of a few types, from the
// Writer interface alone.
func TestWritersByHand(t *testing.T) {
	sch, err := cql.ParseSchema("CREATE TABLE ks.t (k int PRIMARY KEY, \"Name\" text, l list<frozen<tuple<int, text>>>, b blob, d double);")
	if err != nil {
		t.Fatal(err)
	}
	tab := sch.Table("ks.t")
	cols, err := export.Columns(tab, export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tuple := schema.AppendTupleField(schema.AppendTupleField(nil, schema.AppendInt(nil, 1)), []byte("it's"))
	list := schema.AppendCollectionValue(schema.AppendCollectionSize(nil, 1), tuple)
	row := [][]byte{schema.AppendInt(nil, 7), []byte("a,b"), list, {0xca, 0xfe}, schema.AppendDouble(nil, 1.5)}
	for _, c := range []struct {
		f    export.Format
		want string
	}{
		{export.CSV, "k,Name,b,d,l\n7,\"a,b\",0xcafe,1.5,\"[(1, 'it''s')]\"\n"},
		{export.JSONLines, `{"k": 7, "\"Name\"": "a,b", "b": "0xcafe", "d": 1.5, "l": [[1, "it's"]]}` + "\n"},
	} {
		var b bytes.Buffer
		w, err := export.NewWriter(&b, cols, export.Options{Format: c.f})
		if err != nil {
			t.Fatal(err)
		}
		// The columns are in SELECT * order: k, then Name, b, d, l by name.
		vals := [][]byte{row[0], row[1], row[3], row[4], row[2]}
		if err := w.Write(vals); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.f, b.String(), c.want)
		}
	}
}
