package rows

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/castable-db/castable/schema"
)

// Names given to the key columns of a table rebuilt from a serialization
// header, which names only the static and regular columns. They follow
// sstabledump (Cassandra 3.11 SSTableExport.metadataFromSSTable): the key is
// "PartitionKey" and the clustering columns "clustering", "clustering1", …;
// the components of a multi-column key are "PartitionKey", "PartitionKey1", ….
const (
	headerPartitionKeyName = "PartitionKey"
	headerClusteringName   = "clustering"
)

func numberedName(base string, i int) string {
	if i == 0 {
		return base
	}
	return base + strconv.Itoa(i)
}

// TableFromHeader builds the table an SSTable's serialization header
// describes: key columns named as sstabledump names them, static and regular
// columns with their names and types.
func TableFromHeader(h *Header) (*schema.Table, error) {
	var defs []schema.ColumnDef
	for i, t := range h.PartitionKeyTypes {
		defs = append(defs, schema.ColumnDef{Name: numberedName(headerPartitionKeyName, i), Type: t, Kind: schema.PartitionKey})
	}
	for i, t := range h.ClusteringTypes {
		defs = append(defs, schema.ColumnDef{Name: numberedName(headerClusteringName, i), Type: t, Kind: schema.ClusteringKey})
	}
	for _, c := range h.Static {
		defs = append(defs, schema.ColumnDef{Name: c.Name, Type: c.Type, Kind: schema.Static})
	}
	for _, c := range h.Regular {
		defs = append(defs, schema.ColumnDef{Name: c.Name, Type: c.Type, Kind: schema.Regular})
	}
	return schema.NewTable("", "", defs, schema.Options{})
}

// HeaderColumns maps the header's column list of one kind to the table's
// columns, in canonical (table) order.
func HeaderColumns(table *schema.Table, list []HeaderColumn, kind schema.ColumnKind) ([]*schema.Column, error) {
	cols := make([]*schema.Column, 0, len(list))
	for _, hc := range list {
		c := table.Column(hc.Name)
		if c == nil {
			return nil, fmt.Errorf("column %q of the serialization header is not in table %s.%s", hc.Name, table.Keyspace, table.Name)
		}
		if c.Kind != kind {
			return nil, fmt.Errorf("column %q is %v in the serialization header but %v in table %s.%s", hc.Name, kind, c.Kind, table.Keyspace, table.Name)
		}
		if c.Type.IsComplex() != hc.Type.IsComplex() {
			return nil, fmt.Errorf("column %q: type %s in the serialization header does not match the table's %s", hc.Name, hc.TypeName, c.Type.MarshalName())
		}
		// Data.db stores a fixed-length type's values without a length:
		// a table type of another layout would misread every row (a
		// vector<float, 3> read as a blob, say). An opaque header type
		// (an unknown class read on request) has no known layout: the
		// table's is taken.
		if hf, tf := hc.Type.FixedLength(), c.Type.FixedLength(); hf != tf && !(hc.Type.Kind == schema.KindCustom && hf == 0) {
			return nil, fmt.Errorf("column %q: the serialization header's type %s is stored as %s, the table's %s as %s", hc.Name, hc.TypeName, layoutName(hf), c.Type, layoutName(tf))
		}
		cols = append(cols, c)
	}
	sort.SliceStable(cols, func(i, j int) bool { return cols[i].Index < cols[j].Index })
	for i := 1; i < len(cols); i++ {
		if cols[i] == cols[i-1] {
			return nil, fmt.Errorf("column %q listed twice in the serialization header", cols[i].Name)
		}
	}
	return cols, nil
}

// CheckTableMatchesHeader checks the key and clustering shape of a given
// schema against the header.
func CheckTableMatchesHeader(table *schema.Table, h *Header) error {
	if len(table.PartitionKey) != len(h.PartitionKeyTypes) {
		return fmt.Errorf("table %s.%s has %d partition key columns, the serialization header %d", table.Keyspace, table.Name, len(table.PartitionKey), len(h.PartitionKeyTypes))
	}
	if len(table.Clustering) != len(h.ClusteringTypes) {
		return fmt.Errorf("table %s.%s has %d clustering columns, the serialization header %d", table.Keyspace, table.Name, len(table.Clustering), len(h.ClusteringTypes))
	}
	for i, c := range table.Clustering {
		if c.Type.FixedLength() != h.ClusteringTypes[i].FixedLength() {
			return fmt.Errorf("clustering column %s: type %s does not match the serialization header's %s", c.Name, c.Type.MarshalName(), h.ClusteringTypeNames[i])
		}
	}
	return nil
}

// layoutName says how Data.db stores a value of fixed length n (0:
// variable).
func layoutName(n int) string {
	if n == 0 {
		return "length-prefixed values"
	}
	return fmt.Sprintf("%d-byte values without a length", n)
}
