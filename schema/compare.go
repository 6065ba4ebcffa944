package schema

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
	"strings"

	"github.com/castable-db/castable/internal/vint"
)

// Compare orders two serialized values as Cassandra's comparator for t does
// (db/marshal/*Type.compareCustom in 3.11):
//
//   - int, bigint, smallint, tinyint, timestamp, time: signed integers;
//   - varint and decimal: numerically (decimal 1.0 equals 1.00);
//   - float and double: as Java's Float/Double.compare (-0.0 < 0.0, NaN last,
//     NaN equal to NaN);
//   - boolean: false before true (any non-zero byte is true);
//   - uuid (UUIDType): by version, then by timestamp for version 1, else
//     unsigned by the most significant 8 bytes; then unsigned by the rest;
//   - timeuuid (TimeUUIDType): by timestamp (signed, version nibble on top),
//     then by the last 8 bytes compared as signed bytes;
//   - ascii, text, blob, inet, date (unsigned u32), duration, counter and
//     custom types: unsigned bytes;
//   - frozen list, set and map: element by element (map: key then value),
//     then the shorter first; tuples and UDTs field by field, null before any
//     value, trailing null fields ignored;
//   - vector: element by element with the element type's order (Cassandra
//     5.0's VectorType serializers; for fixed-length elements of a byte-order
//     type, such as DateType, that is the unsigned bytes of the whole value);
//   - an empty value sorts before every non-empty one;
//   - Reversed inverts the result.
//
// Malformed values never panic: where a value cannot be decoded the
// comparison falls back to unsigned bytes.
func (t *Type) Compare(a, b []byte) int {
	c := t.compareBase(a, b)
	if t.Reversed {
		return -c
	}
	return c
}

// Compare classes: kinds whose compareBase is compareSigned, or
// bytes.Compare, for the callers that order many values of one type
// (Table.CompareClustering).
const (
	compareOther uint8 = iota
	compareAsSigned
	compareAsBytes
)

// compareClasses maps every kind to its compare class (256 entries: a Kind
// indexes it without a bounds check).
var compareClasses = [256]uint8{
	KindInt: compareAsSigned, KindBigint: compareAsSigned, KindSmallint: compareAsSigned, KindTinyint: compareAsSigned,
	KindTimestamp: compareAsSigned, KindTime: compareAsSigned, kindFieldPath: compareAsSigned,
	KindAscii: compareAsBytes, KindText: compareAsBytes, KindBlob: compareAsBytes, KindInet: compareAsBytes,
	KindDate: compareAsBytes, KindDuration: compareAsBytes, KindCounter: compareAsBytes, KindEmpty: compareAsBytes,
}

func (t *Type) compareBase(a, b []byte) int {
	switch t.Kind {
	case KindInt, KindBigint, KindSmallint, KindTinyint, KindTimestamp, KindTime:
		return compareSigned(a, b)
	case KindBoolean:
		return compareBoolean(a, b)
	case KindFloat:
		return compareFloat(a, b)
	case KindDouble:
		return compareDouble(a, b)
	case KindVarint:
		return compareVarint(a, b)
	case KindDecimal:
		return compareDecimal(a, b)
	case KindUUID:
		return compareUUID(a, b)
	case KindTimeuuid:
		return compareTimeUUID(a, b)
	case KindList, KindSet:
		return compareListOrSet(t.Params[0], a, b)
	case KindMap:
		return compareMap(t.Params[0], t.Params[1], a, b)
	case KindTuple, KindUDT:
		return compareTuple(t.Params, a, b)
	case KindVector:
		return compareVector(t, a, b)
	case kindFieldPath:
		return compareSigned(a, b)
	case KindCustom:
		if strings.TrimPrefix(t.Custom, MarshalPackage) == "LexicalUUIDType" {
			return compareLexicalUUID(a, b)
		}
	}
	return bytes.Compare(a, b)
}

// compareEmpty orders empty values first; ok is false when both are
// non-empty.
func compareEmpty(a, b []byte) (int, bool) {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0, true
	case len(a) == 0:
		return -1, true
	case len(b) == 0:
		return 1, true
	}
	return 0, false
}

