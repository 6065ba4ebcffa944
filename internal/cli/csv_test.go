package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/mutation"
)

// writeBenchSchema writes BenchmarkSchema (plus options) into dir.
func writeBenchSchema(t testing.TB, dir, with string) string {
	t.Helper()
	path := filepath.Join(dir, "schema.cql")
	s := BenchmarkSchema
	if with != "" {
		s = strings.TrimSuffix(strings.TrimSpace(s), ";") + " WITH " + with + ";\n"
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// generateCSV writes n generated rows into dir/rows.csv.
func generateCSV(t testing.TB, dir string, n int64, perPartition int) string {
	t.Helper()
	path := filepath.Join(dir, "rows.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := GenerateCSV(&Env{Stdout: f}, n, perPartition); err != nil {
		t.Fatal(err)
	}
	return path
}

// countRows dumps the SSTables of dir and counts partitions and rows.
func countRows(t *testing.T, dir, schemaFile string) (partitions, rows int) {
	t.Helper()
	descs, err := resolveSSTables([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	table, err := loadTable(schemaFile, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range descs {
		var out bytes.Buffer
		if err := Dump(&Env{Stdout: &out}, DumpOptions{SSTable: d.Path("Data.db"), Schema: schemaFile, Canonical: true, Lines: true}); err != nil {
			t.Fatal(err)
		}
		parts, _, err := jsondump.DecodeAll(&out, table, jsondump.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			partitions++
			rows += len(p.Rows)
		}
	}
	return partitions, rows
}

// TestCSVRoundTrip: generated CSV rows -> write -> verify -> dump gives the
// rows back, in one SSTable or, with small memtables and a size cap,
// several.
func TestCSVRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name            string
		memtable, maxSS int64
		minSSTables     int
		with            string
	}{
		{name: "one", minSSTables: 1},
		{name: "memtable-flushes", memtable: 1 << 20, minSSTables: 2, with: "compression = {'class': 'SnappyCompressor'}"},
		// The cap is checked against the bytes that reached the file, which
		// the writer's partition sink (1 MiB of batches) and Data.db writer
		// (1 MiB) hold back.
		{name: "size-cap", maxSS: 64 << 10, minSSTables: 2, with: "compression = {'enabled': false}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			schemaFile := writeBenchSchema(t, dir, tc.with)
			in := generateCSV(t, dir, 60000, 50)
			out := filepath.Join(dir, "out")
			var stdout, stderr bytes.Buffer
			sum, err := Write(context.Background(), &Env{Stdout: &stdout, Stderr: &stderr},
				WriteOptions{Schema: schemaFile, CSV: in, Out: out, MemtableSize: tc.memtable, MaxSSTableSize: tc.maxSS})
			if err != nil {
				t.Fatalf("write: %v\n%s", err, stderr.String())
			}
			if len(sum.Results) < tc.minSSTables {
				t.Errorf("%d SSTables, want at least %d", len(sum.Results), tc.minSSTables)
			}
			if got := strings.Count(stdout.String(), "-big-Data.db\n"); got != len(sum.Results) {
				t.Errorf("stdout lists %d Data.db paths for %d SSTables: %q", got, len(sum.Results), stdout.String())
			}
			if !strings.Contains(stderr.String(), "60,000 rows") {
				t.Errorf("no summary line on stderr: %q", stderr.String())
			}
			if tc.maxSS > 0 {
				for _, r := range sum.Results[:len(sum.Results)-1] {
					if r.DataFileSize < tc.maxSS || r.DataFileSize > tc.maxSS+(2<<20)+(64<<10) {
						t.Errorf("%s: Data.db of %d bytes with a cap of %d", r.Descriptor, r.DataFileSize, tc.maxSS)
					}
				}
			}
			if err := Verify(&Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}, VerifyOptions{SSTables: []string{out}}); err != nil {
				t.Fatalf("verify: %v\n%s", err, stderr.String())
			}
			if tc.memtable == 0 {
				// One memtable: every partition once.
				if p, r := countRows(t, out, schemaFile); p != 1200 || r != 60000 {
					t.Errorf("dump has %d partitions and %d rows, want 1200 and 60000", p, r)
				}
			} else if _, r := countRows(t, out, schemaFile); r != 60000 {
				t.Errorf("dump has %d rows, want 60000", r)
			}
		})
	}
}

// TestCSVValues: every option and the value forms of several types; the
// dump shows what an INSERT of the same values writes.
func TestCSVValues(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "schema.cql")
	os.WriteFile(schemaFile, []byte(`CREATE TABLE ks.t (pk text, ck int, s int static, b boolean, d double, ts timestamp,
		u uuid, l frozen<list<int>>, m frozen<map<text, int>>, tu tuple<int, text>, PRIMARY KEY (pk, ck));`), 0o644)
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte(strings.Join([]string{
		"ck;pk;b;d;ts;u;l;m;tu;s",
		"1;a;true;1.5;2020-01-02 03:04:05.678Z;5d8ad0e2-7c1e-4a0f-9c4e-2b6d2b0c9d11;[1, 2, 3];{'x': 1, 'y': 2};(7, 'seven');NULL",
		"2;a;false;-2e3;1577934245678;NULL;[];{};(8, 'it''s');42",
	}, "\n")+"\n"), 0o644)
	out := filepath.Join(dir, "out")
	now := time.Unix(1600000000, 0)
	_, err := Write(context.Background(), &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, WriteOptions{
		Schema: schemaFile, CSV: in, Out: out, Timestamp: 1600000000000000, Now: now,
		CSVOptions: CSVOptions{Header: true, Delimiter: ';', NullString: "NULL", NullStringSet: true, TTL: 3600},
	})
	if err != nil {
		t.Fatal(err)
	}
	var dump bytes.Buffer
	if err := Dump(&Env{Stdout: &dump}, DumpOptions{SSTable: out, Schema: schemaFile, Lines: true, RawTimestamps: true}); err != nil {
		t.Fatal(err)
	}
	got := dump.String()
	for _, want := range []string{
		`"clustering":[1]`, `"liveness_info":{"tstamp":"1600000000000000","ttl":3600,"expires_at":"1600003600"`,
		`{"name":"b","value":true}`, `{"name":"d","value":1.5}`, `{"name":"ts","value":"2020-01-02 03:04:05.678Z"}`,
		`{"name":"u","value":"5d8ad0e2-7c1e-4a0f-9c4e-2b6d2b0c9d11"}`, `{"name":"l","value":[1, 2, 3]}`,
		`{"name":"m","value":{"x": 1, "y": 2}}`, `{"name":"tu","value":[7, "seven"]}`,
		`{"name":"d","value":-2000.0}`, `{"name":"ts","value":"2020-01-02 03:04:05.678Z"}`,
		`{"name":"u","deletion_info":{"local_delete_time":"1600000000"}}`, `{"name":"tu","value":[8, "it's"]}`,
		// s is null in the first record and 42 in the second, at the same
		// timestamp: the tombstone wins, as in Cassandra.
		`{"name":"s","deletion_info":{"local_delete_time":"1600000000"}`,
	} {
		if !strings.Contains(got, strings.ReplaceAll(want, " ", "")) && !strings.Contains(got, want) {
			t.Errorf("dump lacks %s:\n%s", want, got)
		}
	}
}

