package schema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The native types. They are shared singletons: compare types with Equal,
// not with ==, because parsed types are fresh values.
var (
	Ascii     = &Type{Kind: KindAscii}
	Bigint    = &Type{Kind: KindBigint}
	Blob      = &Type{Kind: KindBlob}
	Boolean   = &Type{Kind: KindBoolean}
	Counter   = &Type{Kind: KindCounter}
	Date      = &Type{Kind: KindDate}
	Decimal   = &Type{Kind: KindDecimal}
	Double    = &Type{Kind: KindDouble}
	Duration  = &Type{Kind: KindDuration}
	Float     = &Type{Kind: KindFloat}
	Inet      = &Type{Kind: KindInet}
	Int       = &Type{Kind: KindInt}
	Smallint  = &Type{Kind: KindSmallint}
	Text      = &Type{Kind: KindText}
	Time      = &Type{Kind: KindTime}
	Timestamp = &Type{Kind: KindTimestamp}
	Timeuuid  = &Type{Kind: KindTimeuuid}
	Tinyint   = &Type{Kind: KindTinyint}
	UUID      = &Type{Kind: KindUUID}
	Varint    = &Type{Kind: KindVarint}
	Empty     = &Type{Kind: KindEmpty}
)

// udtFieldPath is the type of the cell paths of a non-frozen UDT: a 2-byte
// big-endian field index, rendered as the field name. PathType builds one per
// UDT (it needs the field names); this value is only its kind marker.
const kindFieldPath = Kind(200)

// kindInfo is what this package knows about each native kind.
type kindInfo struct {
	cql     string // CQL spelling
	marshal string // marshal class short name (without the package)
	fixed   int    // Cassandra's valueLengthIfFixed, 0 when variable
}

// MarshalPackage is the Java package of Cassandra's marshal classes.
const MarshalPackage = "org.apache.cassandra.db.marshal."

var kinds = [...]kindInfo{
	KindAscii:     {"ascii", "AsciiType", 0},
	KindBigint:    {"bigint", "LongType", 8},
	KindBlob:      {"blob", "BytesType", 0},
	KindBoolean:   {"boolean", "BooleanType", 1},
	KindCounter:   {"counter", "CounterColumnType", 0},
	KindDate:      {"date", "SimpleDateType", 0},
	KindDecimal:   {"decimal", "DecimalType", 0},
	KindDouble:    {"double", "DoubleType", 8},
	KindDuration:  {"duration", "DurationType", 0},
	KindFloat:     {"float", "FloatType", 4},
	KindInet:      {"inet", "InetAddressType", 0},
	KindInt:       {"int", "Int32Type", 4},
	KindSmallint:  {"smallint", "ShortType", 0},
	KindText:      {"text", "UTF8Type", 0},
	KindTime:      {"time", "TimeType", 0},
	KindTimestamp: {"timestamp", "TimestampType", 8},
	KindTimeuuid:  {"timeuuid", "TimeUUIDType", 16},
	KindTinyint:   {"tinyint", "ByteType", 0},
	KindUUID:      {"uuid", "UUIDType", 16},
	KindVarint:    {"varint", "IntegerType", 0},
	KindEmpty:     {"empty", "EmptyType", 0},
	KindList:      {"list", "ListType", 0},
	KindSet:       {"set", "SetType", 0},
	KindMap:       {"map", "MapType", 0},
	KindTuple:     {"tuple", "TupleType", 0},
	KindUDT:       {"", "UserType", 0},
	KindVector:    {"vector", "VectorType", 0},
	KindCustom:    {"", "", 0},
}

// String returns the CQL name of a kind ("int", "list", ...).
func (k Kind) String() string {
	if int(k) < len(kinds) && kinds[k].cql != "" {
		return kinds[k].cql
	}
	switch k {
	case KindUDT:
		return "udt"
	case KindCustom:
		return "custom"
	case kindFieldPath:
		return "udt field"
	}
	return "invalid"
}

// IsNative reports whether k is a native (non-parameterised) kind.
func (k Kind) IsNative() bool { return k >= KindAscii && k <= KindEmpty }

