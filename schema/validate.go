package schema

import (
	"encoding/binary"
	"fmt"
	"github.com/castable-db/castable/internal/vint"
	"strings"
	"unicode/utf8"
)

// ValueError reports a serialized value that is not valid for its type, or
// a text/JSON value that cannot be converted. Callers that know the column
// wrap it: "column v: value 0x0102 is not a valid int (want 4 bytes, got 2)".
type ValueError struct {
	Type   *Type
	Value  []byte // the serialized value, when the input was serialized
	Text   string // the text or JSON input, when it was not
	Reason string
}

// Error implements error: "value 0x... is not a valid <type> (<reason>)".
func (e *ValueError) Error() string {
	var b strings.Builder
	if e.Value != nil {
		b.WriteString("value 0x")
		const max = 32
		if len(e.Value) > max {
			fmt.Fprintf(&b, "%x...(%d bytes)", e.Value[:max], len(e.Value))
		} else {
			fmt.Fprintf(&b, "%x", e.Value)
		}
	} else {
		t := e.Text
		if len(t) > 64 {
			t = t[:64] + "..."
		}
		fmt.Fprintf(&b, "value %q", t)
	}
	b.WriteString(" is not a valid ")
	if e.Type != nil {
		b.WriteString(e.Type.String())
	} else {
		b.WriteString("value")
	}
	if e.Reason != "" {
		b.WriteString(" (")
		b.WriteString(e.Reason)
		b.WriteString(")")
	}
	return b.String()
}

func invalid(t *Type, v []byte, format string, args ...any) error {
	if v == nil {
		v = []byte{}
	}
	return &ValueError{Type: t, Value: v, Reason: fmt.Sprintf(format, args...)}
}

func invalidText(t *Type, s string, format string, args ...any) error {
	return &ValueError{Type: t, Text: s, Reason: fmt.Sprintf(format, args...)}
}

// Validate reports whether v is a valid serialized value of t. An empty
// value is valid for every type (Cassandra stores empty values of any type,
// e.g. from blob casts), except inside collections and for a vector, which
// Cassandra 5.0 never stores empty (CASSANDRA-18876). Varints and decimals
// must be minimal; durations need months, days and nanoseconds of one sign
// and no trailing bytes; text must be UTF-8 and ascii 7-bit; time must be
// within a day; timeuuid must be version 1; collections may not hold nulls;
// a counter value is either an 8-byte CQL counter or a counter context; a
// vector holds exactly its dimension of non-empty elements (an element of
// a type whose empty value is a value, such as text, may be empty), each
// valid for the element type.
func (t *Type) Validate(v []byte) error {
	if len(v) == 0 {
		if t.Kind == KindVector {
			return invalid(t, v, "a vector value is never empty")
		}
		return nil
	}
	return t.validateNonEmpty(v)
}

func fixedLen(t *Type, v []byte, n int) error {
	if len(v) != n {
		return invalid(t, v, "want %d bytes, got %d", n, len(v))
	}
	return nil
}

