package schema

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/castable-db/castable/internal/vint"
)

// FromJSON serializes a value decoded by encoding/json with UseNumber
// (string, json.Number, bool, nil, []any, map[string]any; float64 and Go
// integers are accepted too). It accepts everything json-format.md Part 2
// says a loader must:
//
//   - numbers exactly (json.Number text; strings holding a number too);
//   - "" for an empty value of any type;
//   - "NaN", "Infinity", "-Infinity" for float and double;
//   - blobs as "0x..." hex;
//   - timestamps as the value form (2015-05-01 09:30:54.234Z), ISO-8601,
//     Cassandra's literal forms, or integer milliseconds;
//   - dates as yyyy-mm-dd or the raw serialized day number; times as
//     hh:mm:ss[.fffffffff] or integer nanoseconds; durations in every
//     Cassandra literal form;
//   - frozen sets sorted and de-duplicated, and frozen maps sorted by key,
//     as Cassandra serializes them; map keys are the key's JSON text (a
//     non-string key form such as 1 is given as "1");
//   - UDT objects keyed by field name ("\"Name\"" for a case-sensitive
//     name); missing fields and nulls become null fields;
//   - vectors as arrays of exactly their dimension of non-null elements
//     (VectorType.fromJSONObject; a JSON string holding such an array too);
//     "" is an empty element of a variable-length element type, which
//     Cassandra reads although its CQL never writes one;
//   - for a counter, a number is a CQL counter value (8 bytes).
//
// A JSON null yields (nil, nil): a null, as opposed to an empty value
// ([]byte{}).
func (t *Type) FromJSON(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return t.fromJSON(nil, v, 0)
}

// maxJSONDepth bounds the nesting FromJSON follows.
const maxJSONDepth = 64

// jsonText returns the text of a scalar JSON value.
func jsonText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return string(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			return strconv.FormatFloat(x, 'f', -1, 64), true
		}
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

func describeJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func (t *Type) fromJSON(dst []byte, v any, depth int) ([]byte, error) {
	if depth > maxJSONDepth {
		return nil, invalidText(t, "", "nested too deeply")
	}
	if s, ok := v.(string); ok && s == "" {
		if t.Kind == KindVector {
			return nil, invalidText(t, s, "a vector value is never empty")
		}
		if dst == nil {
			dst = []byte{}
		}
		return dst, nil // an empty value
	}
	switch t.Kind {
	case KindList, KindSet:
		return t.listFromJSON(dst, v, depth)
	case KindMap:
		return t.mapFromJSON(dst, v, depth)
	case KindTuple:
		return t.tupleFromJSON(dst, v, depth)
	case KindUDT:
		return t.udtFromJSON(dst, v, depth)
	case KindVector:
		return t.vectorFromJSON(dst, v, depth)
	case KindEmpty:
		return nil, invalidText(t, describeJSON(v), "an empty-typed value must be \"\"")
	}
	if _, isBool := v.(bool); isBool && t.Kind != KindBoolean {
		return nil, invalidText(t, describeJSON(v), "a boolean is not a %s", t)
	}
	switch t.Kind {
	case KindAscii, KindText:
		s, ok := v.(string)
		if !ok {
			return nil, invalidText(t, describeJSON(v), "want a JSON string")
		}
		return t.fromText(dst, s)
	case KindBlob, KindCustom:
		s, ok := v.(string)
		if !ok {
			return nil, invalidText(t, describeJSON(v), "want a \"0x...\" string")
		}
		if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
			return nil, invalidText(t, s, "want a \"0x...\" string")
		}
		return t.fromText(dst, s[2:])
	}
	s, ok := jsonText(v)
	if !ok {
		return nil, invalidText(t, describeJSON(v), "want a JSON scalar")
	}
	if _, isNumber := v.(json.Number); isNumber {
		switch t.Kind {
		case KindUUID, KindTimeuuid, KindInet, KindDuration, kindFieldPath:
			return nil, invalidText(t, s, "want a JSON string")
		}
	}
	return t.fromText(dst, s)
}

