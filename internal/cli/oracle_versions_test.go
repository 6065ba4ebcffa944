package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/oracle"
	"github.com/castable-db/castable/sstables"
)

// allTypesSchema is a table of every CQL type castable knows, with
// collections (frozen and not), a UDT (frozen and not), a tuple, a static
// column and a clustering key.
const allTypesSchema = `CREATE TYPE ks.addr (street text, num int);
CREATE TABLE ks.all_types (
  pk int, ck text,
  st text static,
  c_ascii ascii, c_bigint bigint, c_blob blob, c_boolean boolean, c_date date, c_decimal decimal,
  c_double double, c_duration duration, c_float float, c_inet inet, c_int int, c_smallint smallint,
  c_text text, c_time time, c_timestamp timestamp, c_timeuuid timeuuid, c_tinyint tinyint, c_uuid uuid,
  c_varint varint,
  c_list list<int>, c_set set<text>, c_map map<text, int>, c_frozen frozen<list<int>>,
  c_udt frozen<addr>, c_udt_nf addr, c_tuple tuple<int, text>,
  PRIMARY KEY (pk, ck));`

// allTypesData exercises every type, empty and null values, TTLs, statics
// and every kind of deletion: partition, row, range (open and closed
// bounds), cell, whole collection (a complex deletion), collection element.
const allTypesData = `INSERT INTO ks.all_types (pk, ck, st, c_ascii, c_bigint, c_blob, c_boolean, c_date, c_decimal, c_double, c_duration, c_float, c_inet, c_int, c_smallint, c_text, c_time, c_timestamp, c_timeuuid, c_tinyint, c_uuid, c_varint, c_list, c_set, c_map, c_frozen, c_udt, c_udt_nf, c_tuple)
  VALUES (1, 'a', 'static one', 'ascii', -9000000000, 0xcafe, true, '2024-02-29', 3.14159, -2.5, 1mo2d3h, 1.5, '192.168.0.1', 42, -7, 'text ü', '13:14:15.123456789', '2024-05-06T07:08:09.010Z', 50554d6e-29bb-11e5-b345-feff819cdc9f, 8, 01234567-0123-0123-0123-0123456789ab, 123456789012345678901234567890, [1, 2, 3], {'x', 'y'}, {'k': 1, 'l': 2}, [4, 5], {street: 'Main', num: 1}, {street: 'Side', num: 2}, (7, 'seven'));
INSERT INTO ks.all_types (pk, ck, c_blob, c_text, c_varint, c_decimal) VALUES (1, 'b', 0x, '', 0, 0.0);
INSERT INTO ks.all_types (pk, ck, c_int) VALUES (1, 'c', 1) USING TTL 86400;
UPDATE ks.all_types USING TTL 3600 SET c_text = 'expiring' WHERE pk = 1 AND ck = 'd';
INSERT INTO ks.all_types (pk, ck, c_int, c_list, c_map) VALUES (2, 'a', 2, [9], {'z': 26});
DELETE c_int FROM ks.all_types WHERE pk = 2 AND ck = 'a';
DELETE c_map['z'] FROM ks.all_types WHERE pk = 2 AND ck = 'a';
UPDATE ks.all_types SET c_list = [10, 11] WHERE pk = 2 AND ck = 'b';
DELETE FROM ks.all_types WHERE pk = 2 AND ck = 'c';
DELETE FROM ks.all_types WHERE pk = 3;
INSERT INTO ks.all_types (pk, ck, c_int) VALUES (4, 'a', 1);
INSERT INTO ks.all_types (pk, ck, c_int) VALUES (4, 'e', 5);
DELETE FROM ks.all_types WHERE pk = 4 AND ck > 'b' AND ck <= 'd';
DELETE FROM ks.all_types WHERE pk = 4 AND ck >= 'x';
UPDATE ks.all_types SET st = 'static only' WHERE pk = 5;
INSERT INTO ks.all_types (pk, ck, c_set) VALUES (6, 'a', {}) ;
UPDATE ks.all_types SET c_udt_nf = null WHERE pk = 6 AND ck = 'b';
`

// laSchema and laData are allTypesSchema and allTypesData without what
// Cassandra 2.2 has not: duration and non-frozen UDTs.
var (
	laSchema = strings.NewReplacer(" c_duration duration,", "", " c_udt_nf addr,", "").Replace(allTypesSchema)
	laData   = strings.NewReplacer(" c_duration,", "", " 1mo2d3h,", "", " c_udt_nf,", "", " {street: 'Side', num: 2},", "",
		"UPDATE ks.all_types SET c_udt_nf = null WHERE pk = 6 AND ck = 'b';", "UPDATE ks.all_types SET c_udt = null WHERE pk = 6 AND ck = 'b';").Replace(allTypesData)
)

