package schema

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AppendJSON appends the JSON form of v (json-format.md §1.7) to dst, as
// sstabledump prints it, with the loader convention's extensions: an empty
// value of a type whose JSON form is not a string is "", non-finite floats
// are the strings "NaN", "Infinity", "-Infinity", and a zero duration is
// "0s". A counter value is an 8-byte CQL counter or a counter context,
// printed as the sum of its shards. v is validated first.
func (t *Type) AppendJSON(dst, v []byte) ([]byte, error) {
	if err := t.Validate(v); err != nil {
		return dst, err
	}
	return t.appendJSON(dst, v), nil
}

// appendJSON renders a validated value.
func (t *Type) appendJSON(dst, v []byte) []byte {
	if len(v) == 0 {
		if t.Kind == KindBlob || t.Kind == KindCustom {
			// BytesType.toJSONString: "0x" and the (empty) hex.
			return append(dst, '"', '0', 'x', '"')
		}
		return append(dst, '"', '"')
	}
	switch t.Kind {
	case KindAscii, KindText:
		return appendJSONString(dst, v)
	case KindBlob, KindCustom:
		dst = append(dst, '"', '0', 'x')
		dst = hex.AppendEncode(dst, v)
		return append(dst, '"')
	case KindFloat:
		f := float64(math.Float32frombits(binary.BigEndian.Uint32(v)))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			dst = append(dst, '"')
			dst = appendJavaFloat(dst, f, 32)
			return append(dst, '"')
		}
		return appendJavaFloat(dst, f, 32)
	case KindDouble:
		f := math.Float64frombits(binary.BigEndian.Uint64(v))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			dst = append(dst, '"')
			dst = appendJavaFloat(dst, f, 64)
			return append(dst, '"')
		}
		return appendJavaFloat(dst, f, 64)
	case KindList, KindSet:
		return t.appendJSONList(dst, v)
	case KindMap:
		return t.appendJSONMap(dst, v)
	case KindTuple:
		return t.appendJSONTuple(dst, v)
	case KindUDT:
		return t.appendJSONUDT(dst, v)
	case KindVector:
		return t.appendJSONVector(dst, v)
	}
	// Every remaining kind's JSON form is its string form, quoted unless it
	// is a number or a boolean.
	quoted := t.jsonIsString()
	if quoted {
		dst = append(dst, '"')
	}
	dst = t.appendText(dst, v)
	if quoted {
		dst = append(dst, '"')
	}
	return dst
}

// jsonIsString reports whether the JSON form of a non-empty value of t is a
// JSON string.
func (t *Type) jsonIsString() bool {
	switch t.Kind {
	case KindInt, KindBigint, KindSmallint, KindTinyint, KindVarint, KindDecimal,
		KindFloat, KindDouble, KindBoolean, KindCounter,
		KindList, KindSet, KindMap, KindTuple, KindUDT, KindVector:
		return false
	}
	return true
}

// appendText appends the plain text of a validated, non-empty value of a
// native kind (the string form; also the JSON form without quotes).
func (t *Type) appendText(dst, v []byte) []byte {
	switch t.Kind {
	case KindAscii, KindText:
		return append(dst, v...)
	case KindBlob, KindCustom, KindEmpty:
		return hex.AppendEncode(dst, v)
	case KindInt:
		return strconv.AppendInt(dst, int64(int32(binary.BigEndian.Uint32(v))), 10)
	case KindBigint:
		return strconv.AppendInt(dst, int64(binary.BigEndian.Uint64(v)), 10)
	case KindCounter:
		if len(v) == 8 {
			return strconv.AppendInt(dst, int64(binary.BigEndian.Uint64(v)), 10)
		}
		total, _ := counterContextTotal(t, v)
		return strconv.AppendInt(dst, total, 10)
	case KindSmallint:
		return strconv.AppendInt(dst, int64(int16(binary.BigEndian.Uint16(v))), 10)
	case KindTinyint:
		return strconv.AppendInt(dst, int64(int8(v[0])), 10)
	case KindBoolean:
		if v[0] != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case KindFloat:
		return appendJavaFloat(dst, float64(math.Float32frombits(binary.BigEndian.Uint32(v))), 32)
	case KindDouble:
		return appendJavaFloat(dst, math.Float64frombits(binary.BigEndian.Uint64(v)), 64)
	case KindVarint:
		if len(v) <= 8 {
			var b [8]byte
			if int8(v[0]) < 0 {
				b = [8]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
			}
			copy(b[8-len(v):], v)
			return strconv.AppendInt(dst, int64(binary.BigEndian.Uint64(b[:])), 10)
		}
		return varintToBig(v).Append(dst, 10)
	case KindDecimal:
		return appendBigDecimal(dst, varintToBig(v[4:]), int32(binary.BigEndian.Uint32(v)))
	case KindUUID, KindTimeuuid:
		return appendUUIDText(dst, v)
	case KindInet:
		return appendInetText(dst, v)
	case KindTimestamp:
		return appendTimestampText(dst, int64(binary.BigEndian.Uint64(v)))
	case KindDate:
		return appendDateText(dst, int64(binary.BigEndian.Uint32(v))-DateEpochDays)
	case KindTime:
		return appendTimeText(dst, int64(binary.BigEndian.Uint64(v)))
	case KindDuration:
		m, d, n, _ := decodeDuration(t, v)
		return appendDurationText(dst, m, d, n)
	case kindFieldPath:
		i, _ := FieldIndex(v)
		return append(dst, t.FieldNames[i]...)
	}
	return hex.AppendEncode(dst, v)
}

