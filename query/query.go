// Package query answers a CQL SELECT over the SSTables of one table with
// no cluster: a statement parsed by cql.ParseSelect is planned against the
// table's schema (Prepare: which partitions, which clustering rows, which
// filters, what to project), with Cassandra's rules and error messages for
// what it refuses, and run over a table.Set (Query.Run) with the value
// semantics of export.View — the live rows as SELECT * returns them,
// native-protocol values, writetime and remaining TTL per cell.
//
// A query whose partition key columns are all restricted by = or IN reads
// only those partitions, each through the Set's point lookup (bloom
// filter, index, then the partition's chunks of Data.db); one restricted
// by token() ranges skips the partitions before the range without merging
// them and stops at its end; any other reads every partition. Rows come
// in Cassandra's order: partitions in token order (for = and IN, in the
// order of the partition key's values, as Cassandra sorts the IN list),
// rows in clustering order.
package query

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/schema"
)

// InvalidRequestError is a statement Cassandra (or castable) refuses for
// what it asks, with Cassandra's wording where Cassandra refuses it.
type InvalidRequestError struct{ Msg string }

func (e *InvalidRequestError) Error() string { return e.Msg }

func invalid(format string, args ...any) error {
	return &InvalidRequestError{Msg: fmt.Sprintf(format, args...)}
}

// requiresAllowFiltering is Cassandra's REQUIRES_ALLOW_FILTERING_MESSAGE.
const requiresAllowFiltering = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING"

// Options configure Prepare. The zero value of each field means the
// default its comment gives.
type Options struct {
	// Now is the clock of functions in the statement's terms
	// (currenttimestamp() …); the zero value means time.Now(). The moment
	// the rows are read at is the table.Set's.
	Now time.Time
	// Partitioner orders token() bounds; nil means the table's
	// (schema.Options.Partitioner, Murmur3 by default).
	Partitioner dht.Partitioner
	// Release is the Cassandra release whose refusals the query follows:
	// "3.11" refuses what 3.11 refuses and 4.0+ answers (!= and IN on
	// non-key columns, a clustering IN with a non-frozen collection
	// selected, IN on a partition key that is filtered); "" means 5.0.
	Release string
}

// Column is a result column: its name as the drivers and cqlsh name it
// (the column's, "writetime(c)", "ttl(c)", "count", or the alias) and the
// CQL type of its values.
type Column struct {
	Name string
	Type *schema.Type
}

// output kinds of a selected column.
const (
	outValue = iota
	outWritetime
	outTTL
	outCount
)

type output struct {
	kind int
	idx  int // position in export.SelectStarColumns
}

// Query is a prepared SELECT.
type Query struct {
	t    *schema.Table
	part dht.Partitioner
	cols []Column
	outs []output
	// star maps SelectStarColumns to their View positions (by column).
	star map[*schema.Column]int

	count    bool
	distinct bool
	release3 bool
	// selectsComplex: a non-frozen collection or UDT is selected;
	// onlyStatic: only partition key and static columns are, and one
	// static at least (Cassandra's selectOnlyStaticColumns).
	selectsComplex, onlyStatic bool

	// Partitions: keys (point lookups, in Cassandra's order) when
	// pointQuery, else a range scan between the token bounds.
	pointQuery bool
	keys       [][]byte
	lo, hi     *tokenBound
	emptyRange bool
	pkFilters  []*filter // key range: filtered partition key columns

	clustering        []*ckRestriction
	hasCKRestrictions bool
	staticFilters     []*filter
	regularFilters    []*filter

	limit, perPartitionLimit int64
}

type tokenBound struct {
	tok       dht.Token
	inclusive bool
}

// Parse parses src (one SELECT) and prepares it against t.
func Parse(src string, t *schema.Table, opts Options) (*Query, error) {
	sel, err := cql.ParseSelect(src)
	if err != nil {
		return nil, err
	}
	return Prepare(sel, t, opts)
}