// TestCassandraReadsEveryVersion: the SSTables castable writes in each
// big or 2.x version open in the readers of every Cassandra release that
// reads it (version.Version.ReadBy: 3.11's for la … me, 5.0's for ma …
// oa) — and Cassandra's sstabledump JSON of them equals castable's
// dump -t --schema (only 5.0's "table kind" and row "position" aside).
func TestCassandraReadsEveryVersion(t *testing.T) {
	o50, o311 := oracle.Cassandra50(t), oracle.Cassandra311(t)
	dir := t.TempDir()
	files := func(name, schema, data string) (string, string) {
		schemaFile := filepath.Join(dir, name+".cql")
		if err := os.WriteFile(schemaFile, []byte(schema), 0o644); err != nil {
			t.Fatal(err)
		}
		cqlFile := filepath.Join(dir, name+"-data.cql")
		if err := os.WriteFile(cqlFile, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return schemaFile, cqlFile
	}
	allSchema, allData := files("all", allTypesSchema, allTypesData)
	laSchemaFile, laDataFile := files("la", laSchema, laData)
	for _, f := range sstables.Formats(true) {
		v := f.Version()
		if v.Tries() {
			continue // the BTI formats have their own test
		}
		var oracles []*oracle.Oracle
		for _, o := range []*oracle.Oracle{o311, o50} {
			if o.Reads(v) {
				oracles = append(oracles, o)
			}
		}
		if len(oracles) == 0 {
			t.Errorf("%s: no Cassandra release castable tests with reads it", v)
		}
		schemaFile, cqlFile, ddl := allSchema, allData, allTypesSchema
		if v.LegacyCells() {
			schemaFile, cqlFile, ddl = laSchemaFile, laDataFile, laSchema
		}
		t.Run(v.String(), func(t *testing.T) {
			out := filepath.Join(dir, v.String())
			if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: out, Format: v.String(),
				Generation: 1, Timestamp: 1700000000000000, ColumnIndexSizeKB: 1}); err != nil {
				t.Fatal(err)
			}
			var ours bytes.Buffer
			if err := Dump(&Env{Stdout: &ours, Stderr: io.Discard}, DumpOptions{SSTable: out, Schema: schemaFile, RawTimestamps: true}); err != nil {
				t.Fatal(err)
			}
			for _, o := range oracles {
				res, err := o.Read(out, ddl, oracle.Options{JSON: true})
				if err != nil {
					t.Fatal(err)
				}
				diff, err := oracle.DiffDumps(ours.Bytes(), res.Stdout)
				if err != nil {
					t.Fatal(err)
				}
				if diff != "" {
					t.Errorf("%s sees other data than castable in %s:\n%s", o.Name, v, diff)
				}
			}
		})
	}
}

// TestCassandraReadsBTI: the da SSTables castable writes open in Cassandra
// 5.0's own BTI reader, which sees the same data as castable's dump: every
// CQL type, collections, statics and every kind of deletion (allTypesData);
// a partition of 4,000 rows of 1 KiB with a 1 KiB column index, whose Rows.db trie
// spans several pages; and 6,000 partitions, whose Partitions.db trie
// spans several pages.
func TestCassandraReadsBTI(t *testing.T) {
	o50 := oracle.Cassandra50(t)
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "all.cql")
	if err := os.WriteFile(schemaFile, []byte(allTypesSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	var data strings.Builder
	data.WriteString(allTypesData)
	for i := 0; i < 4000; i++ {
		fmt.Fprintf(&data, "INSERT INTO ks.all_types (pk, ck, c_text, c_list) VALUES (7, 'row %05d of a large partition', '%s', [%d]);\n", i, strings.Repeat("v", 1000), i)
	}
	data.WriteString("DELETE FROM ks.all_types WHERE pk = 7 AND ck > 'row 00100' AND ck < 'row 00120';\n")
	for i := 0; i < 6000; i++ {
		fmt.Fprintf(&data, "INSERT INTO ks.all_types (pk, ck, c_int) VALUES (%d, 'x', %d);\n", 1000+i, i)
	}
	cqlFile := filepath.Join(dir, "data.cql")
	if err := os.WriteFile(cqlFile, []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "da")
	res, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: out, Format: "da",
		Generation: 1, Timestamp: 1700000000000000, ColumnIndexSizeKB: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 {
		t.Fatalf("%d SSTables written", len(res.Results))
	}
	desc := res.Results[0].Descriptor
	for _, c := range []sstables.Component{sstables.ComponentPartitions, sstables.ComponentRows} {
		st, err := os.Stat(desc.Path(c))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() <= 2*4096 {
			t.Fatalf("%s of %d bytes: not a trie of several pages", c, st.Size())
		}
	}
	var ours bytes.Buffer
	if err := Dump(&Env{Stdout: &ours, Stderr: io.Discard}, DumpOptions{SSTable: out, Schema: schemaFile, RawTimestamps: true}); err != nil {
		t.Fatal(err)
	}
	got, err := o50.Read(out, allTypesSchema, oracle.Options{JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, want := bytes.Count(got.Stdout, []byte(`"partition"`)), res.Results[0].Partitions; int64(n) != want {
		t.Fatalf("%s printed %d partitions, castable wrote %d", o50.Name, n, want)
	}
	diff, err := oracle.DiffDumps(ours.Bytes(), got.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("%s sees other data than castable in da:\n%s", o50.Name, diff)
	}
}
