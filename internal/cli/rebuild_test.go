package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables/version"
)

// copyPrefix copies the files of dir that start with prefix into a new
// temporary directory and returns it.
func copyPrefix(t *testing.T, dir, prefix string) string {
	t.Helper()
	out := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestVerifyWarnsAndRebuildWritesBack: every real SSTable of the shared
// data (la … oa, Cassandra's and ScyllaDB's) copied without its Summary.db
// and Filter.db, which its TOC.txt lists: verify prints "WARN file:
// component: what" lines on stderr naming both, says OK and succeeds;
// --strict fails it. castable rebuild writes both back byte for byte as
// they were (a flush writes them so, and so does Cassandra when it rebuilds
// them at open), and changes no other file; verify --strict then passes
// and a second rebuild writes nothing. The same for Cassandra 2.1 SSTables
// under their own names, several tables in one directory.
func TestVerifyWarnsAndRebuildWritesBack(t *testing.T) {
	n := 0
	for _, s := range testdata.Supported(t) {
		if s.Corrupt != "" || version.MustParse(s.Version).Tries() || !s.Has("Summary.db") || !s.Has("Filter.db") {
			continue
		}
		n++
		t.Run(s.Name, func(t *testing.T) {
			dir := copyPrefix(t, s.Dir, s.Prefix)
			prefix := filepath.Join(dir, s.Prefix)
			orig := map[string][]byte{}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				orig[e.Name()], _ = os.ReadFile(filepath.Join(dir, e.Name()))
			}
			for _, c := range []string{"Summary.db", "Filter.db"} {
				if err := os.Remove(prefix + c); err != nil {
					t.Fatal(err)
				}
			}
			var out, errs bytes.Buffer
			if err := Verify(&Env{Stdout: &out, Stderr: &errs, Quiet: true}, VerifyOptions{SSTables: []string{dir}}); err != nil {
				t.Fatalf("verify without Summary.db and Filter.db: %v\n%s", err, errs.String())
			}
			for _, c := range []string{"Summary.db", "Filter.db"} {
				want := "WARN " + prefix + "TOC.txt: TOC.txt: lists " + c + ", which does not exist"
				if !strings.Contains(errs.String(), want) {
					t.Fatalf("verify's stderr has no %q:\n%s", want, errs.String())
				}
			}
			if !strings.HasPrefix(out.String(), "OK ") {
				t.Fatalf("verify's stdout: %q, want OK", out.String())
			}
			errs.Reset()
			if err := Verify(&Env{Stdout: io.Discard, Stderr: &errs, Quiet: true}, VerifyOptions{SSTables: []string{dir}, Strict: true}); err == nil || !strings.Contains(errs.String(), "FAILED ") {
				t.Fatalf("verify --strict with warnings: %v\n%s, want a failure", err, errs.String())
			}

			out.Reset()
			errs.Reset()
			if err := Rebuild(&Env{Stdout: &out, Stderr: &errs, Quiet: true}, RebuildOptions{SSTables: []string{dir}}); err != nil {
				t.Fatalf("rebuild: %v\n%s", err, errs.String())
			}
			if !strings.Contains(out.String(), "wrote ") || strings.Contains(errs.String(), "WARN") {
				t.Fatalf("rebuild printed %q, %q", out.String(), errs.String())
			}
			entries, _ = os.ReadDir(dir)
			if len(entries) != len(orig) {
				t.Fatalf("after rebuild %d files, want %d", len(entries), len(orig))
			}
			for _, e := range entries {
				got, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				if bytes.Equal(got, orig[e.Name()]) {
					continue
				}
				if why := notReproduced(s, e.Name()); why != "" {
					t.Logf("%s differs from the original, as expected: %s", e.Name(), why)
					continue
				}
				t.Errorf("%s differs from the original after rebuild", e.Name())
			}
			errs.Reset()
			if err := Verify(&Env{Stdout: io.Discard, Stderr: &errs, Quiet: true}, VerifyOptions{SSTables: []string{dir}, Strict: true}); err != nil || errs.Len() != 0 {
				t.Fatalf("verify --strict after rebuild: %v\n%s", err, errs.String())
			}
			out.Reset()
			if err := Rebuild(&Env{Stdout: &out, Stderr: io.Discard, Quiet: true}, RebuildOptions{SSTables: []string{dir}}); err != nil || !strings.HasPrefix(out.String(), "complete ") {
				t.Fatalf("a second rebuild: %v, %q", err, out.String())
			}
		})
	}
	if n == 0 {
		t.Fatal("no SSTable with Summary.db and Filter.db in the shared data")
	}

	t.Run("ka", func(t *testing.T) {
		dir, _, prefix := kaCopies(t)
		orig := map[string][]byte{}
		for _, p := range prefix {
			for _, c := range []string{"-Summary.db", "-Filter.db"} {
				b, err := os.ReadFile(p + c)
				if err != nil {
					continue // this 2.1 SSTable has none
				}
				orig[p+c] = b
				if err := os.Remove(p + c); err != nil {
					t.Fatal(err)
				}
			}
		}
		var out, errs bytes.Buffer
		if err := Rebuild(&Env{Stdout: &out, Stderr: &errs, Quiet: true}, RebuildOptions{SSTables: []string{dir}}); err != nil {
			t.Fatalf("rebuild %s: %v\n%s", dir, err, errs.String())
		}
		if c := strings.Count(out.String(), "wrote "); c == 0 {
			t.Fatalf("rebuild of %d ka SSTables: %s", len(prefix), out.String())
		}
		for path := range orig {
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s not rebuilt: %v", path, err)
			}
		}
		if err := Verify(&Env{Stdout: io.Discard, Stderr: &errs, Quiet: true}, VerifyOptions{SSTables: []string{dir}, Strict: true}); err != nil {
			t.Fatalf("verify --strict after rebuild: %v\n%s", err, errs.String())
		}
	})
}

// notReproduced says why the lost component of SSTable s named name is not
// expected back byte for byte: rebuild writes what Cassandra 2.2+ writes for
// the data (as a flush, or Cassandra's own rebuild at open, writes it), and
// some files of the shared data were written otherwise. "" when it is
// expected.
func notReproduced(s testdata.SSTable, name string) string {
	switch {
	case s.Has("Scylla.db"):
		return "written by ScyllaDB, whose la Summary.db has no segment-boundary trailer"
	case s.Has("Digest.sha1"):
		// Cassandra 2.1 wrote these (its digest is SHA-1): its Summary.db
		// trailer lists the Index.db length as a second boundary and its
		// compactions size the filter for an estimated key count.
		return "written by Cassandra 2.1 (Digest.sha1), whose summary trailer and filter sizing differ from 2.2's"
	case strings.Contains(s.Name, "bloom-filter") && strings.HasSuffix(name, "Filter.db"):
		// Cassandra's BloomFilterTest deserializes this Filter.db with
		// oldBfHashOrder=false: it was hashed in ma's order although the
		// SSTable is la; rebuilt, it is in la's order, the one Cassandra
		// 2.2 and 3.x look la keys up with.
		return "hashed in ma's order although la (Cassandra's BloomFilterTest reads it so)"
	}
	return ""
}
