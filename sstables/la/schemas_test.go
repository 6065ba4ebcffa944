package la

import (
	"testing"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/schema"
)

// tableFromCQL parses one CREATE TABLE statement.
func tableFromCQL(t testing.TB, src string) *schema.Table {
	t.Helper()
	s, err := cql.ParseSchema(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if len(s.Tables) != 1 {
		t.Fatalf("%s: %d tables", src, len(s.Tables))
	}
	return s.Tables[0]
}

// tableDef is a test table as CQL.
type tableDef struct {
	name string
	cql  string
}

func (d tableDef) build(t testing.TB) *schema.Table { return tableFromCQL(t, d.cql) }

// fixtureTables are the schemas of the read corpus, from each folder's
// source.txt ("likely" schemas are inferred there from the data; declared
// types not recorded upstream are chosen to fit the bytes).
var fixtureTables = map[string]tableDef{
	"uncompressed": {"uncompressed", `CREATE TABLE ks.uncompressed (name text PRIMARY KEY, col1 text, col2 int)
		WITH comment = 'Uncompressed data' AND compression = {'sstable_compression': ''};`},
	"compressed": {"cf", `CREATE TABLE ks.cf (name text PRIMARY KEY, col1 text, col2 int)
		WITH compression = {'sstable_compression': 'LZ4Compressor'};`},
	"composite": {"composite", `CREATE TABLE tests.composite (name blob, col1 blob, str1 ascii, str2 ascii,
		str3 ascii, str4 ascii, PRIMARY KEY ((name, col1)));`},
	"set":          {"set", `CREATE TABLE ks.set (key text PRIMARY KEY, favorites set<text>);`},
	"map_pk":       {"map_pk", `CREATE TABLE tests.map_pk (ss frozen<map<blob, blob>> PRIMARY KEY, ns text);`},
	"list_pk":      {"list_pk", `CREATE TABLE tests.list_pk (ss frozen<list<blob>> PRIMARY KEY, ns text);`},
	"ttl":          {"ttl", `CREATE TABLE ks.ttl (key text PRIMARY KEY, age int);`},
	"deleted_cell": {"deleted_cell", `CREATE TABLE ks.deleted_cell (key text PRIMARY KEY, age int);`},
	"static_column": {"test_foo_bar_zed_baz_table", `CREATE TABLE test_foo_bar_zed_baz_ks.test_foo_bar_zed_baz_table (
		test_foo_bar_zed_baz_key text, test_foo_bar_zed_baz_val text, test_foo_bar_zed_baz_static text STATIC,
		PRIMARY KEY (test_foo_bar_zed_baz_key, test_foo_bar_zed_baz_val));`},
	"counter_test": {"counter_test", `CREATE TABLE ks.counter_test (pk int, ck int, c1 counter, c2 counter, PRIMARY KEY (pk, ck));`},
	"promoted_index_read": {"promoted_index_read", `CREATE TABLE ks.promoted_index_read (pk int, ck1 int, ck2 int, v int,
		PRIMARY KEY (pk, ck1, ck2));`},
}
