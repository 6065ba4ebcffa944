package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/internal/workload"
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
