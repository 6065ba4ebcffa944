package la

import (
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

// TestReaderIndex walks Index.db of real la files: one entry per partition
// in Data.db order, positions matching a scan, and the promoted index of
// promoted_index_read.
func TestReaderIndex(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		blocks int // blocks of the first entry
	}{{"compressed", 0}, {"promoted_index_read", 5}, {"composite", 0}} {
		desc := sstables.Descriptor{Dir: testdata.Path(t, "cassandra", tc.dir), Version: Version, Generation: 1}
		r, err := Open(desc, nil, sstables.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var positions []int64
		first := -1
		err = r.Index(func(e *IndexEntry) error {
			if first < 0 {
				first = len(e.Blocks)
			}
			positions = append(positions, e.Position)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.dir, err)
		}
		sc, _ := r.Scan()
		for i := 0; ; i++ {
			if _, err := sc.NextPartition(); err != nil {
				if i != len(positions) {
					t.Errorf("%s: %d index entries, %d partitions", tc.dir, len(positions), i)
				}
				break
			}
			if i < len(positions) && sc.Position() != positions[i] {
				t.Errorf("%s: entry %d at %d, partition at %d", tc.dir, i, positions[i], sc.Position())
			}
		}
		if first != tc.blocks {
			t.Errorf("%s: first entry has %d promoted index blocks, want %d", tc.dir, first, tc.blocks)
		}
		r.Close()
	}
}