// integerBits is the width of an integer kind's values.
func integerBits(k Kind) int {
	switch k {
	case KindInt:
		return 32
	case KindSmallint:
		return 16
	case KindTinyint:
		return 8
	}
	return 64
}

// fromText parses the text of a native value (the string form, which the
// JSON scalars share) and appends its serialization. Text and ascii are
// taken verbatim; blobs are hex without 0x.
func (t *Type) fromText(dst []byte, s string) ([]byte, error) {
	bad := func(format string, args ...any) ([]byte, error) {
		return nil, invalidText(t, s, format, args...)
	}
	switch t.Kind {
	case KindText:
		if !validUTF8(s) {
			return bad("not UTF-8")
		}
		return append(dst, s...), nil
	case KindAscii:
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return bad("byte 0x%02x at %d is not ASCII", s[i], i)
			}
		}
		return append(dst, s...), nil
	case KindBlob, KindCustom, KindEmpty:
		if len(s)%2 != 0 {
			return bad("odd number of hex digits")
		}
		out, err := hex.AppendDecode(dst, []byte(s))
		if err != nil {
			return bad("not hex")
		}
		if t.Kind == KindEmpty && len(out) != len(dst) {
			return bad("an empty-typed value must have no bytes")
		}
		return out, nil
	case KindInt, KindBigint, KindSmallint, KindTinyint, KindCounter:
		bits := integerBits(t.Kind)
		n, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			if _, berr := parseBigInteger(s); berr == nil {
				return bad("out of range for %d bits", bits)
			}
			return bad("not an integer")
		}
		switch bits {
		case 32:
			return AppendInt(dst, int32(n)), nil
		case 16:
			return AppendSmallint(dst, int16(n)), nil
		case 8:
			return AppendTinyint(dst, int8(n)), nil
		}
		return AppendBigint(dst, n), nil
	case KindVarint:
		n, err := parseBigInteger(s)
		if err != nil {
			return bad("not an integer")
		}
		return AppendVarint(dst, n), nil
	case KindDecimal:
		u, scale, err := parseBigDecimal(s)
		if err != nil {
			return bad("not a decimal number: %v", err)
		}
		return AppendDecimal(dst, u, scale), nil
	case KindFloat, KindDouble:
		bits := 64
		if t.Kind == KindFloat {
			bits = 32
		}
		f, err := parseJavaFloat(s, bits)
		if err != nil {
			return bad("not a number")
		}
		if bits == 32 {
			return AppendFloat(dst, float32(f)), nil
		}
		return AppendDouble(dst, f), nil
	case KindBoolean:
		switch strings.ToLower(s) {
		case "true":
			return AppendBoolean(dst, true), nil
		case "false":
			return AppendBoolean(dst, false), nil
		}
		return bad("want true or false")
	case KindUUID, KindTimeuuid:
		u, ok := parseUUIDText(s)
		if !ok {
			return bad("want xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")
		}
		if t.Kind == KindTimeuuid && u[6]&0xf0 != 0x10 {
			return bad("version %d, want 1", u[6]>>4)
		}
		return append(dst, u[:]...), nil
	case KindInet:
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return bad("not an IP address")
		}
		return AppendInet(dst, a), nil
	case KindTimestamp:
		ms, err := parseTimestampText(s)
		if err != nil {
			return bad("%v", err)
		}
		return AppendTimestamp(dst, ms), nil
	case KindDate:
		d, err := parseDateValue(s)
		if err != nil {
			return bad("%v", err)
		}
		return AppendInt(dst, int32(d)), nil
	case KindTime:
		ns, err := parseTimeText(s)
		if err != nil {
			return bad("%v", err)
		}
		return AppendTime(dst, ns), nil
	case KindDuration:
		m, d, n, err := parseDurationText(s)
		if err != nil {
			return bad("%v", err)
		}
		return AppendDuration(dst, m, d, n), nil
	case kindFieldPath:
		for i, name := range t.FieldNames {
			if name == s {
				return AppendFieldIndex(dst, i), nil
			}
		}
		return bad("no such field in %s", t.Name)
	}
	return bad("cannot be parsed from text")
}

