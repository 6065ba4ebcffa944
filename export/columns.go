package export

import (
	"fmt"
	"strings"

	"github.com/castable-db/castable/schema"
)

// ColumnKind says what an output column shows.
type ColumnKind uint8

// The kinds of output column.
const (
	// ValueColumn is a table column's value.
	ValueColumn ColumnKind = iota
	// WriteTimeColumn is writetime(c): the cell's timestamp in µs (bigint).
	WriteTimeColumn
	// TTLColumn is ttl(c): the cell's remaining seconds (int).
	TTLColumn
	// TombstoneKindColumn, TombstoneColumnColumn, InclusiveColumn,
	// DeletedAtColumn and LocalDeletionTimeColumn are the audit columns
	// of Options.IncludeTombstones (see AuditColumns).
	TombstoneKindColumn
	TombstoneColumnColumn
	InclusiveColumn
	DeletedAtColumn
	LocalDeletionTimeColumn
)

// The names of the audit columns Options.IncludeTombstones adds, in
// brackets as cqlsh names the columns it makes up ("[json]"), so that no
// table column can be mistaken for one.
const (
	AuditKind              = "[tombstone]"
	AuditColumn            = "[tombstone_column]"
	AuditInclusive         = "[inclusive]"
	AuditDeletedAt         = "[deleted_at]"
	AuditLocalDeletionTime = "[local_deletion_time]"
)

// Column is one column of an export's output.
type Column struct {
	// Name is the column's name in the output: the table column's name,
	// "writetime(c)", "ttl(c)", or an audit column's.
	Name string
	// Kind says what the column shows.
	Kind ColumnKind
	// Source is the table column a value, writetime or ttl column is of
	// (nil for the audit columns).
	Source *schema.Column
	// Type is the CQL type of the column's values as the writers get them
	// (a counter's is bigint, writetime's bigint, ttl's int, the audit
	// columns' text, boolean, bigint and timestamp; a clustering column's
	// is not reversed).
	Type *schema.Type

	view int // the Source's position in View.Columns()
}

