package export

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/castable-db/castable/schema"
)

// Parquet compression codecs (ParquetOptions.Compression).
const (
	Snappy = "snappy"
	Zstd   = "zstd"
	None   = "none"
)

// Defaults of ParquetOptions.
const (
	// DefaultRowGroupSize is the uncompressed value bytes after which a
	// row group is closed.
	DefaultRowGroupSize = 32 << 20
	// DefaultPageSize is the uncompressed size of a data page.
	DefaultPageSize = 256 << 10
)

// ParquetOptions say how a Parquet export is written. The zero value means
// the defaults each field gives.
type ParquetOptions struct {
	// Compression is the pages' codec: snappy (the default), zstd or none.
	Compression string
	// RowGroupSize bounds a row group: it is closed once its values add up
	// to this many bytes uncompressed (a row group is held in memory,
	// compressed, until it is complete); 0 means DefaultRowGroupSize.
	RowGroupSize int64
	// PageSize is the uncompressed page size; 0 means DefaultPageSize.
	PageSize int
}

func parquetCodec(name string) (compress.Codec, error) {
	switch name {
	case "", Snappy:
		return &snappy.Codec{}, nil
	case Zstd:
		return &zstd.Codec{Level: zstd.SpeedDefault}, nil
	case None:
		return &uncompressed.Codec{}, nil
	}
	return nil, fmt.Errorf("parquet compression %q: want snappy, zstd or none", name)
}

// The Parquet form of each CQL type (every column and field OPTIONAL, so
// that a null is a null at every level):
//
//	tinyint, smallint, int   INT32 INT(8|16|32, signed)
//	bigint, counter          INT64 INT(64, signed)
//	float, double            FLOAT, DOUBLE
//	boolean                  BOOLEAN
//	text, ascii              BYTE_ARRAY STRING
//	blob, custom types       BYTE_ARRAY
//	uuid, timeuuid           FIXED_LEN_BYTE_ARRAY(16) UUID
//	timestamp                INT64 TIMESTAMP(MILLIS, UTC)
//	date                     INT32 DATE (days from 1970-01-01, signed)
//	time                     INT64 TIME(NANOS, local)
//	decimal, varint          BYTE_ARRAY STRING: the exact decimal text
//	                         (Java's BigDecimal/BigInteger toString: 1.5,
//	                         1.5E+10, 123456789012345678901234567890)
//	inet                     BYTE_ARRAY STRING: 1.2.3.4, or eight hex groups
//	duration                 group {months INT32, days INT32, nanoseconds INT64}
//	list<T>, set<T>          LIST of T (3-level: list.element)
//	map<K, V>                MAP (key_value.key REQUIRED, .value)
//	tuple<A, B, …>           group {_1, _2, …}
//	UDT                      group of its fields, by name
//	vector<T, n>             LIST of REQUIRED T, n elements (the dimension in
//	                         the file's castable.cql_types metadata)
//
// An empty value (zero bytes, which only blobAs… conversions make for
// types other than text, ascii and blob) is null, except as a map key,
// which cannot be null: there it is an error.

// pnode is one node of the Parquet schema with the logic that turns a
// serialized CQL value into the node's leaf values.
type pnode interface {
	node() parquet.Node
	// leaves sets the first leaf column index and the levels of the
	// node: rep and def are the repetition and definition levels of the
	// node's parent.
	layout(next *int, rep, def int)
	// write appends v's leaf values (nil v is null) to cols, whose first
	// value per leaf has repetition level rep.
	write(cols [][]parquet.Value, v []byte, rep int) error
	// null appends a null (or an empty list: def) for every leaf.
	null(cols [][]parquet.Value, rep, def int)
}

// A leaf column.
type pleaf struct {
	n        parquet.Node
	optional bool
	col, def int // column index; definition level when present
	conv     func(v []byte) (parquet.Value, bool, error)
	what     *schema.Type
}

