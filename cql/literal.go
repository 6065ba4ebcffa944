package cql

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/castable-db/castable/schema"
)

// Binding literals to types. A literal gets its meaning from the column it
// is assigned to, as in Cassandra:
//
//	'string'     text, ascii, and the text forms of timestamp, date, time,
//	             inet, uuid, timeuuid, duration, and decimal/varint/float
//	             numbers are not accepted as strings (as in Cassandra)
//	123, -5      int, bigint, smallint, tinyint, varint, counter, float,
//	             double, decimal, timestamp (ms), date (raw day number),
//	             time (ns)
//	1.5, 1e3     float, double, decimal; NaN and Infinity for float/double
//	0x...        blob (and custom types)
//	uuid         uuid, timeuuid (version 1 only)
//	1h30m, P1D   duration
//	[..] {..}    list or vector; set or map; {field: v} a user type
//	(a, b)       tuple
//	fn(args)     now(), uuid(), <type>AsBlob(v), blobAs<type>(v),
//	             toTimestamp/toDate/toUnixTimestamp(v), minTimeuuid/
//	             maxTimeuuid(ts), currentTimestamp/currentDate/currentTime/
//	             currentTimeUUID()

// bindError is the error of a literal that does not fit its column.
func bindError(t *Term, col string, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if col != "" {
		msg = "column " + col + ": " + msg
	}
	return &SyntaxError{Line: t.Pos.Line, Column: t.Pos.Column, Msg: msg}
}

// value serializes a literal as a value of typ; a null literal is (nil,
// nil). col names the column in errors.
func (b *Builder) value(t *Term, typ *schema.Type, col string) ([]byte, error) {
	return b.appendValue(nil, t, typ.Unreversed(), col, 0)
}

const maxLiteralDepth = 64

func (b *Builder) appendValue(dst []byte, t *Term, typ *schema.Type, col string, depth int) ([]byte, error) {
	out, err := b.appendValueOrNull(dst, t, typ, col, depth)
	if out == nil && err == nil && t.Kind != TermNull && t.Kind != TermFunction {
		out = []byte{} // an empty value, not a null
	}
	return out, err
}