// TestCSVErrors: every bad input is an error naming the file and line (or
// a usage error for bad options).
func TestCSVErrors(t *testing.T) {
	dir := t.TempDir()
	schemaFile := writeBenchSchema(t, dir, "")
	for _, tc := range []struct {
		name, csv string
		opts      CSVOptions
		want      string
		usage     bool
	}{
		{name: "not an int", csv: "1,1,a\n2,x,b\n", want: "in.csv:2: column ck (int): \"x\" is not an integer"},
		{name: "out of range", csv: "1,1,a\n2,2,b\n3,99999999999,c\n", want: "in.csv:3: column ck (int): \"99999999999\" is out of range"},
		{name: "null key", csv: "1,1,a\n,2,b\n", want: "in.csv:2: partition key column pk is null"},
		{name: "null clustering", csv: "1,,a\n", want: "in.csv:1: clustering column ck is null"},
		{name: "field count", csv: "1,1,a\n2,2\n", want: "in.csv:2: wrong number of fields"},
		{name: "bad quote", csv: "1,1,a\n2,2,\"b\n", want: "in.csv:2"},
		{name: "header line numbers", csv: "pk,ck,v\n1,1,a\n1,y,b\n", opts: CSVOptions{Header: true}, want: "in.csv:3: column ck"},
		{name: "unknown column", csv: "1,1,a\n", opts: CSVOptions{Columns: []string{"pk", "ck", "nope"}}, want: `CSV column "nope" is not a column`, usage: true},
		{name: "missing key", csv: "1,a\n", opts: CSVOptions{Columns: []string{"ck", "v"}}, want: "lack partition key column pk", usage: true},
		{name: "bad delimiter", csv: "1,1,a\n", opts: CSVOptions{Delimiter: '"'}, want: "cannot separate", usage: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.csv")
			os.WriteFile(in, []byte(tc.csv), 0o644)
			out := filepath.Join(t.TempDir(), "out")
			_, err := Write(context.Background(), &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}},
				WriteOptions{Schema: schemaFile, CSV: in, Out: out, CSVOptions: tc.opts})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if wantCode := map[bool]int{true: ExitUsage, false: ExitData}[tc.usage]; ExitCode(err) != wantCode {
				t.Errorf("exit code %d, want %d", ExitCode(err), wantCode)
			}
			if descs, _ := resolveSSTables([]string{out}); len(descs) > 0 {
				t.Errorf("a failed write left SSTables: %v", descs)
			}
		})
	}
}