func (l *pleaf) node() parquet.Node {
	if l.optional {
		return parquet.Optional(l.n)
	}
	return parquet.Required(l.n)
}

func (l *pleaf) layout(next *int, rep, def int) {
	l.col = *next
	*next++
	l.def = def
	if l.optional {
		l.def++
	}
}

func (l *pleaf) write(cols [][]parquet.Value, v []byte, rep int) error {
	if v == nil {
		if !l.optional {
			return fmt.Errorf("a null %s where Parquet needs a value", l.what)
		}
		l.null(cols, rep, l.def-1)
		return nil
	}
	pv, ok, err := l.conv(v)
	if err != nil {
		return fmt.Errorf("%s: %w", l.what, err)
	}
	if !ok {
		if !l.optional {
			return fmt.Errorf("an empty %s as a map key, which Parquet cannot hold", l.what)
		}
		l.null(cols, rep, l.def-1)
		return nil
	}
	cols[l.col] = append(cols[l.col], pv.Level(rep, l.def, l.col))
	return nil
}

func (l *pleaf) null(cols [][]parquet.Value, rep, def int) {
	cols[l.col] = append(cols[l.col], parquet.Value{}.Level(rep, def, l.col))
}

// A group: a tuple, UDT or duration (fields from parse), or the root.
type pgroup struct {
	names  []string
	fields []pnode
	def    int
	// split returns the fields' values of v (nil for null ones).
	split func(dst [][]byte, v []byte) ([][]byte, error)
	buf   [][]byte
}

func (g *pgroup) node() parquet.Node { return parquet.Optional(g.group()) }

func (g *pgroup) group() parquet.Node {
	og := &orderedGroup{Group: parquet.Group{}}
	for i, f := range g.fields {
		n := f.node()
		og.Group[g.names[i]] = n
		og.fields = append(og.fields, field{Node: n, name: g.names[i]})
	}
	return og
}

func (g *pgroup) layout(next *int, rep, def int) {
	g.def = def + 1
	for _, f := range g.fields {
		f.layout(next, rep, g.def)
	}
}

func (g *pgroup) write(cols [][]parquet.Value, v []byte, rep int) error {
	if v == nil {
		g.null(cols, rep, g.def-1)
		return nil
	}
	if len(v) == 0 {
		g.null(cols, rep, g.def-1) // an empty value
		return nil
	}
	vals, err := g.split(g.buf[:0], v)
	if err != nil {
		return err
	}
	g.buf = vals
	// The fields' values stay valid: they slice v, and buf is not reused
	// by the fields (each node has its own).
	for i, f := range g.fields {
		if err := f.write(cols, vals[i], rep); err != nil {
			return err
		}
	}
	return nil
}

func (g *pgroup) null(cols [][]parquet.Value, rep, def int) {
	for _, f := range g.fields {
		f.null(cols, rep, def)
	}
}

// A LIST or MAP: an optional group whose repeated child holds the
// element (list, set, vector) or the key and value (map).
type prepeated struct {
	isMap     bool
	elem, val pnode
	def, rep  int // levels of the repeated group
	vector    *schema.Type
	vecBuf    [][]byte
}

func (r *prepeated) node() parquet.Node {
	if r.isMap {
		kv := &orderedGroup{Group: parquet.Group{"key": r.elem.node(), "value": r.val.node()},
			fields: []parquet.Field{field{Node: r.elem.node(), name: "key"}, field{Node: r.val.node(), name: "value"}}}
		return parquet.Optional(mapNode{Node: &orderedGroup{Group: parquet.Group{"key_value": parquet.Repeated(kv)},
			fields: []parquet.Field{field{Node: parquet.Repeated(kv), name: "key_value"}}}})
	}
	return parquet.Optional(parquet.List(r.elem.node()))
}

func (r *prepeated) layout(next *int, rep, def int) {
	r.def, r.rep = def+2, rep+1
	r.elem.layout(next, r.rep, r.def)
	if r.val != nil {
		r.val.layout(next, r.rep, r.def)
	}
}

