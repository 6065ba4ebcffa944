package schema

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Marshal class names (AbstractType.toString() in Cassandra 3.11), as the mc
// serialization header stores them:
//
//	native      org.apache.cassandra.db.marshal.Int32Type
//	reversed    org.apache.cassandra.db.marshal.ReversedType(<T>)
//	collection  ListType(<T>) SetType(<T>) MapType(<K>,<V>)
//	frozen      FrozenType(<collection or UserType>) — once, on the outermost
//	            frozen type; the types inside it are printed without FrozenType
//	tuple       TupleType(<T1>,<T2>,...) — never wrapped in FrozenType
//	UDT         UserType(<keyspace>,<hex(name)>,<hex(field)>:<T>,...)
//	vector      VectorType(<T> , <n>) — Cassandra 5.0 spaces the comma
//	            (TypeParser.stringifyVectorParameters); ScyllaDB writes
//	            VectorType(<T>, <n>) (MarshalScylla). Never wrapped in
//	            FrozenType; <T> is printed as declared (a non-frozen list
//	            element is ListType(...)), with the freezing context of the
//	            vector itself
//	composite   CompositeType(<T1>,<T2>,...) — multi-column partition keys
//
// Every nested class is fully qualified and parameters are separated by a
// bare ",". The parser also accepts unqualified class names and blanks, as
// Cassandra's TypeParser does.
//
// The classes the parser knows are those of the kinds above and two legacy
// classes with known layouts that become KindCustom types: DateType (8
// bytes, the pre-2.0 timestamp) and LexicalUUIDType (16 bytes). Any other
// class — a user's own AbstractType, DynamicCompositeType,
// PartitionerDefinedOrder, a class of a newer release — is an
// *UnknownTypeError naming it: its values' layout (a fixed length or a
// length prefix) and order are not known, and guessing them misreads data.
// TypeOptions.OpaqueUnknownTypes opts in to reading such a class as opaque
// length-prefixed bytes compared unsigned, which is right only for a class
// whose values are variable-length.

// ErrUnknownType is what an *UnknownTypeError matches with errors.Is.
var ErrUnknownType = errors.New("unknown marshal class")

// UnknownTypeError is a marshal class the type parsers do not know (see
// above).
type UnknownTypeError struct {
	// Class is the class as written (with its parameters, if any).
	Class string
}

// Error implements error.
func (e *UnknownTypeError) Error() string {
	return fmt.Sprintf("unknown marshal class %s: castable does not know how its values are laid out (a fixed length or a length prefix) or ordered, and will not guess", e.Class)
}

// Is makes errors.Is(err, ErrUnknownType) true.
func (e *UnknownTypeError) Is(target error) bool { return target == ErrUnknownType }

// MarshalStyle says whose spelling of marshal class names to produce where
// Cassandra and ScyllaDB differ (only VectorType's parameters).
type MarshalStyle uint8

// The marshal name spellings.
const (
	// MarshalCassandra is Apache Cassandra's spelling, the default.
	MarshalCassandra MarshalStyle = iota
	// MarshalScylla is ScyllaDB's: "VectorType(T, n)" where Cassandra
	// writes "VectorType(T , n)".
	MarshalScylla
)

// TypeOptions are the choices of the type parsers. The zero value is
// strict: an unknown marshal class is an error.
type TypeOptions struct {
	// OpaqueUnknownTypes parses a marshal class this package does not know
	// as a KindCustom type whose values are opaque bytes: length-prefixed
	// wherever Cassandra writes a length (FixedLength 0), compared unsigned,
	// printed as hex. It is an explicit opt-in for reading SSTables of such
	// types, and wrong for a class whose values have a fixed length.
	OpaqueUnknownTypes bool
}

// MarshalName returns Cassandra's marshal class name of t, fully qualified,
// e.g. "org.apache.cassandra.db.marshal.Int32Type" or
// "org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.ListType(...))".
func (t *Type) MarshalName() string {
	return string(t.AppendMarshalName(nil))
}

// AppendMarshalName appends MarshalName to dst.
func (t *Type) AppendMarshalName(dst []byte) []byte {
	return t.appendMarshal(dst, false, MarshalCassandra)
}