// TestWriteRemovesOutputOnLateError: an error after a flush removes the
// SSTables already written, so a failed write leaves nothing.
func TestWriteRemovesOutputOnLateError(t *testing.T) {
	dir := t.TempDir()
	schemaFile := writeBenchSchema(t, dir, "")
	var b strings.Builder
	for i := 0; i < 60000; i++ {
		fmt.Fprintf(&b, "%d,%d,value-%d\n", i/10, i%10, i)
	}
	b.WriteString("1,bad,x\n")
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte(b.String()), 0o644)
	out := filepath.Join(dir, "out")
	_, err := Write(context.Background(), &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}},
		WriteOptions{Schema: schemaFile, CSV: in, Out: out, MemtableSize: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "in.csv:60001:") {
		t.Fatalf("error %v, want one at line 60001", err)
	}
	names, _ := os.ReadDir(out)
	if len(names) != 0 {
		t.Errorf("a failed write left %d files in the output directory", len(names))
	}
}

// TestCSVBatchingKeepsSemantics: records out of clustering order, repeated
// rows and interleaved partitions give the same SSTable content as the
// same records sorted, and a repeated cell at one timestamp reconciles as
// in Cassandra (the greater value wins).
func TestCSVBatchingKeepsSemantics(t *testing.T) {
	dir := t.TempDir()
	schemaFile := writeBenchSchema(t, dir, "")
	write := func(name, csv string) []byte {
		in := filepath.Join(dir, name+".csv")
		os.WriteFile(in, []byte(csv), 0o644)
		out := filepath.Join(dir, name)
		if _, err := Write(context.Background(), &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}},
			WriteOptions{Schema: schemaFile, CSV: in, Out: out, Timestamp: 1000}); err != nil {
			t.Fatal(err)
		}
		var dump bytes.Buffer
		if err := Dump(&Env{Stdout: &dump}, DumpOptions{SSTable: out, Schema: schemaFile, Canonical: true}); err != nil {
			t.Fatal(err)
		}
		return dump.Bytes()
	}
	shuffled := write("shuffled", "1,3,c\n1,1,a\n2,1,x\n1,2,b\n1,2,a\n2,1,y\n1,3,c\n")
	sorted := write("sorted", "1,1,a\n1,2,b\n1,3,c\n2,1,y\n")
	if !bytes.Equal(shuffled, sorted) {
		t.Errorf("shuffled input:\n%s\nsorted input:\n%s", shuffled, sorted)
	}
}

// TestWriteInterrupted: cancelling the context (SIGINT in the command)
// stops the write and removes what it wrote.
func TestWriteInterrupted(t *testing.T) {
	dir := t.TempDir()
	schemaFile := writeBenchSchema(t, dir, "")
	in := generateCSV(t, dir, 200_000, 100)
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the first SSTable of the run exists.
		for {
			if names, _ := filepath.Glob(filepath.Join(out, "*TOC.txt")); len(names) > 0 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := Write(ctx, quietEnv(), WriteOptions{Schema: schemaFile, CSV: in, Out: out, MemtableSize: 1 << 20})
	cancel()
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("error %v, want an interruption", err)
	}
	if names, _ := os.ReadDir(out); len(names) != 0 {
		t.Errorf("an interrupted write left %d files", len(names))
	}
}

