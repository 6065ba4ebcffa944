package schema

import (
	"encoding/binary"
	"math/big"
	"strings"

	bc "github.com/castable-db/castable/internal/bytecomparable"
)

// Byte-comparable forms of values (Cassandra 5.0, ByteComparable version
// OSS50; db/marshal/*Type.asComparableBytes). For two valid values a, b of
// a type t, bytes.Compare of their forms has the sign of t.Compare(a, b),
// and no form is a prefix of another in a way that breaks the order of a
// sequence (the forms are weakly prefix-free: see internal/bytecomparable).
//
//	type                                 form
//	ascii, text, blob, inet, duration,   escaped bytes (00 → 00 FE…/FF),
//	counter, custom byte-order types     an empty value is "00"
//	int, smallint, tinyint, timestamp    fixed length, sign bit flipped
//	bigint                               variable-length signed integer
//	varint                               ≤ 6 significant bytes: variable-length
//	                                     signed integer; else sign byte (FF
//	                                     positive, 00 negative), length−7 as a
//	                                     variable-length unsigned integer
//	                                     (inverted when negative), the bytes
//	                                     without their redundant sign bytes
//	decimal                              80 for zero; else sign+exponent-length
//	                                     byte, base-100 exponent, base-100
//	                                     mantissa digits + 80, then 00
//	float, double                        positive: sign bit set; negative: all
//	                                     bits inverted
//	boolean                              00 or 01
//	date, time                           the bytes unchanged
//	uuid                                 version nibble first, then for v1 the
//	                                     time fields in time order, else the
//	                                     other 15 nibbles; then the last 8 bytes
//	timeuuid                             time order (time_hi_and_version,
//	                                     time_mid, time_low), then the last 8
//	                                     bytes with each sign bit flipped
//	frozen list, set                     per element 40 + form (3E for null),
//	                                     then 38
//	frozen map                           per entry 40 + key form, 40 + value
//	                                     form, then 38
//	tuple, UDT                           per field 40 + form (3E for null),
//	                                     trailing nulls dropped, then 38
//	vector                               per element 40 + form, then 38
//	reversed T                           T's form with every byte inverted
//
// Inside a list, set, map, tuple, UDT or vector (ByteSource.Multi) an
// element without a form (an empty int, say) is written 3E, as a null is:
// Multi writes NEXT_COMPONENT_NULL for every null byte source.
//
// An empty value of every other type (the "empty" values that int, uuid,
// ... accept for compatibility) has no form: it is a null byte source in
// Cassandra, which a sequence writes as the single separator 3F (41 for a
// reversed type), sorting before (after) every value.

// HasComparable reports whether value has a byte-comparable form. It is
// false only for an empty value of a type whose empty value is not
// encoded (every type except the escaped byte-order types).
func (t *Type) HasComparable(value []byte) bool {
	if len(value) > 0 {
		return true
	}
	return t.escapedComparable()
}

// escapedComparable reports whether t's form is the escaped bytes.
func (t *Type) escapedComparable() bool {
	switch t.Kind {
	case KindAscii, KindText, KindBlob, KindInet, KindDuration, KindCounter:
		return true
	case KindCustom:
		switch strings.TrimPrefix(t.Custom, MarshalPackage) {
		case "LexicalUUIDType", "DateType":
			return false
		}
		return true
	}
	return false
}

// AppendComparable appends the byte-comparable form of the serialized
// value (see above) to dst. A value without a form (HasComparable false)
// appends nothing. Malformed values never panic: a fixed-length type given
// the wrong length, or a collection whose framing does not parse, is
// encoded as escaped bytes.
func (t *Type) AppendComparable(dst, value []byte) []byte {
	if !t.HasComparable(value) {
		return dst
	}
	if t.Reversed {
		start := len(dst)
		dst = t.Unreversed().appendComparableBase(dst, value)
		bc.Invert(dst[start:])
		return dst
	}
	return t.appendComparableBase(dst, value)
}

// AppendComparableComponent appends value as one component of a sequence:
// 40 followed by its form, or the single byte 3F (41 when t is reversed)
// for a value without a form.
func (t *Type) AppendComparableComponent(dst, value []byte) []byte {
	if !t.HasComparable(value) {
		if t.Reversed {
			return append(dst, bc.NextComponentEmptyReversed)
		}
		return append(dst, bc.NextComponentEmpty)
	}
	dst = append(dst, bc.NextComponent)
	return t.AppendComparable(dst, value)
}

