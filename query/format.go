package query

import (
	"bufio"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/castable-db/castable/schema"
)

// AppendCQLSH appends v (nil: null) of type t as cqlsh prints it: text
// bare at the top level and quoted inside collections, blobs as 0x…,
// booleans True/False, timestamps as 2024-05-06 07:08:09.010000+0000,
// floats with 5 and doubles with 12 significant digits, collections as
// [..], {..} and {k: v}, tuples as (..), UDTs as {field: value}; null is
// "null".
func AppendCQLSH(dst []byte, t *schema.Type, v []byte) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	return appendCQLSH(dst, t.Unreversed(), v, false, 0)
}

func appendCQLSH(dst []byte, t *schema.Type, v []byte, nested bool, depth int) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	if depth > 64 {
		return append(dst, "0x"+hex.EncodeToString(v)...)
	}
	if len(v) == 0 && t.Kind != schema.KindText && t.Kind != schema.KindAscii {
		return dst
	}
	switch t.Kind {
	case schema.KindText, schema.KindAscii:
		if nested {
			return append(append(append(dst, '\''), strings.ReplaceAll(string(v), "'", "''")...), '\'')
		}
		return append(dst, v...)
	case schema.KindBlob, schema.KindCustom, schema.KindEmpty:
		return hex.AppendEncode(append(dst, "0x"...), v)
	case schema.KindBoolean:
		if v[0] != 0 {
			return append(dst, "True"...)
		}
		return append(dst, "False"...)
	case schema.KindTimestamp:
		if len(v) != 8 {
			break
		}
		ms := int64(binary.BigEndian.Uint64(v))
		s := time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000000-0700")
		if nested {
			return append(append(append(dst, '\''), s...), '\'')
		}
		return append(dst, s...)
	case schema.KindFloat:
		if len(v) != 4 {
			break
		}
		return appendFloat(dst, float64(math.Float32frombits(binary.BigEndian.Uint32(v))), 5)
	case schema.KindDouble:
		if len(v) != 8 {
			break
		}
		return appendFloat(dst, math.Float64frombits(binary.BigEndian.Uint64(v)), 12)
	case schema.KindList, schema.KindSet, schema.KindMap:
		open, close := byte('['), byte(']')
		if t.Kind != schema.KindList {
			open, close = '{', '}'
		}
		n, rest, ok := readInt(v)
		if !ok || n < 0 {
			break
		}
		dst = append(dst, open)
		for i := 0; i < int(n); i++ {
			var e []byte
			if e, rest, ok = readValue(rest); !ok {
				return append(dst, close)
			}
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendCQLSH(dst, t.Params[0], e, true, depth+1)
			if t.Kind == schema.KindMap {
				var val []byte
				if val, rest, ok = readValue(rest); !ok {
					return append(dst, close)
				}
				dst = append(dst, ": "...)
				dst = appendCQLSH(dst, t.Params[1], val, true, depth+1)
			}
		}
		return append(dst, close)
	case schema.KindTuple, schema.KindUDT:
		open, close := byte('('), byte(')')
		if t.Kind == schema.KindUDT {
			open, close = '{', '}'
		}
		dst = append(dst, open)
		rest := v
		for i, ft := range t.Params {
			var f []byte
			ok := len(rest) > 0
			if ok {
				f, rest, ok = readValue(rest)
			}
			if i > 0 {
				dst = append(dst, ", "...)
			}
			if t.Kind == schema.KindUDT {
				dst = append(dst, schema.QuoteIdentifier(t.FieldNames[i])...)
				dst = append(dst, ": "...)
			}
			if !ok {
				f = nil
			}
			dst = appendCQLSH(dst, ft, f, true, depth+1)
		}
		return append(dst, close)
	case schema.KindVector:
		elems, err := t.VectorElements(v)
		if err != nil {
			break
		}
		dst = append(dst, '[')
		for i, e := range elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendCQLSH(dst, t.Params[0], e, true, depth+1)
		}
		return append(dst, ']')
	default:
		s, err := t.AppendString(nil, v)
		if err != nil {
			break
		}
		quoted := nested && (t.Kind == schema.KindInet || t.Kind == schema.KindDate || t.Kind == schema.KindTime)
		if quoted {
			dst = append(dst, '\'')
		}
		dst = append(dst, s...)
		if quoted {
			dst = append(dst, '\'')
		}
		return dst
	}
	// A value that does not decode as its type: its bytes.
	return hex.AppendEncode(append(dst, "0x"...), v)
}

