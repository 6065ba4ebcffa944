package cli

import (
	"bytes"
	"context"
	"fmt"
	"github.com/castable-db/castable/internal/workload"
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

// vectorTypesSchema and vectorTypesData are allTypesSchema and
// allTypesData with Cassandra 5.0's vector columns — fixed-length elements
// (float, a nested vector) and variable-length ones (text, frozen list), a
// static vector, a TTL, a cell deletion — for the versions that hold them
// (version.HasVectorType); vectorKeysSchema and vectorKeysData put vectors
// in the partition key and in both clustering columns, one DESC, with a
// range deletion over vector bounds and enough rows to cut row-index
// blocks. Floats have short decimal forms, which Java 17's Float.toString
// prints as castable does.
var (
	vectorTypesSchema = strings.Replace(allTypesSchema, "  PRIMARY KEY (pk, ck));",
		"  c_vec vector<float, 3>, c_vtext vector<text, 2>, c_vnest vector<vector<int, 2>, 2>, c_vlist vector<frozen<list<int>>, 2>,\n  st_vec vector<float, 2> static,\n  PRIMARY KEY (pk, ck));", 1)
	vectorTypesData = allTypesData + `INSERT INTO ks.all_types (pk, ck, c_vec, c_vtext, c_vnest, c_vlist, st_vec) VALUES (8, 'v', [1.5, -2, 0.25], ['a', ''], [[1, 2], [3, 4]], [[5], []], [3, 4]);
INSERT INTO ks.all_types (pk, ck, c_vtext) VALUES (8, 'x', ['` + strings.Repeat("long ", 40) + `', 'ü']);
UPDATE ks.all_types USING TTL 600 SET c_vec = [0, 0, 1] WHERE pk = 8 AND ck = 'w';
DELETE c_vnest FROM ks.all_types WHERE pk = 8 AND ck = 'x';
UPDATE ks.all_types SET st_vec = [-0.5, 8] WHERE pk = 9;
`
	vectorKeysSchema = workload.VectorKeysSchema
	vectorKeysData   = workload.VectorKeysData()
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
	vecSchema, vecData := files("vec", vectorTypesSchema, vectorTypesData)
	keysSchema, keysData := files("keys", vectorKeysSchema, vectorKeysData)
	for _, f := range sstables.Formats(true) {
		v := f.Version()
		if v.Tries() {
			continue // the BTI formats have their own test
		}
		// Cassandra 3.11 reads 2.2's la and its own ma … me; 5.0 reads ma
		// on, and alone knows vectors.
		var oracles []*oracle.Oracle
		for _, o := range []*oracle.Oracle{o311, o50} {
			if o.Reads(v) {
				oracles = append(oracles, o)
			}
		}
		if len(oracles) == 0 {
			t.Errorf("%s: no Cassandra release castable tests with reads it", v)
		}
		type tableCase struct{ name, schemaFile, cqlFile, ddl string }
		cases := []tableCase{{"all", allSchema, allData, allTypesSchema}}
		switch {
		case v.LegacyCells():
			cases[0] = tableCase{"all", laSchemaFile, laDataFile, laSchema}
		case v.HasVectorType():
			cases = []tableCase{{"vectors", vecSchema, vecData, vectorTypesSchema}, {"vector keys", keysSchema, keysData, vectorKeysSchema}}
			oracles = []*oracle.Oracle{o50}
		}
		t.Run(v.String(), func(t *testing.T) {
			for _, tc := range cases {
				out := filepath.Join(dir, v.String(), strings.ReplaceAll(tc.name, " ", "_"))
				if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: tc.schemaFile, CQL: tc.cqlFile, Out: out, Format: v.String(),
					Generation: 1, Timestamp: 1700000000000000, ColumnIndexSizeKB: 1}); err != nil {
					t.Fatal(err)
				}
				var ours bytes.Buffer
				if err := Dump(&Env{Stdout: &ours, Stderr: io.Discard}, DumpOptions{SSTable: out, Schema: tc.schemaFile, RawTimestamps: true}); err != nil {
					t.Fatal(err)
				}
				for _, o := range oracles {
					res, err := o.Read(out, tc.ddl, oracle.Options{JSON: true})
					if err != nil {
						t.Fatal(err)
					}
					diff, err := oracle.DiffDumps(ours.Bytes(), res.Stdout)
					if err != nil {
						t.Fatal(err)
					}
					if diff != "" {
						t.Errorf("%s sees other data than castable in %s (%s):\n%s", o.Name, v, tc.name, diff)
					}
				}
			}
		})
	}
}