func (b *Builder) appendValueOrNull(dst []byte, t *Term, typ *schema.Type, col string, depth int) ([]byte, error) {
	if depth > maxLiteralDepth {
		return nil, bindError(t, col, "literal nested too deeply")
	}
	fail := func(format string, args ...any) ([]byte, error) {
		return nil, bindError(t, col, format, args...)
	}
	wrap := func(out []byte, err error) ([]byte, error) {
		if err != nil {
			return nil, bindError(t, col, "%v", err)
		}
		return out, nil
	}
	kind := typ.Kind
	switch t.Kind {
	case TermNull:
		return nil, nil
	case TermFunction:
		v, rt, err := b.function(t, typ, col, depth)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, nil
		}
		if !assignable(rt, typ) {
			return fail("%s() returns %s, not %s", t.Text, rt, typ)
		}
		if err := typ.Validate(v); err != nil {
			return wrap(nil, err)
		}
		return append(dst, v...), nil
	case TermString:
		switch kind {
		case schema.KindBlob, schema.KindCustom:
			return fail("a string is not a blob: use 0x... or textAsBlob('...')")
		case schema.KindInt, schema.KindBigint, schema.KindSmallint, schema.KindTinyint, schema.KindVarint,
			schema.KindDecimal, schema.KindFloat, schema.KindDouble, schema.KindBoolean, schema.KindCounter:
			return fail("invalid string constant '%s' for a %s", t.Text, typ)
		case schema.KindText, schema.KindAscii, schema.KindTimestamp, schema.KindDate, schema.KindTime,
			schema.KindInet, schema.KindUUID, schema.KindTimeuuid, schema.KindDuration:
			start := len(dst)
			v, err := typ.FromString(t.Text)
			if err != nil {
				return wrap(nil, err)
			}
			return append(dst[:start], v...), nil
		}
	case TermInteger, TermFloat:
		switch kind {
		case schema.KindInt, schema.KindBigint, schema.KindSmallint, schema.KindTinyint, schema.KindVarint,
			schema.KindCounter, schema.KindTimestamp, schema.KindDate, schema.KindTime:
			if t.Kind == TermFloat {
				return fail("invalid floating point constant %s for a %s", t.Text, typ)
			}
			return wrap(typ.FromString(t.Text))
		case schema.KindFloat, schema.KindDouble, schema.KindDecimal:
			return wrap(typ.FromString(t.Text))
		}
	case TermBoolean:
		if kind == schema.KindBoolean {
			return wrap(typ.FromString(t.Text))
		}
	case TermHex:
		if kind == schema.KindBlob || kind == schema.KindCustom {
			return wrap(typ.FromString(t.Text))
		}
		return fail("a blob constant (0x...) is not a %s: use blobAs%s(0x...)", typ, typ)
	case TermUUID:
		if kind == schema.KindUUID || kind == schema.KindTimeuuid {
			return wrap(typ.FromString(strings.ToLower(t.Text)))
		}
	case TermDuration:
		if kind == schema.KindDuration {
			return wrap(typ.FromString(t.Text))
		}
	case TermList:
		switch kind {
		case schema.KindList:
			elems, err := b.elements(t, typ.Params[0], col, depth)
			if err != nil {
				return nil, err
			}
			return appendCollection(dst, elems, nil), nil
		case schema.KindVector:
			return b.appendVector(dst, t, typ, col, depth)
		}
	case TermSet:
		switch kind {
		case schema.KindSet:
			elems, err := b.elements(t, typ.Params[0], col, depth)
			if err != nil {
				return nil, err
			}
			return appendCollection(dst, sortUnique(typ.Params[0], elems), nil), nil
		case schema.KindMap:
			if len(t.Elems) == 0 {
				return schema.AppendCollectionSize(dst, 0), nil
			}
		case schema.KindUDT:
			if len(t.Elems) == 0 {
				return b.appendUDT(dst, t, typ, col, depth)
			}
		}
	case TermMap:
		switch kind {
		case schema.KindMap:
			keys, vals, err := b.mapEntries(t, typ, col, depth)
			if err != nil {
				return nil, err
			}
			return appendCollection(dst, keys, vals), nil
		case schema.KindUDT:
			return b.appendUDT(dst, t, typ, col, depth)
		}
	case TermTuple:
		if kind == schema.KindTuple {
			if len(t.Elems) > len(typ.Params) {
				return fail("tuple literal with %d components for %s", len(t.Elems), typ)
			}
			for i, e := range t.Elems {
				v, err := b.appendValue(nil, e, typ.Params[i], col, depth+1)
				if err != nil {
					return nil, err
				}
				dst = schema.AppendTupleField(dst, v)
			}
			return dst, nil
		}
	case TermIdent:
		return fail("unexpected identifier %s (a value was expected)", t.Text)
	}
	return fail("invalid literal %s for a %s", describeTerm(t), typ)
}

func describeTerm(t *Term) string {
	switch t.Kind {
	case TermString:
		return "'" + t.Text + "'"
	case TermList:
		return "[...]"
	case TermSet, TermMap:
		return "{...}"
	case TermTuple:
		return "(...)"
	case TermHex:
		return "0x" + t.Text
	case TermFunction:
		return t.Text + "(...)"
	}
	return t.Text
}

// assignable reports whether a function result of type rt fits typ.
func assignable(rt, typ *schema.Type) bool {
	if rt.Kind == typ.Kind {
		return true
	}
	switch {
	case rt.Kind == schema.KindTimeuuid && typ.Kind == schema.KindUUID:
		return true
	case rt.Kind == schema.KindBlob && typ.Kind == schema.KindCustom:
		return true
	case rt.Kind == schema.KindText && typ.Kind == schema.KindAscii:
		return true
	}
	return false
}

// elements serializes the elements of a list or set literal; nulls are
// not allowed in collections.
func (b *Builder) elements(t *Term, elem *schema.Type, col string, depth int) ([][]byte, error) {
	out := make([][]byte, 0, len(t.Elems))
	for _, e := range t.Elems {
		v, err := b.appendValue(nil, e, elem, col, depth+1)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, bindError(e, col, "null is not allowed inside a collection")
		}
		out = append(out, v)
	}
	return out, nil
}