// appendFloat formats as Python's '%.*g' (cqlsh's float formatting).
func appendFloat(dst []byte, f float64, prec int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	return strconv.AppendFloat(dst, f, 'g', prec, 64)
}

// Writer writes rows in one of the output forms.
type Writer interface {
	// Row writes one row's values.
	Row(values [][]byte) error
	// Close writes what ends the output (cqlsh's row count) and flushes.
	Close() error
}

// NewTableWriter returns a Writer of cqlsh's table form: the column names,
// a rule, one line per row with each column right-aligned to its widest
// value, and "(N rows)". It holds the rows until Close, to size the
// columns.
func NewTableWriter(w io.Writer, cols []Column) Writer {
	tw := &tableWriter{w: w, cols: cols}
	for _, c := range cols {
		tw.widths = append(tw.widths, utf8.RuneCountInString(c.Name))
	}
	return tw
}

type tableWriter struct {
	w      io.Writer
	cols   []Column
	rows   [][]string
	widths []int
}

func (t *tableWriter) Row(values [][]byte) error {
	row := make([]string, len(values))
	for i, v := range values {
		row[i] = string(AppendCQLSH(nil, t.cols[i].Type, v))
		row[i] = strings.ReplaceAll(row[i], "\n", "\\n")
		if n := utf8.RuneCountInString(row[i]); n > t.widths[i] {
			t.widths[i] = n
		}
	}
	t.rows = append(t.rows, row)
	return nil
}

func (t *tableWriter) Close() error {
	b := bufio.NewWriter(t.w)
	pad := func(s string, w int) {
		for n := utf8.RuneCountInString(s); n < w; n++ {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	line := func(cells []string) {
		for i, s := range cells {
			if i > 0 {
				b.WriteString(" |")
			}
			b.WriteByte(' ')
			pad(s, t.widths[i])
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	var names []string
	for _, c := range t.cols {
		names = append(names, c.Name)
	}
	line(names)
	for i, w := range t.widths {
		if i > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strings.Repeat("-", w+2))
	}
	b.WriteByte('\n')
	for _, r := range t.rows {
		line(r)
	}
	b.WriteString("\n(" + strconv.Itoa(len(t.rows)) + " rows)\n")
	return b.Flush()
}

// NewCSVWriter returns a Writer of CSV: a header of the column names, then
// the values as cqlsh prints them (null empty), quoted as RFC 4180 needs.
func NewCSVWriter(w io.Writer, cols []Column) Writer {
	cw := csv.NewWriter(w)
	var names []string
	for _, c := range cols {
		names = append(names, c.Name)
	}
	_ = cw.Write(names)
	return &csvWriter{w: cw, cols: cols, rec: make([]string, len(cols))}
}

type csvWriter struct {
	w    *csv.Writer
	cols []Column
	rec  []string
}

func (c *csvWriter) Row(values [][]byte) error {
	for i, v := range values {
		c.rec[i] = ""
		if v != nil {
			c.rec[i] = string(AppendCQLSH(nil, c.cols[i].Type, v))
		}
	}
	return c.w.Write(c.rec)
}

func (c *csvWriter) Close() error {
	c.w.Flush()
	return c.w.Error()
}

// NewJSONWriter returns a Writer of JSON Lines: one object per row, the
// keys the column names in order, the values in schema's JSON form
// (sstabledump's: numbers bare, text and timestamps as strings,
// collections as arrays and objects), null as null.
func NewJSONWriter(w io.Writer, cols []Column) Writer {
	j := &jsonWriter{w: bufio.NewWriter(w), cols: cols}
	for _, c := range cols {
		k, _ := json.Marshal(c.Name)
		j.keys = append(j.keys, k)
	}
	return j
}

type jsonWriter struct {
	w    *bufio.Writer
	cols []Column
	keys [][]byte
	buf  []byte
}

func (j *jsonWriter) Row(values [][]byte) error {
	b := append(j.buf[:0], '{')
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, j.keys[i]...)
		b = append(b, ':')
		if v == nil {
			b = append(b, "null"...)
			continue
		}
		out, err := j.cols[i].Type.AppendJSON(b, v)
		if err != nil {
			b = append(append(append(b, '"', '0', 'x'), hex.EncodeToString(v)...), '"')
			continue
		}
		b = out
	}
	b = append(b, '}', '\n')
	j.buf = b
	_, err := j.w.Write(b)
	return err
}

func (j *jsonWriter) Close() error { return j.w.Flush() }
