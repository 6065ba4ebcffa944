package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/schema"
)

// exportNow is the moment the export tests show (the workload's TTLs of a
// day have not run out by then).
var exportNow = time.Unix(1700000500, 0)

// writeWorkload writes w's statements with castable write into a new
// directory and returns the schema file and the SSTable directory.
func writeWorkload(t testing.TB, w *workload.Workload) (schemaFile, dir string) {
	t.Helper()
	base := t.TempDir()
	schemaFile = filepath.Join(base, "schema.cql")
	cqlFile := filepath.Join(base, "data.cql")
	if err := os.WriteFile(schemaFile, []byte(w.Schema()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cqlFile, []byte(w.CQL()), 0o644); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(base, "sstables")
	if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: dir, Now: exportNow, MaxSSTableSize: 8 << 10}); err != nil {
		t.Fatal(err)
	}
	return schemaFile, dir
}

// runExport exports with opts (Out defaulting to a file in a new
// directory) and returns the output's bytes.
func runExport(t testing.TB, opts ExportOptions) []byte {
	t.Helper()
	if opts.Out == "" {
		opts.Out = filepath.Join(t.TempDir(), "out"+opts.To)
	}
	if opts.Now.IsZero() {
		opts.Now = exportNow
	}
	if _, err := Export(context.Background(), quietEnv(), opts); err != nil {
		t.Fatalf("export %+v: %v", opts, err)
	}
	b, err := os.ReadFile(opts.Out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExportCSVRoundTrip: a table of every type (vectors too) exported as
// CSV, written back with castable write --csv --header and exported again
// gives the same bytes.
func TestExportCSVRoundTrip(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		w := workload.Generate("ks", workload.Options{Seed: seed, Statements: 400, Vectors: true})
		schemaFile, dir := writeWorkload(t, w)
		first := runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, To: "csv"})
		csvFile := filepath.Join(t.TempDir(), "rows.csv")
		if err := os.WriteFile(csvFile, first, 0o644); err != nil {
			t.Fatal(err)
		}
		back := filepath.Join(t.TempDir(), "back")
		if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CSV: csvFile, CSVOptions: CSVOptions{Header: true}, Out: back, Now: exportNow, Timestamp: 1700000400000000}); err != nil {
			t.Fatalf("seed %d: write --csv of the export: %v", seed, err)
		}
		second := runExport(t, ExportOptions{SSTables: []string{back}, Schema: schemaFile, To: "csv"})
		if !bytes.Equal(first, second) {
			t.Errorf("seed %d: the second export differs:\n%s", seed, firstDiff(first, second))
		}
		if bytes.Count(first, []byte("\n")) < 50 {
			t.Errorf("seed %d: only %d lines", seed, bytes.Count(first, []byte("\n")))
		}
	}
	_ = export.CSV
}

// firstDiff shows the first line that differs.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < min(len(la), len(lb)); i++ {
		if !bytes.Equal(la[i], lb[i]) {
			return "line " + itoa(i+1) + ":\n  " + string(la[i]) + "\n  " + string(lb[i])
		}
	}
	return "lines " + itoa(len(la)) + " and " + itoa(len(lb))
}

func itoa(i int) string { return groupDigits(int64(i)) }

const exportSchema = "CREATE TABLE ks.a (pk int, ck int, s text static, v text, n int, m map<text, int>, PRIMARY KEY (pk, ck));\n"

