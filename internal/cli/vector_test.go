package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

const vectorCLISchema = `CREATE TABLE ks.v (k int, c vector<float, 2>, f vector<float, 3>, t vector<text, 2>,
  n vector<vector<int, 2>, 2>, s vector<bigint, 1> static, PRIMARY KEY (k, c));`

// Every input castable write reads takes vectors — CQL literals, CSV
// fields as cqlsh prints them, sstabledump JSON (as Cassandra 5.0 prints it
// and canonical) — and they give the same SSTable; the dump reads back into
// the same bytes.
func TestWriteVectorsEveryInput(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(vectorCLISchema), 0o644); err != nil {
		t.Fatal(err)
	}
	cqlFile := filepath.Join(dir, "in.cql")
	os.WriteFile(cqlFile, []byte(`INSERT INTO ks.v (k, c, f, t, n, s) VALUES (1, [0.5, -1], [1, 2.5, -3], ['a', ''], [[1, 2], [3, 4]], [9000000000]);
INSERT INTO ks.v (k, c, f, t, n, s) VALUES (2, [0, 0], null, ['it''s', 'ü'], null, null);
`), 0o644)
	csvFile := filepath.Join(dir, "in.csv")
	os.WriteFile(csvFile, []byte(`k;c;f;t;n;s
1;[0.5, -1];[1, 2.5, -3];['a', ''];[[1, 2], [3, 4]];[9000000000]
2;[0, 0];;['it''s', 'ü'];;
`), 0o644)
	const ts = 1600000000000000
	now := time.Unix(1600000000, 0)
	write := func(name string, o WriteOptions) string {
		t.Helper()
		o.Schema, o.Out, o.Generation, o.Now, o.Format = schemaFile, filepath.Join(dir, name), 1, now, "oa"
		if _, err := Write(context.Background(), quietEnv(), o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return o.Out
	}
	fromCQL := write("cql", WriteOptions{CQL: cqlFile, Timestamp: ts})
	fromCSV := write("csv", WriteOptions{CSV: csvFile, Timestamp: ts, CSVOptions: CSVOptions{Header: true, Delimiter: ';'}})

	var dump, canonical bytes.Buffer
	if err := Dump(&Env{Stdout: &dump, Stderr: io.Discard}, DumpOptions{SSTable: fromCQL, Schema: schemaFile}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"clustering": [[0.5, -1.0]]`, `{"name": "f", "value": [1.0, 2.5, -3.0]`, `{"name": "t", "value": ["a", ""]`,
		`{"name": "n", "value": [[1, 2], [3, 4]]`, `{"name": "s", "value": [9000000000]`, `{"name": "t", "value": ["it's", "ü"]`} {
		if !strings.Contains(dump.String(), want) {
			t.Errorf("dump lacks %s:\n%s", want, dump.String())
		}
	}
	if err := Dump(&Env{Stdout: &canonical, Stderr: io.Discard}, DumpOptions{SSTable: fromCQL, Schema: schemaFile, Canonical: true}); err != nil {
		t.Fatal(err)
	}
	jsonFile := filepath.Join(dir, "dump.json")
	canonFile := filepath.Join(dir, "canonical.json")
	os.WriteFile(jsonFile, dump.Bytes(), 0o644)
	os.WriteFile(canonFile, canonical.Bytes(), 0o644)
	fromJSON := write("json", WriteOptions{Input: jsonFile})
	fromCanonical := write("canonical", WriteOptions{Input: canonFile})

	for _, other := range []string{fromCSV, fromJSON, fromCanonical} {
		for _, c := range []sstables.Component{sstables.ComponentData, sstables.ComponentIndex} {
			a, _ := os.ReadFile(filepath.Join(fromCQL, "oa-1-big-"+string(c)))
			b, _ := os.ReadFile(filepath.Join(other, "oa-1-big-"+string(c)))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s: %s differs from the CQL input's", filepath.Base(other), c)
			}
		}
	}
	// Bad vectors are errors naming the input line and the column.
	for name, in := range map[string]string{
		"short": "k;c\n1;[0.5]\n",
		"null":  "k;c\n1;[0.5, null]\n",
		"text":  "k;c\n1;['x', 'y']\n",
	} {
		bad := filepath.Join(dir, name+".csv")
		os.WriteFile(bad, []byte(in), 0o644)
		_, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CSV: bad, Out: filepath.Join(dir, "bad-"+name),
			CSVOptions: CSVOptions{Header: true, Delimiter: ';'}})
		if err == nil || !strings.Contains(err.Error(), name+".csv:2") || !strings.Contains(err.Error(), "column c") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A marshal class castable does not know fails dump, verify, convert and
// metadata with its name, and reads as opaque bytes with
// --opaque-unknown-types: dumped as hex, verified, converted unchanged.
func TestOpaqueUnknownTypes(t *testing.T) {
	const class = "com.example.cassandra.GeoPointType"
	ddl := "CREATE TABLE ks.geo (k int PRIMARY KEY, p '" + class + "', v int);"
	s, err := cql.ParseSchemaOptions(ddl, schema.TypeOptions{OpaqueUnknownTypes: true})
	if err != nil {
		t.Fatal(err)
	}
	table := s.Tables[0]
	mt := memtable.New(table, memtable.Options{})
	b := cql.NewBuilder(s, cql.Options{DefaultTimestamp: 1600000000000000, Now: time.Unix(1600000000, 0)})
	ms, err := b.Exec("INSERT INTO ks.geo (k, p, v) VALUES (1, 0x0102030405, 7); INSERT INTO ks.geo (k, p) VALUES (2, 0x)")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if err := mt.Apply(m.Partition); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	f, err := sstables.Lookup("oa")
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.NewWriter(table, sstables.WriterOptions{Dir: dir, Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := mt.Freeze().Ascend(w.Append); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	schemaFile := filepath.Join(t.TempDir(), "geo.cql")
	os.WriteFile(schemaFile, []byte(ddl), 0o644)

	checkUnknown := func(what string, err error) {
		t.Helper()
		var ute *sstables.UnknownTypeError
		if !errors.As(err, &ute) || ute.Class != class || !strings.Contains(err.Error(), "Statistics.db") || !strings.Contains(err.Error(), `column "p"`) ||
			!strings.Contains(err.Error(), "--opaque-unknown-types") || ExitCode(err) != ExitData {
			t.Errorf("%s: %v", what, err)
		}
	}
	var out bytes.Buffer
	checkUnknown("dump", Dump(&Env{Stdout: &out, Stderr: io.Discard}, DumpOptions{SSTable: dir}))
	var stderr bytes.Buffer
	verr := Verify(&Env{Stdout: io.Discard, Stderr: &stderr}, VerifyOptions{SSTables: []string{dir}})
	if verr == nil || !strings.Contains(stderr.String(), class) {
		t.Errorf("verify: %v\n%s", verr, stderr.String())
	}
	_, err = Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{dir}, Out: filepath.Join(t.TempDir(), "c"), Generation: 1})
	checkUnknown("convert", err)
	_, err = ReadMetadata(MetadataOptions{SSTable: dir})
	checkUnknown("metadata", err)
	if err := Dump(&Env{Stdout: &out, Stderr: io.Discard}, DumpOptions{SSTable: dir, Schema: schemaFile}); err == nil || !strings.Contains(err.Error(), class) {
		t.Errorf("dump --schema with the custom class: %v", err)
	}

	out.Reset()
	if err := Dump(&Env{Stdout: &out, Stderr: io.Discard}, DumpOptions{SSTable: dir, OpaqueUnknownTypes: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"value": "0x0102030405"`) || !strings.Contains(out.String(), `"value": "0x"`) {
		t.Errorf("opaque dump:\n%s", out.String())
	}
	if err := Verify(&Env{Stdout: io.Discard, Stderr: io.Discard}, VerifyOptions{SSTables: []string{dir}, OpaqueUnknownTypes: true, Schema: schemaFile}); err != nil {
		t.Errorf("opaque verify: %v", err)
	}
	conv := filepath.Join(t.TempDir(), "c")
	if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{dir}, Out: conv, Generation: 1, OpaqueUnknownTypes: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"Data.db", "Index.db", "Statistics.db"} {
		a, _ := os.ReadFile(filepath.Join(dir, "oa-1-big-"+c))
		b, _ := os.ReadFile(filepath.Join(conv, "oa-1-big-"+c))
		if !bytes.Equal(a, b) {
			t.Errorf("opaque convert: %s differs", c)
		}
	}
	if _, err := ReadMetadata(MetadataOptions{SSTable: dir, OpaqueUnknownTypes: true}); err != nil {
		t.Errorf("opaque metadata: %v", err)
	}
}