func (t *Type) appendComparableBase(dst, v []byte) []byte {
	fixed := func(n int) bool { return len(v) == n }
	switch t.Kind {
	case KindInt:
		if fixed(4) {
			return bc.AppendSignedFixed(dst, v)
		}
	case KindSmallint:
		if fixed(2) {
			return bc.AppendSignedFixed(dst, v)
		}
	case KindTinyint:
		if fixed(1) {
			return bc.AppendSignedFixed(dst, v)
		}
	case KindTimestamp:
		if fixed(8) {
			return bc.AppendSignedFixed(dst, v)
		}
	case KindBigint:
		if fixed(8) {
			return bc.AppendVarInt(dst, int64(binary.BigEndian.Uint64(v)))
		}
	case KindFloat:
		if fixed(4) {
			return bc.AppendFloat(dst, v)
		}
	case KindDouble:
		if fixed(8) {
			return bc.AppendFloat(dst, v)
		}
	case KindBoolean:
		if fixed(1) {
			if v[0] != 0 {
				return append(dst, 1)
			}
			return append(dst, 0)
		}
	case KindDate:
		if fixed(4) {
			return append(dst, v...)
		}
	case KindTime:
		if fixed(8) {
			return append(dst, v...)
		}
	case KindVarint:
		return bc.AppendBigInteger(dst, v)
	case KindDecimal:
		if len(v) >= 5 {
			return appendDecimalComparable(dst, v)
		}
	case KindUUID:
		if fixed(16) {
			return appendUUIDComparable(dst, v)
		}
	case KindTimeuuid:
		if fixed(16) {
			return appendTimeUUIDComparable(dst, v)
		}
	case KindList, KindSet:
		if out, ok := appendListComparable(dst, t.Params[0], v); ok {
			return out
		}
	case KindMap:
		if out, ok := appendMapComparable(dst, t.Params[0], t.Params[1], v); ok {
			return out
		}
	case KindTuple, KindUDT:
		if out, ok := appendTupleComparable(dst, t.Params, v); ok {
			return out
		}
	case KindVector:
		if out, ok := appendVectorComparable(dst, t, v); ok {
			return out
		}
	case kindFieldPath:
		if fixed(2) {
			return bc.AppendSignedFixed(dst, v)
		}
	case KindEmpty:
		return dst
	case KindCustom:
		switch strings.TrimPrefix(t.Custom, MarshalPackage) {
		case "LexicalUUIDType":
			if fixed(16) {
				// Two signed longs.
				dst = bc.AppendSignedFixed(dst, v[:8])
				return bc.AppendSignedFixed(dst, v[8:])
			}
		case "DateType":
			if fixed(8) {
				return bc.AppendSignedFixed(dst, v)
			}
		}
	}
	return bc.AppendEscaped(dst, v)
}

var bigTen = big.NewInt(10)

// appendDecimalComparable is DecimalType.asComparableBytes (OSS50): the
// value as sign, base-100 exponent and base-100 mantissa in [0.01, 1).
func appendDecimalComparable(dst, v []byte) []byte {
	scale := int64(int32(binary.BigEndian.Uint32(v)))
	unscaled := varintToBig(v[4:])
	if unscaled.Sign() == 0 {
		return append(dst, 0x80)
	}
	neg := unscaled.Sign() < 0
	digits := int64(len(new(big.Int).Abs(unscaled).Text(10)))
	adjusted := scale - digits
	// ceil(-adjusted / 2)
	exp := -adjusted
	if exp >= 0 {
		exp = (exp + 1) / 2
	} else {
		exp = -((-exp) / 2)
	}
	mexp := exp
	if neg {
		mexp = -exp
	}
	absExp := mexp
	if absExp < 0 {
		absExp = -absExp
	}
	nexp := 0
	for x := uint32(absExp); x != 0; x >>= 8 {
		nexp++
	}
	header := 0x80
	if neg {
		header = 0x00
	}
	header += 0x40
	if mexp < 0 {
		header -= nexp
	} else {
		header += nexp
	}
	dst = append(dst, byte(header))
	for i := nexp - 1; i >= 0; i-- {
		dst = append(dst, byte(mexp>>(8*i)))
	}
	// Digit pairs: mantissa = unscaled * 10^-(scale + 2*exp).
	e := scale + 2*exp
	m := new(big.Int).Set(unscaled)
	d := new(big.Int)
	q := new(big.Int)
	for m.Sign() != 0 {
		e -= 2
		var pair int64
		if e >= 0 {
			d.Exp(bigTen, big.NewInt(e), nil)
			q.QuoRem(m, d, m) // truncated, remainder takes m's sign
			pair = q.Int64()
			if m.Sign() < 0 {
				// Only the first pair of a negative value: round it
				// towards -inf, the rest becomes positive.
				pair--
				m.Mul(big.NewInt(pair), d)
				m.Sub(unscaled, m)
			}
		} else {
			pair = m.Int64() * 10
			m.SetInt64(0)
		}
		dst = append(dst, byte(0x80+pair))
	}
	return append(dst, 0x00)
}

