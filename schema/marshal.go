package schema

import (
	"encoding/hex"
	"fmt"
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
//	composite   CompositeType(<T1>,<T2>,...) — multi-column partition keys
//
// Every nested class is fully qualified and parameters are separated by a
// bare ",". The parser also accepts unqualified class names and blanks, as
// Cassandra's TypeParser does.

// MarshalName returns Cassandra's marshal class name of t, fully qualified,
// e.g. "org.apache.cassandra.db.marshal.Int32Type" or
// "org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.ListType(...))".
func (t *Type) MarshalName() string {
	return string(t.AppendMarshalName(nil))
}

// AppendMarshalName appends MarshalName to dst.
func (t *Type) AppendMarshalName(dst []byte) []byte {
	return t.appendMarshal(dst, false)
}

func (t *Type) appendMarshal(dst []byte, ignoreFreezing bool) []byte {
	if t.Reversed {
		dst = append(dst, MarshalPackage+"ReversedType("...)
		dst = t.Unreversed().appendMarshal(dst, false)
		return append(dst, ')')
	}
	switch t.Kind {
	case KindCustom:
		return append(dst, t.Custom...)
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
				dst = p.appendMarshal(dst, inner)
			}
		} else {
			for i, p := range t.Params {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = p.appendMarshal(dst, inner)
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
			dst = p.appendMarshal(dst, true)
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
	dst := []byte(MarshalPackage + "CompositeType(")
	for i, t := range types {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = t.appendMarshal(dst, false)
	}
	return string(append(dst, ')'))
}

// ParseMarshalName parses a marshal class name (the inverse of MarshalName).
// Unknown classes become KindCustom types that keep their text. A
// CompositeType is rejected: use ParseMarshalNames.
func ParseMarshalName(s string) (*Type, error) {
	p := marshalParser{s: s}
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

// ParseMarshalNames parses the marshal name of a partition key type: a
// CompositeType(...) yields its component types, any other name a single
// type.
func ParseMarshalNames(s string) ([]*Type, error) {
	p := marshalParser{s: s}
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
	t, err := ParseMarshalName(s)
	if err != nil {
		return nil, err
	}
	return []*Type{t}, nil
}

type marshalParser struct {
	s string
	i int
}

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
	case "CompositeType":
		return nil, p.errorf("CompositeType is not a column type (use ParseMarshalNames for partition keys)")
	}
	// An unknown class: keep its full text, parameters included.
	if p.peek('(') {
		if err := p.skipParens(); err != nil {
			return nil, err
		}
	}
	class := strings.TrimSpace(p.s[start:p.i])
	if !strings.Contains(name, ".") {
		class = MarshalPackage + class
	}
	return CustomType(class), nil
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