// MarshalNameStyle is MarshalName in the given spelling.
func (t *Type) MarshalNameStyle(style MarshalStyle) string {
	return string(t.appendMarshal(nil, false, style))
}

func (t *Type) appendMarshal(dst []byte, ignoreFreezing bool, style MarshalStyle) []byte {
	if t.Reversed {
		dst = append(dst, MarshalPackage+"ReversedType("...)
		dst = t.Unreversed().appendMarshal(dst, false, style)
		return append(dst, ')')
	}
	switch t.Kind {
	case KindCustom:
		return append(dst, t.Custom...)
	case KindVector:
		dst = append(dst, MarshalPackage+"VectorType("...)
		dst = t.Params[0].appendMarshal(dst, ignoreFreezing, style)
		if style == MarshalScylla {
			dst = append(dst, ", "...)
		} else {
			dst = append(dst, " , "...)
		}
		dst = strconv.AppendInt(dst, int64(t.Dimension), 10)
		return append(dst, ')')
	case KindList, KindSet, KindMap, KindUDT:
		frozenWrap := !ignoreFreezing && t.Frozen
		if frozenWrap {
			dst = append(dst, MarshalPackage+"FrozenType("...)
		}
		dst = append(dst, MarshalPackage...)
		dst = append(dst, kinds[t.Kind].marshal...)
		dst = append(dst, '(')
		inner := ignoreFreezing || t.Frozen
		if t.Kind == KindUDT {
			dst = append(dst, t.Keyspace...)
			dst = append(dst, ',')
			dst = hex.AppendEncode(dst, []byte(t.Name))
			for i, p := range t.Params {
				dst = append(dst, ',')
				if i < len(t.FieldNames) {
					dst = hex.AppendEncode(dst, []byte(t.FieldNames[i]))
				}
				dst = append(dst, ':')
				dst = p.appendMarshal(dst, inner, style)
			}
		} else {
			for i, p := range t.Params {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = p.appendMarshal(dst, inner, style)
			}
		}
		dst = append(dst, ')')
		if frozenWrap {
			dst = append(dst, ')')
		}
		return dst
	case KindTuple:
		dst = append(dst, MarshalPackage+"TupleType("...)
		for i, p := range t.Params {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = p.appendMarshal(dst, true, style)
		}
		return append(dst, ')')
	case kindFieldPath:
		return append(dst, MarshalPackage+"ShortType"...)
	}
	if int(t.Kind) < len(kinds) && kinds[t.Kind].marshal != "" {
		dst = append(dst, MarshalPackage...)
		return append(dst, kinds[t.Kind].marshal...)
	}
	return append(dst, "invalid"...)
}

// CompositeMarshalName is the marshal name of a CompositeType of the given
// component types.
func CompositeMarshalName(types []*Type) string {
	return CompositeMarshalNameStyle(types, MarshalCassandra)
}

// CompositeMarshalNameStyle is CompositeMarshalName in the given spelling.
func CompositeMarshalNameStyle(types []*Type, style MarshalStyle) string {
	dst := []byte(MarshalPackage + "CompositeType(")
	for i, t := range types {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = t.appendMarshal(dst, false, style)
	}
	return string(append(dst, ')'))
}

// ParseMarshalName parses a marshal class name (the inverse of MarshalName,
// in either spelling). An unknown class is an *UnknownTypeError (see
// TypeOptions to read it as opaque bytes). A CompositeType is rejected: use
// ParseMarshalNames.
func ParseMarshalName(s string) (*Type, error) {
	return TypeOptions{}.ParseMarshalName(s)
}

// ParseMarshalNames parses the marshal name of a partition key type: a
// CompositeType(...) yields its component types, any other name a single
// type.
func ParseMarshalNames(s string) ([]*Type, error) {
	return TypeOptions{}.ParseMarshalNames(s)
}

// ParseMarshalName is the package's ParseMarshalName with these options.
func (o TypeOptions) ParseMarshalName(s string) (*Type, error) {
	p := marshalParser{s: s, opaque: o.OpaqueUnknownTypes}
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	p.skipBlanks()
	if p.i != len(s) {
		return nil, p.errorf("unexpected %q after the type", s[p.i:])
	}
	return t, nil
}

