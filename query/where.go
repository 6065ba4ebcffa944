package query

import (
	"bytes"
	"encoding/binary"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// filter is a restriction checked against a value of each partition
// (partition key and static columns) or row (regular and clustering
// columns).
type filter struct {
	col    *schema.Column
	idx    int // position in SelectStarColumns
	op     string
	values [][]byte // one value, or IN's
}

// ckRestriction is a restriction on clustering columns first … first+n-1
// (n > 1 for a multi-column relation), checked against each row's
// clustering.
type ckRestriction struct {
	first, n int
	op       string
	// tuples holds one tuple per value (IN: several), each n values.
	tuples [][][]byte
	pos    cql.Pos
}

// pkRestriction collects the relations on one partition key column.
type pkRestriction struct {
	eq    [][]byte // = or IN values
	hasEq bool
	isIN  bool
}

func (q *Query) bind(b *cql.Builder, t *cql.Term, c *schema.Column) ([]byte, error) {
	v, err := b.Value(t, c.Type, c.Name)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, invalid("Invalid null value in condition for column %s", c.Name)
	}
	return v, nil
}

// where analyses the WHERE clause as Cassandra's StatementRestrictions do.
func (q *Query) where(sel *cql.Select, b *cql.Builder) error {
	t := q.t
	pk := make([]pkRestriction, len(t.PartitionKey))
	hasToken := false
	pkNeedsFiltering := false
	hasPKRelation := false
	// Clustering restrictions, in the order given, for Cassandra's checks.
	type ckAdded struct {
		first, last int
		slice       bool
	}
	var ckOrder []ckAdded
	ckByPos := map[int]*ckRestriction{} // single-column ones, to merge bounds
	multi, single := false, false
	for _, r := range sel.Where {
		if r.Token {
			if err := q.tokenRelation(r, b); err != nil {
				return err
			}
			hasToken = true
			continue
		}
		cols := make([]*schema.Column, len(r.Columns))
		for i, id := range r.Columns {
			c, err := q.column(id)
			if err != nil {
				return err
			}
			cols[i] = c
		}
		if len(cols) > 1 {
			for _, c := range cols {
				if c.Kind != schema.ClusteringKey {
					return invalid("Multi-column relations can only be applied to clustering columns but was applied to: %s", c.Name)
				}
			}
			for i := 1; i < len(cols); i++ {
				if cols[i].Index != cols[i-1].Index+1 {
					return invalid("Clustering columns must appear in the PRIMARY KEY order in multi-column relations: (%s)", joinNames(cols))
				}
			}
			if single {
				return invalid("Mixing single column relations and multi column relations on clustering columns is not allowed")
			}
			multi = true
			rest := &ckRestriction{first: cols[0].Index, n: len(cols), op: r.Op, pos: r.Pos}
			var tuples []*cql.Term
			if r.Op == "IN" {
				tuples = r.Value.Elems
			} else {
				tuples = []*cql.Term{r.Value}
			}
			for _, tt := range tuples {
				if tt.Kind != cql.TermTuple || len(tt.Elems) != len(cols) {
					return invalid("Expected %d elements in value tuple, but got %d: %s", len(cols), len(tt.Elems), describe(tt))
				}
				var tuple [][]byte
				for i, e := range tt.Elems {
					v, err := q.bind(b, e, cols[i])
					if err != nil {
						return err
					}
					tuple = append(tuple, v)
				}
				rest.tuples = append(rest.tuples, tuple)
			}
			if len(ckOrder) > 0 && r.Op != "IN" && r.Op != "=" {
				// Two multi-column slices must start at one column to merge.
				for _, prev := range q.clustering {
					if prev.first != rest.first && isSlice(prev.op) {
						return invalid("Column \"%s\" cannot be restricted by two inequalities not starting with the same column", cols[0].Name)
					}
				}
			}
			q.clustering = append(q.clustering, rest)
			ckOrder = append(ckOrder, ckAdded{first: rest.first, last: rest.first + rest.n - 1, slice: isSlice(r.Op)})
			continue
		}
		c := cols[0]
		switch c.Kind {
		case schema.PartitionKey:
			hasPKRelation = true
			p := &pk[c.Index]
			switch r.Op {
			case "=", "IN":
				if p.hasEq {
					return invalid("%s cannot be restricted by more than one relation if it includes an Equal", c.Name)
				}
				vals, err := q.bindList(b, r, c)
				if err != nil {
					return err
				}
				p.eq, p.hasEq, p.isIN = vals, true, r.Op == "IN"
				q.pkFilters = append(q.pkFilters, &filter{col: c, idx: q.star[c], op: "IN", values: vals})
			case "<", "<=", ">", ">=":
				pkNeedsFiltering = true
				v, err := q.bind(b, r.Value, c)
				if err != nil {
					return err
				}
				q.pkFilters = append(q.pkFilters, &filter{col: c, idx: q.star[c], op: r.Op, values: [][]byte{v}})
			default:
				return q.unsupportedOp(r, c)
			}
		case schema.ClusteringKey:
			if multi {
				return invalid("Mixing single column relations and multi column relations on clustering columns is not allowed")
			}
			single = true
			rest, err := q.clusteringRelation(b, r, c, ckByPos)
			if err != nil {
				return err
			}
			if rest != nil {
				q.clustering = append(q.clustering, rest)
			}
			ckOrder = append(ckOrder, ckAdded{first: c.Index, last: c.Index, slice: isSlice(r.Op)})
		default:
			f, err := q.filterRelation(b, r, c)
			if err != nil {
				return err
			}
			if c.Kind == schema.Static {
				q.staticFilters = append(q.staticFilters, f)
			} else {
				q.regularFilters = append(q.regularFilters, f)
			}
		}
	}
	q.hasCKRestrictions = len(q.clustering) > 0

	// The partitions.
	allEq := true
	anyIN := false
	for _, p := range pk {
		allEq = allEq && p.hasEq
		anyIN = anyIN || p.isIN
	}
	if hasToken && hasPKRelation && (!allEq || pkNeedsFiltering) {
		return invalid("Columns \"%s\" cannot be restricted by both a normal relation and a token relation", joinNames(t.PartitionKey))
	}
	switch {
	case allEq && !pkNeedsFiltering:
		q.pointQuery = true
		q.pkFilters = nil
		tuples := [][][]byte{{}}
		for _, p := range pk {
			var next [][][]byte
			for _, tu := range tuples {
				for _, v := range p.eq {
					next = append(next, append(append([][]byte{}, tu...), v))
				}
			}
			tuples = next
		}
		tuples = sortKeys(t.PartitionKeyTypes(), tuples)
		for _, tu := range tuples {
			key, err := t.AppendPartitionKey(nil, tu)
			if err != nil {
				return invalid("%v", err)
			}
			if len(key) > 0xFFFF {
				return invalid("Key length of %d is longer than maximum of 65535", len(key))
			}
			q.keys = append(q.keys, key)
		}
	case hasPKRelation:
		if !sel.AllowFiltering {
			return invalid(requiresAllowFiltering)
		}
		if anyIN && q.release3 {
			return invalid("IN restrictions are not supported when the query involves filtering")
		}
	}

	if q.hasCKRestrictions && q.onlyStatic {
		return invalid("Cannot restrict clustering columns when selecting only static columns")
	}
	// The clustering restrictions, checked as Cassandra's
	// ClusteringColumnRestrictions.mergeWith and
	// processClusteringColumnsRestrictions check them.
	if !sel.AllowFiltering {
		lastFirst, lastSlice, have := -1, false, false
		restricted := map[int]bool{}
		for _, a := range ckOrder {
			if have {
				if lastSlice && a.first > lastFirst {
					return invalid("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", t.Clustering[a.first].Name, t.Clustering[lastFirst].Name)
				}
				if a.first < lastFirst && a.slice {
					next := a.first + 1
					for !restricted[next] && next < len(t.Clustering) {
						next++
					}
					return invalid("PRIMARY KEY column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", t.Clustering[min(next, len(t.Clustering)-1)].Name, t.Clustering[a.first].Name)
				}
			}
			for i := a.first; i <= a.last; i++ {
				restricted[i] = true
			}
			if !have || a.first >= lastFirst {
				lastFirst, lastSlice, have = a.first, a.slice, true
			}
		}
		// A gap before a restricted column.
		for i := range t.Clustering {
			if !restricted[i] {
				for j := i + 1; j < len(t.Clustering); j++ {
					if restricted[j] {
						return invalid("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", t.Clustering[j].Name, t.Clustering[i].Name)
					}
				}
				break
			}
		}
	}
	if q.release3 && q.selectsComplex {
		for _, c := range q.clustering {
			if c.op == "IN" {
				return invalid("Cannot restrict clustering columns by IN relations when a collection is selected by the query")
			}
		}
	}
	if len(q.staticFilters)+len(q.regularFilters) > 0 && !sel.AllowFiltering {
		return invalid(requiresAllowFiltering)
	}
	if !q.pointQuery && q.hasCKRestrictions && !sel.AllowFiltering {
		return invalid(requiresAllowFiltering)
	}
	return nil
}