func (t *Type) validateNonEmpty(v []byte) error {
	switch t.Kind {
	case KindInt, KindFloat, KindDate:
		return fixedLen(t, v, 4)
	case KindBigint, KindDouble, KindTimestamp:
		return fixedLen(t, v, 8)
	case KindSmallint:
		return fixedLen(t, v, 2)
	case KindTinyint, KindBoolean:
		return fixedLen(t, v, 1)
	case KindUUID:
		return fixedLen(t, v, 16)
	case KindTimeuuid:
		if err := fixedLen(t, v, 16); err != nil {
			return err
		}
		if v[6]&0xf0 != 0x10 {
			return invalid(t, v, "version %d, want 1", v[6]>>4)
		}
	case KindTime:
		if err := fixedLen(t, v, 8); err != nil {
			return err
		}
		if ns := int64(binary.BigEndian.Uint64(v)); ns < 0 || ns > MaxTimeNanos {
			return invalid(t, v, "%d ns is not within a day", ns)
		}
	case KindInet:
		if len(v) != 4 && len(v) != 16 {
			return invalid(t, v, "want 4 or 16 bytes, got %d", len(v))
		}
	case KindVarint:
		if len(trimSignBytes(v)) != len(v) {
			return invalid(t, v, "not minimal two's complement")
		}
	case KindDecimal:
		if len(v) < 5 {
			return invalid(t, v, "want a 4-byte scale and at least one unscaled byte, got %d bytes", len(v))
		}
		if len(trimSignBytes(v[4:])) != len(v)-4 {
			return invalid(t, v, "unscaled value not minimal two's complement")
		}
	case KindDuration:
		_, _, _, err := decodeDuration(t, v)
		return err
	case KindText:
		if !utf8.Valid(v) {
			return invalid(t, v, "not UTF-8")
		}
	case KindAscii:
		for i, c := range v {
			if c >= 0x80 {
				return invalid(t, v, "byte 0x%02x at %d is not ASCII", c, i)
			}
		}
	case KindCounter:
		if len(v) == 8 {
			return nil
		}
		_, err := counterContextTotal(t, v)
		return err
	case KindEmpty:
		return invalid(t, v, "an empty-typed value must have no bytes, got %d", len(v))
	case KindList, KindSet:
		return t.validateCollection(v, false)
	case KindMap:
		return t.validateCollection(v, true)
	case KindTuple, KindUDT:
		return t.validateTuple(v)
	case KindVector:
		return t.walkVector(v, func(int, []byte) {})
	case kindFieldPath:
		if i, ok := FieldIndex(v); !ok || i >= len(t.FieldNames) {
			return invalid(t, v, "not a field index of %s (%d fields)", t.Name, len(t.FieldNames))
		}
	case KindBlob, KindCustom:
	default:
		return invalid(t, v, "unknown type kind %d", t.Kind)
	}
	return nil
}

// decodeDuration decodes and checks a duration value.
func decodeDuration(t *Type, v []byte) (months, days int32, nanos int64, err error) {
	m, n1 := vint.DecodeSigned(v)
	d, n2 := vint.DecodeSigned(v[n1:])
	if n1 == 0 || n2 == 0 {
		return 0, 0, 0, invalid(t, v, "truncated")
	}
	ns, n3 := vint.DecodeSigned(v[n1+n2:])
	if n3 == 0 {
		return 0, 0, 0, invalid(t, v, "truncated")
	}
	if n1 != vint.Size(vint.Zigzag(m)) || n2 != vint.Size(vint.Zigzag(d)) || n3 != vint.Size(vint.Zigzag(ns)) {
		return 0, 0, 0, invalid(t, v, "vint not minimally encoded")
	}
	if n1+n2+n3 != len(v) {
		return 0, 0, 0, invalid(t, v, "%d trailing bytes", len(v)-n1-n2-n3)
	}
	if m != int64(int32(m)) || d != int64(int32(d)) {
		return 0, 0, 0, invalid(t, v, "months and days must fit 32 bits")
	}
	if !(m >= 0 && d >= 0 && ns >= 0 || m <= 0 && d <= 0 && ns <= 0) {
		return 0, 0, 0, invalid(t, v, "months, days and nanoseconds must have the same sign (%d, %d, %d)", m, d, ns)
	}
	return int32(m), int32(d), ns, nil
}

// Counter context layout (json-format.md §2.5; mc-format.md §3.9), big-endian:
//
//	i16 header count H | H x i16 header entry | S x (16-byte counter id | i64 clock | i64 count)
//
// A header entry i >= 0 names local shard i, i < 0 global shard i+32768.
const counterShardSize = 16 + 8 + 8

// counterContextTotal checks a counter context and returns the sum of its
// shard counts.
func counterContextTotal(t *Type, v []byte) (int64, error) {
	if len(v) < 2 {
		return 0, invalid(t, v, "counter context shorter than its header")
	}
	h := int(int16(binary.BigEndian.Uint16(v)))
	if h < 0 || 2+2*h > len(v) {
		return 0, invalid(t, v, "counter context header count %d does not fit %d bytes", h, len(v))
	}
	body := v[2+2*h:]
	if len(body)%counterShardSize != 0 {
		return 0, invalid(t, v, "counter context body of %d bytes is not a whole number of 32-byte shards", len(body))
	}
	shards := len(body) / counterShardSize
	for i := 0; i < h; i++ {
		e := int(int16(binary.BigEndian.Uint16(v[2+2*i:])))
		if e < 0 {
			e += 32768
		}
		if e >= shards {
			return 0, invalid(t, v, "counter context header entry %d names shard %d of %d", i, e, shards)
		}
	}
	var total int64
	for s := 0; s < shards; s++ {
		total += int64(binary.BigEndian.Uint64(body[s*counterShardSize+24:]))
	}
	return total, nil
}

