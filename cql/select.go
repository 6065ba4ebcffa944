package cql

import (
	"strconv"
	"strings"
)

// Select is a parsed SELECT statement (ParseSelect). It is syntax only:
// package query gives it meaning against a table.
type Select struct {
	// Distinct is SELECT DISTINCT; JSON is SELECT JSON.
	Distinct, JSON bool
	// Star is SELECT *; otherwise Selectors lists the selection.
	Star      bool
	Selectors []Selector
	Table     Name
	Where     []Relation
	// GroupBy and OrderBy are the columns of GROUP BY and ORDER BY (the
	// latter with Descending set per column).
	GroupBy []Ident
	OrderBy []Ordering
	// PerPartitionLimit and Limit are set when Has… is.
	PerPartitionLimit, Limit       int64
	HasPerPartitionLimit, HasLimit bool
	AllowFiltering                 bool
	Pos                            Pos
}

// Ordering is one column of ORDER BY.
type Ordering struct {
	Column     Ident
	Descending bool
}

// Selector kinds.
const (
	SelectColumn    = "column"    // a column
	SelectWritetime = "writetime" // writetime(column)
	SelectTTL       = "ttl"       // ttl(column)
	SelectCount     = "count"     // count(*) or count(1)
)

// Selector is one entry of a SELECT's selection.
type Selector struct {
	Kind   string // SelectColumn, SelectWritetime, SelectTTL or SelectCount
	Column Ident  // the column (not for SelectCount)
	// CountArg is "*" or "1" for SelectCount.
	CountArg string
	// Alias is the AS name, "" without one.
	Alias string
	Pos   Pos
}

// Relation operators beyond =, <, <=, >, >= and IN that only SELECT
// accepts.
const (
	OpNotEqual    = "!="
	OpContains    = "CONTAINS"
	OpContainsKey = "CONTAINS KEY"
)

func (s *Select) statementPos() Pos { return s.Pos }

// ParseSelect parses one SELECT statement (a trailing ';' is optional):
//
//	SELECT [JSON] [DISTINCT] ( * | selector [AS name], ... )
//	FROM [keyspace.]table
//	[WHERE relation AND ...]
//	[GROUP BY column, ...] [ORDER BY column [ASC|DESC], ...]
//	[PER PARTITION LIMIT n] [LIMIT n] [ALLOW FILTERING]
//
// where a selector is a column, writetime(column), ttl(column), count(*)
// or count(1), and a relation is
//
//	column (= | != | < | <= | > | >=) term
//	column IN (term, ...)
//	column CONTAINS term | column CONTAINS KEY term
//	(column, ...) (= | < | <= | > | >=) (term, ...)
//	(column, ...) IN ((term, ...), ...)
//	token(column, ...) (= | < | <= | > | >=) term
//
// Errors are *SyntaxError.
func ParseSelect(src string) (*Select, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, src: src}
	start := p.peek()
	if !p.acceptKeyword("select") {
		return nil, p.errorf(start, "expected SELECT")
	}
	s, err := p.selectStatement(start)
	if err != nil {
		return nil, err
	}
	p.acceptSymbol(";")
	if p.peek().kind != tokEOF {
		return nil, p.errorf(p.peek(), "expected the end of the statement")
	}
	return s, nil
}

