package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// CQL type syntax accepted by ParseCQLType:
//
//	type   = native | "frozen" "<" type ">"
//	       | ("list" | "set") "<" type ">" | "map" "<" type "," type ">"
//	       | "tuple" "<" type { "," type } ">"
//	       | "vector" "<" type "," integer ">"
//	       | udt | "'" marshal-class "'"
//	udt    = ident [ "." ident ]          (keyspace-qualified or not)
//	ident  = unquoted (case-insensitive, lower-cased) | "double ""quoted"""
//
// Native names are case-insensitive; varchar is text. Tuples and their
// components are frozen. Collections and UDTs nested in a collection or UDT
// must be frozen, as Cassandra 3.11 requires — except that fields of a type
// being declared by CREATE TYPE (ParseCQLFieldType) are frozen implicitly.
// A vector is frozen by nature (frozen<vector<...>> is the same type) and
// its element is kept as declared, as Cassandra 5.0 does: vector<list<int>,
// 2> and vector<frozen<list<int>>, 2> are distinct types with the same
// values. A quoted marshal class must be one ParseMarshalName knows, unless
// TypeOptions.OpaqueUnknownTypes.

// TypeSyntaxError is a CQL type that does not parse; Offset is the byte
// offset in the parsed text.
type TypeSyntaxError struct {
	Offset int
	Msg    string
}

// Error implements error.
func (e *TypeSyntaxError) Error() string {
	return fmt.Sprintf("schema: CQL type at offset %d: %s", e.Offset, e.Msg)
}

// UDTs resolves user-defined type names for ParseCQLType: keys are the
// type name as CQL resolves it (lower case unless it was quoted), and
// optionally "keyspace.name".
type UDTs map[string]*Type

var cqlNatives = map[string]*Type{
	"ascii": Ascii, "bigint": Bigint, "blob": Blob, "boolean": Boolean, "counter": Counter,
	"date": Date, "decimal": Decimal, "double": Double, "duration": Duration, "float": Float,
	"inet": Inet, "int": Int, "smallint": Smallint, "text": Text, "varchar": Text,
	"time": Time, "timestamp": Timestamp, "timeuuid": Timeuuid, "tinyint": Tinyint,
	"uuid": UUID, "varint": Varint,
}

// ParseCQLType parses a CQL column type such as "frozen<map<int, text>>",
// resolving user-defined types in udts (nil for none).
func ParseCQLType(s string, udts UDTs) (*Type, error) {
	return TypeOptions{}.ParseCQLType(s, udts)
}

// ParseCQLFieldType parses the type of a field in CREATE TYPE: like
// ParseCQLType, but nested collections need not be declared frozen.
func ParseCQLFieldType(s string, udts UDTs) (*Type, error) {
	return TypeOptions{}.ParseCQLFieldType(s, udts)
}

// ParseCQLType is the package's ParseCQLType with these options.
func (o TypeOptions) ParseCQLType(s string, udts UDTs) (*Type, error) {
	return o.parseCQLType(s, udts, false)
}

// ParseCQLFieldType is the package's ParseCQLFieldType with these options.
func (o TypeOptions) ParseCQLFieldType(s string, udts UDTs) (*Type, error) {
	t, err := o.parseCQLType(s, udts, true)
	if err != nil {
		return nil, err
	}
	return t.Freeze(), nil
}

func (o TypeOptions) parseCQLType(s string, udts UDTs, lenient bool) (*Type, error) {
	p := &cqlTypeParser{s: s, udts: udts, lenient: lenient, opts: o}
	t, err := p.parse(0, false)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(s) {
		return nil, p.errorf("unexpected %q after the type", s[p.i:])
	}
	return t, nil
}

type cqlTypeParser struct {
	s       string
	i       int
	udts    UDTs
	lenient bool
	frozen  int // > 0 inside frozen<...>, where nesting is allowed
	opts    TypeOptions
}

func (p *cqlTypeParser) errorf(format string, args ...any) error {
	return &TypeSyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *cqlTypeParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *cqlTypeParser) expect(c byte) error {
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != c {
		if p.i >= len(p.s) {
			return p.errorf("expected '%c' at the end", c)
		}
		return p.errorf("expected '%c', got %q", c, p.s[p.i])
	}
	p.i++
	return nil
}