// IsCollection reports whether k is list, set or map.
func (k Kind) IsCollection() bool { return k == KindList || k == KindSet || k == KindMap }

// NativeType returns the shared native type of kind k, or nil when k is not
// native.
func NativeType(k Kind) *Type {
	switch k {
	case KindAscii:
		return Ascii
	case KindBigint:
		return Bigint
	case KindBlob:
		return Blob
	case KindBoolean:
		return Boolean
	case KindCounter:
		return Counter
	case KindDate:
		return Date
	case KindDecimal:
		return Decimal
	case KindDouble:
		return Double
	case KindDuration:
		return Duration
	case KindFloat:
		return Float
	case KindInet:
		return Inet
	case KindInt:
		return Int
	case KindSmallint:
		return Smallint
	case KindText:
		return Text
	case KindTime:
		return Time
	case KindTimestamp:
		return Timestamp
	case KindTimeuuid:
		return Timeuuid
	case KindTinyint:
		return Tinyint
	case KindUUID:
		return UUID
	case KindVarint:
		return Varint
	case KindEmpty:
		return Empty
	}
	return nil
}

// ListOf returns list<elem>, frozen or not. Element types of a collection
// are always frozen (Cassandra forbids multi-cell types inside collections),
// so elem is frozen here if needed.
func ListOf(elem *Type, frozen bool) *Type {
	return &Type{Kind: KindList, Frozen: frozen, Params: []*Type{elem.Freeze()}}
}

// SetOf returns set<elem>, frozen or not (elem is frozen, see ListOf).
func SetOf(elem *Type, frozen bool) *Type {
	return &Type{Kind: KindSet, Frozen: frozen, Params: []*Type{elem.Freeze()}}
}

// MapOf returns map<key, value>, frozen or not (key and value are frozen,
// see ListOf).
func MapOf(key, value *Type, frozen bool) *Type {
	return &Type{Kind: KindMap, Frozen: frozen, Params: []*Type{key.Freeze(), value.Freeze()}}
}

// TupleOf returns tuple<types...>. Tuples and their components are always
// frozen.
func TupleOf(types ...*Type) *Type {
	ps := make([]*Type, len(types))
	for i, p := range types {
		ps[i] = p.Freeze()
	}
	return &Type{Kind: KindTuple, Frozen: true, Params: ps}
}

// UDTOf returns the user-defined type keyspace.name with the given fields,
// frozen or not. Field types are frozen (see ListOf).
func UDTOf(keyspace, name string, fieldNames []string, fieldTypes []*Type, frozen bool) *Type {
	ps := make([]*Type, len(fieldTypes))
	for i, p := range fieldTypes {
		ps[i] = p.Freeze()
	}
	return &Type{Kind: KindUDT, Frozen: frozen, Params: ps,
		FieldNames: append([]string(nil), fieldNames...), Keyspace: keyspace, Name: name}
}

// MaxVectorDimension is the largest vector dimension: Cassandra reads the
// dimension as a Java int. A vector of fixed-length elements is further
// bounded by its value length, n × the element's, which must fit an int
// too.
const MaxVectorDimension = math.MaxInt32

// VectorOf returns vector<elem, dimension> (Cassandra 5.0's VectorType).
// elem is kept as declared (see Type.Params); dimension must be positive
// and, for fixed-length elements, small enough that the value length fits
// 2^31-1 bytes.
func VectorOf(elem *Type, dimension int) (*Type, error) {
	if elem == nil {
		return nil, fmt.Errorf("schema: vector without an element type")
	}
	if dimension <= 0 {
		return nil, fmt.Errorf("schema: vectors may only have positive dimensions; given %d", dimension)
	}
	if dimension > MaxVectorDimension {
		return nil, fmt.Errorf("schema: vector dimension %d is larger than %d", dimension, MaxVectorDimension)
	}
	switch elem.Kind {
	case KindEmpty, kindFieldPath, KindInvalid:
		return nil, fmt.Errorf("schema: %s is not a vector element type", elem)
	}
	if elem.Reversed {
		elem = elem.Unreversed()
	}
	if f := elem.FixedLength(); f > 0 && int64(f)*int64(dimension) > math.MaxInt32 {
		return nil, fmt.Errorf("schema: vector<%s, %d> values would be %d bytes, more than %d", elem, dimension, int64(f)*int64(dimension), math.MaxInt32)
	}
	return &Type{Kind: KindVector, Params: []*Type{elem}, Dimension: dimension}, nil
}