// selectStatement parses what follows SELECT.
func (p *parser) selectStatement(selTok token) (*Select, error) {
	s := &Select{Pos: pos(selTok)}
	if p.isKeyword("json") && !p.nextIsClauseEnd() {
		p.next()
		s.JSON = true
	}
	if p.isKeyword("distinct") && !p.nextIsClauseEnd() {
		p.next()
		s.Distinct = true
	}
	if p.acceptSymbol("*") {
		s.Star = true
	} else {
		for {
			sel, err := p.selector()
			if err != nil {
				return nil, err
			}
			s.Selectors = append(s.Selectors, sel)
			if !p.acceptSymbol(",") {
				break
			}
		}
	}
	if err := p.expectKeyword("from"); err != nil {
		return nil, err
	}
	var err error
	if s.Table, err = p.name("a table name"); err != nil {
		return nil, err
	}
	if p.acceptKeyword("where") {
		for {
			r, err := p.selectRelation()
			if err != nil {
				return nil, err
			}
			s.Where = append(s.Where, r)
			if !p.acceptKeyword("and") {
				break
			}
		}
	}
	if p.isKeyword("group") {
		p.next()
		if err := p.expectKeyword("by"); err != nil {
			return nil, err
		}
		for {
			id, err := p.ident("a column name")
			if err != nil {
				return nil, err
			}
			s.GroupBy = append(s.GroupBy, id)
			if !p.acceptSymbol(",") {
				break
			}
		}
	}
	if p.isKeyword("order") {
		p.next()
		if err := p.expectKeyword("by"); err != nil {
			return nil, err
		}
		for {
			id, err := p.ident("a column name")
			if err != nil {
				return nil, err
			}
			o := Ordering{Column: id}
			if p.acceptKeyword("desc") {
				o.Descending = true
			} else {
				p.acceptKeyword("asc")
			}
			s.OrderBy = append(s.OrderBy, o)
			if !p.acceptSymbol(",") {
				break
			}
		}
	}
	if p.isKeyword("per") {
		p.next()
		if err := p.expectKeyword("partition", "limit"); err != nil {
			return nil, err
		}
		if s.PerPartitionLimit, err = p.limit("PER PARTITION LIMIT"); err != nil {
			return nil, err
		}
		s.HasPerPartitionLimit = true
	}
	if p.acceptKeyword("limit") {
		if s.Limit, err = p.limit("LIMIT"); err != nil {
			return nil, err
		}
		s.HasLimit = true
	}
	if p.acceptKeyword("allow") {
		if err := p.expectKeyword("filtering"); err != nil {
			return nil, err
		}
		s.AllowFiltering = true
	}
	return s, nil
}

// nextIsClauseEnd reports whether the token after the current one ends a
// selection (so the current one, say "distinct", is a column name).
func (p *parser) nextIsClauseEnd() bool {
	n := p.peekAt(1)
	if n.kind == tokSymbol && n.text == "," {
		return true
	}
	return n.kind == tokIdent && (strings.EqualFold(n.text, "from") || strings.EqualFold(n.text, "as"))
}

// limit reads a LIMIT's value: a positive 32-bit integer, as Cassandra's
// limits are ints.
func (p *parser) limit(what string) (int64, error) {
	t := p.peek()
	if t.kind != tokInteger {
		return 0, p.errorf(t, "expected an integer after %s", what)
	}
	p.next()
	n, err := strconv.ParseInt(t.text, 10, 32)
	if err != nil {
		return 0, p.errorf(t, "%s %s is out of range", what, t.text)
	}
	if n <= 0 {
		return 0, p.errorf(t, "%s must be strictly positive", what)
	}
	return n, nil
}

func (p *parser) selector() (Selector, error) {
	t := p.peek()
	sel := Selector{Kind: SelectColumn, Pos: pos(t)}
	fn := t.kind == tokIdent && p.peekAt(1).kind == tokSymbol && p.peekAt(1).text == "("
	switch {
	case fn && (strings.EqualFold(t.text, "writetime") || strings.EqualFold(t.text, "ttl")):
		p.next()
		p.next()
		sel.Kind = SelectWritetime
		if strings.EqualFold(t.text, "ttl") {
			sel.Kind = SelectTTL
		}
		id, err := p.ident("a column name")
		if err != nil {
			return sel, err
		}
		sel.Column = id
		if err := p.expectSymbol(")"); err != nil {
			return sel, err
		}
	case fn && strings.EqualFold(t.text, "count"):
		p.next()
		p.next()
		sel.Kind = SelectCount
		a := p.peek()
		switch {
		case p.acceptSymbol("*"):
			sel.CountArg = "*"
		case a.kind == tokInteger && a.text == "1":
			p.next()
			sel.CountArg = "1"
		default:
			return sel, p.errorf(a, "only count(*) and count(1) are supported")
		}
		if err := p.expectSymbol(")"); err != nil {
			return sel, err
		}
	case fn:
		return sel, p.errorf(t, "the function %s() is not supported in a selection (only writetime, ttl and count)", t.text)
	case p.isKeyword("from"):
		return sel, p.errorf(t, "expected a column name, writetime(), ttl() or count()")
	default:
		id, err := p.ident("a column name, writetime(), ttl() or count()")
		if err != nil {
			return sel, err
		}
		sel.Column = id
	}
	if p.acceptKeyword("as") {
		if p.isKeyword("from") {
			return sel, p.errorf(p.peek(), "expected an alias")
		}
		id, err := p.ident("an alias")
		if err != nil {
			return sel, err
		}
		sel.Alias = id.Name
	}
	return sel, nil
}