// Java's canonical NaN bit patterns (Float.NaN, Double.NaN).
const (
	javaFloatNaN  = 0x7fc00000
	javaDoubleNaN = 0x7ff8000000000000
)

// parseJavaFloat parses float text, accepting Java's NaN and Infinity
// spellings.
func parseJavaFloat(s string, bits int) (float64, error) {
	switch s {
	case "NaN":
		if bits == 32 {
			return float64(math.Float32frombits(javaFloatNaN)), nil
		}
		return math.Float64frombits(javaDoubleNaN), nil
	case "Infinity", "+Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, fmt.Errorf("not a number")
		}
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		// Overflow to infinity is an error in strconv but not in Java;
		// keep it an error: the text does not denote a finite value.
		return 0, err
	}
	return f, nil
}

// parseUUIDText parses the canonical 8-4-4-4-12 form (any case).
func parseUUIDText(s string) ([16]byte, bool) {
	var u [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
	if _, err := hex.Decode(u[:], []byte(h)); err != nil {
		return u, false
	}
	return u, true
}

func (t *Type) listFromJSON(dst []byte, v any, depth int) ([]byte, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, invalidText(t, describeJSON(v), "want a JSON array")
	}
	elems := make([][]byte, 0, len(arr))
	for i, e := range arr {
		if e == nil {
			return nil, invalidText(t, describeJSON(v), "element %d is null", i)
		}
		b, err := t.Params[0].fromJSON(nil, e, depth+1)
		if err != nil {
			return nil, invalidText(t, describeJSON(v), "element %d: %v", i, err)
		}
		elems = append(elems, b)
	}
	if t.Kind == KindSet {
		elems = sortUnique(t.Params[0], elems)
	}
	dst = AppendCollectionSize(dst, len(elems))
	for _, e := range elems {
		dst = AppendCollectionValue(dst, e)
	}
	return dst, nil
}

// sortUnique sorts serialized values with typ's comparator and drops
// duplicates (Cassandra builds sets and map keys in a sorted set).
func sortUnique(typ *Type, vals [][]byte) [][]byte {
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

func (t *Type) mapFromJSON(dst []byte, v any, depth int) ([]byte, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, invalidText(t, describeJSON(v), "want a JSON object")
	}
	kt, vt := t.Params[0], t.Params[1]
	type entry struct{ k, v []byte }
	entries := make([]entry, 0, len(obj))
	for ks, jv := range obj {
		k, err := mapKeyFromJSON(kt, ks, depth)
		if err != nil {
			return nil, invalidText(t, describeJSON(v), "key %q: %v", ks, err)
		}
		if jv == nil {
			return nil, invalidText(t, describeJSON(v), "value of key %q is null", ks)
		}
		val, err := vt.fromJSON(nil, jv, depth+1)
		if err != nil {
			return nil, invalidText(t, describeJSON(v), "value of key %q: %v", ks, err)
		}
		entries = append(entries, entry{k, val})
	}
	sort.SliceStable(entries, func(i, j int) bool { return kt.Compare(entries[i].k, entries[j].k) < 0 })
	for i := 1; i < len(entries); i++ {
		if kt.Compare(entries[i-1].k, entries[i].k) == 0 {
			return nil, invalidText(t, describeJSON(v), "duplicate key 0x%x", entries[i].k)
		}
	}
	dst = AppendCollectionSize(dst, len(entries))
	for _, e := range entries {
		dst = AppendCollectionValue(dst, e.k)
		dst = AppendCollectionValue(dst, e.v)
	}
	return dst, nil
}

// mapKeyFromJSON converts a JSON object key: the key's JSON text, which for
// types whose JSON form is not a string was wrapped into a string.
func mapKeyFromJSON(kt *Type, ks string, depth int) ([]byte, error) {
	if kt.jsonIsString() || ks == "" {
		return kt.fromJSON(nil, ks, depth+1)
	}
	dec := json.NewDecoder(strings.NewReader(ks))
	dec.UseNumber()
	var inner any
	if err := dec.Decode(&inner); err == nil && !dec.More() {
		if b, err := kt.fromJSON(nil, inner, depth+1); err == nil {
			return b, nil
		}
	}
	return kt.fromJSON(nil, ks, depth+1)
}