// compareSigned compares big-endian two's complement integers of the same
// width: the first byte signed, the rest unsigned (Int32Type, LongType, ...).
func compareSigned(a, b []byte) int {
	// Of one width of 4 or 8 bytes (int, bigint, timestamp, time): as the
	// integers they are, what compareSignedBytes gives.
	if len(a) == len(b) {
		switch len(a) {
		case 4:
			return cmp.Compare(int32(binary.BigEndian.Uint32(a)), int32(binary.BigEndian.Uint32(b)))
		case 8:
			return cmp.Compare(int64(binary.BigEndian.Uint64(a)), int64(binary.BigEndian.Uint64(b)))
		}
	}
	return compareSignedBytes(a, b)
}

// compareSignedBytes is compareSigned byte by byte, for every width.
func compareSignedBytes(a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	if a[0] != b[0] {
		if int8(a[0]) < int8(b[0]) {
			return -1
		}
		return 1
	}
	return bytes.Compare(a[1:], b[1:])
}

func compareBoolean(a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	ta, tb := a[0] != 0, b[0] != 0
	switch {
	case ta == tb:
		return 0
	case tb:
		return -1
	}
	return 1
}

func compareFloat(a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	if len(a) != 4 || len(b) != 4 {
		return bytes.Compare(a, b)
	}
	return javaCompareFloat64(float64(math.Float32frombits(binary.BigEndian.Uint32(a))),
		float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
}

func compareDouble(a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	if len(a) != 8 || len(b) != 8 {
		return bytes.Compare(a, b)
	}
	return javaCompareFloat64(math.Float64frombits(binary.BigEndian.Uint64(a)),
		math.Float64frombits(binary.BigEndian.Uint64(b)))
}

// javaCompareFloat64 is Java's Double.compare: numeric order, except that
// -0.0 < 0.0 and NaN is equal to itself and greater than everything.
func javaCompareFloat64(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	// Equal numbers; only the zeros' signs can differ.
	xs, ys := math.Signbit(x), math.Signbit(y)
	switch {
	case xs == ys:
		return 0
	case xs:
		return -1
	}
	return 1
}

// compareVarint compares minimal or non-minimal big-endian two's complement
// integers of any length numerically.
func compareVarint(a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	na, nb := int8(a[0]) < 0, int8(b[0]) < 0
	if na != nb {
		if na {
			return -1
		}
		return 1
	}
	a, b = trimSignBytes(a), trimSignBytes(b)
	// Same sign: for positives the longer is larger, for negatives the
	// longer is smaller; with equal lengths two's complement bytes compare
	// like the numbers (the sign bits are equal).
	if len(a) != len(b) {
		if (len(a) < len(b)) != na {
			return -1
		}
		return 1
	}
	return bytes.Compare(a, b)
}

// trimSignBytes drops redundant leading sign-extension bytes.
func trimSignBytes(v []byte) []byte {
	for len(v) > 1 {
		if v[0] == 0 && v[1]&0x80 == 0 || v[0] == 0xff && v[1]&0x80 != 0 {
			v = v[1:]
			continue
		}
		break
	}
	return v
}

func compareDecimal(a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	da, oka := decodeDecimal(a)
	db, okb := decodeDecimal(b)
	if !oka || !okb {
		return bytes.Compare(a, b)
	}
	return da.cmp(db)
}

// decimal is a decoded DecimalType value: unscaled * 10^-scale.
type decimal struct {
	unscaled *big.Int
	scale    int32
}

func decodeDecimal(v []byte) (decimal, bool) {
	if len(v) < 5 {
		return decimal{}, false
	}
	return decimal{unscaled: varintToBig(v[4:]), scale: int32(binary.BigEndian.Uint32(v))}, true
}

// cmp compares two decimals numerically without materialising huge powers
// of ten: the adjusted exponents decide unless they are equal, and then the
// scales differ by at most the difference of the digit counts.
func (d decimal) cmp(o decimal) int {
	sa, sb := d.unscaled.Sign(), o.unscaled.Sign()
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	da := len(new(big.Int).Abs(d.unscaled).Text(10))
	db := len(new(big.Int).Abs(o.unscaled).Text(10))
	ea := int64(da) - int64(d.scale)
	eb := int64(db) - int64(o.scale)
	if ea != eb {
		c := 1
		if ea < eb {
			c = -1
		}
		return c * sa
	}
	x, y := d.unscaled, o.unscaled
	diff := int64(d.scale) - int64(o.scale) // == da - db, bounded by the lengths
	if diff > 0 {
		y = new(big.Int).Mul(y, new(big.Int).Exp(big.NewInt(10), big.NewInt(diff), nil))
	} else if diff < 0 {
		x = new(big.Int).Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(-diff), nil))
	}
	return x.Cmp(y)
}