// Columns resolves the output columns of opts over a view's columns:
// opts.Columns (all of them when nil) — each a column name, or
// "writetime(c)" / "ttl(c)" —, then a writetime column per
// opts.WriteTime, a ttl column per opts.TTL, then with
// opts.IncludeTombstones the audit columns.
func Columns(t *schema.Table, opts Options) ([]Column, error) {
	view := SelectStarColumns(t)
	pos := map[*schema.Column]int{}
	for i, c := range view {
		pos[c] = i
	}
	find := func(name string) (*schema.Column, error) {
		c := t.Column(name)
		if c == nil && strings.HasPrefix(name, `"`) && strings.HasSuffix(name, `"`) && len(name) >= 2 {
			c = t.Column(strings.ReplaceAll(name[1:len(name)-1], `""`, `"`))
		}
		if c == nil {
			c = t.Column(strings.ToLower(name))
		}
		if c == nil || c.Hidden {
			return nil, fmt.Errorf("%q is not a column of %s.%s", name, t.Keyspace, t.Name)
		}
		return c, nil
	}
	var out []Column
	seen := map[string]bool{}
	add := func(c Column) error {
		if seen[c.Name] {
			return fmt.Errorf("column %q is asked for twice", c.Name)
		}
		seen[c.Name] = true
		out = append(out, c)
		return nil
	}
	meta := func(kind ColumnKind, name string) error {
		c, err := find(name)
		if err != nil {
			return err
		}
		fn := "writetime"
		typ := schema.Bigint
		if kind == TTLColumn {
			fn, typ = "ttl", schema.Int
		}
		switch {
		case c.Kind == schema.PartitionKey || c.Kind == schema.ClusteringKey:
			return fmt.Errorf("%s(%s): %s is part of the primary key, which has no %s", fn, c.Name, c.Name, fn)
		case c.Type.IsComplex():
			return fmt.Errorf("%s(%s): %s is a non-frozen %s, whose elements each have their own (as CQL before 5.0 refuses it)", fn, c.Name, c.Name, c.Type)
		case c.Type.IsCounter():
			return fmt.Errorf("%s(%s): %s is a counter, which has no %s", fn, c.Name, c.Name, fn)
		}
		return add(Column{Name: fn + "(" + c.Name + ")", Kind: kind, Source: c, Type: typ, view: pos[c]})
	}
	value := func(c *schema.Column) error {
		typ := c.Type.Unreversed()
		if typ.IsCounter() {
			typ = schema.Bigint
		}
		return add(Column{Name: c.Name, Kind: ValueColumn, Source: c, Type: typ, view: pos[c]})
	}
	if opts.Columns == nil {
		for _, c := range view {
			if err := value(c); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range opts.Columns {
		name = strings.TrimSpace(name)
		var err error
		switch fn, arg, ok := metaCall(name); {
		case ok && fn == "writetime":
			err = meta(WriteTimeColumn, arg)
		case ok && fn == "ttl":
			err = meta(TTLColumn, arg)
		default:
			var c *schema.Column
			if c, err = find(name); err == nil {
				err = value(c)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if len(out) == 0 && !opts.IncludeTombstones {
		return nil, fmt.Errorf("no column to export")
	}
	for _, name := range opts.WriteTime {
		if err := meta(WriteTimeColumn, strings.TrimSpace(name)); err != nil {
			return nil, err
		}
	}
	for _, name := range opts.TTL {
		if err := meta(TTLColumn, strings.TrimSpace(name)); err != nil {
			return nil, err
		}
	}
	if opts.IncludeTombstones {
		out = append(out, AuditColumns()...)
	}
	return out, nil
}

// AuditColumns are the columns Options.IncludeTombstones appends:
//
//   - [tombstone] (text): null for a live row; for a tombstone row its
//     TombstoneKind (partition, range_start, range_end, row, cell,
//     expired, collection);
//   - [tombstone_column] (text): the deleted or expired cell's column, an
//     element as c[key] (list: the element's timeuuid, set: the element,
//     map: the key, as CQL literals) or c.field (UDT);
//   - [inclusive] (boolean): whether a range bound includes its
//     clustering prefix;
//   - [deleted_at] (bigint): the deletion's timestamp in µs (an expired
//     cell's write time);
//   - [local_deletion_time] (timestamp): when it was deleted or expired.
func AuditColumns() []Column {
	return []Column{
		{Name: AuditKind, Kind: TombstoneKindColumn, Type: schema.Text},
		{Name: AuditColumn, Kind: TombstoneColumnColumn, Type: schema.Text},
		{Name: AuditInclusive, Kind: InclusiveColumn, Type: schema.Boolean},
		{Name: AuditDeletedAt, Kind: DeletedAtColumn, Type: schema.Bigint},
		{Name: AuditLocalDeletionTime, Kind: LocalDeletionTimeColumn, Type: schema.Timestamp},
	}
}

// metaCall splits "writetime(c)" or "ttl(c)" (any case, blanks allowed).
func metaCall(s string) (fn, arg string, ok bool) {
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return "", "", false
	}
	fn = strings.ToLower(strings.TrimSpace(s[:open]))
	if fn != "writetime" && fn != "ttl" {
		return "", "", false
	}
	return fn, strings.TrimSpace(s[open+1 : len(s)-1]), true
}

// record turns a view row into the output columns' values (each in its
// Type's serialized form), appending what it makes to buf.
type record struct {
	cols    []Column
	values  [][]byte
	scratch [][8]byte
}

func newRecord(cols []Column) *record {
	return &record{cols: cols, values: make([][]byte, len(cols)), scratch: make([][8]byte, len(cols))}
}

func (rc *record) fill(r *Row) [][]byte {
	for i := range rc.cols {
		c := &rc.cols[i]
		switch c.Kind {
		case ValueColumn:
			rc.values[i] = r.Values[c.view]
		case WriteTimeColumn:
			rc.values[i] = nil
			if wt := r.WriteTimes[c.view]; wt != NoWriteTime && r.Tombstone == nil {
				rc.values[i] = schema.AppendBigint(rc.scratch[i][:0], wt)
			}
		case TTLColumn:
			rc.values[i] = nil
			if ttl := r.TTLs[c.view]; ttl != 0 && r.Tombstone == nil {
				rc.values[i] = schema.AppendInt(rc.scratch[i][:0], ttl)
			}
		default:
			rc.values[i] = auditValue(c.Kind, r.Tombstone)
		}
	}
	return rc.values
}

var (
	trueValue  = []byte{1}
	falseValue = []byte{0}
)

// auditValue is an audit column's value for a row (nil for a live one).
func auditValue(kind ColumnKind, ts *Tombstone) []byte {
	if ts == nil {
		return nil
	}
	switch kind {
	case TombstoneKindColumn:
		return []byte(ts.Kind.String())
	case TombstoneColumnColumn:
		if ts.Column == nil {
			return nil
		}
		return []byte(elementName(ts.Column, ts.Path))
	case InclusiveColumn:
		if ts.Kind != RangeStart && ts.Kind != RangeEnd {
			return nil
		}
		if ts.Inclusive {
			return trueValue
		}
		return falseValue
	case DeletedAtColumn:
		return schema.AppendBigint(nil, ts.MarkedForDeleteAt)
	case LocalDeletionTimeColumn:
		return schema.AppendTimestamp(nil, ts.LocalDeletionTime*1000)
	}
	return nil
}

// elementName names a cell for [tombstone_column]: the column, and for an
// element of a non-frozen collection c[key] (the key as a CQL literal),
// of a non-frozen UDT c.field.
func elementName(c *schema.Column, path []byte) string {
	if path == nil {
		return c.Name
	}
	t := c.Type.Unreversed()
	if t.Kind == schema.KindUDT {
		if i, ok := schema.FieldIndex(path); ok && i < len(t.FieldNames) {
			return c.Name + "." + t.FieldNames[i]
		}
	}
	pt := t.PathType()
	if t.Kind == schema.KindList {
		pt = schema.Timeuuid
	}
	lit, err := appendLiteral(nil, pt, path, 0)
	if err != nil {
		return fmt.Sprintf("%s[0x%x]", c.Name, path)
	}
	return c.Name + "[" + string(lit) + "]"
}