// ParseMarshalNames is the package's ParseMarshalNames with these options.
func (o TypeOptions) ParseMarshalNames(s string) ([]*Type, error) {
	p := marshalParser{s: s, opaque: o.OpaqueUnknownTypes}
	p.skipBlanks()
	start := p.i
	name := p.readName()
	if shortClass(name) == "CompositeType" {
		types, err := p.parseParamsDepth(0)
		if err != nil {
			return nil, err
		}
		p.skipBlanks()
		if p.i != len(s) {
			return nil, p.errorf("unexpected %q after the type", s[p.i:])
		}
		if len(types) == 0 {
			return nil, p.errorf("CompositeType without components")
		}
		return types, nil
	}
	p.i = start
	t, err := o.ParseMarshalName(s)
	if err != nil {
		return nil, err
	}
	return []*Type{t}, nil
}

type marshalParser struct {
	s      string
	i      int
	opaque bool // OpaqueUnknownTypes
}

// knownCustom are the legacy classes modelled as KindCustom: their values
// have the fixed lengths FixedLength gives, Compare and AppendComparable
// know their order.
var knownCustom = map[string]bool{"DateType": true, "LexicalUUIDType": true}

// maxMarshalDepth bounds the nesting of parsed type names.
const maxMarshalDepth = 64

func (p *marshalParser) errorf(format string, args ...any) error {
	return fmt.Errorf("schema: marshal name %q at offset %d: %s", p.s, p.i, fmt.Sprintf(format, args...))
}

func (p *marshalParser) skipBlanks() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func isMarshalNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-' || c == '$' || c == '+' || c == '&'
}

func (p *marshalParser) readName() string {
	p.skipBlanks()
	start := p.i
	for p.i < len(p.s) && isMarshalNameChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

func shortClass(name string) string {
	return strings.TrimPrefix(name, MarshalPackage)
}

var marshalNatives = func() map[string]Kind {
	m := make(map[string]Kind)
	for k := KindAscii; k <= KindEmpty; k++ {
		m[kinds[k].marshal] = k
	}
	return m
}()

// parseType parses one type at p.i.
func (p *marshalParser) parseType() (*Type, error) {
	return p.parseTypeDepth(0)
}

func (p *marshalParser) parseTypeDepth(depth int) (*Type, error) {
	if depth > maxMarshalDepth {
		return nil, p.errorf("types nested too deeply")
	}
	start := p.i
	name := p.readName()
	if name == "" {
		return nil, p.errorf("expected a class name")
	}
	short := shortClass(name)
	if k, ok := marshalNatives[short]; ok && !p.peek('(') {
		return NativeType(k), nil
	}
	switch short {
	case "ReversedType", "FrozenType":
		params, err := p.parseParamsDepth(depth)
		if err != nil {
			return nil, err
		}
		if len(params) != 1 {
			return nil, p.errorf("%s takes one parameter, got %d", short, len(params))
		}
		if short == "ReversedType" {
			return ReversedOf(params[0]), nil
		}
		return params[0].Freeze(), nil
	case "ListType", "SetType":
		params, err := p.parseParamsDepth(depth)
		if err != nil {
			return nil, err
		}
		if len(params) != 1 {
			return nil, p.errorf("%s takes one parameter, got %d", short, len(params))
		}
		if short == "ListType" {
			return ListOf(params[0], false), nil
		}
		return SetOf(params[0], false), nil
	case "MapType":
		params, err := p.parseParamsDepth(depth)
		if err != nil {
			return nil, err
		}
		if len(params) != 2 {
			return nil, p.errorf("MapType takes two parameters, got %d", len(params))
		}
		return MapOf(params[0], params[1], false), nil
	case "TupleType":
		params, err := p.parseParamsDepth(depth)
		if err != nil {
			return nil, err
		}
		return TupleOf(params...), nil
	case "UserType":
		return p.parseUserType(depth)
	case "VectorType":
		return p.parseVectorType(depth)
	case "CompositeType":
		return nil, p.errorf("CompositeType is not a column type (use ParseMarshalNames for partition keys)")
	}
	// A legacy class of known layout, or an unknown one: keep its full
	// text, parameters included.
	if p.peek('(') {
		if err := p.skipParens(); err != nil {
			return nil, err
		}
	}
	class := strings.TrimSpace(p.s[start:p.i])
	if !strings.Contains(name, ".") {
		class = MarshalPackage + class
	}
	if !p.opaque && !(knownCustom[short] && class == MarshalPackage+short) {
		return nil, fmt.Errorf("schema: marshal name %q at offset %d: %w", p.s, start, &UnknownTypeError{Class: class})
	}
	return CustomType(class), nil
}

// parseVectorType parses "(T , n)" after VectorType: an element type, a
// comma and a positive decimal dimension (blanks anywhere).
func (p *marshalParser) parseVectorType(depth int) (*Type, error) {
	if !p.peek('(') {
		return nil, p.errorf("expected '(' after VectorType")
	}
	p.i++
	elem, err := p.parseTypeDepth(depth + 1)
	if err != nil {
		return nil, err
	}
	if !p.peek(',') {
		return nil, p.errorf("expected ',' before the VectorType dimension")
	}
	p.i++
	at := p.i
	digits := p.readName()
	n, err := strconv.ParseInt(digits, 10, 32)
	if err != nil {
		p.i = at
		return nil, p.errorf("VectorType dimension %q is not an int", digits)
	}
	if !p.peek(')') {
		return nil, p.errorf("expected ')' after the VectorType dimension")
	}
	p.i++
	t, err := VectorOf(elem, int(n))
	if err != nil {
		p.i = at
		return nil, p.errorf("%v", strings.TrimPrefix(err.Error(), "schema: "))
	}
	return t, nil
}

func (p *marshalParser) peek(c byte) bool {
	p.skipBlanks()
	return p.i < len(p.s) && p.s[p.i] == c
}

// skipParens moves past a balanced parenthesised group starting at p.i.
func (p *marshalParser) skipParens() error {
	depth := 0
	for ; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				p.i++
				return nil
			}
		}
	}
	return p.errorf("unbalanced parentheses")
}