// TestVectorsRefusedByOldVersions: a vector column into a version whose
// Cassandra has no vector type is an error naming the column and the
// version, from write and from convert alike, and nothing is left behind.
func TestVectorsRefusedByOldVersions(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "vec.cql")
	cqlFile := filepath.Join(dir, "vec-data.cql")
	if err := os.WriteFile(schemaFile, []byte(vectorTypesSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cqlFile, []byte(vectorTypesData), 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "oa")
	if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: src, Format: "oa", Generation: 1}); err != nil {
		t.Fatal(err)
	}
	for _, f := range sstables.Formats(true) {
		v := f.Version()
		for _, how := range []string{"write", "convert"} {
			out := filepath.Join(dir, how+"-"+v.String())
			var err error
			if how == "write" {
				_, err = Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: out, Format: v.String(), Generation: 1})
			} else {
				_, err = Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{src}, Out: out, To: v.String(), Generation: 1, Schema: schemaFile})
			}
			if v.HasVectorType() {
				if err != nil {
					t.Errorf("%s %s: %v", how, v, err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), "column st_vec is a vector<float, 2>") || !strings.Contains(err.Error(), "version "+v.String()) ||
				!strings.Contains(err.Error(), "has no vector type") || ExitCode(err) != ExitData {
				t.Errorf("%s %s: %v", how, v, err)
			}
			if descs, _ := resolveSSTables([]string{out}); len(descs) > 0 {
				t.Errorf("%s %s left %v", how, v, descs)
			}
		}
	}
}

// TestCassandraReadsBTI: the da SSTables castable writes open in Cassandra
// 5.0's own BTI reader, which sees the same data as castable's dump: every
// CQL type, collections, statics and every kind of deletion, vectors
// (vectorTypesData) and vectors in both keys (vectorKeysData);
// a partition of 4,000 rows of 1 KiB with a 1 KiB column index, whose Rows.db trie
// spans several pages; and 6,000 partitions, whose Partitions.db trie
// spans several pages.
func TestCassandraReadsBTI(t *testing.T) {
	o50 := oracle.Cassandra50(t)
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "all.cql")
	if err := os.WriteFile(schemaFile, []byte(vectorTypesSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	var data strings.Builder
	data.WriteString(vectorTypesData)
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
	got, err := o50.Read(out, vectorTypesSchema, oracle.Options{JSON: true})
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
	// Vectors in the partition key and both clustering columns (one DESC):
	// Partitions.db and Rows.db hold their byte-comparable forms.
	keysSchema := filepath.Join(dir, "keys.cql")
	keysData := filepath.Join(dir, "keys-data.cql")
	if err := os.WriteFile(keysSchema, []byte(vectorKeysSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keysData, []byte(vectorKeysData), 0o644); err != nil {
		t.Fatal(err)
	}
	keysOut := filepath.Join(dir, "da-keys")
	if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: keysSchema, CQL: keysData, Out: keysOut, Format: "da",
		Generation: 1, Timestamp: 1700000000000000, ColumnIndexSizeKB: 1}); err != nil {
		t.Fatal(err)
	}
	ours.Reset()
	if err := Dump(&Env{Stdout: &ours, Stderr: io.Discard}, DumpOptions{SSTable: keysOut, Schema: keysSchema, RawTimestamps: true}); err != nil {
		t.Fatal(err)
	}
	if got, err = o50.Read(keysOut, vectorKeysSchema, oracle.Options{JSON: true}); err != nil {
		t.Fatal(err)
	}
	if diff, err = oracle.DiffDumps(ours.Bytes(), got.Stdout); err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("%s sees other data than castable in da with vector keys:\n%s", o50.Name, diff)
	}
	// castable's own use of the tries: verify walks them against Data.db,
	// a -k lookup goes through Partitions.db.
	var stderr bytes.Buffer
	if err := Verify(&Env{Stdout: io.Discard, Stderr: &stderr}, VerifyOptions{SSTables: []string{keysOut}, Schema: keysSchema, Strict: true}); err != nil {
		t.Fatalf("verify: %v\n%s", err, stderr.String())
	}
	var one bytes.Buffer
	if err := Dump(&Env{Stdout: &one, Stderr: io.Discard}, DumpOptions{SSTable: keysOut, Schema: keysSchema, Keys: []string{"0000000700000007"}, Canonical: true}); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(one.Bytes(), []byte(`"type":"row"`)) + bytes.Count(one.Bytes(), []byte(`"type": "row"`)); n != 300-19 {
		t.Errorf("dump -k [7, 7]: %d rows, want 281", n)
	}

}
