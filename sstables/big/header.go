package big

import (
	"fmt"
	"github.com/castable-db/castable/internal/vint"

	"github.com/castable-db/castable/schema"
)

// Serialization header: the fourth component of Statistics.db (type 3). It
// names the types of everything in Data.db and the column lists that row
// flags, column subsets and cell order are relative to.
//
//	EncodingStats                                 (3 uvints, see encoding.go)
//	vstr   partition key type                     marshal name; CompositeType(...)
//	                                              for a multi-column key
//	uvint  clustering column count
//	vstr * clustering types
//	uvint  static column count,  then (vstr name, vstr type) each
//	uvint  regular column count, then (vstr name, vstr type) each
//
// vstr is a uvint byte length followed by UTF-8 bytes. Column lists are in
// canonical order (simple columns before complex ones, each group by name as
// Cassandra compares them); Cassandra always writes them so, some ScyllaDB
// versions do not, so readers re-sort.

// HeaderColumn is a static or regular column as the serialization header
// lists it.
type HeaderColumn struct {
	Name string
	Type *schema.Type
	// TypeName is the marshal name as written.
	TypeName string
}

// Header is the decoded serialization header.
type Header struct {
	Stats EncodingStats
	// PartitionKeyType is the marshal name of the partition key type as
	// written (CompositeType(...) for several columns).
	PartitionKeyType string
	// PartitionKeyTypes are the key component types.
	PartitionKeyTypes []*schema.Type
	// ClusteringTypeNames and ClusteringTypes describe the clustering
	// columns (ReversedType for DESC ones).
	ClusteringTypeNames []string
	ClusteringTypes     []*schema.Type
	// Static and Regular are the header's column lists in the order written.
	Static, Regular []HeaderColumn
}

// appendVstr appends a uvint length and the bytes of s.
func appendVstr(dst []byte, s string) []byte {
	dst = vint.Append(dst, uint64(len(s)))
	return append(dst, s...)
}

// appendHeader serializes h.
func appendHeader(dst []byte, h *Header) []byte {
	dst = h.Stats.appendHeader(dst)
	dst = appendVstr(dst, h.PartitionKeyType)
	dst = vint.Append(dst, uint64(len(h.ClusteringTypeNames)))
	for _, t := range h.ClusteringTypeNames {
		dst = appendVstr(dst, t)
	}
	for _, list := range [][]HeaderColumn{h.Static, h.Regular} {
		dst = vint.Append(dst, uint64(len(list)))
		for _, c := range list {
			dst = appendVstr(dst, c.Name)
			dst = appendVstr(dst, c.TypeName)
		}
	}
	return dst
}

// newHeader builds the header a writer of table stores: the EncodingStats,
// the table's key and clustering types, and the given static and regular
// columns (in the table's canonical order).
func newHeader(table *schema.Table, stats EncodingStats, static, regular []*schema.Column) *Header {
	h := &Header{Stats: stats, PartitionKeyType: table.PartitionKeyMarshalName()}
	for _, c := range table.PartitionKey {
		h.PartitionKeyTypes = append(h.PartitionKeyTypes, c.Type)
	}
	for _, c := range table.Clustering {
		h.ClusteringTypes = append(h.ClusteringTypes, c.Type)
		h.ClusteringTypeNames = append(h.ClusteringTypeNames, c.Type.MarshalName())
	}
	for _, c := range static {
		h.Static = append(h.Static, HeaderColumn{Name: c.Name, Type: c.Type, TypeName: c.Type.MarshalName()})
	}
	for _, c := range regular {
		h.Regular = append(h.Regular, HeaderColumn{Name: c.Name, Type: c.Type, TypeName: c.Type.MarshalName()})
	}
	return h
}

// decodeHeader parses a serialization header from b (the whole component
// body). It reports the offset within b of any problem.
func decodeHeader(b []byte) (*Header, int, error) {
	r := sliceReader{b: b}
	h := &Header{}
	ts, _ := r.uvint()
	ldt, _ := r.uvint()
	ttl, _ := r.uvint()
	if r.err != nil {
		return nil, r.off, r.err
	}
	h.Stats = EncodingStats{
		MinTimestamp:         int64(ts) + timestampEpoch,
		MinLocalDeletionTime: int32(uint32(ldt)) + localDeletionTimeEpoch,
		MinTTL:               int32(uint32(ttl)) + ttlEpoch,
	}
	at := r.off
	h.PartitionKeyType = r.vstr()
	if r.err != nil {
		return nil, r.off, r.err
	}
	keyTypes, err := parsePartitionKeyType(h.PartitionKeyType)
	if err != nil {
		return nil, at, err
	}
	h.PartitionKeyTypes = keyTypes
	n := r.count(1)
	for i := 0; i < n && r.err == nil; i++ {
		at := r.off
		name := r.vstr()
		if r.err != nil {
			break
		}
		t, err := schema.ParseMarshalName(name)
		if err != nil {
			return nil, at, fmt.Errorf("clustering column %d: %w", i, err)
		}
		h.ClusteringTypeNames = append(h.ClusteringTypeNames, name)
		h.ClusteringTypes = append(h.ClusteringTypes, t)
	}
	for kind := 0; kind < 2 && r.err == nil; kind++ {
		n := r.count(2)
		var list []HeaderColumn
		for i := 0; i < n && r.err == nil; i++ {
			name := r.vstr()
			at := r.off
			typeName := r.vstr()
			if r.err != nil {
				break
			}
			t, err := schema.ParseMarshalName(typeName)
			if err != nil {
				return nil, at, fmt.Errorf("column %q: %w", name, err)
			}
			list = append(list, HeaderColumn{Name: name, Type: t, TypeName: typeName})
		}
		if kind == 0 {
			h.Static = list
		} else {
			h.Regular = list
		}
	}
	if r.err != nil {
		return nil, r.off, r.err
	}
	return h, r.off, nil
}

// parsePartitionKeyType splits a partition key marshal name into the
// component types: CompositeType(T1,T2,...) gives one per component.
func parsePartitionKeyType(s string) ([]*schema.Type, error) {
	types, err := schema.ParseMarshalNames(s)
	if err != nil {
		return nil, fmt.Errorf("partition key type: %w", err)
	}
	return types, nil
}