// appendUUIDComparable is UUIDType.asComparableBytes.
func appendUUIDComparable(dst, v []byte) []byte {
	msb := binary.BigEndian.Uint64(v)
	version := msb >> 12 & 0xF
	if version == 1 {
		msb = uuidTimestampOrder(msb)
	} else {
		msb = version<<60 | (msb>>4)&0x0FFFFFFFFFFFF000 | msb&0xFFF
	}
	dst = binary.BigEndian.AppendUint64(dst, msb)
	return append(dst, v[8:]...)
}

// appendTimeUUIDComparable is TimeUUIDType.asComparableBytes.
func appendTimeUUIDComparable(dst, v []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uuidTimestampOrder(binary.BigEndian.Uint64(v)))
	return binary.BigEndian.AppendUint64(dst, binary.BigEndian.Uint64(v[8:])^0x8080808080808080)
}

// appendListComparable encodes a frozen list or set: each element as a
// component (3E for a null element), then the terminator.
func appendListComparable(dst []byte, elem *Type, v []byte) ([]byte, bool) {
	n, rest, ok := readInt32(v)
	if !ok || n < 0 {
		return dst, false
	}
	start := len(dst)
	for i := int32(0); i < n; i++ {
		var e []byte
		e, rest, ok = readValue(rest)
		if !ok {
			return dst[:start], false
		}
		if e == nil {
			dst = append(dst, bc.NextComponentNull)
			continue
		}
		dst = elem.appendMultiComponent(dst, e)
	}
	if len(rest) != 0 {
		return dst[:start], false
	}
	return append(dst, bc.Terminator), true
}

func appendMapComparable(dst []byte, key, value *Type, v []byte) ([]byte, bool) {
	n, rest, ok := readInt32(v)
	if !ok || n < 0 {
		return dst, false
	}
	start := len(dst)
	for i := int32(0); i < n; i++ {
		var k, e []byte
		if k, rest, ok = readValue(rest); !ok || k == nil {
			return dst[:start], false
		}
		if e, rest, ok = readValue(rest); !ok || e == nil {
			return dst[:start], false
		}
		dst = key.appendMultiComponent(dst, k)
		dst = value.appendMultiComponent(dst, e)
	}
	if len(rest) != 0 {
		return dst[:start], false
	}
	return append(dst, bc.Terminator), true
}

// appendTupleComparable encodes a tuple or UDT: each field as a component,
// a null field as 3E, trailing null (or missing) fields omitted.
func appendTupleComparable(dst []byte, types []*Type, v []byte) ([]byte, bool) {
	start := len(dst)
	pendingNulls := 0
	rest := v
	for i := 0; len(rest) > 0; i++ {
		var f []byte
		var ok bool
		f, rest, ok = readValue(rest)
		if !ok {
			return dst[:start], false
		}
		if f == nil {
			pendingNulls++
			continue
		}
		for ; pendingNulls > 0; pendingNulls-- {
			dst = append(dst, bc.NextComponentNull)
		}
		ft := Blob
		if i < len(types) {
			ft = types[i]
		}
		dst = ft.appendMultiComponent(dst, f)
	}
	return append(dst, bc.Terminator), true
}

// appendMultiComponent appends value as one source of a ByteSource.Multi
// (the elements of a collection, tuple, UDT or vector): 40 and its form,
// or 3E when it has none (a null source, which Multi writes as
// NEXT_COMPONENT_NULL — unlike a clustering prefix, whose empty components
// are 3F).
func (t *Type) appendMultiComponent(dst, value []byte) []byte {
	if !t.HasComparable(value) {
		return append(dst, bc.NextComponentNull)
	}
	dst = append(dst, bc.NextComponent)
	return t.AppendComparable(dst, value)
}

// appendVectorComparable is VectorType.asComparableBytes (OSS50): each
// element as a component, then the terminator.
func appendVectorComparable(dst []byte, t *Type, v []byte) ([]byte, bool) {
	start := len(dst)
	elem := t.Params[0]
	if err := t.walkVector(v, func(_ int, e []byte) { dst = elem.appendMultiComponent(dst, e) }); err != nil {
		return dst[:start], false
	}
	return append(dst, bc.Terminator), true
}