// varintToBig decodes big-endian two's complement bytes.
func varintToBig(v []byte) *big.Int {
	x := new(big.Int).SetBytes(v)
	if len(v) > 0 && v[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(v))))
	}
	return x
}

// uuidTimestampOrder reorders the most significant 8 bytes of a version 1
// UUID so that it compares by timestamp: time_hi_and_version, time_mid,
// time_low (TimeUUIDType.reorderTimestampBytes).
func uuidTimestampOrder(msb uint64) uint64 {
	return msb<<48 | (msb<<16)&0xFFFF00000000 | msb>>32
}

func compareUUID(a, b []byte) int {
	if len(a) != 16 || len(b) != 16 {
		return compareUUIDLengths(a, b)
	}
	ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
	va, vb := int(ma>>12&0xf), int(mb>>12&0xf)
	if va != vb {
		return cmpInt(va, vb)
	}
	if va == 1 {
		if c := cmpInt64(int64(uuidTimestampOrder(ma)), int64(uuidTimestampOrder(mb))); c != 0 {
			return c
		}
	} else if c := cmpUint64(ma, mb); c != 0 {
		return c
	}
	return cmpUint64(binary.BigEndian.Uint64(a[8:]), binary.BigEndian.Uint64(b[8:]))
}

func compareTimeUUID(a, b []byte) int {
	if len(a) != 16 || len(b) != 16 {
		return compareUUIDLengths(a, b)
	}
	ma := int64(uuidTimestampOrder(binary.BigEndian.Uint64(a)))
	mb := int64(uuidTimestampOrder(binary.BigEndian.Uint64(b)))
	if c := cmpInt64(ma, mb); c != 0 {
		return c
	}
	// The last 8 bytes compare as signed bytes: flipping the sign bit of
	// bytes 1..7 makes a signed 64-bit comparison equivalent.
	la := int64(binary.BigEndian.Uint64(a[8:]) ^ 0x0080808080808080)
	lb := int64(binary.BigEndian.Uint64(b[8:]) ^ 0x0080808080808080)
	return cmpInt64(la, lb)
}

func compareLexicalUUID(a, b []byte) int {
	if len(a) != 16 || len(b) != 16 {
		return compareUUIDLengths(a, b)
	}
	if c := cmpInt64(int64(binary.BigEndian.Uint64(a)), int64(binary.BigEndian.Uint64(b))); c != 0 {
		return c
	}
	return cmpInt64(int64(binary.BigEndian.Uint64(a[8:])), int64(binary.BigEndian.Uint64(b[8:])))
}

// compareUUIDLengths orders values that are not both 16 bytes: empty first,
// then anything else by bytes.
func compareUUIDLengths(a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	return bytes.Compare(a, b)
}

func compareListOrSet(elem *Type, a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	na, ra, oka := readInt32(a)
	nb, rb, okb := readInt32(b)
	if !oka || !okb {
		return bytes.Compare(a, b)
	}
	for i := int32(0); i < na && i < nb; i++ {
		var va, vb []byte
		va, ra, oka = readValue(ra)
		vb, rb, okb = readValue(rb)
		if !oka || !okb {
			return bytes.Compare(a, b)
		}
		if c := elem.Compare(va, vb); c != 0 {
			return c
		}
	}
	return cmpInt64(int64(na), int64(nb))
}