// CustomType returns an opaque type for the fully qualified marshal class
// (or class expression) class.
func CustomType(class string) *Type {
	return &Type{Kind: KindCustom, Custom: class}
}

// ReversedOf returns t with descending order (a DESC clustering column).
func ReversedOf(t *Type) *Type {
	if t.Reversed {
		return t
	}
	c := *t
	c.Reversed = true
	return &c
}

// Unreversed returns t without its Reversed flag.
func (t *Type) Unreversed() *Type {
	if !t.Reversed {
		return t
	}
	c := *t
	c.Reversed = false
	return &c
}

// Freeze returns t frozen: collections and UDTs become single-cell values,
// and so do all types nested in them. Native types and already frozen types
// are returned unchanged, and so are vectors: they are single-cell values
// by nature, and their element type keeps the frozenness it was declared
// with, as in Cassandra (freezing a vector returns it unchanged).
func (t *Type) Freeze() *Type {
	switch t.Kind {
	case KindList, KindSet, KindMap, KindUDT, KindTuple:
	default:
		return t
	}
	if t.Frozen && t.paramsFrozen() {
		return t
	}
	c := *t
	c.Frozen = true
	c.Params = make([]*Type, len(t.Params))
	for i, p := range t.Params {
		c.Params[i] = p.Freeze()
	}
	return &c
}

func (t *Type) paramsFrozen() bool {
	for _, p := range t.Params {
		if p.Freeze() != p {
			return false
		}
	}
	return true
}

// IsComplex reports whether a column of type t stores one cell per element
// (a non-frozen collection or UDT).
func (t *Type) IsComplex() bool {
	switch t.Kind {
	case KindList, KindSet, KindMap, KindUDT:
		return !t.Frozen
	}
	return false
}

// IsCounter reports whether t is the counter type.
func (t *Type) IsCounter() bool { return t.Kind == KindCounter }

// FixedLength is the length of every value of t when the mc format writes
// it without a length prefix (int 4, bigint 8, ...), or 0 when values are
// length-prefixed. It is Cassandra's AbstractType.valueLengthIfFixed, which
// ReversedType delegates to its base type; a vector of fixed-length
// elements is fixed too, n × the element's length.
func (t *Type) FixedLength() int {
	if t.Kind == KindVector {
		if len(t.Params) == 1 && t.Dimension > 0 {
			if f := t.Params[0].FixedLength(); f > 0 && int64(f)*int64(t.Dimension) <= math.MaxInt32 {
				return f * t.Dimension
			}
		}
		return 0
	}
	if int(t.Kind) < len(kinds) && t.Kind != KindCustom {
		return kinds[t.Kind].fixed
	}
	if t.Kind == KindCustom {
		switch strings.TrimPrefix(t.Custom, MarshalPackage) {
		case "DateType":
			return 8
		case "LexicalUUIDType":
			return 16
		}
	}
	return 0
}

// PathType is the type of the cell paths of a complex column of type t:
// timeuuid for a list, the element type for a set, the key type for a map,
// and for a UDT the 2-byte field index (rendered as the field name). It is
// nil when t is not a collection or UDT.
func (t *Type) PathType() *Type {
	switch t.Kind {
	case KindList:
		return Timeuuid
	case KindSet, KindMap:
		return t.Params[0]
	case KindUDT:
		return &Type{Kind: kindFieldPath, FieldNames: t.FieldNames, Keyspace: t.Keyspace, Name: t.Name}
	}
	return nil
}

