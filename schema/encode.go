package schema

import (
	"encoding/binary"
	"fmt"
	"github.com/castable-db/castable/internal/vint"
	"math"
	"math/big"
	"net/netip"
)

// Serialized forms of the CQL types (the native protocol v3+ / sstable value
// encoding; all integers big-endian):
//
//	int        i32                      bigint, counter value  i64
//	smallint   i16                      tinyint                i8
//	boolean    u8 0x00 / 0x01           float / double         IEEE-754 bits
//	timestamp  i64 ms since the epoch   date   u32 days, 2^31 = 1970-01-01
//	time       i64 ns since midnight, 0..86399999999999
//	uuid, timeuuid  16 bytes            inet   4 or 16 address bytes
//	varint     minimal two's complement (at least one byte)
//	decimal    i32 scale | varint unscaled value
//	duration   signed vint months | signed vint days | signed vint nanoseconds
//	           (zigzag, then Cassandra's unsigned vint: mc-format.md §1.2-1.3)
//	text, ascii, blob  the bytes
//	frozen list / set  i32 n | n x (i32 len | bytes)
//	frozen map         i32 n | n x (i32 klen | key | i32 vlen | value)
//	tuple, frozen UDT  per field: i32 len (-1 = null) | bytes; trailing
//	                   fields may be missing
//	vector<T, n>       T of fixed length f: n x f bytes, no count, no
//	                   lengths (the value is fixed-length too: n x f);
//	                   otherwise n x (unsigned vint len | bytes). Never
//	                   empty, no null elements (VectorType, Cassandra 5.0)
//
// The Append helpers below append one value to dst and return the extended
// slice, so callers can build cells without allocating.

// DateEpochDays is the serialized date of 1970-01-01 (2^31).
const DateEpochDays = 1 << 31

// MaxTimeNanos is the largest valid time value (23:59:59.999999999).
const MaxTimeNanos = 24*60*60*1_000_000_000 - 1

// AppendInt appends an int.
func AppendInt(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

// AppendBigint appends a bigint (also a CQL counter value).
func AppendBigint(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }

// AppendSmallint appends a smallint.
func AppendSmallint(dst []byte, v int16) []byte { return binary.BigEndian.AppendUint16(dst, uint16(v)) }

// AppendTinyint appends a tinyint.
func AppendTinyint(dst []byte, v int8) []byte { return append(dst, byte(v)) }

// AppendBoolean appends a boolean.
func AppendBoolean(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// AppendFloat appends a float.
func AppendFloat(dst []byte, v float32) []byte {
	return binary.BigEndian.AppendUint32(dst, math.Float32bits(v))
}

// AppendDouble appends a double.
func AppendDouble(dst []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendTimestamp appends a timestamp given in milliseconds since the epoch.
func AppendTimestamp(dst []byte, ms int64) []byte { return AppendBigint(dst, ms) }

// AppendDate appends a date given in days since 1970-01-01 (negative
// before).
func AppendDate(dst []byte, daysSinceEpoch int64) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(daysSinceEpoch+DateEpochDays))
}

// AppendTime appends a time of day in nanoseconds since midnight.
func AppendTime(dst []byte, nanos int64) []byte { return AppendBigint(dst, nanos) }

// AppendUUID appends a uuid or timeuuid.
func AppendUUID(dst []byte, u [16]byte) []byte { return append(dst, u[:]...) }

// AppendInet appends an inet address: 4 bytes for IPv4 (also for an
// IPv4-mapped IPv6 address, as Java's InetAddress does), 16 otherwise.
func AppendInet(dst []byte, a netip.Addr) []byte {
	a = a.Unmap()
	return append(dst, a.AsSlice()...)
}

// AppendVarint appends a varint as minimal two's complement.
func AppendVarint(dst []byte, v *big.Int) []byte {
	switch v.Sign() {
	case 0:
		return append(dst, 0)
	case 1:
		b := v.Bytes()
		if b[0]&0x80 != 0 {
			dst = append(dst, 0)
		}
		return append(dst, b...)
	}
	// Negative: two's complement of |v| over the minimal byte count.
	abs := new(big.Int).Neg(v)
	n := (abs.BitLen() + 8) / 8 // room for the sign bit
	mod := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	tc := new(big.Int).Sub(mod, abs).Bytes()
	for len(tc) < n {
		tc = append([]byte{0xff}, tc...)
	}
	return append(dst, trimSignBytes(tc)...)
}

// AppendVarintInt64 appends a varint of an int64 without allocating.
func AppendVarintInt64(dst []byte, v int64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v))
	return append(dst, trimSignBytes(b[:])...)
}

// AppendDecimal appends a decimal unscaled * 10^-scale.
func AppendDecimal(dst []byte, unscaled *big.Int, scale int32) []byte {
	dst = AppendInt(dst, scale)
	return AppendVarint(dst, unscaled)
}

// AppendDuration appends a duration. Cassandra requires months, days and
// nanoseconds to have the same sign; Validate checks it.
func AppendDuration(dst []byte, months, days int32, nanos int64) []byte {
	dst = vint.AppendSigned(dst, int64(months))
	dst = vint.AppendSigned(dst, int64(days))
	return vint.AppendSigned(dst, nanos)
}

// AppendCollectionSize appends the element count of a frozen collection.
func AppendCollectionSize(dst []byte, n int) []byte { return AppendInt(dst, int32(n)) }

// AppendCollectionValue appends one element (or map key or value) of a
// frozen collection: i32 length then the bytes.
func AppendCollectionValue(dst, v []byte) []byte {
	dst = AppendInt(dst, int32(len(v)))
	return append(dst, v...)
}

// AppendTupleField appends one tuple or UDT field; a nil v is null.
func AppendTupleField(dst, v []byte) []byte {
	if v == nil {
		return AppendInt(dst, -1)
	}
	return AppendCollectionValue(dst, v)
}

// AppendVector appends the vector value of t (a KindVector type) made of
// elems, the serialized elements: exactly t.Dimension of them, none null
// (nil, or empty where the element type's empty value is null), each
// valid; fixed-length elements are concatenated, others prefixed with
// their unsigned vint length.
func (t *Type) AppendVector(dst []byte, elems [][]byte) ([]byte, error) {
	if t.Kind != KindVector {
		return dst, fmt.Errorf("schema: AppendVector of a %s", t)
	}
	if len(elems) != t.Dimension {
		return dst, &ValueError{Type: t, Text: fmt.Sprintf("%d elements", len(elems)), Reason: fmt.Sprintf("a %s has exactly %d elements", t, t.Dimension)}
	}
	elem := t.Params[0]
	fixed := elem.FixedLength()
	for i, e := range elems {
		if vectorElementNull(elem, e) {
			return dst, &ValueError{Type: t, Text: fmt.Sprintf("element %d", i), Reason: "null is not supported inside vectors"}
		}
		if err := elem.Validate(e); err != nil {
			return dst, &ValueError{Type: t, Text: fmt.Sprintf("element %d", i), Reason: err.Error()}
		}
		if fixed == 0 {
			dst = vint.Append(dst, uint64(len(e)))
		}
		dst = append(dst, e...)
	}
	return dst, nil
}

// VectorElements returns the elements of the vector value v of t (a
// KindVector type), sub-slices of v, after checking v as Validate does.
func (t *Type) VectorElements(v []byte) ([][]byte, error) {
	if t.Kind != KindVector {
		return nil, fmt.Errorf("schema: VectorElements of a %s", t)
	}
	return t.splitVector(make([][]byte, 0, min(t.Dimension, len(v))), v)
}
