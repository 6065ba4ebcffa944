package sstables

import (
	"errors"
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

// SerializationHeader is the decoded serialization header (Statistics.db
// component 3, ma on).
type SerializationHeader struct {
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

// AppendSerializationHeader serializes h.
func AppendSerializationHeader(dst []byte, h *SerializationHeader) []byte {
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

// NewSerializationHeader builds the header a writer of table stores: the EncodingStats,
// the table's key and clustering types, and the given static and regular
// columns (in the table's canonical order).
func NewSerializationHeader(table *schema.Table, stats EncodingStats, static, regular []*schema.Column) *SerializationHeader {
	return NewSerializationHeaderStyle(table, stats, static, regular, schema.MarshalCassandra)
}

// NewSerializationHeaderStyle is NewSerializationHeader with the type
// names in the given spelling (ScyllaDB's for its own versions, see
// version.Profile.ScyllaTypeNames).
func NewSerializationHeaderStyle(table *schema.Table, stats EncodingStats, static, regular []*schema.Column, style schema.MarshalStyle) *SerializationHeader {
	h := &SerializationHeader{Stats: stats, PartitionKeyType: table.PartitionKeyMarshalNameStyle(style)}
	for _, c := range table.PartitionKey {
		h.PartitionKeyTypes = append(h.PartitionKeyTypes, c.Type)
	}
	for _, c := range table.Clustering {
		h.ClusteringTypes = append(h.ClusteringTypes, c.Type)
		h.ClusteringTypeNames = append(h.ClusteringTypeNames, c.Type.MarshalNameStyle(style))
	}
	for _, c := range static {
		h.Static = append(h.Static, HeaderColumn{Name: c.Name, Type: c.Type, TypeName: c.Type.MarshalNameStyle(style)})
	}
	for _, c := range regular {
		h.Regular = append(h.Regular, HeaderColumn{Name: c.Name, Type: c.Type, TypeName: c.Type.MarshalNameStyle(style)})
	}
	return h
}

// DecodeSerializationHeader parses a serialization header from the start
// of b; unsigned says local deletion times are oa's (the EncodingStats'
// UnsignedDeletionTimes). It returns the header and the bytes it used, or
// an error with the offset within b of the problem. A type castable does
// not know is a *HeaderTypeError (see DecodeSerializationHeaderWith).
func DecodeSerializationHeader(b []byte, unsigned bool) (*SerializationHeader, int, error) {
	return DecodeSerializationHeaderWith(b, unsigned, schema.TypeOptions{})
}

// HeaderTypeError is a type name of a serialization header that does not
// parse: Column says whose, Name is the name as written, Err the parser's
// error (errors.Is(err, schema.ErrUnknownType) for a class castable does
// not know).
type HeaderTypeError struct {
	Column, Name string
	Err          error
}

// Error implements error.
func (e *HeaderTypeError) Error() string { return e.Column + ": " + e.Err.Error() }

// Unwrap returns the parser's error.
func (e *HeaderTypeError) Unwrap() error { return e.Err }

// DecodeSerializationHeaderWith is DecodeSerializationHeader parsing the
// type names with the given options.
func DecodeSerializationHeaderWith(b []byte, unsigned bool, types schema.TypeOptions) (*SerializationHeader, int, error) {
	r := headerReader{b: b}
	h := &SerializationHeader{}
	ts := r.uvint()
	ldt := r.uvint()
	ttl := r.uvint()
	if r.err != nil {
		return nil, r.off, r.err
	}
	h.Stats = EncodingStats{
		MinTimestamp:          int64(ts) + timestampEpoch,
		MinLocalDeletionTime:  int32(uint32(ldt)) + localDeletionTimeEpoch,
		MinTTL:                int32(uint32(ttl)) + ttlEpoch,
		UnsignedDeletionTimes: unsigned,
	}
	at := r.off
	h.PartitionKeyType = r.vstr()
	if r.err != nil {
		return nil, r.off, r.err
	}
	keyTypes, err := types.ParseMarshalNames(h.PartitionKeyType)
	if err != nil {
		return nil, at, &HeaderTypeError{Column: "partition key type", Name: h.PartitionKeyType, Err: err}
	}
	h.PartitionKeyTypes = keyTypes
	n := r.count(1)
	for i := 0; i < n && r.err == nil; i++ {
		at := r.off
		name := r.vstr()
		if r.err != nil {
			break
		}
		t, err := types.ParseMarshalName(name)
		if err != nil {
			return nil, at, &HeaderTypeError{Column: fmt.Sprintf("clustering column %d", i), Name: name, Err: err}
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
			t, err := types.ParseMarshalName(typeName)
			if err != nil {
				return nil, at, &HeaderTypeError{Column: fmt.Sprintf("column %q", name), Name: typeName, Err: err}
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

// headerReader reads the header's vints and vstrs with a sticky error.
type headerReader struct {
	b   []byte
	off int
	err error
}

func (r *headerReader) uvint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := vint.Decode(r.b[r.off:])
	if n == 0 {
		r.err = ErrShortValues
		return 0
	}
	r.off += n
	return v
}

// count reads a uvint count of items of at least minSize bytes each.
func (r *headerReader) count(minSize int) int {
	n := r.uvint()
	if r.err == nil && n > uint64((len(r.b)-r.off)/minSize) {
		r.err = fmt.Errorf("count %d does not fit the %d bytes left", n, len(r.b)-r.off)
		return 0
	}
	return int(n)
}

func (r *headerReader) vstr() string {
	n := r.uvint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)-r.off) {
		r.err = ErrShortValues
		return ""
	}
	s := string(r.b[r.off : r.off+int(n)])
	r.off += int(n)
	return s
}

// headerError turns a serialization header decoding error at offset off of
// the file path into what a reader returns: an *UnknownTypeError for a
// class castable does not know, a CorruptionError otherwise.
func headerError(path string, off int64, err error) error {
	var hte *HeaderTypeError
	var ute *schema.UnknownTypeError
	if errors.As(err, &hte) && errors.As(err, &ute) {
		return &UnknownTypeError{Path: path, Component: string(ComponentStatistics), Offset: off, Column: hte.Column, Class: ute.Class, Err: err}
	}
	return &CorruptionError{Path: path, Component: string(ComponentStatistics), Offset: off, Reason: "serialization header", Err: err}
}
