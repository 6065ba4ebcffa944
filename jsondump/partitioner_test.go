package jsondump

import (
	"strings"
	"testing"

	"github.com/castable-db/castable/mutation"
)

// TestDecoderUnknownPartitioner: sstabledump JSON of a table whose
// partitioner castable does not know is refused with an error naming it
// and the table, instead of being given Murmur3 tokens.
func TestDecoderUnknownPartitioner(t *testing.T) {
	tbl, err := parseTestTable("CREATE TABLE ks.t (k int PRIMARY KEY, v text);")
	if err != nil {
		t.Fatal(err)
	}
	tbl.Options.Partitioner = "NoSuchPartitioner"
	d := NewDecoder(strings.NewReader(`[{"partition": {"key": ["1"]}, "rows": []}]`), tbl, DecodeOptions{})
	var p mutation.Partition
	err = d.NextPartition(&p)
	if err == nil || !strings.Contains(err.Error(), `"NoSuchPartitioner"`) || !strings.Contains(err.Error(), "ks.t") {
		t.Fatalf("NextPartition: %v, want an error naming the partitioner and the table", err)
	}
}