// appendVector serializes a vector literal: exactly the type's dimension
// of elements, none null (Cassandra's Vectors.Literal and VectorType.check).
func (b *Builder) appendVector(dst []byte, t *Term, typ *schema.Type, col string, depth int) ([]byte, error) {
	if len(t.Elems) != typ.Dimension {
		return nil, bindError(t, col, "invalid vector literal for %s: %d elements, want %d", typ, len(t.Elems), typ.Dimension)
	}
	elems := make([][]byte, len(t.Elems))
	for i, e := range t.Elems {
		v, err := b.appendValue(nil, e, typ.Params[0], col, depth+1)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, bindError(e, col, "null is not supported inside vectors")
		}
		elems[i] = v
	}
	out, err := typ.AppendVector(dst, elems)
	if err != nil {
		return nil, bindError(t, col, "%v", err)
	}
	return out, nil
}

// mapEntries serializes a map literal sorted by key; a repeated key keeps
// its last value.
func (b *Builder) mapEntries(t *Term, typ *schema.Type, col string, depth int) (keys, vals [][]byte, err error) {
	kt, vt := typ.Params[0], typ.Params[1]
	type entry struct{ k, v []byte }
	entries := make([]entry, 0, len(t.Keys))
	for i := range t.Keys {
		k, err := b.appendValue(nil, t.Keys[i], kt, col, depth+1)
		if err != nil {
			return nil, nil, err
		}
		v, err := b.appendValue(nil, t.Elems[i], vt, col, depth+1)
		if err != nil {
			return nil, nil, err
		}
		if k == nil || v == nil {
			return nil, nil, bindError(t.Keys[i], col, "null is not allowed inside a map")
		}
		entries = append(entries, entry{k, v})
	}
	sort.SliceStable(entries, func(i, j int) bool { return kt.Compare(entries[i].k, entries[j].k) < 0 })
	for i, e := range entries {
		if i+1 < len(entries) && kt.Compare(e.k, entries[i+1].k) == 0 {
			continue // the later entry wins
		}
		keys = append(keys, e.k)
		vals = append(vals, e.v)
	}
	return keys, vals, nil
}

// udtFields binds a {field: value} literal to a user type: one value per
// field in declaration order, nil for null or missing fields.
func (b *Builder) udtFields(t *Term, typ *schema.Type, col string, depth int) ([][]byte, error) {
	fields := make([][]byte, len(typ.Params))
	seen := make([]bool, len(typ.Params))
	for i, k := range t.Keys {
		if k.Kind != TermIdent && k.Kind != TermString {
			return nil, bindError(k, col, "a user type literal needs field names as keys")
		}
		f := typ.FieldByName(k.Text)
		if f < 0 {
			return nil, bindError(k, col, "unknown field %s in type %s", k.Text, typ.Name)
		}
		if seen[f] {
			return nil, bindError(k, col, "field %s given twice", k.Text)
		}
		seen[f] = true
		v, err := b.appendValue(nil, t.Elems[i], typ.Params[f], col, depth+1)
		if err != nil {
			return nil, err
		}
		fields[f] = v
	}
	return fields, nil
}

func (b *Builder) appendUDT(dst []byte, t *Term, typ *schema.Type, col string, depth int) ([]byte, error) {
	fields, err := b.udtFields(t, typ, col, depth)
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		dst = schema.AppendTupleField(dst, f)
	}
	return dst, nil
}

// appendCollection serializes a frozen list/set (vals nil) or map.
func appendCollection(dst []byte, keys, vals [][]byte) []byte {
	dst = schema.AppendCollectionSize(dst, len(keys))
	for i, k := range keys {
		dst = schema.AppendCollectionValue(dst, k)
		if vals != nil {
			dst = schema.AppendCollectionValue(dst, vals[i])
		}
	}
	return dst
}

