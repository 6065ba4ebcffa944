package schema

import (
	"encoding/hex"
	"strings"
)

// The string form of a value (Cassandra's AbstractType.getString), used by
// sstabledump for partition key components and cell paths
// (json-format.md §1.2):
//
//   - text and ascii: the text itself; blob and custom types: lowercase hex
//     without 0x; numbers, booleans, uuids, inet, date, time, duration: as
//     in the JSON form without quotes;
//   - timestamp: castable prints the precise value form
//     yyyy-MM-dd HH:mm:ss.SSSZ in UTC (sstabledump prints a lossy
//     minute-precision local-time form; FromString accepts both, plus
//     ISO-8601 and integer milliseconds);
//   - frozen list, set and map: the hex of the serialized value, as
//     Cassandra's CollectionType.getString; a vector likewise
//     (VectorType.getString is BytesType's);
//   - tuple and frozen UDT: the fields' string forms joined by ':', a null
//     field as '@', with ':' and '@' inside a field escaped as "\:" and "\@"
//     (TupleType.getString);
//   - a UDT cell path (PathType of a non-frozen UDT): the field name;
//   - an empty value: "".

// AppendString appends the string form of v to dst. v is validated first.
func (t *Type) AppendString(dst, v []byte) ([]byte, error) {
	if err := t.Validate(v); err != nil {
		return dst, err
	}
	return t.appendString(dst, v), nil
}

func (t *Type) appendString(dst, v []byte) []byte {
	if len(v) == 0 {
		return dst
	}
	switch t.Kind {
	case KindList, KindSet, KindMap, KindVector:
		return hex.AppendEncode(dst, v)
	case KindTuple, KindUDT:
		rest := v
		for i, ft := range t.Params {
			if len(rest) == 0 {
				break
			}
			if i > 0 {
				dst = append(dst, ':')
			}
			l, r, _ := readInt32(rest)
			if l < 0 {
				dst = append(dst, '@')
				rest = r
				continue
			}
			field := ft.appendString(nil, r[:l])
			for _, c := range field {
				if c == ':' || c == '@' {
					dst = append(dst, '\\')
				}
				dst = append(dst, c)
			}
			rest = r[l:]
		}
		return dst
	}
	return t.appendText(dst, v)
}

// FromString parses the string form of a value of t (see AppendString for
// the forms; blobs may also carry a 0x prefix). "" is the empty value.
func (t *Type) FromString(s string) ([]byte, error) {
	return t.fromString(nil, s, 0)
}

func (t *Type) fromString(dst []byte, s string, depth int) ([]byte, error) {
	if depth > maxJSONDepth {
		return nil, invalidText(t, s, "nested too deeply")
	}
	if s == "" {
		if t.Kind == KindVector {
			return nil, invalidText(t, s, "a vector value is never empty")
		}
		if dst == nil {
			dst = []byte{}
		}
		return dst, nil
	}
	switch t.Kind {
	case KindList, KindSet, KindMap, KindVector, KindBlob, KindCustom:
		h := s
		if strings.HasPrefix(h, "0x") || strings.HasPrefix(h, "0X") {
			h = h[2:]
		}
		start := len(dst)
		out, err := (&Type{Kind: KindBlob}).fromText(dst, h)
		if err != nil {
			return nil, invalidText(t, s, "not hex")
		}
		if err := t.Validate(out[start:]); err != nil {
			return nil, err
		}
		return out, nil
	case KindTuple, KindUDT:
		parts := splitTupleString(s)
		if len(parts) > len(t.Params) {
			return nil, invalidText(t, s, "%d fields for a type of %d", len(parts), len(t.Params))
		}
		for i, p := range parts {
			if p == "@" {
				dst = AppendTupleField(dst, nil)
				continue
			}
			p = strings.NewReplacer(`\:`, ":", `\@`, "@").Replace(p)
			b, err := t.Params[i].fromString(nil, p, depth+1)
			if err != nil {
				return nil, invalidText(t, s, "field %d: %v", i, err)
			}
			dst = AppendCollectionValue(dst, b)
		}
		return dst, nil
	}
	return t.fromText(dst, s)
}

// splitTupleString splits on ':' not preceded by a backslash.
func splitTupleString(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case ':':
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}
