package mutation

import (
	"strings"
	"testing"
)

// TestBuilderUnknownPartitioner: a table naming a partitioner castable does
// not know makes Finish fail with an error naming it and the table, where
// the token used to be computed with Murmur3 silently.
func TestBuilderUnknownPartitioner(t *testing.T) {
	tbl := ckTable(t)
	tbl.Options.Partitioner = "NoSuchPartitioner"
	b := NewBuilder(tbl)
	b.Reset(i32(1))
	p, err := b.Finish()
	if p != nil || err == nil || !strings.Contains(err.Error(), `"NoSuchPartitioner"`) || !strings.Contains(err.Error(), "ks.t") {
		t.Fatalf("Finish: %v, %v; want an error naming the partitioner and the table", p, err)
	}
}
