package memtable

import (
	"strings"
	"testing"

	"github.com/castable-db/castable/mutation"
)

// TestUnknownPartitionerIsAnError: a table naming a partitioner castable
// does not know is refused by Apply with an error naming it and the
// table, instead of being ordered by Murmur3 (dht.Of's old default).
func TestUnknownPartitionerIsAnError(t *testing.T) {
	tbl := smallPart(t)
	tbl.Options.Partitioner = "org.example.FancyPartitioner"
	m := New(tbl, Options{})
	var p mutation.Partition
	onePartition(&p, tbl, intKey(1), []byte("v"), 1)
	err := m.Apply(&p)
	if err == nil || !strings.Contains(err.Error(), "FancyPartitioner") || !strings.Contains(err.Error(), "ks.small_part") {
		t.Fatalf("Apply: %v, want an error naming the partitioner and the table", err)
	}
	if f := m.Freeze(); f.Get(intKey(1)) != nil {
		t.Fatal("a partition was stored")
	}
}