func isSlice(op string) bool { return op == "<" || op == "<=" || op == ">" || op == ">=" }

func (q *Query) bindList(b *cql.Builder, r cql.Relation, c *schema.Column) ([][]byte, error) {
	terms := []*cql.Term{r.Value}
	if r.Op == "IN" {
		terms = r.Value.Elems
	}
	var out [][]byte
	for _, e := range terms {
		v, err := q.bind(b, e, c)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (q *Query) unsupportedOp(r cql.Relation, c *schema.Column) error {
	switch r.Op {
	case cql.OpContains, cql.OpContainsKey:
		return invalid("Cannot use %s on non-collection column %s", r.Op, c.Name)
	case cql.OpNotEqual:
		return invalid("Unsupported \"!=\" relation: %s != %s", c.Name, describe(r.Value))
	}
	return invalid("Unsupported %s relation on %s", r.Op, c.Name)
}

// clusteringRelation turns a single-column relation on a clustering
// column into a restriction, merging a slice's second bound into the
// first (and returning nil then).
func (q *Query) clusteringRelation(b *cql.Builder, r cql.Relation, c *schema.Column, byPos map[int]*ckRestriction) (*ckRestriction, error) {
	prev := byPos[c.Index]
	switch r.Op {
	case "=", "IN":
		if prev != nil {
			if prev.op == "IN" {
				return nil, invalid("%s cannot be restricted by more than one relation if it includes a IN", c.Name)
			}
			return nil, invalid("%s cannot be restricted by more than one relation if it includes an Equal", c.Name)
		}
		vals, err := q.bindList(b, r, c)
		if err != nil {
			return nil, err
		}
		rest := &ckRestriction{first: c.Index, n: 1, op: r.Op, pos: r.Pos}
		for _, v := range vals {
			rest.tuples = append(rest.tuples, [][]byte{v})
		}
		byPos[c.Index] = rest
		return rest, nil
	case "<", "<=", ">", ">=":
		v, err := q.bind(b, r.Value, c)
		if err != nil {
			return nil, err
		}
		if c.Type.Unreversed().Kind == schema.KindDuration {
			return nil, invalid("Slice restrictions are not supported on duration columns")
		}
		rest := &ckRestriction{first: c.Index, n: 1, op: r.Op, tuples: [][][]byte{{v}}, pos: r.Pos}
		if prev != nil {
			switch {
			case prev.op == "=":
				return nil, invalid("%s cannot be restricted by more than one relation if it includes an Equal", c.Name)
			case prev.op == "IN":
				return nil, invalid("%s cannot be restricted by more than one relation if it includes a IN", c.Name)
			case lower(prev.op) == lower(r.Op):
				bound := "end"
				if lower(r.Op) {
					bound = "start"
				}
				return nil, invalid("More than one restriction was found for the %s bound on %s", bound, c.Name)
			}
			// The other bound: a second restriction, both checked.
			return rest, nil
		}
		byPos[c.Index] = rest
		return rest, nil
	}
	return nil, q.unsupportedOp(r, c)
}

func lower(op string) bool { return op == ">" || op == ">=" }

// filterRelation turns a relation on a static or regular column into a
// filter.
func (q *Query) filterRelation(b *cql.Builder, r cql.Relation, c *schema.Column) (*filter, error) {
	f := &filter{col: c, idx: q.star[c], op: r.Op}
	typ := c.Type.Unreversed()
	multiCell := typ.IsComplex()
	if typ.Kind == schema.KindCounter {
		return nil, invalid("filtering on counter column %s is not supported by castable query", c.Name)
	}
	switch r.Op {
	case cql.OpContains, cql.OpContainsKey:
		if !typ.Kind.IsCollection() {
			return nil, invalid("Cannot use %s on non-collection column %s", r.Op, c.Name)
		}
		if r.Op == cql.OpContainsKey && typ.Kind != schema.KindMap {
			return nil, invalid("Cannot use CONTAINS KEY on non-map column %s", c.Name)
		}
		elem := typ.Params[0]
		if typ.Kind == schema.KindMap && r.Op == cql.OpContains {
			elem = typ.Params[1]
		}
		v, err := b.Value(r.Value, elem, c.Name)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, invalid("Unsupported null value for column %s", c.Name)
		}
		f.values = [][]byte{v}
		return f, nil
	case "=", "<", "<=", ">", ">=", cql.OpNotEqual, "IN":
		if q.release3 && r.Op == cql.OpNotEqual {
			return nil, invalid("Unsupported \"!=\" relation: %s != %s", c.Name, describe(r.Value))
		}
		if q.release3 && r.Op == "IN" {
			return nil, invalid("IN predicates on non-primary-key columns (%s) is not yet supported", c.Name)
		}
		if multiCell {
			return nil, invalid("Collection column '%s' (%s) cannot be restricted by a '%s' relation", c.Name, typ, r.Op)
		}
		if isSlice(r.Op) && typ.Kind == schema.KindDuration {
			return nil, invalid("Slice restrictions are not supported on duration columns")
		}
		terms := []*cql.Term{r.Value}
		if r.Op == "IN" {
			terms = r.Value.Elems
		}
		for _, e := range terms {
			v, err := b.Value(e, typ, c.Name)
			if err != nil {
				return nil, err
			}
			if v == nil {
				return nil, invalid("Unsupported null value for column %s", c.Name)
			}
			f.values = append(f.values, v)
		}
		return f, nil
	}
	return nil, invalid("Unsupported %s relation on %s", r.Op, c.Name)
}

// tokenRelation records a token() bound.
func (q *Query) tokenRelation(r cql.Relation, b *cql.Builder) error {
	t := q.t
	if len(r.Columns) != len(t.PartitionKey) {
		return invalid("The token() function must be applied to all partition key components or none of them")
	}
	for i, id := range r.Columns {
		c, err := q.column(id)
		if err != nil {
			return err
		}
		if c.Kind != schema.PartitionKey {
			return invalid("The token() function is only supported on the partition key, found on %s", c.Name)
		}
		if c.Index != i {
			return invalid("The token function arguments must be in the partition key order: %s", joinNames(t.PartitionKey))
		}
	}
	tok, err := q.tokenValue(r.Value, b)
	if err != nil {
		return err
	}
	bound := &tokenBound{tok: tok, inclusive: r.Op == "=" || r.Op == "<=" || r.Op == ">="}
	setLo := func() error {
		if q.lo != nil {
			return invalid("More than one restriction was found for the start bound on %s", joinNames(t.PartitionKey))
		}
		q.lo = bound
		return nil
	}
	setHi := func() error {
		if q.hi != nil {
			return invalid("More than one restriction was found for the end bound on %s", joinNames(t.PartitionKey))
		}
		q.hi = bound
		return nil
	}
	switch r.Op {
	case "=":
		if q.lo != nil || q.hi != nil {
			return invalid("%s cannot be restricted by more than one relation if it includes an Equal", joinNames(t.PartitionKey))
		}
		q.lo, q.hi = bound, &tokenBound{tok: tok, inclusive: true}
		return nil
	case ">", ">=":
		return setLo()
	case "<", "<=":
		return setHi()
	}
	return invalid("Unsupported %s relation on token()", r.Op)
}

// tokenValue reads the token a term names: a literal of the partitioner's
// token type, or token(key values...).
func (q *Query) tokenValue(term *cql.Term, b *cql.Builder) (dht.Token, error) {
	if term.Kind == cql.TermFunction && term.Text == "token" {
		if len(term.Elems) != len(q.t.PartitionKey) {
			return dht.Token{}, invalid("Invalid number of arguments in call to function system.token: %d required but %d provided", len(q.t.PartitionKey), len(term.Elems))
		}
		var comps [][]byte
		for i, e := range term.Elems {
			v, err := q.bind(b, e, q.t.PartitionKey[i])
			if err != nil {
				return dht.Token{}, err
			}
			comps = append(comps, v)
		}
		key, err := q.t.AppendPartitionKey(nil, comps)
		if err != nil {
			return dht.Token{}, invalid("%v", err)
		}
		return q.part.Token(key), nil
	}
	var text string
	switch term.Kind {
	case cql.TermInteger, cql.TermString:
		text = term.Text
	case cql.TermHex:
		text = term.Text
	case cql.TermNull:
		return dht.Token{}, invalid("Invalid null token value")
	default:
		return dht.Token{}, invalid("Invalid token value %s", describe(term))
	}
	tok, err := q.part.ParseToken(text)
	if err != nil {
		return dht.Token{}, invalid("Invalid token value %s: %v", text, err)
	}
	return tok, nil
}

// tokenRange finalizes the token bounds as Cassandra's
// getPartitionKeyBoundsForTokenRestrictions does: the minimum token as a
// bound means no bound, and a range whose start is after its end (or
// equal to it with a bound excluded) is empty, not wrapping.
func (q *Query) tokenRange() {
	min := q.part.MinToken()
	if q.lo != nil && q.lo.tok.Equal(min) {
		q.lo = nil
	}
	if q.hi != nil && q.hi.tok.Equal(min) {
		q.hi = nil
	}
	if q.lo != nil && q.hi != nil {
		c := dht.Compare(q.lo.tok, q.hi.tok)
		if c > 0 || c == 0 && (!q.lo.inclusive || !q.hi.inclusive) {
			q.emptyRange = true
		}
	}
}

// inTokenRange reports whether tok is within the bounds; past reports
// that it is after the upper one.
func (q *Query) inTokenRange(tok dht.Token) (in, past bool) {
	if q.hi != nil {
		c := dht.Compare(tok, q.hi.tok)
		if c > 0 || c == 0 && !q.hi.inclusive {
			return false, true
		}
	}
	if q.lo != nil {
		c := dht.Compare(tok, q.lo.tok)
		if c < 0 || c == 0 && !q.lo.inclusive {
			return false, false
		}
	}
	return true, false
}

// describe is a term as written, roughly, for messages.
func describe(t *cql.Term) string {
	if t == nil {
		return ""
	}
	switch t.Kind {
	case cql.TermString:
		return "'" + t.Text + "'"
	case cql.TermNull:
		return "null"
	case cql.TermHex:
		return "0x" + t.Text
	case cql.TermTuple, cql.TermList, cql.TermSet:
		open, close := "(", ")"
		if t.Kind == cql.TermList {
			open, close = "[", "]"
		} else if t.Kind == cql.TermSet {
			open, close = "{", "}"
		}
		var buf bytes.Buffer
		buf.WriteString(open)
		for i, e := range t.Elems {
			if i > 0 {
				buf.WriteString(", ")
			}
			buf.WriteString(describe(e))
		}
		buf.WriteString(close)
		return buf.String()
	case cql.TermFunction:
		return t.Text + "(…)"
	}
	return t.Text
}

// matches reports whether v (nil: null) satisfies f.
func (f *filter) matches(v []byte) bool {
	if v == nil {
		return false
	}
	typ := f.col.Type.Unreversed()
	switch f.op {
	case "=":
		return compareValues(typ, v, f.values[0]) == 0
	case cql.OpNotEqual:
		return compareValues(typ, v, f.values[0]) != 0
	case "IN":
		for _, x := range f.values {
			if compareValues(typ, v, x) == 0 {
				return true
			}
		}
		return false
	case "<":
		return compareValues(typ, v, f.values[0]) < 0
	case "<=":
		return compareValues(typ, v, f.values[0]) <= 0
	case ">":
		return compareValues(typ, v, f.values[0]) > 0
	case ">=":
		return compareValues(typ, v, f.values[0]) >= 0
	case cql.OpContains, cql.OpContainsKey:
		return contains(typ, v, f.values[0], f.op == cql.OpContainsKey)
	}
	return false
}

// compareValues is Cassandra's compareForCQL: the type's order, bytes for
// the types without one (duration).
func compareValues(t *schema.Type, a, b []byte) int {
	if t.Kind == schema.KindDuration {
		return bytes.Compare(a, b)
	}
	return t.Compare(a, b)
}

// contains reports whether a collection value (its frozen form) holds x:
// among a list's or set's elements or a map's values, or (key) among a
// map's keys.
func contains(t *schema.Type, v, x []byte, key bool) bool {
	n, rest, ok := readInt(v)
	if !ok {
		return false
	}
	for i := 0; i < int(n); i++ {
		var k, val []byte
		if k, rest, ok = readValue(rest); !ok {
			return false
		}
		switch t.Kind {
		case schema.KindMap:
			if val, rest, ok = readValue(rest); !ok {
				return false
			}
			if key {
				if t.Params[0].Compare(k, x) == 0 {
					return true
				}
			} else if compareValues(t.Params[1], val, x) == 0 {
				return true
			}
		default:
			if compareValues(t.Params[0], k, x) == 0 {
				return true
			}
		}
	}
	return false
}

func readInt(b []byte) (int32, []byte, bool) {
	if len(b) < 4 {
		return 0, nil, false
	}
	return int32(binary.BigEndian.Uint32(b)), b[4:], true
}

func readValue(b []byte) ([]byte, []byte, bool) {
	n, rest, ok := readInt(b)
	if !ok {
		return nil, nil, false
	}
	if n < 0 {
		return nil, rest, true
	}
	if int(n) > len(rest) {
		return nil, nil, false
	}
	return rest[:n], rest[n:], true
}

// matches reports whether a row's clustering satisfies r, comparing in
// each column's value order (not the clustering order: ck > x means
// greater values, whatever the column's order).
func (r *ckRestriction) matches(t *schema.Table, ck [][]byte) bool {
	cmp := func(tuple [][]byte) int {
		for i := 0; i < r.n; i++ {
			j := r.first + i
			if j >= len(ck) {
				return -1
			}
			if c := compareValues(t.Clustering[j].Type.Unreversed(), ck[j], tuple[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	switch r.op {
	case "=":
		return cmp(r.tuples[0]) == 0
	case "IN":
		for _, tu := range r.tuples {
			if cmp(tu) == 0 {
				return true
			}
		}
		return false
	case "<":
		return cmp(r.tuples[0]) < 0
	case "<=":
		return cmp(r.tuples[0]) <= 0
	case ">":
		return cmp(r.tuples[0]) > 0
	case ">=":
		return cmp(r.tuples[0]) >= 0
	}
	return false
}

// seekStart is where the clustering restrictions let a partition's rows
// start, in clustering order: the values of the leading columns restricted
// by =, then the smallest (in clustering order) of an IN's values or the
// bound of a slice that comes first in the column's order. Every row the
// restrictions keep sorts at or after it; nil when nothing can be skipped.
func (q *Query) seekStart() mutation.Clustering {
	t := q.t
	var start mutation.Clustering
	for i := 0; i < len(t.Clustering); {
		var at []*ckRestriction
		for _, r := range q.clustering {
			if r.first == i {
				at = append(at, r)
			}
		}
		if len(at) == 0 {
			break
		}
		r := at[0]
		switch {
		case r.op == "=":
			start = append(start, r.tuples[0]...)
			i += r.n
			continue
		case r.op == "IN":
			least := append(append(mutation.Clustering{}, start...), r.tuples[0]...)
			for _, tu := range r.tuples[1:] {
				if c := append(append(mutation.Clustering{}, start...), tu...); t.CompareClustering(c, least) < 0 {
					least = c
				}
			}
			return least
		}
		// Slices: the bound on the side the clustering order starts from,
		// when every column of the relation runs one way.
		desc := t.Clustering[i].Type.Reversed
		for j := i; j < i+r.n; j++ {
			if t.Clustering[j].Type.Reversed != desc {
				return start
			}
		}
		for _, s := range at {
			if lower(s.op) != desc {
				return append(start, s.tuples[0]...)
			}
		}
		return start
	}
	return start
}

// seekEnd is where the clustering restrictions let a partition's rows
// end, in clustering order: the = prefix, then the greatest (in
// clustering order) of an IN's values or the bound of a slice that comes
// last in the column's order. No row the restrictions keep sorts after
// every clustering it prefixes; nil when the rows run to the end.
func (q *Query) seekEnd() mutation.Clustering {
	t := q.t
	var end mutation.Clustering
	for i := 0; i < len(t.Clustering); {
		var at []*ckRestriction
		for _, r := range q.clustering {
			if r.first == i {
				at = append(at, r)
			}
		}
		if len(at) == 0 {
			break
		}
		r := at[0]
		switch {
		case r.op == "=":
			end = append(end, r.tuples[0]...)
			i += r.n
			continue
		case r.op == "IN":
			most := append(append(mutation.Clustering{}, end...), r.tuples[0]...)
			for _, tu := range r.tuples[1:] {
				if c := append(append(mutation.Clustering{}, end...), tu...); t.CompareClustering(c, most) > 0 {
					most = c
				}
			}
			return most
		}
		desc := t.Clustering[i].Type.Reversed
		for j := i; j < i+r.n; j++ {
			if t.Clustering[j].Type.Reversed != desc {
				if len(end) == 0 {
					return nil
				}
				return end
			}
		}
		for _, s := range at {
			if lower(s.op) == desc {
				return append(end, s.tuples[0]...)
			}
		}
		break
	}
	if len(end) == 0 {
		return nil
	}
	return end
}
