package bulk

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/castable-db/castable/schema"
)

// csvParser returns the parser of a column's CSV text: native types by
// their string form (integers, text and booleans on an allocation-free
// path, the rest through schema.Type.FromJSON, which takes Cassandra's
// literal forms of timestamps, dates, times, durations, uuids, inets and
// numbers), and frozen collections, tuples, UDTs and vectors as CQL
// literals ([1, 2], {'a': 1}, (1, 'x'), {field: 'v'}, [1.5, -2]), the way
// cqlsh COPY prints them. A non-frozen collection or UDT is parsed as its frozen form, which
// the loader splits into element cells (csvComplexCells).
func csvParser(col *schema.Column) (func(dst []byte, s string) ([]byte, error), error) {
	t := col.Type.Freeze()
	if t.IsCounter() {
		return nil, optionErrorf("CSV column %s is a counter, which INSERT cannot write", col.Name)
	}
	switch t.Kind {
	case schema.KindInt:
		return func(dst []byte, s string) ([]byte, error) {
			v, err := parseCSVInt(s, 32)
			return binary.BigEndian.AppendUint32(dst, uint32(v)), err
		}, nil
	case schema.KindBigint:
		return func(dst []byte, s string) ([]byte, error) {
			v, err := parseCSVInt(s, 64)
			return binary.BigEndian.AppendUint64(dst, uint64(v)), err
		}, nil
	case schema.KindSmallint:
		return func(dst []byte, s string) ([]byte, error) {
			v, err := parseCSVInt(s, 16)
			return binary.BigEndian.AppendUint16(dst, uint16(v)), err
		}, nil
	case schema.KindTinyint:
		return func(dst []byte, s string) ([]byte, error) {
			v, err := parseCSVInt(s, 8)
			return append(dst, byte(v)), err
		}, nil
	case schema.KindText:
		return func(dst []byte, s string) ([]byte, error) {
			if !utf8.ValidString(s) {
				return dst, errors.New("not valid UTF-8")
			}
			return append(dst, s...), nil
		}, nil
	case schema.KindAscii:
		return func(dst []byte, s string) ([]byte, error) {
			for i := 0; i < len(s); i++ {
				if s[i] >= 0x80 {
					return dst, fmt.Errorf("byte 0x%02x at %d is not ASCII", s[i], i)
				}
			}
			return append(dst, s...), nil
		}, nil
	case schema.KindBoolean:
		return func(dst []byte, s string) ([]byte, error) {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "true":
				return append(dst, 1), nil
			case "false":
				return append(dst, 0), nil
			}
			return dst, fmt.Errorf("%q is not a boolean (want true or false)", s)
		}, nil
	case schema.KindList, schema.KindSet, schema.KindMap, schema.KindTuple, schema.KindUDT, schema.KindVector:
		return func(dst []byte, s string) ([]byte, error) {
			v, err := parseCQLLiteral(s)
			if err != nil {
				return dst, err
			}
			if arr, ok := v.([]any); ok && len(arr) == 0 && (t.Kind == schema.KindMap || t.Kind == schema.KindUDT) {
				v = map[string]any{} // {} is an empty map too
			}
			b, err := t.FromJSON(v)
			if err != nil {
				return dst, err
			}
			return append(dst, b...), nil
		}, nil
	}
	return func(dst []byte, s string) ([]byte, error) {
		b, err := t.FromJSON(strings.TrimSpace(s))
		if err != nil {
			return dst, err
		}
		return append(dst, b...), nil
	}, nil
}

// parseCSVInt parses a decimal integer of the given width (surrounding
// blanks allowed).
func parseCSVInt(s string, bits int) (int64, error) {
	if v, ok := parseDecimal(s, bits); ok {
		return v, nil
	}
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		v, err = strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if err != nil {
			var ne *strconv.NumError
			if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
				return 0, fmt.Errorf("%q is out of range for a %d-bit integer", s, bits)
			}
			return 0, fmt.Errorf("%q is not an integer", s)
		}
	}
	return v, nil
}