func (t *Type) validateCollection(v []byte, isMap bool) error {
	n, rest, ok := readInt32(v)
	if !ok {
		return invalid(t, v, "truncated element count")
	}
	per := 4
	if isMap {
		per = 8
	}
	if n < 0 || int64(n)*int64(per) > int64(len(rest)) {
		return invalid(t, v, "element count %d does not fit %d bytes", n, len(v))
	}
	for i := int32(0); i < n; i++ {
		for j, et := range t.Params {
			if !isMap && j > 0 {
				break
			}
			l, r, ok := readInt32(rest)
			if !ok || l < 0 || int64(l) > int64(len(r)) {
				return invalid(t, v, "element %d truncated or null", i)
			}
			if l > 0 {
				if err := et.validateNonEmpty(r[:l]); err != nil {
					return invalid(t, v, "element %d: %v", i, err)
				}
			}
			rest = r[l:]
		}
	}
	if len(rest) != 0 {
		return invalid(t, v, "%d trailing bytes after %d elements", len(rest), n)
	}
	return nil
}

func (t *Type) validateTuple(v []byte) error {
	rest := v
	for i := 0; len(rest) > 0; i++ {
		if i >= len(t.Params) {
			return invalid(t, v, "%d bytes after the last of %d fields", len(rest), len(t.Params))
		}
		l, r, ok := readInt32(rest)
		if !ok || l < -1 || int64(l) > int64(len(r)) {
			return invalid(t, v, "field %d truncated", i)
		}
		if l <= 0 {
			rest = r
			continue
		}
		if err := t.Params[i].validateNonEmpty(r[:l]); err != nil {
			return invalid(t, v, "field %d: %v", i, err)
		}
		rest = r[l:]
	}
	return nil
}

// splitVector appends the elements of vector value v to dst and checks
// them (see walkVector).
func (t *Type) splitVector(dst [][]byte, v []byte) ([][]byte, error) {
	err := t.walkVector(v, func(_ int, e []byte) { dst = append(dst, e) })
	return dst, err
}

// walkVector checks vector value v as VectorType.validate does — for
// fixed-length elements exactly Dimension × their length, else Dimension
// times an unsigned vint length and that many bytes; nothing after the
// last element; every element valid — and calls fn with each element (a
// sub-slice of v) as it goes.
func (t *Type) walkVector(v []byte, fn func(i int, e []byte)) error {
	elem, n := t.Params[0], t.Dimension
	if len(v) == 0 {
		return invalid(t, v, "a vector value is never empty")
	}
	if f := elem.FixedLength(); f > 0 {
		if int64(len(v)) != int64(f)*int64(n) {
			return invalid(t, v, "want %d bytes (%d × %d), got %d", int64(f)*int64(n), n, f, len(v))
		}
		for i := 0; i < n; i++ {
			e := v[i*f : (i+1)*f : (i+1)*f]
			if err := elem.validateNonEmpty(e); err != nil {
				return invalid(t, v, "element %d: %v", i, err)
			}
			fn(i, e)
		}
		return nil
	}
	rest := v
	for i := 0; i < n; i++ {
		if len(rest) == 0 {
			return invalid(t, v, "%d elements, want %d", i, n)
		}
		e, r, ok := readVectorElement(rest)
		if !ok {
			return invalid(t, v, "element %d truncated", i)
		}
		rest = r
		if err := elem.validateElement(e); err != nil {
			return invalid(t, v, "element %d: %v", i, err)
		}
		fn(i, e)
	}
	if len(rest) != 0 {
		return invalid(t, v, "%d extraneous bytes after the %d elements", len(rest), n)
	}
	return nil
}

// validateElement checks a vector element as VectorType.validate does:
// valid for the element type, where an empty element passes as it passes
// the element's validation (Cassandra rejects null elements when it builds
// a vector from CQL or JSON, not when it reads one; see
// vectorElementNull).
func (t *Type) validateElement(e []byte) error {
	return t.Validate(e)
}

// vectorElementNull reports whether e is what Cassandra calls a null
// element when it builds a vector (VectorType.check): an empty buffer,
// except for text, ascii and blob, whose serializers call it the empty
// string or byte[0].
func vectorElementNull(elem *Type, e []byte) bool {
	if e == nil {
		return true
	}
	if len(e) > 0 {
		return false
	}
	switch elem.Kind {
	case KindText, KindAscii, KindBlob:
		return false
	}
	return true
}
