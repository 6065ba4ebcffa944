package sstables

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// realSSTable is one Cassandra- (or ScyllaDB-) written SSTable of the shared
// test data.
type realSSTable struct {
	name string // path below testdata, with the generation
	desc Descriptor
	// corrupt is "checksums" or "digest" for the deliberately broken
	// integrity_check files.
	corrupt string
	// scylla marks files written by ScyllaDB (not reference material for
	// the summary trailer, HLL and digest rules).
	scylla bool
}

// realSSTables lists every SSTable below testdata/cassandra and
// testdata/mc-write (one per Data.db).
func realSSTables(t testing.TB) []realSSTable {
	t.Helper()
	root := testdata.Dir(t)
	var out []realSSTable
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() || !strings.HasSuffix(path, "-big-Data.db") {
			return nil
		}
		desc, _, _, err := ParseDescriptor(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		s := realSSTable{name: strings.TrimSuffix(rel, "-big-Data.db"), desc: desc}
		switch {
		case strings.Contains(rel, "integrity_check/invalid_checksums"):
			s.corrupt = "checksums"
		case strings.Contains(rel, "integrity_check/invalid_digest"):
			s.corrupt = "digest"
		}
		if _, err := os.Stat(desc.Path("Scylla.db")); err == nil {
			s.scylla = true
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	if len(out) < 40 {
		t.Fatalf("found only %d SSTables below %s", len(out), root)
	}
	return out
}

// has reports whether component c of s exists.
func (s realSSTable) has(c Component) bool {
	_, err := os.Stat(s.desc.Path(c))
	return err == nil
}

// read returns component c of s.
func (s realSSTable) read(t testing.TB, c Component) []byte {
	t.Helper()
	b, err := os.ReadFile(s.desc.Path(c))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// digestComponent returns the digest file s has, or "".
func (s realSSTable) digestComponent() Component {
	for _, c := range []Component{ComponentDigestCRC32, ComponentDigestAdler32, ComponentDigestSHA1} {
		if s.has(c) {
			return c
		}
	}
	return ""
}
