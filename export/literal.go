package export

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/castable-db/castable/internal/vint"
	"github.com/castable-db/castable/schema"
)

// The CSV forms of values, which `castable write --csv` (package bulk)
// reads back to the same bytes:
//
//   - text and ascii: the text itself;
//   - blob (and custom types): 0x and lowercase hex;
//   - the other native types: their string form (schema.Type.AppendString:
//     integers, floats as Java prints them — NaN, Infinity —, booleans,
//     uuids, inet addresses, timestamps as yyyy-MM-dd HH:mm:ss.SSSZ in UTC,
//     dates, times, durations, varint and decimal digits);
//   - collections, tuples, UDTs and vectors: CQL literals as cqlsh prints
//     them: [1, 2] for lists and vectors, {1, 2} for sets, {k: v} for
//     maps, (1, 'a') for tuples, {field: v} for UDTs with every field
//     (null ones as null), text and ascii in single quotes (' doubled),
//     timestamps, dates, times, inets and durations quoted, blobs 0x…,
//     numbers, booleans and uuids bare, an empty value as ''.

// appendCSVText appends the CSV form of a non-null value of type t.
func appendCSVText(dst []byte, t *schema.Type, v []byte) ([]byte, error) {
	switch t.Kind {
	case schema.KindText, schema.KindAscii:
		return append(dst, v...), nil
	case schema.KindBlob, schema.KindCustom:
		dst = append(dst, "0x"...)
		return hex.AppendEncode(dst, v), nil
	case schema.KindList, schema.KindSet, schema.KindMap, schema.KindTuple, schema.KindUDT, schema.KindVector:
		if len(v) == 0 && t.Kind != schema.KindVector {
			return dst, nil // an empty value, which no literal spells
		}
		return appendLiteral(dst, t, v, 0)
	}
	return t.AppendString(dst, v)
}

// literalQuoted reports whether a native type's literal is quoted.
func literalQuoted(k schema.Kind) bool {
	switch k {
	case schema.KindText, schema.KindAscii, schema.KindTimestamp, schema.KindDate, schema.KindTime,
		schema.KindInet, schema.KindDuration:
		return true
	}
	return false
}

const maxLiteralDepth = 64