// Columns returns the result's columns in order.
func (q *Query) Columns() []Column { return q.cols }

// Table returns the schema the query was prepared against.
func (q *Query) Table() *schema.Table { return q.t }

// PointQuery reports whether the query reads only the partitions its
// partition key restrictions name (through the indexes), and Keys returns
// them (serialized partition keys, in the order they are read).
func (q *Query) PointQuery() bool { return q.pointQuery }

// Keys returns the partition keys a point query reads, in order.
func (q *Query) Keys() [][]byte { return q.keys }

// Prepare plans sel against t. Statements Cassandra refuses are an
// *InvalidRequestError with Cassandra's message; what castable does not
// support is an *InvalidRequestError saying so; literals that do not fit
// their column are a *cql.SyntaxError.
func Prepare(sel *cql.Select, t *schema.Table, opts Options) (*Query, error) {
	if sel.Table.Name != t.Name || (sel.Table.Keyspace != "" && t.Keyspace != "" && sel.Table.Keyspace != t.Keyspace) {
		if t.Name != "" {
			return nil, invalid("table %s does not exist (the SSTables hold %s.%s)", sel.Table, t.Keyspace, t.Name)
		}
	}
	part := opts.Partitioner
	if part == nil {
		var err error
		if part, err = dht.Lookup(t.Options.Partitioner); err != nil {
			return nil, err
		}
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	q := &Query{t: t, part: part, star: map[*schema.Column]int{}, distinct: sel.Distinct, release3: opts.Release == "3.11"}
	for i, c := range export.SelectStarColumns(t) {
		q.star[c] = i
	}
	switch {
	case sel.JSON:
		return nil, invalid("SELECT JSON is not supported by castable query (use --json)")
	case len(sel.GroupBy) > 0:
		return nil, invalid("GROUP BY is not supported by castable query")
	case len(sel.OrderBy) > 0:
		return nil, invalid("ORDER BY is not supported by castable query")
	}
	if err := q.selection(sel); err != nil {
		return nil, err
	}
	b := cql.NewBuilder(nil, cql.Options{Now: now})
	if err := q.where(sel, b); err != nil {
		return nil, err
	}
	if sel.Distinct {
		if sel.HasPerPartitionLimit {
			return nil, invalid("PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries")
		}
		if err := q.validateDistinct(sel); err != nil {
			return nil, err
		}
	}
	if q.count && sel.HasPerPartitionLimit {
		return nil, invalid("PER PARTITION LIMIT is not allowed with aggregate queries.")
	}
	if sel.HasLimit {
		q.limit = sel.Limit
	}
	if sel.HasPerPartitionLimit {
		q.perPartitionLimit = sel.PerPartitionLimit
	}
	return q, nil
}

func (q *Query) column(id cql.Ident) (*schema.Column, error) {
	c := q.t.Column(id.Name)
	if c == nil || c.Hidden {
		return nil, invalid("Undefined column name %s", id.Name)
	}
	return c, nil
}

// selection resolves the selectors.
func (q *Query) selection(sel *cql.Select) error {
	if sel.Star {
		if sel.Distinct {
			return invalid("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", firstNonKeyNonStatic(q.t))
		}
		for i, c := range export.SelectStarColumns(q.t) {
			q.outs = append(q.outs, output{kind: outValue, idx: i})
			q.cols = append(q.cols, Column{Name: c.Name, Type: valueType(c)})
			q.selectsComplex = q.selectsComplex || c.Type.IsComplex()
		}
		return nil
	}
	statics, others := 0, 0
	for _, s := range sel.Selectors {
		if s.Kind != cql.SelectCount {
			if c := q.t.Column(s.Column.Name); c != nil {
				switch c.Kind {
				case schema.Static:
					statics++
				case schema.PartitionKey:
				default:
					others++
				}
				q.selectsComplex = q.selectsComplex || c.Type.IsComplex()
			}
		}
	}
	q.onlyStatic = statics > 0 && others == 0
	for _, s := range sel.Selectors {
		switch s.Kind {
		case cql.SelectCount:
			q.count = true
			q.outs = append(q.outs, output{kind: outCount})
			q.cols = append(q.cols, Column{Name: alias(s, "count"), Type: schema.Bigint})
			continue
		}
		c, err := q.column(s.Column)
		if err != nil {
			return err
		}
		idx := q.star[c]
		switch s.Kind {
		case cql.SelectColumn:
			q.outs = append(q.outs, output{kind: outValue, idx: idx})
			q.cols = append(q.cols, Column{Name: alias(s, c.Name), Type: valueType(c)})
		case cql.SelectWritetime, cql.SelectTTL:
			fn, kind, typ := "writeTime", outWritetime, schema.Bigint
			if s.Kind == cql.SelectTTL {
				fn, kind, typ = "ttl", outTTL, schema.Int
			}
			if c.Kind == schema.PartitionKey || c.Kind == schema.ClusteringKey {
				return invalid("Cannot use selection function %s on PRIMARY KEY part %s", fn, c.Name)
			}
			if c.Type.IsComplex() {
				what := "collection"
				if c.Type.Unreversed().Kind == schema.KindUDT {
					what = "UDT"
				}
				if q.release3 {
					return invalid("Cannot use selection function %s on non-frozen %s %s", fn, what, c.Name)
				}
				return invalid("%s() of a non-frozen %s (%s) is not supported by castable query (Cassandra 5.0 returns one value per element)", s.Kind, what, c.Name)
			}
			q.outs = append(q.outs, output{kind: kind, idx: idx})
			q.cols = append(q.cols, Column{Name: alias(s, s.Kind+"("+c.Name+")"), Type: typ})
		}
	}
	if q.distinct && q.count {
		return invalid("SELECT DISTINCT with count() is not supported by castable query")
	}
	return nil
}

func firstNonKeyNonStatic(t *schema.Table) string {
	for _, c := range export.SelectStarColumns(t) {
		if c.Kind != schema.PartitionKey && c.Kind != schema.Static {
			return c.Name
		}
	}
	return ""
}

func alias(s cql.Selector, name string) string {
	if s.Alias != "" {
		return s.Alias
	}
	return name
}

// valueType is the type of a column's values in a result: a non-frozen
// collection or UDT in its frozen form, without the clustering order.
func valueType(c *schema.Column) *schema.Type {
	t := c.Type.Unreversed()
	if t.IsComplex() {
		t = t.Freeze()
	}
	return t
}

func (q *Query) validateDistinct(sel *cql.Select) error {
	if q.hasCKRestrictions || len(q.regularFilters) > 0 {
		return invalid("SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.")
	}
	selected := map[*schema.Column]bool{}
	for _, s := range sel.Selectors {
		c, _ := q.column(s.Column)
		if c == nil {
			continue
		}
		if c.Kind != schema.PartitionKey && c.Kind != schema.Static {
			return invalid("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", c.Name)
		}
		if s.Kind == cql.SelectColumn {
			selected[c] = true
		}
	}
	if q.pointQuery {
		return nil
	}
	for _, c := range q.t.PartitionKey {
		if !selected[c] {
			return invalid("SELECT DISTINCT queries must request all the partition key columns (missing %s)", c.Name)
		}
	}
	return nil
}

// joinNames is "a, b" of the columns.
func joinNames(cols []*schema.Column) string {
	var names []string
	for _, c := range cols {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

var errStop = errors.New("stop")

// sortKeys sorts serialized partition key component tuples as Cassandra
// sorts an IN list (by each component's type order) and removes
// duplicates.
func sortKeys(types []*schema.Type, tuples [][][]byte) [][][]byte {
	cmp := func(a, b [][]byte) int {
		for i := range a {
			if c := types[i].Compare(a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	slices.SortStableFunc(tuples, cmp)
	return slices.CompactFunc(tuples, func(a, b [][]byte) bool { return cmp(a, b) == 0 })
}
