package sstables

import (
	"os"
	"testing"

	"github.com/castable-db/castable/dht"
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
	// part is the partitioner Statistics.db names.
	part dht.Partitioner
}

// realSSTables lists every SSTable of the shared test data that castable
// reads (one per Data.db); the others are named in the log and skipped
// (testdata.Supported).
func realSSTables(t testing.TB) []realSSTable {
	t.Helper()
	var out []realSSTable
	for _, ts := range testdata.Supported(t) {
		desc, _, _, err := ParseDescriptor(ts.Path("Data.db"))
		if err != nil {
			t.Fatal(err)
		}
		part, err := dht.Lookup(ts.Partitioner)
		if err != nil {
			t.Fatalf("%s: %v", ts.Name, err)
		}
		out = append(out, realSSTable{name: ts.Name, desc: desc, corrupt: ts.Corrupt, scylla: ts.Scylla, part: part})
	}
	if len(out) < 40 {
		t.Fatalf("found only %d SSTables below %s", len(out), testdata.Root())
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