// selectRelation parses one relation of a SELECT's WHERE clause.
func (p *parser) selectRelation() (Relation, error) {
	start := p.peek()
	r := Relation{Pos: pos(start)}
	switch {
	case p.isKeyword("token") && p.peekAt(1).kind == tokSymbol && p.peekAt(1).text == "(":
		p.next()
		p.next()
		r.Token = true
		for {
			id, err := p.ident("a partition key column")
			if err != nil {
				return r, err
			}
			r.Columns = append(r.Columns, id)
			if !p.acceptSymbol(",") {
				break
			}
		}
		if err := p.expectSymbol(")"); err != nil {
			return r, err
		}
	case p.acceptSymbol("("):
		for {
			id, err := p.ident("a column name")
			if err != nil {
				return r, err
			}
			r.Columns = append(r.Columns, id)
			if !p.acceptSymbol(",") {
				break
			}
		}
		if err := p.expectSymbol(")"); err != nil {
			return r, err
		}
	default:
		id, err := p.ident("a column name")
		if err != nil {
			return r, err
		}
		r.Columns = []Ident{id}
	}
	opTok := p.peek()
	switch {
	case opTok.kind == tokSymbol && (opTok.text == "=" || opTok.text == "<" || opTok.text == "<=" || opTok.text == ">" || opTok.text == ">=" || opTok.text == "!="):
		p.next()
		r.Op = opTok.text
	case p.acceptKeyword("in"):
		r.Op = "IN"
	case p.acceptKeyword("contains"):
		r.Op = OpContains
		if p.acceptKeyword("key") {
			r.Op = OpContainsKey
		}
	case p.isKeyword("is"), p.isKeyword("like"):
		return r, p.errorf(opTok, "%s relations are not supported", strings.ToUpper(opTok.text))
	default:
		return r, p.errorf(opTok, "expected =, !=, <, <=, >, >=, IN or CONTAINS")
	}
	if r.Token && (r.Op == "IN" || r.Op == OpContains || r.Op == OpContainsKey || r.Op == OpNotEqual) {
		return r, p.errorf(opTok, "token() relations take =, <, <=, > or >=, not %s", r.Op)
	}
	if len(r.Columns) > 1 && !r.Token && (r.Op == OpContains || r.Op == OpContainsKey || r.Op == OpNotEqual) {
		return r, p.errorf(opTok, "a multi-column relation takes =, <, <=, >, >= or IN, not %s", r.Op)
	}
	if r.Op == "IN" {
		t := p.peek()
		if err := p.expectSymbol("("); err != nil {
			return r, err
		}
		in := &Term{Kind: TermTuple, Pos: pos(t)}
		if !p.isSymbol(")") {
			for {
				e, err := p.term()
				if err != nil {
					return r, err
				}
				in.Elems = append(in.Elems, e)
				if !p.acceptSymbol(",") {
					break
				}
			}
		}
		r.Value = in
		return r, p.expectSymbol(")")
	}
	var err error
	r.Value, err = p.term()
	return r, err
}