// ident reads an identifier; quoted identifiers keep their case.
func (p *cqlTypeParser) ident() (name string, quoted bool, err error) {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '"' {
		var b strings.Builder
		for j := p.i + 1; j < len(p.s); j++ {
			if p.s[j] == '"' {
				if j+1 < len(p.s) && p.s[j+1] == '"' {
					b.WriteByte('"')
					j++
					continue
				}
				p.i = j + 1
				if b.Len() == 0 {
					return "", true, p.errorf("empty quoted identifier")
				}
				return b.String(), true, nil
			}
			b.WriteByte(p.s[j])
		}
		return "", true, p.errorf("unterminated quoted identifier")
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || p.i > start && c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	if p.i == start {
		if p.i >= len(p.s) {
			return "", false, p.errorf("expected a type at the end")
		}
		return "", false, p.errorf("expected a type, got %q", p.s[p.i])
	}
	return strings.ToLower(p.s[start:p.i]), false, nil
}

const maxCQLTypeDepth = 64

// parse parses one type; nested is true inside a collection, tuple or UDT.
func (p *cqlTypeParser) parse(depth int, nested bool) (*Type, error) {
	if depth > maxCQLTypeDepth {
		return nil, p.errorf("type nested too deeply")
	}
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '\'' {
		end := strings.IndexByte(p.s[p.i+1:], '\'')
		if end < 0 {
			return nil, p.errorf("unterminated custom type class")
		}
		class := p.s[p.i+1 : p.i+1+end]
		p.i += end + 2
		t, err := p.opts.ParseMarshalName(class)
		if err != nil {
			return nil, p.errorf("custom type %q: %v", class, err)
		}
		return t, nil
	}
	start := p.i
	name, quoted, err := p.ident()
	if err != nil {
		return nil, err
	}
	if !quoted {
		if t, ok := cqlNatives[name]; ok {
			return t, nil
		}
		switch name {
		case "frozen":
			if err := p.expect('<'); err != nil {
				return nil, err
			}
			p.frozen++
			inner, err := p.parse(depth+1, false)
			p.frozen--
			if err != nil {
				return nil, err
			}
			if err := p.expect('>'); err != nil {
				return nil, err
			}
			switch inner.Kind {
			case KindList, KindSet, KindMap, KindUDT, KindTuple:
			case KindVector:
				return inner, nil // frozen by nature
			default:
				p.i = start
				return nil, p.errorf("frozen<> is only for collections, tuples and user types, not %s", inner)
			}
			return inner.Freeze(), nil
		case "list", "set", "map", "tuple":
			return p.parseParameterised(name, start, depth, nested)
		case "vector":
			return p.parseVector(start, depth)
		}
	}
	// A user-defined type, possibly keyspace-qualified.
	full := name
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		second, _, err := p.ident()
		if err != nil {
			return nil, err
		}
		full = name + "." + second
		name = second
	}
	t := p.udts[full]
	if t == nil {
		t = p.udts[name]
	}
	if t == nil {
		p.i = start
		return nil, p.errorf("unknown type %s", full)
	}
	if nested && !p.lenient && p.frozen == 0 {
		p.i = start
		return nil, p.errorf("non-frozen user type %s inside a collection or user type: use frozen<%s>", full, full)
	}
	c := *t
	c.Frozen = false
	return &c, nil
}

// parseVector parses "<type, n>" after vector. The element need not be
// frozen: Cassandra keeps it as declared.
func (p *cqlTypeParser) parseVector(start, depth int) (*Type, error) {
	if err := p.expect('<'); err != nil {
		return nil, err
	}
	frozen := p.frozen
	p.frozen = 0
	elem, err := p.parse(depth+1, false)
	p.frozen = frozen
	if err != nil {
		return nil, err
	}
	if err := p.expect(','); err != nil {
		return nil, err
	}
	p.skipSpace()
	at := p.i
	if p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] == '+') {
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	digits := p.s[at:p.i]
	n, err := strconv.ParseInt(digits, 10, 32)
	if err != nil {
		p.i = at
		if digits == "" {
			return nil, p.errorf("expected the vector dimension (an integer)")
		}
		return nil, p.errorf("vector dimension %s is not an int", digits)
	}
	if err := p.expect('>'); err != nil {
		return nil, err
	}
	t, err := VectorOf(elem, int(n))
	if err != nil {
		p.i = start
		return nil, p.errorf("%s", strings.TrimPrefix(err.Error(), "schema: "))
	}
	return t, nil
}

func (p *cqlTypeParser) parseParameterised(name string, start, depth int, nested bool) (*Type, error) {
	if err := p.expect('<'); err != nil {
		return nil, err
	}
	var params []*Type
	for {
		t, err := p.parse(depth+1, name != "tuple")
		if err != nil {
			return nil, err
		}
		params = append(params, t)
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		break
	}
	want := map[string]int{"list": 1, "set": 1, "map": 2}[name]
	if want != 0 && len(params) != want {
		p.i = start
		return nil, p.errorf("%s takes %d type parameters, got %d", name, want, len(params))
	}
	if nested && name != "tuple" && !p.lenient && p.frozen == 0 {
		p.i = start
		return nil, p.errorf("non-frozen collection inside a collection or user type: use frozen<%s<...>>", name)
	}
	for _, pt := range params {
		if pt.Kind == KindCounter {
			p.i = start
			return nil, p.errorf("counters are not allowed inside %s", name)
		}
	}
	switch name {
	case "list":
		return ListOf(params[0], false), nil
	case "set":
		return SetOf(params[0], false), nil
	case "map":
		return MapOf(params[0], params[1], false), nil
	}
	return TupleOf(params...), nil
}
