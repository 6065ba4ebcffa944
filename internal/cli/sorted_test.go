package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteSorted: write --sorted of a table's rows in token order (as
// export writes them) holds the same rows as write without it, in one
// SSTable or, with small buffers and a size cap, several; castable verify
// passes its SSTables. Input out of token order is an error naming the
// line and leaves nothing; --sorted needs --csv.
func TestWriteSorted(t *testing.T) {
	dir := t.TempDir()
	schemaFile := writeBenchSchema(t, dir, "")
	in := generateCSV(t, dir, 30_000, 7)
	// The rows in token order: export of what write made of them.
	first := filepath.Join(dir, "first")
	if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CSV: in, Out: first, Timestamp: 1000}); err != nil {
		t.Fatal(err)
	}
	exportCSV := func(out string) []byte {
		t.Helper()
		file := out + ".csv"
		if _, err := Export(context.Background(), quietEnv(), ExportOptions{SSTables: []string{out}, Schema: schemaFile, To: "csv", Out: file}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	tokens := filepath.Join(dir, "tokens.csv")
	want := exportCSV(first)
	if err := os.WriteFile(tokens, want, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name              string
		memtable, maxSize int64
	}{{"one", 0, 0}, {"several", 256 << 10, 0}, {"capped", 256 << 10, 64 << 10}} {
		out := filepath.Join(dir, "sorted-"+c.name)
		sum, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CSV: tokens, CSVOptions: CSVOptions{Header: true},
			Out: out, Timestamp: 1000, Sorted: true, MemtableSize: c.memtable, MaxSSTableSize: c.maxSize})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (len(sum.Results) > 1) != (c.memtable > 0) {
			t.Errorf("%s: %d SSTables", c.name, len(sum.Results))
		}
		if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{out}, Schema: schemaFile, Strict: true}); err != nil {
			t.Errorf("%s: verify: %v", c.name, err)
		}
		if got := exportCSV(out); !bytes.Equal(got, want) {
			t.Errorf("%s: write --sorted holds other rows than write (%d and %d bytes of export)", c.name, len(got), len(want))
		}
	}

	// Out of order: the second data line moved to the end.
	lines := strings.SplitAfter(string(want), "\n")
	lines = lines[:len(lines)-1]
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte(strings.Join(append(append([]string{lines[0]}, lines[2:]...), lines[1]), "")), 0o644)
	out := filepath.Join(dir, "bad")
	_, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CSV: bad, CSVOptions: CSVOptions{Header: true},
		Out: out, Timestamp: 1000, Sorted: true, MemtableSize: 256 << 10})
	if err == nil || !strings.Contains(err.Error(), bad+":") || !strings.Contains(err.Error(), "token order") {
		t.Errorf("out-of-order input: %v", err)
	}
	if names, _ := os.ReadDir(out); len(names) != 0 {
		t.Errorf("a failed write --sorted left %d files", len(names))
	}
	_, err = Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: in, Out: out, Sorted: true})
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Errorf("--sorted with --cql: %v, want a usage error", err)
	}
}