// sortUnique sorts values with typ's comparator and drops duplicates, as
// Cassandra builds sets.
func sortUnique(typ *schema.Type, vals [][]byte) [][]byte {
	sort.SliceStable(vals, func(i, j int) bool { return typ.Compare(vals[i], vals[j]) < 0 })
	out := vals[:0]
	for i, v := range vals {
		if i > 0 && typ.Compare(out[len(out)-1], v) == 0 {
			continue
		}
		out = append(out, v)
	}
	return out
}

// nativeByName maps the type names used in blob conversion functions.
var nativeByName = map[string]*schema.Type{
	"ascii": schema.Ascii, "bigint": schema.Bigint, "blob": schema.Blob, "boolean": schema.Boolean,
	"counter": schema.Counter, "date": schema.Date, "decimal": schema.Decimal, "double": schema.Double,
	"duration": schema.Duration, "float": schema.Float, "inet": schema.Inet, "int": schema.Int,
	"smallint": schema.Smallint, "text": schema.Text, "varchar": schema.Text, "time": schema.Time,
	"timestamp": schema.Timestamp, "timeuuid": schema.Timeuuid, "tinyint": schema.Tinyint,
	"uuid": schema.UUID, "varint": schema.Varint,
}

// function evaluates a function call; it returns the serialized result and
// its type. want is the type the caller expects (used to type arguments).
func (b *Builder) function(t *Term, want *schema.Type, col string, depth int) ([]byte, *schema.Type, error) {
	name := t.Text
	args := t.Elems
	nargs := func(n int) error {
		if len(args) != n {
			return bindError(t, col, "%s() takes %d argument(s), got %d", name, n, len(args))
		}
		return nil
	}
	arg := func(typ *schema.Type) ([]byte, error) {
		return b.appendValue(nil, args[0], typ, col, depth+1)
	}
	switch {
	case name == "now" || name == "currenttimeuuid":
		if err := nargs(0); err != nil {
			return nil, nil, err
		}
		u := b.timeUUID(b.nowTime().UnixMilli(), false)
		return u[:], schema.Timeuuid, nil
	case name == "uuid":
		if err := nargs(0); err != nil {
			return nil, nil, err
		}
		var u [16]byte
		if _, err := rand.Read(u[:]); err != nil {
			return nil, nil, bindError(t, col, "uuid(): %v", err)
		}
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		return u[:], schema.UUID, nil
	case name == "currenttimestamp":
		if err := nargs(0); err != nil {
			return nil, nil, err
		}
		return schema.AppendTimestamp(nil, b.nowTime().UnixMilli()), schema.Timestamp, nil
	case name == "currentdate":
		if err := nargs(0); err != nil {
			return nil, nil, err
		}
		days := floorDiv(b.nowTime().UnixMilli(), 86_400_000)
		return schema.AppendDate(nil, days), schema.Date, nil
	case name == "currenttime":
		if err := nargs(0); err != nil {
			return nil, nil, err
		}
		ms := b.nowTime().UnixMilli()
		return schema.AppendTime(nil, (ms-floorDiv(ms, 86_400_000)*86_400_000)*1_000_000), schema.Time, nil
	case name == "mintimeuuid" || name == "maxtimeuuid":
		if err := nargs(1); err != nil {
			return nil, nil, err
		}
		v, err := arg(schema.Timestamp)
		if err != nil || v == nil {
			return nil, nil, err
		}
		ms := int64(binary.BigEndian.Uint64(v))
		var u [16]byte
		if name == "mintimeuuid" {
			u = makeTimeUUID(ms, 0, [8]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80})
		} else {
			u = makeTimeUUID(ms, 9999, [8]byte{0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f})
		}
		return u[:], schema.Timeuuid, nil
	case name == "totimestamp" || name == "todate" || name == "tounixtimestamp" || name == "dateof" || name == "unixtimestampof":
		if err := nargs(1); err != nil {
			return nil, nil, err
		}
		ms, err := b.instantArg(args[0], col, depth)
		if err != nil {
			return nil, nil, err
		}
		switch name {
		case "todate":
			return schema.AppendDate(nil, floorDiv(ms, 86_400_000)), schema.Date, nil
		case "tounixtimestamp", "unixtimestampof":
			return schema.AppendBigint(nil, ms), schema.Bigint, nil
		}
		return schema.AppendTimestamp(nil, ms), schema.Timestamp, nil
	case strings.HasSuffix(name, "asblob"):
		from := nativeByName[strings.TrimSuffix(name, "asblob")]
		if from == nil {
			break
		}
		if err := nargs(1); err != nil {
			return nil, nil, err
		}
		v, err := arg(from)
		if err != nil || v == nil {
			return nil, nil, err
		}
		return v, schema.Blob, nil
	case strings.HasPrefix(name, "blobas"):
		to := nativeByName[strings.TrimPrefix(name, "blobas")]
		if to == nil {
			break
		}
		if err := nargs(1); err != nil {
			return nil, nil, err
		}
		v, err := arg(schema.Blob)
		if err != nil || v == nil {
			return nil, nil, err
		}
		if err := to.Validate(v); err != nil {
			return nil, nil, bindError(t, col, "%s(): %v", name, err)
		}
		return v, to, nil
	}
	return nil, nil, bindError(t, col, "unknown function %s()", name)
}

