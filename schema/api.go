package schema

// This file fixes the method set other packages program against. Every body
// here is replaced by the real implementation in the type files.

import "errors"

var errUnimplemented = errors.New("schema: not implemented yet")

// String returns the CQL spelling of t, e.g. "frozen<map<int, text>>".
func (t *Type) String() string { panic(errUnimplemented) }

// MarshalName returns Cassandra's marshal class name of t, fully qualified,
// e.g. "org.apache.cassandra.db.marshal.Int32Type" or
// "FrozenType(org.apache.cassandra.db.marshal.ListType(...))" — exactly as
// AbstractType.toString() prints it (mc-format.md §5.5).
func (t *Type) MarshalName() string { panic(errUnimplemented) }

// ParseMarshalName parses a marshal class name (the inverse of MarshalName,
// also accepting CompositeType for multi-column keys via ParseMarshalNames).
func ParseMarshalName(s string) (*Type, error) { return nil, errUnimplemented }

// FixedLength is the length of every value of t when the mc format writes
// it without a length prefix (int 4, bigint 8, ...), or 0 when values are
// length-prefixed.
func (t *Type) FixedLength() int { panic(errUnimplemented) }

// IsComplex reports whether a column of type t stores one cell per element
// (a non-frozen collection or UDT).
func (t *Type) IsComplex() bool { panic(errUnimplemented) }

// Compare orders two serialized values as Cassandra's comparator for t does
// (signed integers, timeuuid by time, unsigned bytes for text and blobs,
// element-wise for collections and tuples, inverted when Reversed). An empty
// value sorts before every non-empty one.
func (t *Type) Compare(a, b []byte) int { panic(errUnimplemented) }

// Validate reports whether v is a valid serialized value of t.
func (t *Type) Validate(v []byte) error { return errUnimplemented }

// AppendJSON appends the JSON form of v (json-format.md §1.7) to dst.
func (t *Type) AppendJSON(dst, v []byte) ([]byte, error) { return dst, errUnimplemented }

// FromJSON serializes a value decoded by encoding/json with UseNumber
// (string, json.Number, bool, nil, []any, map[string]any), accepting
// everything json-format.md Part 2 says a loader must.
func (t *Type) FromJSON(v any) ([]byte, error) { return nil, errUnimplemented }

// AppendString appends the string form of v (partition key components and
// cell paths, json-format.md §1.2) to dst.
func (t *Type) AppendString(dst, v []byte) ([]byte, error) { return dst, errUnimplemented }

// FromString parses the string form of a value of t.
func (t *Type) FromString(s string) ([]byte, error) { return nil, errUnimplemented }

// PathType is the type of the cell paths of a complex column of type t:
// timeuuid for a list, the element type for a set, the key type for a map,
// and for a UDT the 2-byte field index (rendered as the field name).
func (t *Type) PathType() *Type { panic(errUnimplemented) }

// ElementValueType is the type of the value of the element cell with the
// given path in a complex column of type t (list element, map value, UDT
// field; a set element's value is empty).
func (t *Type) ElementValueType(path []byte) *Type { panic(errUnimplemented) }

// NewTable builds a table from its columns. Partition key and clustering
// columns keep the order they have in cols; static and regular columns are
// put in canonical order and every Column.Index is set.
func NewTable(keyspace, name string, cols []ColumnDef, opts Options) (*Table, error) {
	return nil, errUnimplemented
}

// ColumnDef declares a column for NewTable.
type ColumnDef struct {
	Name string
	Type *Type
	Kind ColumnKind
}

// Column returns the column with the given (unquoted, case-exact) name, or
// nil.
func (t *Table) Column(name string) *Column { panic(errUnimplemented) }

// PartitionKeyMarshalName is the marshal name of the partition key type as
// the mc serialization header writes it (CompositeType(...) for several
// columns).
func (t *Table) PartitionKeyMarshalName() string { panic(errUnimplemented) }

// MakePartitionKey serializes partition key component values (the
// CompositeType encoding when there are several).
func (t *Table) MakePartitionKey(components [][]byte) []byte { panic(errUnimplemented) }

// SplitPartitionKey splits a serialized partition key into its components.
func (t *Table) SplitPartitionKey(key []byte) ([][]byte, error) { return nil, errUnimplemented }

// CompareClustering compares two clustering prefixes component by component
// with the clustering columns' comparators, over their common length; it
// returns 0 when one is a prefix of the other (bound kinds decide then; see
// mutation.ComparePrefix). A nil (null) component sorts before any value.
func (t *Table) CompareClustering(a, b [][]byte) int { panic(errUnimplemented) }
