package la

import (
	"os"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

// fixture is one la SSTable of the read corpus
// (../shared/testdata/cassandra/<dir>).
type fixture struct {
	dir    string
	gen    int
	scylla bool // written by ScyllaDB, not Cassandra
	// columnIndexSize is the writer's ColumnIndexSize that reproduces the
	// file (-1: column_index_size_in_kb 0).
	columnIndexSize int
}

var fixtures = []fixture{
	{dir: "compressed", gen: 1},
	{dir: "uncompressed", gen: 1},
	{dir: "uncompressed", gen: 2},
	{dir: "composite", gen: 1},
	{dir: "set", gen: 1},
	{dir: "map_pk", gen: 1},
	{dir: "list_pk", gen: 1},
	{dir: "ttl", gen: 1},
	{dir: "deleted_cell", gen: 2},
	{dir: "static_column", gen: 58, scylla: true},
	{dir: "counter_test", gen: 5},
	{dir: "promoted_index_read", gen: 1, columnIndexSize: -1},
}

func (f fixture) name() string { return f.dir + "/la-" + itoa(f.gen) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// desc returns the fixture's descriptor, skipping (or failing in CI) when
// the test data is absent.
func (f fixture) desc(t testing.TB) sstables.Descriptor {
	t.Helper()
	return sstables.Descriptor{Dir: testdata.Path(t, "cassandra", f.dir), Version: Version, Generation: f.gen}
}

func readComponent(t testing.TB, d sstables.Descriptor, c sstables.Component) []byte {
	t.Helper()
	b, err := os.ReadFile(d.Path(c))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readData returns the uncompressed Data.db stream of d.
func readData(t testing.TB, d sstables.Descriptor) []byte {
	t.Helper()
	r, err := sstables.OpenData(nil, d, sstables.DataReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b := make([]byte, r.Length())
	if _, err := r.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return b
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