// appendLiteral appends the CQL literal of a value of type t.
func appendLiteral(dst []byte, t *schema.Type, v []byte, depth int) ([]byte, error) {
	if depth > maxLiteralDepth {
		return dst, fmt.Errorf("%s: nested too deeply", t)
	}
	t = t.Unreversed()
	if len(v) == 0 && t.Kind != schema.KindVector {
		return append(dst, "''"...), nil
	}
	switch t.Kind {
	case schema.KindBlob, schema.KindCustom:
		dst = append(dst, "0x"...)
		return hex.AppendEncode(dst, v), nil
	case schema.KindList, schema.KindSet, schema.KindMap:
		open, closing := byte('['), byte(']')
		if t.Kind != schema.KindList {
			open, closing = '{', '}'
		}
		n, rest, err := readCount(v)
		if err != nil {
			return dst, fmt.Errorf("%s: %w", t, err)
		}
		dst = append(dst, open)
		for i := 0; i < n; i++ {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			var e []byte
			if e, rest, err = readElement(rest); err != nil {
				return dst, fmt.Errorf("%s: %w", t, err)
			}
			if dst, err = appendLiteral(dst, t.Params[0], e, depth+1); err != nil {
				return dst, err
			}
			if t.Kind == schema.KindMap {
				if e, rest, err = readElement(rest); err != nil {
					return dst, fmt.Errorf("%s: %w", t, err)
				}
				dst = append(dst, ": "...)
				if dst, err = appendLiteral(dst, t.Params[1], e, depth+1); err != nil {
					return dst, err
				}
			}
		}
		return append(dst, closing), nil
	case schema.KindVector:
		elems, err := t.VectorElements(v)
		if err != nil {
			return dst, err
		}
		dst = append(dst, '[')
		for i, e := range elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			if dst, err = appendLiteral(dst, t.Params[0], e, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case schema.KindTuple, schema.KindUDT:
		open, closing := byte('('), byte(')')
		if t.Kind == schema.KindUDT {
			open, closing = '{', '}'
		}
		dst = append(dst, open)
		rest := v
		for i, ft := range t.Params {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			if t.Kind == schema.KindUDT {
				dst = appendFieldName(dst, t.FieldNames[i])
				dst = append(dst, ": "...)
			}
			var f []byte
			var err error
			if f, rest, err = readField(rest); err != nil {
				return dst, fmt.Errorf("%s: %w", t, err)
			}
			if f == nil {
				dst = append(dst, "null"...)
				continue
			}
			if dst, err = appendLiteral(dst, ft, f, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, closing), nil
	}
	quoted := literalQuoted(t.Kind)
	if !quoted {
		return t.AppendString(dst, v)
	}
	dst = append(dst, '\'')
	start := len(dst)
	var err error
	if t.Kind == schema.KindText || t.Kind == schema.KindAscii {
		dst = append(dst, v...)
	} else if dst, err = t.AppendString(dst, v); err != nil {
		return dst, err
	}
	if strings.IndexByte(string(dst[start:]), '\'') >= 0 {
		s := strings.ReplaceAll(string(dst[start:]), "'", "''")
		dst = append(dst[:start], s...)
	}
	return append(dst, '\''), nil
}

// appendFieldName appends a UDT field name as a literal's key: bare when
// it is a plain lower-case identifier, else double-quoted.
func appendFieldName(dst []byte, name string) []byte {
	plain := name != ""
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return append(dst, name...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(name); i++ {
		if name[i] == '"' || name[i] == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, name[i])
	}
	return append(dst, '"')
}

// readCount reads a collection's element count.
func readCount(v []byte) (int, []byte, error) {
	if len(v) < 4 {
		return 0, nil, fmt.Errorf("truncated collection")
	}
	n := int32(binary.BigEndian.Uint32(v))
	if n < 0 {
		return 0, nil, fmt.Errorf("negative element count")
	}
	return int(n), v[4:], nil
}

// readElement reads one length-prefixed collection element (never null).
func readElement(v []byte) (e, rest []byte, err error) {
	if len(v) < 4 {
		return nil, nil, fmt.Errorf("truncated collection")
	}
	n := int32(binary.BigEndian.Uint32(v))
	if n < 0 || int(n) > len(v)-4 {
		return nil, nil, fmt.Errorf("bad element length %d", n)
	}
	return v[4 : 4+n : 4+n], v[4+n:], nil
}

// readField reads one tuple or UDT field: nil for a null or missing one.
func readField(v []byte) (f, rest []byte, err error) {
	if len(v) == 0 {
		return nil, v, nil
	}
	if len(v) < 4 {
		return nil, nil, fmt.Errorf("truncated field")
	}
	n := int32(binary.BigEndian.Uint32(v))
	if n < 0 {
		return nil, v[4:], nil
	}
	if int(n) > len(v)-4 {
		return nil, nil, fmt.Errorf("bad field length %d", n)
	}
	f = v[4 : 4+n : 4+n]
	if f == nil {
		f = []byte{}
	}
	return f, v[4+n:], nil
}

// decodeDuration splits a duration value into months, days and
// nanoseconds.
func decodeDuration(v []byte) (months, days int32, nanos int64, err error) {
	m, n1 := vint.DecodeSigned(v)
	if n1 == 0 {
		return 0, 0, 0, fmt.Errorf("truncated duration")
	}
	d, n2 := vint.DecodeSigned(v[n1:])
	if n2 == 0 {
		return 0, 0, 0, fmt.Errorf("truncated duration")
	}
	ns, n3 := vint.DecodeSigned(v[n1+n2:])
	if n3 == 0 || n1+n2+n3 != len(v) {
		return 0, 0, 0, fmt.Errorf("bad duration")
	}
	return int32(m), int32(d), ns, nil
}