func appendUUIDText(dst, v []byte) []byte {
	dst = hex.AppendEncode(dst, v[0:4])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, v[4:6])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, v[6:8])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, v[8:10])
	dst = append(dst, '-')
	return hex.AppendEncode(dst, v[10:16])
}

// appendInetText appends Java's InetAddress.getHostAddress: dotted IPv4,
// or eight lowercase hex groups without zero compression. An IPv4-mapped
// IPv6 address prints as IPv4, as Java turns it into an Inet4Address.
func appendInetText(dst, v []byte) []byte {
	if len(v) == 16 && isIPv4Mapped(v) {
		v = v[12:]
	}
	if len(v) == 4 {
		for i, b := range v {
			if i > 0 {
				dst = append(dst, '.')
			}
			dst = strconv.AppendUint(dst, uint64(b), 10)
		}
		return dst
	}
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			dst = append(dst, ':')
		}
		dst = strconv.AppendUint(dst, uint64(v[i])<<8|uint64(v[i+1]), 16)
	}
	return dst
}

func isIPv4Mapped(v []byte) bool {
	for i := 0; i < 10; i++ {
		if v[i] != 0 {
			return false
		}
	}
	return v[10] == 0xff && v[11] == 0xff
}

// appendJSONString appends s as a JSON string: UTF-8 kept as is, quotes,
// backslashes and control characters escaped (as Jackson does).
func appendJSONString[S string | []byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c >= 0x20:
			dst = append(dst, c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		}
	}
	return append(dst, '"')
}

func (t *Type) appendJSONList(dst, v []byte) []byte {
	n, rest, _ := readInt32(v)
	dst = append(dst, '[')
	for i := int32(0); i < n; i++ {
		var e []byte
		e, rest, _ = readValue(rest)
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = t.Params[0].appendJSON(dst, e)
	}
	return append(dst, ']')
}

// appendJSONVector is VectorType.toJSONString: the elements' JSON forms in
// brackets, separated by ", ".
func (t *Type) appendJSONVector(dst, v []byte) []byte {
	dst = append(dst, '[')
	elem := t.Params[0]
	t.walkVector(v, func(i int, e []byte) {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = elem.appendJSON(dst, e)
	})
	return append(dst, ']')
}

func (t *Type) appendJSONMap(dst, v []byte) []byte {
	n, rest, _ := readInt32(v)
	kt, vt := t.Params[0], t.Params[1]
	dst = append(dst, '{')
	var scratch []byte
	for i := int32(0); i < n; i++ {
		var k, e []byte
		k, rest, _ = readValue(rest)
		e, rest, _ = readValue(rest)
		if i > 0 {
			dst = append(dst, ", "...)
		}
		if len(k) == 0 || kt.jsonIsString() {
			dst = kt.appendJSON(dst, k)
		} else {
			scratch = kt.appendJSON(scratch[:0], k)
			dst = appendJSONString(dst, scratch)
		}
		dst = append(dst, ": "...)
		dst = vt.appendJSON(dst, e)
	}
	return append(dst, '}')
}

// tupleFields calls f for each field of a validated tuple or UDT value,
// with nil for a null or missing field.
func (t *Type) tupleFields(v []byte, f func(i int, field []byte)) {
	rest := v
	for i := range t.Params {
		if len(rest) == 0 {
			f(i, nil)
			continue
		}
		l, r, _ := readInt32(rest)
		if l < 0 {
			rest = r
			f(i, nil)
			continue
		}
		f(i, r[:l:l])
		rest = r[l:]
	}
}

func (t *Type) appendJSONTuple(dst, v []byte) []byte {
	dst = append(dst, '[')
	t.tupleFields(v, func(i int, field []byte) {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		if field == nil {
			dst = append(dst, "null"...)
			return
		}
		dst = t.Params[i].appendJSON(dst, field)
	})
	return append(dst, ']')
}

func (t *Type) appendJSONUDT(dst, v []byte) []byte {
	dst = append(dst, '{')
	t.tupleFields(v, func(i int, field []byte) {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendJSONString(dst, udtFieldJSONName(t.FieldNames[i]))
		dst = append(dst, ": "...)
		if field == nil {
			dst = append(dst, "null"...)
			return
		}
		dst = t.Params[i].appendJSON(dst, field)
	})
	return append(dst, '}')
}

// udtFieldJSONName is a UDT field name as a JSON object key: in double
// quotes when it is not all lower case (Cassandra 3.11 UserType).
func udtFieldJSONName(name string) string {
	if name == strings.ToLower(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// validUTF8 is utf8.Valid for strings.
func validUTF8(s string) bool { return utf8.ValidString(s) }