// writeStatements writes CQL statements of exportSchema's table (written
// at exportNow - 100 s) and returns the schema file and SSTable directory.
func writeStatements(t testing.TB, stmts ...string) (schemaFile, dir string) {
	t.Helper()
	base := t.TempDir()
	schemaFile = filepath.Join(base, "schema.cql")
	cqlFile := filepath.Join(base, "data.cql")
	if err := os.WriteFile(schemaFile, []byte(exportSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cqlFile, []byte(strings.Join(stmts, ";\n")+";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(base, "sstables")
	if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: dir, Now: exportNow.Add(-100 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	return schemaFile, dir
}

// TestExportColumnsWriteTimeTTL: --columns picks and orders columns (with
// writetime() and ttl() among them), --writetime and --ttl append theirs,
// named as cqlsh names them, with the cell's timestamp and the seconds
// left at --now.
func TestExportColumnsWriteTimeTTL(t *testing.T) {
	schemaFile, dir := writeStatements(t,
		"INSERT INTO ks.a (pk, ck, s, v, n) VALUES (1, 1, 'st', 'x', 7) USING TIMESTAMP 1000 AND TTL 600",
		"UPDATE ks.a USING TIMESTAMP 2000 SET n = 8 WHERE pk = 1 AND ck = 2",
		"INSERT INTO ks.a (pk, ck, v) VALUES (2, 1, 'y') USING TIMESTAMP 3000")
	got := string(runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, To: "jsonl",
		Export: export.Options{Columns: []string{"v", "pk", "writetime(v)"}, WriteTime: []string{"n"}, TTL: []string{"v", "s"}}}))
	want := `{"v": "x", "pk": 1, "writetime(v)": 1000, "writetime(n)": 1000, "ttl(v)": 500, "ttl(s)": 500}
{"v": null, "pk": 1, "writetime(v)": null, "writetime(n)": 2000, "ttl(v)": null, "ttl(s)": 500}
{"v": "y", "pk": 2, "writetime(v)": 3000, "writetime(n)": null, "ttl(v)": null, "ttl(s)": null}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	csv := string(runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, To: "csv",
		Export: export.Options{Columns: []string{"pk", "ck", "n"}, CSV: export.CSVOptions{NullString: "NULL", Delimiter: '|'}}}))
	if want := "pk|ck|n\n1|1|7\n1|2|8\n2|1|NULL\n"; csv != want {
		t.Errorf("csv got\n%s\nwant\n%s", csv, want)
	}
	for _, bad := range []export.Options{
		{Columns: []string{"nope"}}, {WriteTime: []string{"pk"}}, {TTL: []string{"m"}}, {Columns: []string{"v", "v"}},
	} {
		_, err := Export(context.Background(), quietEnv(), ExportOptions{SSTables: []string{dir}, Schema: schemaFile, Out: filepath.Join(t.TempDir(), "x"), Export: bad})
		if ExitCode(err) != ExitUsage {
			t.Errorf("%+v: %v, want a usage error", bad, err)
		}
	}
}

// TestExportKeysAndTokenRanges: --key and --keys-file keep the named
// partitions, --token-range those whose token is in one of the ranges; the
// ranges of a split ring export every row exactly once.
func TestExportKeysAndTokenRanges(t *testing.T) {
	var stmts []string
	for pk := 0; pk < 40; pk++ {
		for ck := 0; ck < 3; ck++ {
			stmts = append(stmts, fmt.Sprintf("INSERT INTO ks.a (pk, ck, v) VALUES (%d, %d, 'v%d') USING TIMESTAMP 10", pk, ck, pk))
		}
	}
	schemaFile, dir := writeStatements(t, stmts...)
	pkOf := func(line string) string { return strings.SplitN(line, ",", 2)[0] }
	lines := func(b []byte) []string {
		l := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		return l[1:] // the header
	}
	keysFile := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keysFile, []byte("7\n\n12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := lines(runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, To: "csv", Keys: []string{"3", "999"}, KeysFile: keysFile}))
	seen := map[string]int{}
	for _, l := range got {
		seen[pkOf(l)]++
	}
	if len(got) != 9 || seen["3"] != 3 || seen["7"] != 3 || seen["12"] != 3 {
		t.Errorf("keys 3, 7, 12 (and 999, absent): got %q", got)
	}
	all := lines(runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, To: "csv"}))
	ranges, err := dht.SplitRing(dht.Murmur3, 4)
	if err != nil {
		t.Fatal(err)
	}
	var union []string
	for _, r := range ranges {
		part := lines(runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, To: "csv", TokenRanges: []string{r.Format(dht.Murmur3)}}))
		for _, l := range part {
			var pk int32
			fmt.Sscan(pkOf(l), &pk)
			if tok := dht.Murmur3.Token(schema.AppendInt(nil, pk)); !r.Contains(tok) {
				t.Errorf("range %s: row %q, token %s outside", r.Format(dht.Murmur3), l, dht.Murmur3.String(tok))
			}
		}
		union = append(union, part...)
	}
	if strings.Join(union, "\n") != strings.Join(all, "\n") {
		t.Errorf("the four ranges' exports (%d rows) are not the whole export (%d rows) in ring order", len(union), len(all))
	}
	two := lines(runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, To: "csv", TokenRanges: []string{ranges[0].Format(dht.Murmur3), ranges[2].Format(dht.Murmur3)}, Keys: []string{"3", "7", "12", "20", "33"}}))
	for _, l := range two {
		var pk int32
		fmt.Sscan(pkOf(l), &pk)
		tok := dht.Murmur3.Token(schema.AppendInt(nil, pk))
		if !ranges[0].Contains(tok) && !ranges[2].Contains(tok) || !strings.Contains(" 3 7 12 20 33 ", " "+pkOf(l)+" ") {
			t.Errorf("keys and ranges together: row %q", l)
		}
	}
	if _, err := Export(context.Background(), quietEnv(), ExportOptions{SSTables: []string{dir}, Schema: schemaFile, Out: filepath.Join(t.TempDir(), "x"), TokenRanges: []string{"[1, 2]"}}); ExitCode(err) != ExitUsage {
		t.Errorf("a malformed range: %v", err)
	}
}

// TestExportTombstones: the audit view shows every kind of deletion the
// merged SSTables hold beside the live rows, in clustering order.
func TestExportTombstones(t *testing.T) {
	schemaFile, dir := writeStatements(t,
		"INSERT INTO ks.a (pk, ck, v, n, m) VALUES (1, 1, 'a', 1, {'k': 1, 'j': 2}) USING TIMESTAMP 10",
		"INSERT INTO ks.a (pk, ck, v) VALUES (1, 2, 'b') USING TIMESTAMP 10",
		"INSERT INTO ks.a (pk, ck, v) VALUES (1, 3, 'c') USING TIMESTAMP 10 AND TTL 50",
		"DELETE n FROM ks.a USING TIMESTAMP 20 WHERE pk = 1 AND ck = 1",
		"DELETE m['k'] FROM ks.a USING TIMESTAMP 20 WHERE pk = 1 AND ck = 1",
		"DELETE FROM ks.a USING TIMESTAMP 20 WHERE pk = 1 AND ck = 2",
		"DELETE FROM ks.a USING TIMESTAMP 20 WHERE pk = 1 AND ck > 4 AND ck <= 6",
		"INSERT INTO ks.a (pk, ck, v) VALUES (2, 1, 'z') USING TIMESTAMP 10",
		"DELETE FROM ks.a USING TIMESTAMP 30 WHERE pk = 2")
	got := string(runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, To: "csv",
		Export: export.Options{Columns: []string{"pk", "ck", "v", "n", "m"}, IncludeTombstones: true}}))
	ldt := "2023-11-14 22:20:00.000Z" // exportNow - 100 s, the write's clock
	want := "pk,ck,v,n,m,[tombstone],[tombstone_column],[inclusive],[deleted_at],[local_deletion_time]\n" +
		"1,1,a,,{'j': 2},,,,,\n" +
		"1,1,,,,cell,n,,20," + ldt + "\n" +
		"1,1,,,,collection,m,,9," + ldt + "\n" + // the INSERT's overwrite of m, at its timestamp - 1
		"1,1,,,,cell,m['k'],,20," + ldt + "\n" +
		"1,2,,,,row,,,20," + ldt + "\n" +
		"1,3,,,,expired,,,10,2023-11-14 22:20:50.000Z\n" + // the row marker
		"1,3,c,,,expired,v,,10,2023-11-14 22:20:50.000Z\n" +
		"1,4,,,,range_start,,false,20," + ldt + "\n" +
		"1,6,,,,range_end,,true,20," + ldt + "\n" +
		"2,,,,,partition,,,30," + ldt + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Without the option, only the live row.
	if got := string(runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, To: "csv", Export: export.Options{Columns: []string{"pk", "ck", "v"}}})); got != "pk,ck,v\n1,1,a\n" {
		t.Errorf("live rows: %q", got)
	}
}

// bigTable writes n rows of exportSchema's table, rowsPerPartition to a
// partition, with a text value of valueLen pseudo-random letters.
func bigTable(t testing.TB, n, rowsPerPartition, valueLen int) (schemaFile, dir string) {
	t.Helper()
	base := t.TempDir()
	schemaFile = filepath.Join(base, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(exportSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	csvFile := filepath.Join(base, "rows.csv")
	f, err := os.Create(csvFile)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	x := uint64(88172645463325252)
	val := make([]byte, valueLen)
	for i := 0; i < n; i++ {
		for j := range val {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			val[j] = 'a' + byte(x%26)
		}
		fmt.Fprintf(bw, "%d,%d,%s,%d\n", i/rowsPerPartition, i%rowsPerPartition, val, i)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	dir = filepath.Join(base, "sstables")
	if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CSV: csvFile, CSVOptions: CSVOptions{Columns: []string{"pk", "ck", "v", "n"}},
		Out: dir, Now: exportNow, Timestamp: 1700000000000000, Compression: "lz4"}); err != nil {
		t.Fatal(err)
	}
	return schemaFile, dir
}

// parquetRows reads a Parquet file's rows back with parquet-go, as text.
func parquetRows(t testing.TB, path string) (rows []string, codecs map[string]bool, rowGroups int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	codecs = map[string]bool{}
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			codecs[c.MetaData.Codec.String()] = true
		}
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	buf := make([]parquet.Row, 64)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			rows = append(rows, fmt.Sprint(row))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return rows, codecs, len(pf.Metadata().RowGroups)
}

// TestExportMaxFileSizeAndCompression: --max-file-size splits an export
// into files of about that size whose rows, in order, are the rows of the
// single file; --compression sets the Parquet pages' codec and
// --row-group-size the row groups.
func TestExportMaxFileSizeAndCompression(t *testing.T) {
	schemaFile, dir := bigTable(t, 20000, 500, 64)
	one := filepath.Join(t.TempDir(), "one.parquet")
	runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, Out: one})
	want, codecs, groups := parquetRows(t, one)
	if len(want) != 20000 || !codecs["SNAPPY"] || len(codecs) != 1 || groups != 1 {
		t.Fatalf("one file: %d rows, codecs %v, %d row groups", len(want), codecs, groups)
	}
	for _, codec := range []string{"zstd", "none"} {
		p := filepath.Join(t.TempDir(), codec+".parquet")
		runExport(t, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, Out: p, Export: export.Options{Parquet: export.ParquetOptions{Compression: codec, RowGroupSize: 256 << 10}}})
		got, codecs, groups := parquetRows(t, p)
		wantCodec := map[string]string{"zstd": "ZSTD", "none": "UNCOMPRESSED"}[codec]
		if strings.Join(got, "\n") != strings.Join(want, "\n") || !codecs[wantCodec] || len(codecs) != 1 || groups < 4 {
			t.Errorf("%s: %d rows (equal: %v), codecs %v, %d row groups", codec, len(got), strings.Join(got, "\n") == strings.Join(want, "\n"), codecs, groups)
		}
	}
	for _, to := range []string{"parquet", "csv", "jsonl"} {
		base := filepath.Join(t.TempDir(), "part."+to)
		const max = 300 << 10
		var out bytes.Buffer
		env := &Env{Stdout: &out, Stderr: io.Discard}
		if _, err := Export(context.Background(), env, ExportOptions{SSTables: []string{dir}, Schema: schemaFile, To: to, Out: base, Now: exportNow, Export: export.Options{MaxFileSize: max}}); err != nil {
			t.Fatal(err)
		}
		paths := strings.Fields(out.String())
		if len(paths) < 3 {
			t.Fatalf("%s: %d files: %v", to, len(paths), paths)
		}
		var all []string
		for i, p := range paths {
			if want := strings.TrimSuffix(base, "."+to) + fmt.Sprintf("-%05d.", i) + to; p != want {
				t.Errorf("%s: file %d is %s, want %s", to, i, p, want)
			}
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if i < len(paths)-1 && (st.Size() < max/2 || st.Size() > max*3/2) {
				t.Errorf("%s: %s has %d bytes, want about %d", to, p, st.Size(), max)
			}
			switch to {
			case "parquet":
				rows, _, _ := parquetRows(t, p)
				all = append(all, rows...)
			case "csv":
				b, _ := os.ReadFile(p)
				lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
				if lines[0] != "pk,ck,s,m,n,v" {
					t.Errorf("%s: header %q", p, lines[0])
				}
				all = append(all, lines[1:]...)
			default:
				b, _ := os.ReadFile(p)
				all = append(all, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
			}
		}
		if to == "parquet" && strings.Join(all, "\n") != strings.Join(want, "\n") {
			t.Errorf("parquet: the files' rows differ from the single file's")
		}
		if len(all) != 20000 {
			t.Errorf("%s: %d rows in the files", to, len(all))
		}
		if left, _ := filepath.Glob(filepath.Join(filepath.Dir(base), "*.tmp-*")); len(left) > 0 {
			t.Errorf("temporary files left: %v", left)
		}
	}
}

// TestExportBoundedMemory: a table whose one partition is far larger than
// the memory allowed (200,000 rows of 1 KiB, 60,000 under -short, with a
// 64 MiB GOMEMLIMIT) exports as Parquet and as CSV while the live heap
// stays under the limit: the export streams row by row, holding a row
// group, never the partition. The export runs in a child process, which
// samples its heap every few milliseconds.
func TestExportBoundedMemory(t *testing.T) {
	if dir := os.Getenv("CASTABLE_EXPORT_MEMCHILD"); dir != "" {
		exportMemoryChild(t, dir)
		return
	}
	rows := 200000
	if testing.Short() {
		rows = 60000
	}
	schemaFile, dir := bigTable(t, rows, rows, 1024)
	for _, to := range []string{"parquet", "csv"} {
		out := filepath.Join(t.TempDir(), "out."+to)
		cmd := exec.Command(os.Args[0], "-test.run=^TestExportBoundedMemory$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CASTABLE_EXPORT_MEMCHILD="+dir, "CASTABLE_EXPORT_SCHEMA="+schemaFile, "CASTABLE_EXPORT_OUT="+out, "CASTABLE_EXPORT_TO="+to, "GOMEMLIMIT=64MiB")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: child: %v\n%s", to, err, b)
		}
		var peak, n int64
		if i := bytes.Index(b, []byte("peak heap ")); i < 0 {
			t.Fatalf("%s: child said %s", to, b)
		} else {
			fmt.Sscanf(string(b[i:]), "peak heap %d rows %d", &peak, &n)
		}
		t.Logf("%s: %d rows of 1 KiB in one partition (%s of SSTables), peak live heap %s under GOMEMLIMIT=64MiB", to, n, humanBytes(dirSize(t, dir)), humanBytes(peak))
		if n != int64(rows) {
			t.Errorf("%s: %d rows exported, want %d", to, n, rows)
		}
		if peak > 64<<20 {
			t.Errorf("%s: peak heap %s, over the 64 MiB limit", to, humanBytes(peak))
		}
	}
}

func dirSize(t testing.TB, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if st, err := d.Info(); err == nil {
				n += st.Size()
			}
		}
		return nil
	})
	return n
}

// exportMemoryChild is TestExportBoundedMemory's child: the export, with
// the heap sampled.
func exportMemoryChild(t *testing.T, dir string) {
	debug.SetMemoryLimit(64 << 20)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			metrics.Read(sample)
			if v := int64(sample[0].Value.Uint64()); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	sum, err := Export(context.Background(), quietEnv(), ExportOptions{SSTables: []string{dir}, Schema: os.Getenv("CASTABLE_EXPORT_SCHEMA"),
		To: os.Getenv("CASTABLE_EXPORT_TO"), Out: os.Getenv("CASTABLE_EXPORT_OUT"), Now: exportNow})
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("peak heap %d rows %d\n", peak.Load(), sum.Rows)
}

// BenchmarkExport measures castable export of BenchmarkSchema's table
// (generated CSV rows written with castable write: pk int, ck int, v text,
// 100 rows a partition, LZ4 SSTables) into each format, from the merged
// read to the output file's fsync. rows/s is the figure the command
// reports.
func BenchmarkExport(b *testing.B) {
	for _, rows := range []int64{100_000, 1_000_000} {
		dir := b.TempDir()
		schemaFile := writeBenchSchema(b, dir, "")
		in := generateCSV(b, dir, rows, 100)
		data := filepath.Join(dir, "sstables")
		if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CSV: in, Out: data}); err != nil {
			b.Fatal(err)
		}
		for _, impl := range []string{"parquet", "parquet-zstd", "csv", "jsonl"} {
			b.Run(fmt.Sprintf("impl=%s/size=%d", impl, rows), func(b *testing.B) {
				to, codec := impl, ""
				if impl == "parquet-zstd" {
					to, codec = "parquet", "zstd"
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := Export(context.Background(), quietEnv(), ExportOptions{SSTables: []string{data}, Schema: schemaFile, To: to,
						Out: filepath.Join(dir, "out."+to), Export: export.Options{Parquet: export.ParquetOptions{Compression: codec}}}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
