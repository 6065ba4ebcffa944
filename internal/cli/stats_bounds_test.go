package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// TestVerifyWarnsLocalDeletionTimeOutsideStats: a ScyllaDB-written mc
// SSTable whose Statistics.db local deletion time bounds do not cover a
// tombstone of its Data.db (ScyllaDB's shadowable_deletion file, its
// minimum local deletion time set to "none", 2147483647, as a collector
// that missed the shadowable deletion would write it) is read by Cassandra
// and ScyllaDB, whose verifiers do not compare data with these bounds:
// castable verify warns and exits 0, verify --strict fails. A timestamp
// outside the bounds stays an error (big's TestVerifyChecksStatsBounds).
func TestVerifyWarnsLocalDeletionTimeOutsideStats(t *testing.T) {
	src := testdata.Path(t, "mc-write", "shadowable_deletion")
	dir := copySSTable(t, src)
	desc, _, _, err := sstables.ParseDescriptor(filepath.Join(dir, "mc-1-big-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := desc.Path(sstables.ComponentStatistics)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sstables.DecodeStatistics(b, desc.Version, path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Stats.MinLocalDeletionTime != 1540230880 {
		t.Fatalf("min local deletion time %d, want the shadowable deletion's 1540230880", st.Stats.MinLocalDeletionTime)
	}
	st.Stats.MinLocalDeletionTime = mutation.NoDeletionTime // 2147483647 on disk
	if b, err = sstables.AppendStatistics(nil, st, desc.Version); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCastable(t, nil, "verify", dir)
	want := "WARN " + path + ": Statistics.db: the partition at Data.db offset 31 holds local deletion time 1540230880, outside the Stats bounds [none, none]"
	if code != 0 || !strings.HasPrefix(out, "OK ") || !strings.Contains(stderr, want) {
		t.Fatalf("verify: exit %d, stdout %q, stderr:\n%s\nwant exit 0, OK and %q", code, out, stderr, want)
	}
	if strings.Count(stderr, "outside the Stats bounds") != 1 {
		t.Errorf("the bounds are reported more than once:\n%s", stderr)
	}
	if _, stderr, code := runCastable(t, nil, "verify", "--strict", dir); code != 1 || !strings.Contains(stderr, "FAILED ") {
		t.Fatalf("verify --strict: exit %d, stderr:\n%s\nwant exit 1", code, stderr)
	}
}