// vectorFromJSON is VectorType.fromJSONObject: a JSON array (or a string
// holding one) of exactly Dimension elements, none null.
func (t *Type) vectorFromJSON(dst []byte, v any, depth int) ([]byte, error) {
	if s, ok := v.(string); ok {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var inner any
		if err := dec.Decode(&inner); err != nil || dec.More() {
			return nil, invalidText(t, s, "want a JSON array")
		}
		v = inner
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, invalidText(t, describeJSON(v), "want a JSON array")
	}
	if len(arr) != t.Dimension {
		return nil, invalidText(t, describeJSON(v), "%d elements, want exactly %d", len(arr), t.Dimension)
	}
	elem := t.Params[0]
	fixed := elem.FixedLength()
	for i, e := range arr {
		if e == nil {
			return nil, invalidText(t, describeJSON(v), "element %d is null", i)
		}
		b, err := elem.fromJSON(nil, e, depth+1)
		if err != nil {
			return nil, invalidText(t, describeJSON(v), "element %d: %v", i, err)
		}
		if fixed > 0 && len(b) != fixed {
			return nil, invalidText(t, describeJSON(v), "element %d: an empty %s in a vector of fixed-length elements", i, elem)
		}
		if err := elem.Validate(b); err != nil {
			return nil, invalidText(t, describeJSON(v), "element %d: %v", i, err)
		}
		if fixed == 0 {
			dst = vint.Append(dst, uint64(len(b)))
		}
		dst = append(dst, b...)
	}
	return dst, nil
}

func (t *Type) tupleFromJSON(dst []byte, v any, depth int) ([]byte, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, invalidText(t, describeJSON(v), "want a JSON array")
	}
	if len(arr) > len(t.Params) {
		return nil, invalidText(t, describeJSON(v), "%d components for a tuple of %d", len(arr), len(t.Params))
	}
	for i, e := range arr {
		if e == nil {
			dst = AppendTupleField(dst, nil)
			continue
		}
		b, err := t.Params[i].fromJSON(nil, e, depth+1)
		if err != nil {
			return nil, invalidText(t, describeJSON(v), "component %d: %v", i, err)
		}
		dst = AppendCollectionValue(dst, b)
	}
	return dst, nil
}

func (t *Type) udtFromJSON(dst []byte, v any, depth int) ([]byte, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, invalidText(t, describeJSON(v), "want a JSON object")
	}
	fields := make([]any, len(t.Params))
	set := make([]bool, len(t.Params))
	for name, fv := range obj {
		i := t.jsonFieldIndex(name)
		if i < 0 {
			return nil, invalidText(t, describeJSON(v), "no field %q in %s", name, t.Name)
		}
		if set[i] {
			return nil, invalidText(t, describeJSON(v), "field %q given twice", t.FieldNames[i])
		}
		set[i] = true
		fields[i] = fv
	}
	for i, fv := range fields {
		if fv == nil {
			dst = AppendTupleField(dst, nil)
			continue
		}
		b, err := t.Params[i].fromJSON(nil, fv, depth+1)
		if err != nil {
			return nil, invalidText(t, describeJSON(v), "field %s: %v", t.FieldNames[i], err)
		}
		dst = AppendCollectionValue(dst, b)
	}
	return dst, nil
}

// jsonFieldIndex resolves a UDT field name from JSON: "\"Name\"" is case
// sensitive, a bare name matches exactly or in lower case.
func (t *Type) jsonFieldIndex(name string) int {
	if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
		return t.FieldByName(strings.ReplaceAll(name[1:len(name)-1], `""`, `"`))
	}
	if i := t.FieldByName(name); i >= 0 {
		return i
	}
	return t.FieldByName(strings.ToLower(name))
}
