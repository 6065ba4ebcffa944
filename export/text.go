package export

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/castable-db/castable/schema"
)

// CSVOptions say how a CSV export is written. The zero value writes what
// `castable write --csv --header` reads back: a header line, commas, the
// empty field for null.
type CSVOptions struct {
	// NoHeader leaves out the header line naming the columns.
	NoHeader bool
	// Delimiter separates fields; 0 means ','. It must be one ASCII
	// character other than a quote or a line end.
	Delimiter byte
	// NullString is the text of a null field; "" (the default, as cqlsh
	// COPY TO writes) cannot tell a null from an empty text value, which
	// also exports as the empty field: give write --csv the same
	// --null-string to read such a file back exactly.
	NullString string
}

// csvWriter writes CSV (RFC 4180, \n line ends): each value in the form
// appendCSVText gives, a field quoted when it holds the delimiter, a
// quote, a line end or a leading or trailing blank.
type csvWriter struct {
	w     *bufio.Writer
	n     *countWriter
	cols  []Column
	opts  CSVOptions
	line  []byte
	field []byte
}

func newCSVWriter(out io.Writer, cols []Column, opts CSVOptions) (*csvWriter, error) {
	if opts.Delimiter == 0 {
		opts.Delimiter = ','
	}
	if d := opts.Delimiter; d >= 0x80 || d == '"' || d == '\n' || d == '\r' {
		return nil, fmt.Errorf("delimiter %q cannot separate CSV fields (want one ASCII character other than a quote or line end)", d)
	}
	cw := &countWriter{w: out}
	w := &csvWriter{w: bufio.NewWriterSize(cw, 256<<10), n: cw, cols: cols, opts: opts}
	if !opts.NoHeader {
		w.line = w.line[:0]
		for i, c := range cols {
			if i > 0 {
				w.line = append(w.line, opts.Delimiter)
			}
			w.line = w.appendField(w.line, []byte(c.Name))
		}
		w.line = append(w.line, '\n')
		if _, err := w.w.Write(w.line); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func (w *csvWriter) appendField(dst, f []byte) []byte {
	quote := len(f) > 0 && (f[0] == ' ' || f[len(f)-1] == ' ' || f[0] == '\t' || f[len(f)-1] == '\t')
	if !quote {
		for _, c := range f {
			if c == w.opts.Delimiter || c == '"' || c == '\n' || c == '\r' {
				quote = true
				break
			}
		}
	}
	if !quote {
		return append(dst, f...)
	}
	dst = append(dst, '"')
	for {
		i := bytes.IndexByte(f, '"')
		if i < 0 {
			break
		}
		dst = append(dst, f[:i+1]...)
		dst = append(dst, '"')
		f = f[i+1:]
	}
	dst = append(dst, f...)
	return append(dst, '"')
}

// Write implements Writer.
func (w *csvWriter) Write(values [][]byte) error {
	w.line = w.line[:0]
	for i, v := range values {
		if i > 0 {
			w.line = append(w.line, w.opts.Delimiter)
		}
		if v == nil {
			w.line = w.appendField(w.line, []byte(w.opts.NullString))
			continue
		}
		var err error
		if w.field, err = appendCSVText(w.field[:0], w.cols[i].Type, v); err != nil {
			return fmt.Errorf("column %s: %w", w.cols[i].Name, err)
		}
		w.line = w.appendField(w.line, w.field)
	}
	if len(values) == 1 && len(w.line) == 0 {
		w.line = append(w.line, `""`...) // an empty line would be skipped on reading
	}
	w.line = append(w.line, '\n')
	_, err := w.w.Write(w.line)
	return err
}

// Size implements Writer.
func (w *csvWriter) Size() int64 { return w.n.n + int64(w.w.Buffered()) }

// Close implements Writer.
func (w *csvWriter) Close() error { return w.w.Flush() }

// jsonWriter writes JSON Lines: per row one object whose keys are the
// column names (a name that is not all lower case in double quotes inside
// the key, as SELECT JSON names it) and whose values are the JSON forms
// Cassandra's SELECT JSON gives (appendSelectJSON), null for null,
// separated by ", " and ": " as Cassandra separates them.
type jsonWriter struct {
	w    *bufio.Writer
	n    *countWriter
	cols []Column
	keys [][]byte
	line []byte
}

func newJSONWriter(out io.Writer, cols []Column) *jsonWriter {
	cw := &countWriter{w: out}
	w := &jsonWriter{w: bufio.NewWriterSize(cw, 256<<10), n: cw, cols: cols}
	for i, c := range cols {
		name := c.Name
		if c.Kind == ValueColumn && name != strings.ToLower(name) {
			name = `"` + name + `"`
		}
		var k []byte
		if i > 0 {
			k = append(k, ", "...)
		}
		k = appendJSONString(k, name)
		k = append(k, ": "...)
		w.keys = append(w.keys, k)
	}
	return w
}

// appendSelectJSON appends the JSON form SELECT JSON gives a value:
// schema.Type.AppendJSON's (sstabledump's), except that a float or double
// that is NaN or infinite is null, as Cassandra's FloatType and DoubleType
// toJSONString print it, inside collections, tuples and UDTs too.
func appendSelectJSON(dst []byte, t *schema.Type, v []byte, depth int) ([]byte, error) {
	if depth > maxLiteralDepth {
		return dst, fmt.Errorf("%s: nested too deeply", t)
	}
	t = t.Unreversed()
	if len(v) == 0 {
		return t.AppendJSON(dst, v)
	}
	switch t.Kind {
	case schema.KindFloat:
		if len(v) == 4 {
			if f := math.Float32frombits(binary.BigEndian.Uint32(v)); math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return append(dst, "null"...), nil
			}
		}
	case schema.KindDouble:
		if len(v) == 8 {
			if f := math.Float64frombits(binary.BigEndian.Uint64(v)); math.IsNaN(f) || math.IsInf(f, 0) {
				return append(dst, "null"...), nil
			}
		}
	case schema.KindList, schema.KindSet, schema.KindMap:
		n, rest, err := readCount(v)
		if err != nil {
			return dst, fmt.Errorf("%s: %w", t, err)
		}
		open, closing := byte('['), byte(']')
		if t.Kind == schema.KindMap {
			open, closing = '{', '}'
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
			if t.Kind != schema.KindMap {
				if dst, err = appendSelectJSON(dst, t.Params[0], e, depth+1); err != nil {
					return dst, err
				}
				continue
			}
			// A map key is a JSON string: a key whose form is not one is
			// its JSON text in a string.
			start := len(dst)
			if dst, err = appendSelectJSON(dst, t.Params[0], e, depth+1); err != nil {
				return dst, err
			}
			if k := dst[start:]; len(k) == 0 || k[0] != '"' {
				text := string(k)
				dst = appendJSONString(dst[:start], text)
			}
			dst = append(dst, ": "...)
			if e, rest, err = readElement(rest); err != nil {
				return dst, fmt.Errorf("%s: %w", t, err)
			}
			if dst, err = appendSelectJSON(dst, t.Params[1], e, depth+1); err != nil {
				return dst, err
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
			if dst, err = appendSelectJSON(dst, t.Params[0], e, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case schema.KindTuple, schema.KindUDT:
		open, closing := byte('['), byte(']')
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
				name := t.FieldNames[i]
				if name != strings.ToLower(name) {
					name = `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
				}
				dst = appendJSONString(dst, name)
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
			if dst, err = appendSelectJSON(dst, ft, f, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, closing), nil
	}
	return t.AppendJSON(dst, v)
}

// appendJSONString appends s as a JSON string (as Jackson escapes it).
func appendJSONString(dst []byte, s string) []byte {
	b, _ := schema.Text.AppendJSON(dst, []byte(s))
	return b
}

// Write implements Writer.
func (w *jsonWriter) Write(values [][]byte) error {
	w.line = append(w.line[:0], '{')
	for i, v := range values {
		w.line = append(w.line, w.keys[i]...)
		if v == nil {
			w.line = append(w.line, "null"...)
			continue
		}
		var err error
		if w.line, err = appendSelectJSON(w.line, w.cols[i].Type, v, 0); err != nil {
			return fmt.Errorf("column %s: %w", w.cols[i].Name, err)
		}
	}
	w.line = append(w.line, '}', '\n')
	_, err := w.w.Write(w.line)
	return err
}

// Size implements Writer.
func (w *jsonWriter) Size() int64 { return w.n.n + int64(w.w.Buffered()) }

// Close implements Writer.
func (w *jsonWriter) Close() error { return w.w.Flush() }

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
