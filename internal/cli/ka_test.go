package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// kaCopies copies the 2.x SSTables of the shared data that Cassandra 2.1
// wrote (their digest is Digest.sha1, 2.1's; ScyllaDB's corpus renamed them
// la-N-big) into one directory under 2.1's own names,
// "ks-<folder>-ka-<gen>-<Component>", as a 2.1 data directory holds several
// tables' files. It returns the directory and, per table, the original
// Data.db and the copy's prefix.
func kaCopies(t *testing.T) (dir string, orig, prefix map[string]string) {
	t.Helper()
	dir = t.TempDir()
	orig, prefix = map[string]string{}, map[string]string{}
	for _, s := range testdata.Supported(t, "cassandra") {
		if s.Version != "la" || !s.Has("Digest.sha1") || s.Corrupt != "" {
			continue
		}
		gen := strings.TrimSuffix(strings.TrimPrefix(s.Prefix, "la-"), "-big-")
		table := strings.ReplaceAll(filepath.Base(s.Dir), "_", "") + gen
		entries, err := os.ReadDir(s.Dir)
		if err != nil {
			t.Fatal(err)
		}
		p := "ks-" + table + "-ka-" + gen
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), s.Prefix) {
				continue
			}
			b, err := os.ReadFile(filepath.Join(s.Dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p+"-"+strings.TrimPrefix(e.Name(), s.Prefix)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		orig[table], prefix[table] = s.Path("Data.db"), filepath.Join(dir, p)
	}
	if len(orig) < 2 {
		t.Fatalf("%d Cassandra 2.1 SSTables in the shared data, want several", len(orig))
	}
	return dir, orig, prefix
}

// TestKaFileNames: Cassandra 2.1 SSTables under their own names
// ("ks-t-ka-1-Data.db") dump exactly as the renamed copies do, and verify;
// a directory of several tables' files is refused by dump with the tables
// named, verify takes it whole, and a prefix picks one table.
func TestKaFileNames(t *testing.T) {
	dir, orig, prefix := kaCopies(t)
	for table, data := range orig {
		var want, got bytes.Buffer
		if err := Dump(&Env{Stdout: &want, Stderr: io.Discard}, DumpOptions{SSTable: data, Canonical: true}); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		for _, arg := range []string{prefix[table], prefix[table] + "-Data.db", prefix[table] + "-Index.db", filepath.Join(dir, "ks-"+table)} {
			got.Reset()
			if err := Dump(&Env{Stdout: &got, Stderr: io.Discard}, DumpOptions{SSTable: arg, Canonical: true}); err != nil {
				t.Fatalf("dump %s: %v", arg, err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("dump %s differs from the dump of %s", arg, data)
			}
		}
	}
	var out, errs bytes.Buffer
	if err := Verify(&Env{Stdout: &out, Stderr: &errs, Quiet: true}, VerifyOptions{SSTables: []string{dir}}); err != nil {
		t.Fatalf("verify %s: %v\n%s", dir, err, errs.String())
	}
	if n := strings.Count(out.String(), "OK "); n != len(orig) {
		t.Fatalf("verify %s: %d OK lines for %d SSTables:\n%s", dir, n, len(orig), out.String())
	}
	err := Dump(&Env{Stdout: io.Discard, Stderr: io.Discard}, DumpOptions{SSTable: dir})
	var u *UsageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "tables (ks.") {
		t.Fatalf("dump of a directory of several tables: %v, want a usage error naming the tables", err)
	}
}