// parseParamsDepth parses "(T1,T2,...)".
func (p *marshalParser) parseParamsDepth(depth int) ([]*Type, error) {
	if !p.peek('(') {
		return nil, p.errorf("expected '('")
	}
	p.i++
	var params []*Type
	if p.peek(')') {
		p.i++
		return params, nil
	}
	for {
		t, err := p.parseTypeDepth(depth + 1)
		if err != nil {
			return nil, err
		}
		params = append(params, t)
		p.skipBlanks()
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated parameter list")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ')':
			p.i++
			return params, nil
		default:
			return nil, p.errorf("expected ',' or ')', got %q", p.s[p.i])
		}
	}
}

// parseUserType parses "(ks,hexname,hexfield:T,...)".
func (p *marshalParser) parseUserType(depth int) (*Type, error) {
	if !p.peek('(') {
		return nil, p.errorf("expected '(' after UserType")
	}
	p.i++
	ks := p.readName()
	if !p.peek(',') {
		return nil, p.errorf("expected ',' after the UserType keyspace")
	}
	p.i++
	hexName := p.readName()
	name, err := hex.DecodeString(hexName)
	if err != nil {
		return nil, p.errorf("UserType name %q is not hex", hexName)
	}
	var fieldNames []string
	var fieldTypes []*Type
	for {
		p.skipBlanks()
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated UserType")
		}
		if p.s[p.i] == ')' {
			p.i++
			break
		}
		if p.s[p.i] != ',' {
			return nil, p.errorf("expected ',' or ')' in UserType, got %q", p.s[p.i])
		}
		p.i++
		hexField := p.readName()
		field, err := hex.DecodeString(hexField)
		if err != nil {
			return nil, p.errorf("UserType field name %q is not hex", hexField)
		}
		if !p.peek(':') {
			return nil, p.errorf("expected ':' after a UserType field name")
		}
		p.i++
		ft, err := p.parseTypeDepth(depth + 1)
		if err != nil {
			return nil, err
		}
		fieldNames = append(fieldNames, string(field))
		fieldTypes = append(fieldTypes, ft)
	}
	return UDTOf(ks, string(name), fieldNames, fieldTypes, false), nil
}