func (r *prepeated) write(cols [][]parquet.Value, v []byte, rep int) error {
	if v == nil || len(v) == 0 && r.vector == nil {
		r.null(cols, rep, r.def-2)
		return nil
	}
	if r.vector != nil {
		elems, err := r.vector.VectorElements(v)
		if err != nil {
			return err
		}
		for i, e := range elems {
			er := r.rep
			if i == 0 {
				er = rep
			}
			if err := r.elem.write(cols, e, er); err != nil {
				return err
			}
		}
		return nil
	}
	n, rest, err := readCount(v)
	if err != nil {
		return err
	}
	if n == 0 {
		r.null(cols, rep, r.def-1) // present, no element
		return nil
	}
	for i := 0; i < n; i++ {
		er := r.rep
		if i == 0 {
			er = rep
		}
		var e []byte
		if e, rest, err = readElement(rest); err != nil {
			return err
		}
		if err := r.elem.write(cols, e, er); err != nil {
			return err
		}
		if r.isMap {
			if e, rest, err = readElement(rest); err != nil {
				return err
			}
			if err := r.val.write(cols, e, er); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *prepeated) null(cols [][]parquet.Value, rep, def int) {
	r.elem.null(cols, rep, def)
	if r.val != nil {
		r.val.null(cols, rep, def)
	}
}

// orderedGroup is a parquet.Group whose fields keep the order given
// (parquet.Group sorts them by name): the columns stay in SELECT * order,
// a UDT's fields in declaration order.
type orderedGroup struct {
	parquet.Group
	fields []parquet.Field
}

func (g *orderedGroup) Fields() []parquet.Field { return g.fields }

func (g *orderedGroup) String() string { return g.Group.String() }

type field struct {
	parquet.Node
	name string
}

func (f field) Name() string { return f.name }

func (f field) Value(base reflect.Value) reflect.Value {
	if base.Kind() == reflect.Map {
		return base.MapIndex(reflect.ValueOf(f.name))
	}
	return reflect.Value{}
}

// mapNode gives a group the MAP logical type (parquet.Map builds its own
// key_value group, from nodes it wraps again).
type mapNode struct{ parquet.Node }

func (m mapNode) Type() parquet.Type { return mapLogicalType }

var mapLogicalType = parquet.Map(parquet.String(), parquet.String()).Type()

// newPNode builds the Parquet node of a CQL type. optional says whether
// the node may be null (map keys and vector elements may not).
func newPNode(t *schema.Type, optional bool, depth int) (pnode, error) {
	if depth > maxLiteralDepth {
		return nil, fmt.Errorf("%s: nested too deeply", t)
	}
	t = t.Unreversed()
	leaf := func(n parquet.Node, conv func([]byte) (parquet.Value, bool, error)) pnode {
		return &pleaf{n: n, optional: optional, conv: conv, what: t}
	}
	fixed := func(n int, f func(v []byte) parquet.Value) func([]byte) (parquet.Value, bool, error) {
		return func(v []byte) (parquet.Value, bool, error) {
			if len(v) == 0 {
				return parquet.Value{}, false, nil
			}
			if len(v) != n {
				return parquet.Value{}, false, fmt.Errorf("%d bytes, want %d", len(v), n)
			}
			return f(v), true, nil
		}
	}
	text := func(v []byte) (parquet.Value, bool, error) {
		if len(v) == 0 {
			return parquet.Value{}, false, nil
		}
		s, err := t.AppendString(nil, v)
		if err != nil {
			return parquet.Value{}, false, err
		}
		return parquet.ByteArrayValue(s), true, nil
	}
	switch t.Kind {
	case schema.KindTinyint:
		return leaf(parquet.Int(8), fixed(1, func(v []byte) parquet.Value { return parquet.Int32Value(int32(int8(v[0]))) })), nil
	case schema.KindSmallint:
		return leaf(parquet.Int(16), fixed(2, func(v []byte) parquet.Value {
			return parquet.Int32Value(int32(int16(binary.BigEndian.Uint16(v))))
		})), nil
	case schema.KindInt:
		return leaf(parquet.Int(32), fixed(4, func(v []byte) parquet.Value {
			return parquet.Int32Value(int32(binary.BigEndian.Uint32(v)))
		})), nil
	case schema.KindBigint, schema.KindCounter:
		return leaf(parquet.Int(64), fixed(8, func(v []byte) parquet.Value {
			return parquet.Int64Value(int64(binary.BigEndian.Uint64(v)))
		})), nil
	case schema.KindFloat:
		return leaf(parquet.Leaf(parquet.FloatType), fixed(4, func(v []byte) parquet.Value {
			return parquet.FloatValue(math.Float32frombits(binary.BigEndian.Uint32(v)))
		})), nil
	case schema.KindDouble:
		return leaf(parquet.Leaf(parquet.DoubleType), fixed(8, func(v []byte) parquet.Value {
			return parquet.DoubleValue(math.Float64frombits(binary.BigEndian.Uint64(v)))
		})), nil
	case schema.KindBoolean:
		return leaf(parquet.Leaf(parquet.BooleanType), fixed(1, func(v []byte) parquet.Value { return parquet.BooleanValue(v[0] != 0) })), nil
	case schema.KindText, schema.KindAscii:
		return leaf(parquet.String(), func(v []byte) (parquet.Value, bool, error) {
			return parquet.ByteArrayValue(v), true, nil
		}), nil
	case schema.KindBlob, schema.KindCustom:
		return leaf(parquet.Leaf(parquet.ByteArrayType), func(v []byte) (parquet.Value, bool, error) {
			return parquet.ByteArrayValue(v), true, nil
		}), nil
	case schema.KindUUID, schema.KindTimeuuid:
		return leaf(parquet.UUID(), fixed(16, parquet.FixedLenByteArrayValue)), nil
	case schema.KindTimestamp:
		return leaf(parquet.Timestamp(parquet.Millisecond), fixed(8, func(v []byte) parquet.Value {
			return parquet.Int64Value(int64(binary.BigEndian.Uint64(v)))
		})), nil
	case schema.KindDate:
		return leaf(parquet.Date(), fixed(4, func(v []byte) parquet.Value {
			return parquet.Int32Value(int32(binary.BigEndian.Uint32(v) - 1<<31))
		})), nil
	case schema.KindTime:
		return leaf(parquet.TimeAdjusted(parquet.Nanosecond, false), fixed(8, func(v []byte) parquet.Value {
			return parquet.Int64Value(int64(binary.BigEndian.Uint64(v)))
		})), nil
	case schema.KindDecimal, schema.KindVarint, schema.KindInet:
		return leaf(parquet.String(), text), nil
	case schema.KindDuration:
		req := func(n parquet.Node, conv func([]byte) (parquet.Value, bool, error)) pnode {
			return &pleaf{n: n, conv: conv, what: t}
		}
		g := &pgroup{names: []string{"months", "days", "nanoseconds"},
			fields: []pnode{req(parquet.Int(32), int32Of), req(parquet.Int(32), int32Of), req(parquet.Int(64), int64Of)}}
		var scratch [16]byte
		g.split = func(dst [][]byte, v []byte) ([][]byte, error) {
			m, d, n, err := decodeDuration(v)
			if err != nil {
				return nil, err
			}
			b := binary.BigEndian.AppendUint32(scratch[:0], uint32(m))
			b = binary.BigEndian.AppendUint32(b, uint32(d))
			b = binary.BigEndian.AppendUint64(b, uint64(n))
			return append(dst, b[0:4], b[4:8], b[8:16]), nil
		}
		return optionalGroup(g, optional), nil
	case schema.KindTuple, schema.KindUDT:
		g := &pgroup{}
		for i, ft := range t.Params {
			f, err := newPNode(ft, true, depth+1)
			if err != nil {
				return nil, err
			}
			name := "_" + strconv.Itoa(i+1)
			if t.Kind == schema.KindUDT {
				name = t.FieldNames[i]
			}
			g.names = append(g.names, name)
			g.fields = append(g.fields, f)
		}
		g.split = func(dst [][]byte, v []byte) ([][]byte, error) {
			rest := v
			for range t.Params {
				var f []byte
				var err error
				if f, rest, err = readField(rest); err != nil {
					return nil, fmt.Errorf("%s: %w", t, err)
				}
				dst = append(dst, f)
			}
			return dst, nil
		}
		return optionalGroup(g, optional), nil
	case schema.KindList, schema.KindSet, schema.KindVector:
		elemOptional := t.Kind != schema.KindVector
		e, err := newPNode(t.Params[0].Freeze(), elemOptional, depth+1)
		if err != nil {
			return nil, err
		}
		r := &prepeated{elem: e}
		if t.Kind == schema.KindVector {
			r.vector = t
		}
		return r, nil
	case schema.KindMap:
		k, err := newPNode(t.Params[0].Freeze(), false, depth+1)
		if err != nil {
			return nil, err
		}
		v, err := newPNode(t.Params[1].Freeze(), true, depth+1)
		if err != nil {
			return nil, err
		}
		return &prepeated{isMap: true, elem: k, val: v}, nil
	}
	return nil, fmt.Errorf("no Parquet form for %s", t)
}

func int32Of(v []byte) (parquet.Value, bool, error) {
	return parquet.Int32Value(int32(binary.BigEndian.Uint32(v))), true, nil
}

func int64Of(v []byte) (parquet.Value, bool, error) {
	return parquet.Int64Value(int64(binary.BigEndian.Uint64(v))), true, nil
}

// optionalGroup is g (groups are always optional here; a map key or
// vector element group is required in Parquet terms but its own fields
// stay optional).
func optionalGroup(g *pgroup, optional bool) pnode {
	if optional {
		return g
	}
	return &requiredGroup{g}
}

// requiredGroup is a group that is never null (a map key or vector
// element that is a tuple, UDT or duration).
type requiredGroup struct{ *pgroup }

func (g *requiredGroup) node() parquet.Node { return parquet.Required(g.group()) }

func (g *requiredGroup) layout(next *int, rep, def int) {
	g.def = def + 1 // write's null levels use def-1: keep the shape, one level less below
	for _, f := range g.fields {
		f.layout(next, rep, def)
	}
}

func (g *requiredGroup) write(cols [][]parquet.Value, v []byte, rep int) error {
	if len(v) == 0 {
		return fmt.Errorf("an empty or null value where Parquet needs one")
	}
	return g.pgroup.write(cols, v, rep)
}

// parquetWriter writes a Parquet file.
type parquetWriter struct {
	w       *parquet.Writer
	n       *countWriter
	cols    []Column
	nodes   []pnode
	leaves  [][]parquet.Value
	rows    []parquet.Row
	vals    []parquet.Value
	arena   []byte
	pending int64 // value bytes in the open row group
	limit   int64
}

// parquetSchema builds the schema of the output columns.
func parquetSchema(cols []Column) (*parquet.Schema, []pnode, int, error) {
	root := &orderedGroup{Group: parquet.Group{}}
	var nodes []pnode
	next := 0
	for _, c := range cols {
		n, err := newPNode(c.Type, true, 0)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("column %s: %w", c.Name, err)
		}
		n.layout(&next, 0, 0)
		nodes = append(nodes, n)
		pn := n.node()
		root.Group[c.Name] = pn
		root.fields = append(root.fields, field{Node: pn, name: c.Name})
	}
	return parquet.NewSchema("castable", root), nodes, next, nil
}

func newParquetWriter(out io.Writer, cols []Column, opts ParquetOptions, meta map[string]string) (*parquetWriter, error) {
	codec, err := parquetCodec(opts.Compression)
	if err != nil {
		return nil, err
	}
	sch, nodes, leaves, err := parquetSchema(cols)
	if err != nil {
		return nil, err
	}
	page := opts.PageSize
	if page <= 0 {
		page = DefaultPageSize
	}
	limit := opts.RowGroupSize
	if limit <= 0 {
		limit = DefaultRowGroupSize
	}
	cw := &countWriter{w: out}
	options := []parquet.WriterOption{sch, parquet.Compression(codec), parquet.PageBufferSize(page),
		parquet.CreatedBy("castable", "", ""), parquet.WriteBufferSize(256 << 10)}
	types := map[string]string{}
	for _, c := range cols {
		if c.Source != nil && c.Kind == ValueColumn {
			types[c.Name] = c.Source.Type.Unreversed().String()
		} else {
			types[c.Name] = c.Type.String()
		}
	}
	b, _ := json.Marshal(types)
	options = append(options, parquet.KeyValueMetadata("castable.cql_types", string(b)))
	for k, v := range meta {
		options = append(options, parquet.KeyValueMetadata(k, v))
	}
	w := &parquetWriter{w: parquet.NewWriter(cw, options...), n: cw, cols: cols, nodes: nodes,
		leaves: make([][]parquet.Value, leaves), limit: limit}
	return w, nil
}

// rowBatch is how many rows Write gathers before handing them to
// parquet-go at once (which then writes each column's values of the batch
// in one call instead of one call per row).
const rowBatch = 256

// Write implements Writer. The row's values are copied (byte arrays into
// an arena) so that the batch outlives the caller's buffers.
func (w *parquetWriter) Write(values [][]byte) error {
	for i := range w.leaves {
		w.leaves[i] = w.leaves[i][:0]
	}
	for i, v := range values {
		if err := w.nodes[i].write(w.leaves, v, 0); err != nil {
			return fmt.Errorf("column %s: %w", w.cols[i].Name, err)
		}
		w.pending += int64(len(v)) + 4
	}
	start := len(w.vals)
	for _, l := range w.leaves {
		for _, v := range l {
			switch v.Kind() {
			case parquet.ByteArray, parquet.FixedLenByteArray:
				b := v.ByteArray()
				at := len(w.arena)
				w.arena = append(w.arena, b...)
				c := w.arena[at:len(w.arena):len(w.arena)]
				if v.Kind() == parquet.ByteArray {
					v = parquet.ByteArrayValue(c).Level(v.RepetitionLevel(), v.DefinitionLevel(), v.Column())
				} else {
					v = parquet.FixedLenByteArrayValue(c).Level(v.RepetitionLevel(), v.DefinitionLevel(), v.Column())
				}
			}
			w.vals = append(w.vals, v)
		}
	}
	// Earlier rows keep slicing the old arrays when vals or arena grow,
	// which stay valid until the batch is written.
	w.rows = append(w.rows, w.vals[start:len(w.vals):len(w.vals)])
	if len(w.rows) >= rowBatch {
		if err := w.writeBatch(); err != nil {
			return err
		}
	}
	if w.pending >= w.limit {
		if err := w.writeBatch(); err != nil {
			return err
		}
		w.pending = 0
		return w.w.Flush()
	}
	return nil
}

// writeBatch hands the gathered rows to parquet-go (which copies them).
func (w *parquetWriter) writeBatch() error {
	if len(w.rows) == 0 {
		return nil
	}
	_, err := w.w.WriteRows(w.rows)
	clear(w.rows)
	w.rows, w.vals, w.arena = w.rows[:0], w.vals[:0], w.arena[:0]
	return err
}

// Size implements Writer: the bytes written, and the open row group's
// buffered values (uncompressed, an upper bound of what it adds).
func (w *parquetWriter) Size() int64 { return w.w.Size() }

// Close implements Writer.
func (w *parquetWriter) Close() error {
	if err := w.writeBatch(); err != nil {
		return err
	}
	return w.w.Close()
}
