package sstables

import (
	"bytes"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables/version"
)

// TestStatisticsEveryVersion decodes the Statistics.db of every real
// SSTable of the shared data, of every version (also those castable does
// not read yet), and re-encodes it: Cassandra-written files must come out
// byte for byte. ScyllaDB-written ones list the table of contents in hash
// order; their content must survive a decode of the re-encoding.
func TestStatisticsEveryVersion(t *testing.T) {
	seen := map[string]bool{}
	for _, ts := range testdata.SSTables(t) {
		if !ts.Has("Statistics.db") {
			continue
		}
		v, err := version.Parse(ts.Version)
		if err != nil {
			t.Fatalf("%s: %v", ts.Name, err)
		}
		t.Run(ts.Name, func(t *testing.T) {
			b := readTestFile(t, ts.Path("Statistics.db"))
			st, err := DecodeStatistics(b, v, ts.Path("Statistics.db"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendStatistics(nil, st, v)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Oddities) > 0 {
				t.Logf("oddities: %q", st.Oddities)
			}
			if ts.Scylla || len(st.Oddities) > 0 {
				again, err := DecodeStatistics(got, v, "again")
				if err != nil {
					t.Fatal(err)
				}
				if g2, _ := AppendStatistics(nil, again, v); !bytes.Equal(g2, got) {
					t.Error("the re-encoding does not decode to itself")
				}
				return
			}
			if !bytes.Equal(got, b) {
				t.Errorf("re-encoded Statistics.db differs at byte %d (%d vs %d bytes)", firstDiff(got, b), len(got), len(b))
			}
			seen[ts.Version] = true
		})
	}
	for _, want := range []string{"la", "ma", "mc", "md", "me", "na", "nb", "nc", "oa", "da"} {
		if !seen[want] {
			t.Errorf("no %s Statistics.db re-encoded byte for byte", want)
		}
	}
}

// TestStatisticsFields pins fields of the legacy corpus that the format
// descriptions give (modern-formats.md §2.5): partitioner, histogram
// lengths by writer release, host ids where the version has them, oa's
// key range and unset token space coverage.
func TestStatisticsFields(t *testing.T) {
	for _, ts := range testdata.SSTables(t, "cassandra-legacy") {
		if !ts.Has("Statistics.db") || ts.Name == "" || ts.Version == "la" && !ts.Has("Summary.db") {
			continue
		}
		v := version.MustParse(ts.Version)
		st, err := DecodeStatistics(readTestFile(t, ts.Path("Statistics.db")), v, ts.Name)
		if err != nil {
			t.Fatalf("%s: %v", ts.Name, err)
		}
		if !bytes.Contains([]byte(ts.Dir), []byte("legacy_")) {
			continue
		}
		s := &st.Stats
		if st.Partitioner != "org.apache.cassandra.dht.ByteOrderedPartitioner" {
			t.Errorf("%s: partitioner %s", ts.Name, st.Partitioner)
		}
		p := v.Profile()
		if got := len(s.PartitionSizes.Buckets()); got != p.PartitionSizeBuckets+1 {
			t.Errorf("%s: %d partition size buckets, the profile says %d", ts.Name, got, p.PartitionSizeBuckets+1)
		}
		if got := len(s.CellsPerPartition.Buckets()); got != p.CellCountBuckets+1 {
			t.Errorf("%s: %d cell count buckets, the profile says %d", ts.Name, got, p.CellCountBuckets+1)
		}
		if v.HasOriginatingHostID() && len(s.OriginatingHostID) != 16 {
			t.Errorf("%s: no originating host id", ts.Name)
		}
		if v.HasKeyRange() && (string(s.FirstKey) != "0" || string(s.LastKey) != "4") {
			t.Errorf("%s: key range %q..%q, want 0..4", ts.Name, s.FirstKey, s.LastKey)
		}
		if v.HasTokenSpaceCoverage() && ts.Version == "oa" && !math.IsNaN(s.TokenSpaceCoverage) {
			t.Errorf("%s: token space coverage %v, want NaN", ts.Name, s.TokenSpaceCoverage)
		}
	}
}

// FuzzStatistics decodes fuzzed Statistics.db bytes as every version: a
// CorruptionError or a Statistics that encodes and decodes again.
func FuzzStatistics(f *testing.F) {
	names := version.Names()
	index := map[string]uint8{}
	for i, n := range names {
		index[n] = uint8(i)
	}
	for _, ts := range testdata.SSTables(f) {
		if ts.Has("Statistics.db") {
			f.Add(readTestFile(f, ts.Path("Statistics.db")), index[ts.Version])
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, vi uint8) {
		v := version.MustParse(names[int(vi)%len(names)])
		st, err := DecodeStatistics(b, v, "fuzz")
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: not a CorruptionError: %v", v, err)
			}
			return
		}
		out, err := AppendStatistics(nil, st, v)
		if err != nil {
			return // e.g. a value Statistics.db's u16 length cannot hold
		}
		if _, err := DecodeStatistics(out, v, "again"); err != nil {
			t.Fatalf("%s: re-encoded statistics do not decode: %v", v, err)
		}
	})
}

func readTestFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