// ElementValueType is the type of the value of the element cell with the
// given path in a complex column of type t (list element, map value, UDT
// field; a set element's value is empty). It is nil when t is not a
// collection or UDT, or when a UDT path is not a valid field index.
func (t *Type) ElementValueType(path []byte) *Type {
	switch t.Kind {
	case KindList:
		return t.Params[0]
	case KindSet:
		return Empty
	case KindMap:
		return t.Params[1]
	case KindUDT:
		i, ok := FieldIndex(path)
		if !ok || i >= len(t.Params) {
			return nil
		}
		return t.Params[i]
	}
	return nil
}

// FieldIndex decodes a UDT cell path (a 2-byte big-endian field index).
func FieldIndex(path []byte) (int, bool) {
	if len(path) != 2 {
		return 0, false
	}
	i := int(int16(uint16(path[0])<<8 | uint16(path[1])))
	return i, i >= 0
}

// AppendFieldIndex appends the cell path of UDT field i to dst.
func AppendFieldIndex(dst []byte, i int) []byte {
	return append(dst, byte(i>>8), byte(i))
}

// FieldByName returns the index of the UDT field with the given name, or -1.
func (t *Type) FieldByName(name string) int {
	for i, n := range t.FieldNames {
		if n == name {
			return i
		}
	}
	return -1
}

// Equal reports whether t and o are the same type (kind, parameters,
// frozenness, reversal, UDT identity and fields, vector dimension, custom
// class).
func (t *Type) Equal(o *Type) bool {
	if t == o {
		return true
	}
	if t == nil || o == nil {
		return false
	}
	if t.Kind != o.Kind || t.Reversed != o.Reversed || t.Custom != o.Custom || t.Dimension != o.Dimension ||
		t.Keyspace != o.Keyspace || t.Name != o.Name ||
		len(t.Params) != len(o.Params) || len(t.FieldNames) != len(o.FieldNames) {
		return false
	}
	if (t.Kind.IsCollection() || t.Kind == KindUDT) && t.Frozen != o.Frozen {
		return false
	}
	for i := range t.Params {
		if !t.Params[i].Equal(o.Params[i]) {
			return false
		}
	}
	for i := range t.FieldNames {
		if t.FieldNames[i] != o.FieldNames[i] {
			return false
		}
	}
	return true
}

// String returns the CQL spelling of t, e.g. "frozen<map<int, text>>". A
// reversed type prints as its base type (the order is a table property); a
// custom type prints as its quoted class name; a UDT as its (quoted if
// needed) name.
func (t *Type) String() string {
	return string(t.appendCQL(nil))
}

func (t *Type) appendCQL(dst []byte) []byte {
	frozen := t.Frozen && t.Kind != KindTuple
	if frozen {
		dst = append(dst, "frozen<"...)
	}
	switch t.Kind {
	case KindList, KindSet:
		dst = append(dst, t.Kind.String()...)
		dst = append(dst, '<')
		dst = t.Params[0].appendCQL(dst)
		dst = append(dst, '>')
	case KindMap:
		dst = append(dst, "map<"...)
		dst = t.Params[0].appendCQL(dst)
		dst = append(dst, ", "...)
		dst = t.Params[1].appendCQL(dst)
		dst = append(dst, '>')
	case KindTuple:
		dst = append(dst, "tuple<"...)
		for i, p := range t.Params {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = p.appendCQL(dst)
		}
		dst = append(dst, '>')
	case KindVector:
		dst = append(dst, "vector<"...)
		dst = t.Params[0].appendCQL(dst)
		dst = append(dst, ", "...)
		dst = strconv.AppendInt(dst, int64(t.Dimension), 10)
		dst = append(dst, '>')
	case KindUDT:
		if t.Keyspace != "" {
			dst = append(dst, QuoteIdentifier(t.Keyspace)...)
			dst = append(dst, '.')
		}
		dst = append(dst, QuoteIdentifier(t.Name)...)
	case KindCustom:
		dst = append(dst, '\'')
		dst = append(dst, strings.ReplaceAll(t.Custom, "'", "''")...)
		dst = append(dst, '\'')
	default:
		dst = append(dst, t.Kind.String()...)
	}
	if frozen {
		dst = append(dst, '>')
	}
	return dst
}