// parseDecimal is parseCSVInt's fast path: up to 18 ASCII digits, with an
// optional '-', in range for bits. It reports false for anything else
// (signs, blanks, long or out-of-range numbers), which strconv then
// parses or rejects with its message.
func parseDecimal(s string, bits int) (int64, bool) {
	neg := len(s) > 0 && s[0] == '-'
	d := s
	if neg {
		d = s[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(d); i++ {
		c := d[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int64(c)
	}
	if neg {
		v = -v
	}
	if lim := int64(1) << (bits - 1); bits < 64 && (v < -lim || v >= lim) { // 18 digits always fit 64 bits
		return 0, false
	}
	return v, true
}

// parseCQLLiteral parses a CQL literal (as cqlsh prints collection, tuple
// and UDT values) into the generic JSON values schema.Type.FromJSON takes:
// 'text' and bare words (uuids, numbers, booleans, hex blobs, durations)
// become strings, null nil, [a, b] and (a, b) arrays, {a, b} arrays (a set),
// {k: v} objects (a map, keys as their text; or a UDT, keys as field
// names). JSON text is accepted too, since its strings are double-quoted.
func parseCQLLiteral(s string) (any, error) {
	p := literalParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.blanks()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q at offset %d after the value", p.s[p.i:], p.i)
	}
	return v, nil
}

type literalParser struct {
	s string
	i int
}

func (p *literalParser) blanks() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *literalParser) errorf(format string, args ...any) error {
	return fmt.Errorf("CQL literal at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

const maxLiteralDepth = 64

func (p *literalParser) value(depth int) (any, error) {
	if depth > maxLiteralDepth {
		return nil, p.errorf("nested too deeply")
	}
	p.blanks()
	if p.i >= len(p.s) {
		return nil, p.errorf("value expected")
	}
	switch c := p.s[p.i]; c {
	case '\'':
		return p.quoted('\'')
	case '"':
		return p.jsonString()
	case '[', '(':
		closing := byte(']')
		if c == '(' {
			closing = ')'
		}
		p.i++
		elems, _, err := p.elements(closing, depth, false)
		return elems, err
	case '{':
		p.i++
		elems, keys, err := p.elements('}', depth, true)
		if err != nil {
			return nil, err
		}
		if keys == nil {
			return elems, nil
		}
		m := make(map[string]any, len(keys))
		for i, k := range keys {
			m[k] = elems[i]
		}
		return m, nil
	}
	word := p.word()
	if word == "" {
		return nil, p.errorf("unexpected %q", p.s[p.i])
	}
	if strings.EqualFold(word, "null") {
		return nil, nil
	}
	return word, nil
}

// word reads a bare token: a number, uuid, boolean, blob, duration or
// identifier.
func (p *literalParser) word() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if strings.IndexByte(",:])} \t\n\r", c) >= 0 {
			break
		}
		p.i++
	}
	return p.s[start:p.i]
}

// quoted reads a '...' string with ” escapes.
func (p *literalParser) quoted(q byte) (string, error) {
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		if c == q {
			if p.i < len(p.s) && p.s[p.i] == q {
				b.WriteByte(q)
				p.i++
				continue
			}
			return b.String(), nil
		}
		b.WriteByte(c)
	}
	return "", p.errorf("unterminated string")
}

// jsonString reads a JSON "..." string.
func (p *literalParser) jsonString() (string, error) {
	start := p.i
	p.i++
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			var out string
			if err := json.Unmarshal([]byte(p.s[start:p.i]), &out); err != nil {
				return "", p.errorf("%v", err)
			}
			return out, nil
		}
		p.i++
	}
	return "", p.errorf("unterminated string")
}

// elements reads the elements up to closing. With allowKeys, "k: v" pairs
// make an object (keys returned in order as text).
func (p *literalParser) elements(closing byte, depth int, allowKeys bool) ([]any, []string, error) {
	elems := []any{}
	var keys []string
	for n := 0; ; n++ {
		p.blanks()
		if p.i < len(p.s) && p.s[p.i] == closing {
			p.i++
			return elems, keys, nil
		}
		if n > 0 {
			if p.i >= len(p.s) || p.s[p.i] != ',' {
				return nil, nil, p.errorf("',' or %q expected", closing)
			}
			p.i++
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, nil, err
		}
		p.blanks()
		if allowKeys && p.i < len(p.s) && p.s[p.i] == ':' {
			if n > 0 && keys == nil {
				return nil, nil, p.errorf("a set element among map entries")
			}
			p.i++
			val, err := p.value(depth + 1)
			if err != nil {
				return nil, nil, err
			}
			k, ok := v.(string)
			if !ok {
				// A collection as a map key: its JSON text.
				b, _ := json.Marshal(v)
				k = string(b)
			}
			keys = append(keys, k)
			elems = append(elems, val)
			continue
		}
		if keys != nil {
			return nil, nil, p.errorf("a map entry without a value")
		}
		elems = append(elems, v)
	}
}
