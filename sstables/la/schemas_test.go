package la

import (
	"strings"
	"testing"

	"github.com/castable-db/castable/schema"
)

// tableDef declares a test table: columns as "name type [pk|ck|static]",
// in CQL spelling.
type tableDef struct {
	keyspace, name string
	compact        bool
	cols           []string
}

func (d tableDef) build(t testing.TB) *schema.Table {
	t.Helper()
	var defs []schema.ColumnDef
	for _, c := range d.cols {
		f := strings.Fields(c)
		kind := schema.Regular
		typ := strings.Join(f[1:], " ")
		switch f[len(f)-1] {
		case "pk":
			kind, typ = schema.PartitionKey, strings.Join(f[1:len(f)-1], " ")
		case "ck":
			kind, typ = schema.ClusteringKey, strings.Join(f[1:len(f)-1], " ")
		case "static":
			kind, typ = schema.Static, strings.Join(f[1:len(f)-1], " ")
		}
		ty, err := schema.ParseCQLType(typ, nil)
		if err != nil {
			t.Fatalf("column %q: %v", c, err)
		}
		defs = append(defs, schema.ColumnDef{Name: f[0], Type: ty, Kind: kind})
	}
	tab, err := schema.NewTable(d.keyspace, d.name, defs, schema.Options{CompactStorage: d.compact})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// fixtureTables are the schemas of the read corpus, from each folder's
// source.txt (CQL quoted beside each; "likely" schemas are inferred there
// from the data).
var fixtureTables = map[string]tableDef{
	// CREATE TABLE ks.uncompressed (name text PRIMARY KEY, col1 text, col2 int)
	"uncompressed": {"ks", "uncompressed", false, []string{"name text pk", "col1 text", "col2 int"}},
	// likely: CREATE TABLE ks.cf (name text PRIMARY KEY, col1 text, col2 int)
	"compressed": {"ks", "cf", false, []string{"name text pk", "col1 text", "col2 int"}},
	// CREATE TABLE tests.composite (name blob, col1 blob, str1..str4, PRIMARY KEY ((name, col1)))
	"composite": {"tests", "composite", false, []string{"name blob pk", "col1 blob pk", "str1 ascii", "str2 ascii", "str3 ascii", "str4 ascii"}},
	// likely: CREATE TABLE <ks>.<table> (<key> text PRIMARY KEY, favorites set<text>)
	"set": {"ks", "set", false, []string{"key text pk", "favorites set<text>"}},
	// CREATE TABLE tests.map_pk (ss frozen<map<blob, blob>> PRIMARY KEY, ns text)
	"map_pk": {"tests", "map_pk", false, []string{"ss frozen<map<blob, blob>> pk", "ns text"}},
	// CREATE TABLE tests.list_pk (ss frozen<list<blob>> PRIMARY KEY, ns text)
	"list_pk": {"tests", "list_pk", false, []string{"ss frozen<list<blob>> pk", "ns text"}},
	// likely: (<key> text PRIMARY KEY, age int)
	"ttl":          {"ks", "ttl", false, []string{"key text pk", "age int"}},
	"deleted_cell": {"ks", "deleted_cell", false, []string{"key text pk", "age int"}},
	// CREATE TABLE test_foo_bar_zed_baz_ks.test_foo_bar_zed_baz_table (test_foo_bar_zed_baz_key text,
	//   test_foo_bar_zed_baz_val text, test_foo_bar_zed_baz_static text STATIC,
	//   PRIMARY KEY (test_foo_bar_zed_baz_key, test_foo_bar_zed_baz_val))
	"static_column": {"test_foo_bar_zed_baz_ks", "test_foo_bar_zed_baz_table", false, []string{
		"test_foo_bar_zed_baz_key text pk", "test_foo_bar_zed_baz_val text ck", "test_foo_bar_zed_baz_static text static"}},
	// CREATE TABLE ks.counter_test (pk int, ck int, c1 counter, c2 counter, PRIMARY KEY (pk, ck))
	"counter_test": {"ks", "counter_test", false, []string{"pk int pk", "ck int ck", "c1 counter", "c2 counter"}},
	// CREATE TABLE ks.promoted_index_read (pk int, ck1 int, ck2 int, v int, PRIMARY KEY (pk, ck1, ck2))
	"promoted_index_read": {"ks", "promoted_index_read", false, []string{"pk int pk", "ck1 int ck", "ck2 int ck", "v int"}},
}
