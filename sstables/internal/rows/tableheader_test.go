package rows

import (
	"strings"
	"testing"

	"github.com/castable-db/castable/schema"
)

// A --schema type stored in Data.db otherwise than the header's type (a
// vector<float, 3>, 12 bytes without a length, taken for a length-prefixed
// blob) is an error, not a misread of every row; an opaque header type
// (an unknown class read on request) takes the table's layout.
func TestHeaderColumnsLayout(t *testing.T) {
	vec, err := schema.VectorOf(schema.Float, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table, header *schema.Type
		want          string
	}{
		{schema.Blob, vec, "12-byte values without a length"},
		{vec, schema.Blob, "length-prefixed values"},
		{vec, vec, ""},
		{vec, schema.CustomType("com.example.Opaque"), ""},
		{schema.Blob, schema.CustomType(schema.MarshalPackage + "DateType"), "8-byte values"},
	} {
		tab, err := schema.NewTable("ks", "t", []schema.ColumnDef{
			{Name: "k", Type: schema.Int, Kind: schema.PartitionKey},
			{Name: "v", Type: c.table, Kind: schema.Regular},
		}, schema.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = HeaderColumns(tab, []HeaderColumn{{Name: "v", Type: c.header, TypeName: c.header.MarshalName()}}, schema.Regular)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("table %s, header %s: %v, want %q", c.table, c.header, err, c.want)
		}
	}
}