// TestCSVNonFrozenCollections: a CSV record with non-frozen set, map and
// UDT columns writes exactly what the same INSERT written as CQL writes
// (previous content deleted at timestamp - 1, one cell per element); list
// elements get increasing time UUID paths.
func TestCSVNonFrozenCollections(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "schema.cql")
	os.WriteFile(schemaFile, []byte(`CREATE TYPE ks.addr (street text, no int);
CREATE TABLE ks.c (pk int, ck int, s set<int>, m map<text, int>, a addr, l list<text>, PRIMARY KEY (pk, ck));`), 0o644)
	csvFile := filepath.Join(dir, "in.csv")
	os.WriteFile(csvFile, []byte("1,1,\"{3, 1, 2}\",\"{'b': 2, 'a': 1}\",\"{street: 'Main', no: null}\",\"['x', 'y', 'z']\"\n2,1,,{},,[]\n"), 0o644)
	cqlFile := filepath.Join(dir, "in.cql")
	os.WriteFile(cqlFile, []byte("INSERT INTO c (pk, ck, s, m, a) VALUES (1, 1, {3, 1, 2}, {'b': 2, 'a': 1}, {street: 'Main', no: null});\n"+
		"INSERT INTO c (pk, ck, s, m, a) VALUES (2, 1, null, {}, null);\n"), 0o644)
	opts := WriteOptions{Schema: schemaFile, Timestamp: 1_600_000_000_000_000, Now: time.Unix(1_600_000_000, 0)}
	dumps := map[string]string{}
	for _, in := range []string{"csv", "cql"} {
		o := opts
		o.Out = filepath.Join(dir, "out-"+in)
		if in == "csv" {
			o.CSV = csvFile
			o.CSVOptions.Columns = []string{"pk", "ck", "s", "m", "a", "l"}
		} else {
			o.CQL = cqlFile
		}
		if _, err := Write(context.Background(), quietEnv(), o); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var out bytes.Buffer
		if err := Dump(&Env{Stdout: &out}, DumpOptions{SSTable: o.Out, Schema: schemaFile, Canonical: true, Lines: true}); err != nil {
			t.Fatal(err)
		}
		dumps[in] = out.String()
	}
	// Drop the list cells (their paths are time UUIDs of the run) and the
	// list's deletion from the CSV dump before comparing.
	table, err := loadTable(schemaFile, "")
	if err != nil {
		t.Fatal(err)
	}
	parts, _, err := jsondump.DecodeAll(strings.NewReader(dumps["csv"]), table, jsondump.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lists [][]string
	var stripped bytes.Buffer
	enc := jsondump.NewEncoder(&stripped, table, jsondump.EncodeOptions{Format: jsondump.FormatCanonical, Layout: jsondump.LayoutLines})
	for _, p := range parts {
		for i := range p.Rows {
			r := &p.Rows[i]
			var kept []mutation.Cell
			var elems []string
			var prev []byte
			for _, c := range r.Cells {
				if c.Column.Name == "l" {
					if prev != nil && bytes.Compare(prev[:8], c.Path[:8]) == 0 {
						t.Errorf("list paths not distinct")
					}
					prev = c.Path
					elems = append(elems, string(c.Value))
					continue
				}
				kept = append(kept, c)
			}
			r.Cells = kept
			var cds []mutation.ComplexDeletion
			for _, cd := range r.ComplexDeletions {
				if cd.Column.Name != "l" {
					cds = append(cds, cd)
				}
			}
			r.ComplexDeletions = cds
			lists = append(lists, elems)
		}
		if err := enc.Encode(p, -1); err != nil {
			t.Fatal(err)
		}
	}
	enc.Close()
	if diff, err := jsondump.Diff(table, &stripped, strings.NewReader(dumps["cql"]), jsondump.DiffOptions{}); err != nil || diff != "" {
		t.Errorf("CSV and CQL inserts differ: %v %s\nCSV: %s\nCQL: %s", err, diff, stripped.String(), dumps["cql"])
	}
	if len(lists) != 2 || strings.Join(lists[0], ",") != "x,y,z" && strings.Join(lists[1], ",") != "x,y,z" {
		t.Errorf("list elements %q, want x,y,z in order", lists)
	}
}