func compareMap(key, value *Type, a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	na, ra, oka := readInt32(a)
	nb, rb, okb := readInt32(b)
	if !oka || !okb {
		return bytes.Compare(a, b)
	}
	for i := int32(0); i < na && i < nb; i++ {
		var ka, kb, va, vb []byte
		ka, ra, oka = readValue(ra)
		kb, rb, okb = readValue(rb)
		if !oka || !okb {
			return bytes.Compare(a, b)
		}
		if c := key.Compare(ka, kb); c != 0 {
			return c
		}
		va, ra, oka = readValue(ra)
		vb, rb, okb = readValue(rb)
		if !oka || !okb {
			return bytes.Compare(a, b)
		}
		if c := value.Compare(va, vb); c != 0 {
			return c
		}
	}
	return cmpInt64(int64(na), int64(nb))
}

// compareTuple follows TupleType.compareCustom: field by field while both
// have bytes left, a null field before any value; then a side with a
// remaining non-null, non-empty field is greater.
func compareTuple(types []*Type, a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	ra, rb := a, b
	for i := 0; len(ra) > 0 && len(rb) > 0; i++ {
		sa, na, oka := readInt32(ra)
		sb, nb, okb := readInt32(rb)
		if !oka || !okb {
			return bytes.Compare(a, b)
		}
		ra, rb = na, nb
		if sa < 0 {
			if sb < 0 {
				continue
			}
			return -1
		}
		if sb < 0 {
			return 1
		}
		if int64(sa) > int64(len(ra)) || int64(sb) > int64(len(rb)) {
			return bytes.Compare(a, b)
		}
		va, vb := ra[:sa], rb[:sb]
		ra, rb = ra[sa:], rb[sb:]
		ft := Blob
		if i < len(types) {
			ft = types[i]
		}
		if c := ft.Compare(va, vb); c != 0 {
			return c
		}
	}
	if hasNonNullField(ra) {
		return 1
	}
	if hasNonNullField(rb) {
		return -1
	}
	return 0
}

// hasNonNullField reports whether the remaining serialized tuple fields in
// r contain one with a positive length.
func hasNonNullField(r []byte) bool {
	for len(r) > 0 {
		n, rest, ok := readInt32(r)
		if !ok {
			return true
		}
		if n > 0 {
			return true
		}
		r = rest
	}
	return false
}

// readInt32 reads a big-endian i32.
func readInt32(b []byte) (int32, []byte, bool) {
	if len(b) < 4 {
		return 0, b, false
	}
	return int32(binary.BigEndian.Uint32(b)), b[4:], true
}

// readValue reads an i32-length-prefixed value of a collection or tuple; a
// negative length is a null (nil) value.
func readValue(b []byte) ([]byte, []byte, bool) {
	n, rest, ok := readInt32(b)
	if !ok {
		return nil, b, false
	}
	if n < 0 {
		return nil, rest, true
	}
	if int64(n) > int64(len(rest)) {
		return nil, b, false
	}
	return rest[:n:n], rest[n:], true
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareVector compares two vector values element by element. Values that
// do not split into the type's elements compare as unsigned bytes.
func compareVector(t *Type, a, b []byte) int {
	if c, ok := compareEmpty(a, b); ok {
		return c
	}
	elem, n := t.Params[0], t.Dimension
	if f := elem.FixedLength(); f > 0 {
		if int64(len(a)) != int64(f)*int64(n) || len(a) != len(b) {
			return bytes.Compare(a, b)
		}
		for i := 0; i < len(a); i += f {
			if c := elem.Compare(a[i:i+f], b[i:i+f]); c != 0 {
				return c
			}
		}
		return 0
	}
	ra, rb := a, b
	for i := 0; i < n; i++ {
		ea, na, oka := readVectorElement(ra)
		eb, nb, okb := readVectorElement(rb)
		if !oka || !okb {
			return bytes.Compare(a, b)
		}
		if c := elem.Compare(ea, eb); c != 0 {
			return c
		}
		ra, rb = na, nb
	}
	return 0
}

// readVectorElement reads an unsigned-vint-length-prefixed element of a
// variable-length vector.
func readVectorElement(b []byte) (elem, rest []byte, ok bool) {
	l, k := vint.Decode(b)
	if k == 0 || l > uint64(len(b)-k) {
		return nil, b, false
	}
	end := k + int(l)
	return b[k:end:end], b[end:], true
}