// instantArg evaluates the argument of toTimestamp/toDate/...: a timeuuid,
// a timestamp or a date literal, to milliseconds since the epoch.
func (b *Builder) instantArg(a *Term, col string, depth int) (int64, error) {
	var typ *schema.Type
	switch a.Kind {
	case TermUUID:
		typ = schema.Timeuuid
	case TermFunction:
		v, rt, err := b.function(a, nil, col, depth+1)
		if err != nil {
			return 0, err
		}
		return instantOf(a, col, v, rt)
	default:
		typ = schema.Timestamp
		if a.Kind == TermString && len(a.Text) == 10 {
			typ = schema.Date
		}
	}
	v, err := b.appendValue(nil, a, typ, col, depth+1)
	if err != nil {
		return 0, err
	}
	return instantOf(a, col, v, typ)
}

func instantOf(a *Term, col string, v []byte, typ *schema.Type) (int64, error) {
	switch {
	case v == nil:
		return 0, bindError(a, col, "null argument")
	case typ.Kind == schema.KindTimeuuid && len(v) == 16:
		msb := binary.BigEndian.Uint64(v)
		ts := int64(msb&0xfff<<48 | (msb>>16)&0xffff<<32 | msb>>32)
		return floorDiv(ts-uuidEpochOffset100ns, 10_000), nil
	case typ.Kind == schema.KindTimestamp && len(v) == 8:
		return int64(binary.BigEndian.Uint64(v)), nil
	case typ.Kind == schema.KindDate && len(v) == 4:
		return (int64(binary.BigEndian.Uint32(v)) - schema.DateEpochDays) * 86_400_000, nil
	}
	return 0, bindError(a, col, "expected a timeuuid, timestamp or date")
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// uuidEpochOffset100ns is the offset between the UUID epoch (1582-10-15)
// and the Unix epoch in 100 ns units.
const uuidEpochOffset100ns = 122192928000000000

// makeTimeUUID builds a version 1 UUID from milliseconds since the epoch,
// a sub-millisecond count of 100 ns units (0..9999) and the 8 clock
// sequence and node bytes.
func makeTimeUUID(ms int64, ticks int64, clockSeqNode [8]byte) [16]byte {
	ts := uint64(ms*10_000 + ticks + uuidEpochOffset100ns)
	var u [16]byte
	msb := ts<<32 | (ts>>32&0xffff)<<16 | 0x1000 | ts>>48&0x0fff
	binary.BigEndian.PutUint64(u[:], msb)
	copy(u[8:], clockSeqNode[:])
	return u
}

// Value binds a literal term to a type as an INSERT binds it to a column
// of that type (column names the column in errors) and returns the value
// serialized; nil is null. Errors are *SyntaxError.
func (b *Builder) Value(t *Term, typ *schema.Type, column string) ([]byte, error) {
	return b.value(t, typ, column)
}
