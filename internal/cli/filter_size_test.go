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

	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// zeroKeyFilter returns the Filter.db Cassandra's bulk writer
// (CQLSSTableWriter: SSTableTxnWriter.create with keyCount 0, then
// FilterFactory.getFilter(0, fp)) leaves for the SSTable desc: sized for
// zero keys — 20 bits, one 64-bit word, 16 bytes — with every key of the
// SSTable added, as that writer adds them.
func zeroKeyFilter(t *testing.T, desc sstables.Descriptor, fp float64) []byte {
	t.Helper()
	f, err := sstables.NewBloomFilter(0, fp, desc.Version)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sstables.OpenAny(desc, nil, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		f.Add(p.Key)
	}
	b := f.AppendTo(nil)
	if len(b) != 16 {
		t.Fatalf("the zero-key filter has %d bytes, want 16", len(b))
	}
	return b
}

// TestVerifyWarnsUndersizedFilterAndRebuildReplacesIt (CASSANDRA-21423): an
// SSTable castable wrote, its Filter.db replaced by the 16-byte filter a
// bulk writer sizing it for zero keys leaves, verifies with a warning that
// says what it costs (exit 0; --strict fails); castable rebuild --filter
// replaces it — and only it — with exactly the Filter.db castable's writer,
// Cassandra's flush, wrote for that data; after that verify is clean and a
// second rebuild --filter finds nothing to do. Every writable version but
// ScyllaDB's (big, BTI, whose keys come from Data.db, and la's old filter
// format).
func TestVerifyWarnsUndersizedFilterAndRebuildReplacesIt(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.cql")
	if err := os.WriteFile(schemaFile, []byte("CREATE TABLE ks.t (k int PRIMARY KEY, v text);"), 0o644); err != nil {
		t.Fatal(err)
	}
	const partitions = 5000
	var cql strings.Builder
	for i := range partitions {
		fmt.Fprintf(&cql, "INSERT INTO ks.t (k, v) VALUES (%d, 'v%d');\n", i, i)
	}
	cqlFile := filepath.Join(dir, "d.cql")
	if err := os.WriteFile(cqlFile, []byte(cql.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range version.Select(func(v version.Version) bool { return v.Writable() && !v.Scylla() }) {
		t.Run(v.String(), func(t *testing.T) {
			out := filepath.Join(dir, v.String())
			res, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: out, Format: v.String(), Generation: 1, Timestamp: 1})
			if err != nil {
				t.Fatal(err)
			}
			desc := res.Results[0].Descriptor
			filterPath := desc.Path(sstables.ComponentFilter)
			flushed, err := os.ReadFile(filterPath)
			if err != nil {
				t.Fatal(err)
			}
			before := map[string][]byte{}
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				before[e.Name()], _ = os.ReadFile(filepath.Join(out, e.Name()))
			}
			if err := os.WriteFile(filterPath, zeroKeyFilter(t, desc, sstables.DefaultBloomFilterFPChance), 0o644); err != nil {
				t.Fatal(err)
			}

			index := "Index.db"
			if v.Tries() {
				index = "Partitions.db"
			}
			want := "WARN " + filterPath + ": Filter.db: Filter.db of 16 bytes for 5,000 partitions: every lookup of a key the SSTable does not hold reads " +
				index + " (false-positive chance ≈ 100% instead of 1%)"
			stdout, stderr, code := runCastable(t, nil, "verify", out)
			if code != 0 || !strings.HasPrefix(stdout, "OK ") || !strings.Contains(stderr, want) {
				t.Fatalf("verify: exit %d, stdout %q, stderr:\n%s\nwant exit 0, OK and %q", code, stdout, stderr, want)
			}
			if _, stderr, code := runCastable(t, nil, "verify", "--strict", out); code != 1 {
				t.Fatalf("verify --strict: exit %d, want 1:\n%s", code, stderr)
			}
			if stdout, _, code := runCastable(t, nil, "rebuild", out); code != 0 || !strings.HasPrefix(stdout, "complete ") {
				t.Fatalf("rebuild without --filter: exit %d, %q; want it to leave Filter.db alone", code, stdout)
			}

			stdout, stderr, code = runCastable(t, nil, "rebuild", "--filter", out)
			if code != 0 || !strings.Contains(stdout, "Filter.db (replaced) (5000 partitions)") {
				t.Fatalf("rebuild --filter: exit %d, stdout %q, stderr %s", code, stdout, stderr)
			}
			got, err := os.ReadFile(filterPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, flushed) {
				t.Fatalf("rebuilt Filter.db (%d bytes) is not the one the flush wrote (%d bytes)", len(got), len(flushed))
			}
			entries, _ = os.ReadDir(out)
			if len(entries) != len(before) {
				t.Errorf("%d files after rebuild, want %d (no temporary left, nothing added)", len(entries), len(before))
			}
			for _, e := range entries {
				if b, _ := os.ReadFile(filepath.Join(out, e.Name())); !bytes.Equal(b, before[e.Name()]) {
					t.Errorf("%s changed", e.Name())
				}
			}
			if _, stderr, code := runCastable(t, nil, "verify", "--strict", out); code != 0 || stderr != "" && strings.Contains(stderr, "WARN") {
				t.Fatalf("verify --strict after rebuild: exit %d:\n%s", code, stderr)
			}
			if stdout, _, code := runCastable(t, nil, "rebuild", "--filter", out); code != 0 || !strings.HasPrefix(stdout, "complete ") {
				t.Fatalf("a second rebuild --filter: exit %d, %q, want complete", code, stdout)
			}
		})
	}
}
