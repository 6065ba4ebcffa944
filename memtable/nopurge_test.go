package memtable

import (
	"testing"

	"github.com/castable-db/castable/mutation"
)

// TestNoPurgeKeepsShadowedData: with NoPurge a partition is stored as
// given, data its own deletion shadows included; without it the shadowed
// cell is removed.
func TestNoPurgeKeepsShadowedData(t *testing.T) {
	tbl := smallPart(t)
	for _, noPurge := range []bool{false, true} {
		m := New(tbl, Options{NoPurge: noPurge})
		var p mutation.Partition
		onePartition(&p, tbl, intKey(1), []byte("v"), 10)
		p.Rows[0].Deletion = mutation.DeletionTime{MarkedForDeleteAt: 20, LocalDeletionTime: 100}
		if err := m.Apply(&p); err != nil {
			t.Fatal(err)
		}
		got := collect(t, m.Freeze())
		if len(got) != 1 || len(got[0].Rows) != 1 {
			t.Fatalf("NoPurge %v: got %d partitions", noPurge, len(got))
		}
		if cells := len(got[0].Rows[0].Cells); noPurge && cells != 1 || !noPurge && cells != 0 {
			t.Errorf("NoPurge %v: the row kept %d cells", noPurge, cells)
		}
	}
}
