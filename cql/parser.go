package cql

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseStatements parses a sequence of CQL statements separated by ';'.
// It checks syntax only; Schema.Apply and Builder give them meaning. A
// BATCH is flattened into its statements (the batch's USING TIMESTAMP
// applies to statements that have none).
func ParseStatements(src string) ([]Statement, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, src: src}
	var out []Statement
	for {
		for p.acceptSymbol(";") {
		}
		if p.peek().kind == tokEOF {
			return out, nil
		}
		stmts, err := p.statement()
		if err != nil {
			return nil, err
		}
		out = append(out, stmts...)
		if !p.acceptSymbol(";") && p.peek().kind != tokEOF {
			return nil, p.errorf(p.peek(), "expected ';' or the end of input")
		}
	}
}

// ParseStatement parses exactly one CQL statement (a trailing ';' is
// optional).
func ParseStatement(src string) (Statement, error) {
	stmts, err := ParseStatements(src)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, &SyntaxError{Line: 1, Column: 1, Msg: fmt.Sprintf("expected one statement, got %d", len(stmts))}
	}
	return stmts[0], nil
}

type parser struct {
	toks []token
	p    int
	src  string
}

func (p *parser) peek() token { return p.toks[p.p] }

func (p *parser) peekAt(n int) token {
	if p.p+n < len(p.toks) {
		return p.toks[p.p+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.p]
	if t.kind != tokEOF {
		p.p++
	}
	return t
}

func pos(t token) Pos { return Pos{Line: t.line, Column: t.col} }

func (p *parser) errorf(t token, format string, args ...any) error {
	near := p.src[t.start:]
	if len(near) > 24 {
		near = near[:24]
	}
	if t.kind == tokEOF {
		near = ""
		format += " at the end of input"
	}
	return &SyntaxError{Line: t.line, Column: t.col, Msg: fmt.Sprintf(format, args...), Near: near}
}

func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) acceptKeyword(kw string) bool {
	if p.isKeyword(kw) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expectKeyword(kws ...string) error {
	for _, kw := range kws {
		if !p.acceptKeyword(kw) {
			return p.errorf(p.peek(), "expected %s", strings.ToUpper(kw))
		}
	}
	return nil
}

func (p *parser) isSymbol(s string) bool {
	t := p.peek()
	return t.kind == tokSymbol && t.text == s
}

func (p *parser) acceptSymbol(s string) bool {
	if p.isSymbol(s) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expectSymbol(s string) error {
	if !p.acceptSymbol(s) {
		return p.errorf(p.peek(), "expected '%s'", s)
	}
	return nil
}

// ident reads an identifier: unquoted ones are lower-cased, quoted ones
// keep their case.
func (p *parser) ident(what string) (Ident, error) {
	t := p.peek()
	switch t.kind {
	case tokIdent:
		p.next()
		return Ident{Name: strings.ToLower(t.text), Pos: pos(t)}, nil
	case tokQuoted:
		p.next()
		return Ident{Name: t.text, Pos: pos(t)}, nil
	}
	return Ident{}, p.errorf(t, "expected %s", what)
}

// name reads [keyspace.]name.
func (p *parser) name(what string) (Name, error) {
	first, err := p.ident(what)
	if err != nil {
		return Name{}, err
	}
	if p.acceptSymbol(".") {
		second, err := p.ident(what)
		if err != nil {
			return Name{}, err
		}
		return Name{Keyspace: first.Name, Name: second.Name, Pos: first.Pos}, nil
	}
	return Name{Name: first.Name, Pos: first.Pos}, nil
}

func (p *parser) statement() ([]Statement, error) {
	t := p.peek()
	switch {
	case p.acceptKeyword("create"):
		s, err := p.create(t)
		if err != nil {
			return nil, err
		}
		return []Statement{s}, nil
	case p.acceptKeyword("use"):
		ks, err := p.ident("a keyspace name")
		if err != nil {
			return nil, err
		}
		return []Statement{&Use{Keyspace: ks.Name, Pos: pos(t)}}, nil
	case p.acceptKeyword("insert"):
		s, err := p.insert(t)
		return one(s, err)
	case p.acceptKeyword("update"):
		s, err := p.update(t)
		return one(s, err)
	case p.acceptKeyword("delete"):
		s, err := p.delete(t)
		return one(s, err)
	case p.acceptKeyword("begin"):
		return p.batch(t)
	}
	return nil, p.errorf(t, "expected CREATE, USE, INSERT, UPDATE, DELETE or BEGIN BATCH")
}

func one[S Statement](s S, err error) ([]Statement, error) {
	if err != nil {
		return nil, err
	}
	return []Statement{s}, nil
}

func (p *parser) batch(begin token) ([]Statement, error) {
	p.acceptKeyword("unlogged")
	p.acceptKeyword("counter")
	p.acceptKeyword("logged")
	if err := p.expectKeyword("batch"); err != nil {
		return nil, err
	}
	var batchUsing Using
	if p.isKeyword("using") {
		u, err := p.using(true)
		if err != nil {
			return nil, err
		}
		if u.HasTTL {
			return nil, p.errorf(begin, "a BATCH cannot have USING TTL")
		}
		batchUsing = u
	}
	var out []Statement
	for {
		for p.acceptSymbol(";") {
		}
		if p.acceptKeyword("apply") {
			if err := p.expectKeyword("batch"); err != nil {
				return nil, err
			}
			return out, nil
		}
		if p.peek().kind == tokEOF {
			return nil, p.errorf(p.peek(), "expected APPLY BATCH")
		}
		t := p.peek()
		var s Statement
		var u *Using
		switch {
		case p.acceptKeyword("insert"):
			ins, err := p.insert(t)
			if err != nil {
				return nil, err
			}
			s, u = ins, &ins.Using
		case p.acceptKeyword("update"):
			up, err := p.update(t)
			if err != nil {
				return nil, err
			}
			s, u = up, &up.Using
		case p.acceptKeyword("delete"):
			del, err := p.delete(t)
			if err != nil {
				return nil, err
			}
			s, u = del, &del.Using
		default:
			return nil, p.errorf(t, "expected INSERT, UPDATE, DELETE or APPLY BATCH")
		}
		if batchUsing.HasTimestamp {
			if u.HasTimestamp {
				return nil, p.errorf(t, "a statement in a BATCH with USING TIMESTAMP cannot have its own timestamp")
			}
			u.Timestamp, u.HasTimestamp = batchUsing.Timestamp, true
		}
		out = append(out, s)
	}
}

func (p *parser) ifNotExists() (bool, error) {
	if !p.isKeyword("if") {
		return false, nil
	}
	p.next()
	if err := p.expectKeyword("not", "exists"); err != nil {
		return false, err
	}
	return true, nil
}

func (p *parser) create(createTok token) (Statement, error) {
	switch {
	case p.acceptKeyword("table"), p.acceptKeyword("columnfamily"):
		return p.createTable(createTok)
	case p.acceptKeyword("type"):
		return p.createType(createTok)
	case p.acceptKeyword("keyspace"), p.acceptKeyword("schema"):
		if _, err := p.ifNotExists(); err != nil {
			return nil, err
		}
		ks, err := p.ident("a keyspace name")
		if err != nil {
			return nil, err
		}
		// The replication options do not matter offline: skip them.
		for p.peek().kind != tokEOF && !p.isSymbol(";") {
			p.next()
		}
		return &CreateKeyspace{Keyspace: ks.Name, Pos: pos(createTok)}, nil
	}
	return nil, p.errorf(p.peek(), "expected TABLE, TYPE or KEYSPACE after CREATE")
}

// typeText reads the tokens of a CQL type and returns their source text:
// a 'custom' class string, or [ks.]name with balanced <...> parameters.
func (p *parser) typeText() (string, Pos, error) {
	first := p.peek()
	if first.kind == tokString {
		p.next()
		return p.src[first.start:first.end], pos(first), nil
	}
	if first.kind != tokIdent && first.kind != tokQuoted {
		return "", Pos{}, p.errorf(first, "expected a type")
	}
	last := p.next()
	if p.isSymbol(".") && (p.peekAt(1).kind == tokIdent || p.peekAt(1).kind == tokQuoted) {
		p.next()
		last = p.next()
	}
	if p.isSymbol("<") {
		depth := 0
		for {
			t := p.next()
			switch {
			case t.kind == tokEOF:
				return "", Pos{}, p.errorf(t, "unterminated type parameters")
			case t.kind == tokSymbol && t.text == "<":
				depth++
			case t.kind == tokSymbol && t.text == ">":
				depth--
			case t.kind == tokSymbol && t.text != "," && t.text != ".":
				return "", Pos{}, p.errorf(t, "unexpected '%s' in a type", t.text)
			}
			last = t
			if depth == 0 {
				break
			}
		}
	}
	return p.src[first.start:last.end], pos(first), nil
}

func (p *parser) createTable(createTok token) (*CreateTable, error) {
	ct := &CreateTable{Pos: pos(createTok), ClusteringOrder: map[string]bool{}, Options: map[string]OptionValue{}}
	var err error
	if ct.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	if ct.Table, err = p.name("a table name"); err != nil {
		return nil, err
	}
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	pkDeclared := false
	for {
		if p.isKeyword("primary") && p.peekAt(1).kind == tokIdent && strings.EqualFold(p.peekAt(1).text, "key") {
			t := p.next()
			p.next()
			if pkDeclared {
				return nil, p.errorf(t, "PRIMARY KEY declared twice")
			}
			pkDeclared = true
			if err := p.primaryKey(ct); err != nil {
				return nil, err
			}
		} else {
			col, err := p.ident("a column name")
			if err != nil {
				return nil, err
			}
			typ, typPos, err := p.typeText()
			if err != nil {
				return nil, err
			}
			d := ColumnDecl{Name: col.Name, Type: typ, TypePos: typPos, Pos: col.Pos}
			for {
				if p.acceptKeyword("static") {
					d.Static = true
					continue
				}
				if p.isKeyword("primary") {
					t := p.next()
					if err := p.expectKeyword("key"); err != nil {
						return nil, err
					}
					if pkDeclared {
						return nil, p.errorf(t, "PRIMARY KEY declared twice")
					}
					pkDeclared = true
					d.PrimaryKey = true
					ct.PartitionKey = []string{col.Name}
					continue
				}
				break
			}
			ct.Columns = append(ct.Columns, d)
		}
		if p.acceptSymbol(",") {
			if p.isSymbol(")") { // tolerate a trailing comma
				break
			}
			continue
		}
		break
	}
	if err := p.expectSymbol(")"); err != nil {
		return nil, err
	}
	if !pkDeclared {
		return nil, p.errorf(createTok, "table %s has no PRIMARY KEY", ct.Table)
	}
	if p.acceptKeyword("with") {
		for {
			if err := p.tableOption(ct); err != nil {
				return nil, err
			}
			if !p.acceptKeyword("and") {
				break
			}
		}
	}
	return ct, nil
}

// primaryKey parses the (...) of PRIMARY KEY.
func (p *parser) primaryKey(ct *CreateTable) error {
	if err := p.expectSymbol("("); err != nil {
		return err
	}
	if p.acceptSymbol("(") {
		for {
			id, err := p.ident("a partition key column")
			if err != nil {
				return err
			}
			ct.PartitionKey = append(ct.PartitionKey, id.Name)
			if !p.acceptSymbol(",") {
				break
			}
		}
		if err := p.expectSymbol(")"); err != nil {
			return err
		}
	} else {
		id, err := p.ident("a partition key column")
		if err != nil {
			return err
		}
		ct.PartitionKey = []string{id.Name}
	}
	for p.acceptSymbol(",") {
		id, err := p.ident("a clustering column")
		if err != nil {
			return err
		}
		ct.Clustering = append(ct.Clustering, id.Name)
	}
	return p.expectSymbol(")")
}

func (p *parser) tableOption(ct *CreateTable) error {
	t := p.peek()
	switch {
	case p.isKeyword("clustering") && strings.EqualFold(p.peekAt(1).text, "order"):
		p.next()
		p.next()
		if err := p.expectKeyword("by"); err != nil {
			return err
		}
		if err := p.expectSymbol("("); err != nil {
			return err
		}
		for {
			id, err := p.ident("a clustering column")
			if err != nil {
				return err
			}
			desc := false
			if p.acceptKeyword("desc") {
				desc = true
			} else {
				p.acceptKeyword("asc")
			}
			if _, dup := ct.ClusteringOrder[id.Name]; dup {
				return p.errorf(t, "clustering order of %s given twice", id.Name)
			}
			ct.ClusteringOrder[id.Name] = desc
			if !p.acceptSymbol(",") {
				break
			}
		}
		return p.expectSymbol(")")
	case p.isKeyword("compact") && strings.EqualFold(p.peekAt(1).text, "storage"):
		p.next()
		p.next()
		ct.CompactStorage = true
		return nil
	}
	id, err := p.ident("a table option")
	if err != nil {
		return err
	}
	if err := p.expectSymbol("="); err != nil {
		return err
	}
	v, err := p.optionValue()
	if err != nil {
		return err
	}
	if _, dup := ct.Options[id.Name]; dup {
		return p.errorf(t, "option %s given twice", id.Name)
	}
	ct.Options[id.Name] = v
	return nil
}

// optionValue parses a constant or a map literal of constants.
func (p *parser) optionValue() (OptionValue, error) {
	t := p.peek()
	if p.acceptSymbol("{") {
		v := OptionValue{IsMap: true, Map: map[string]string{}, Pos: pos(t)}
		if p.acceptSymbol("}") {
			return v, nil
		}
		for {
			kt := p.peek()
			k, err := p.constant()
			if err != nil {
				return v, err
			}
			if err := p.expectSymbol(":"); err != nil {
				return v, err
			}
			val, err := p.constant()
			if err != nil {
				return v, err
			}
			if _, dup := v.Map[k]; dup {
				return v, p.errorf(kt, "key %q given twice", k)
			}
			v.Map[k] = val
			if !p.acceptSymbol(",") {
				break
			}
		}
		return v, p.expectSymbol("}")
	}
	c, err := p.constant()
	return OptionValue{Text: c, Pos: pos(t)}, err
}

// constant reads a string, number or boolean constant and returns its text.
func (p *parser) constant() (string, error) {
	t := p.peek()
	switch t.kind {
	case tokString, tokInteger, tokFloat:
		p.next()
		return t.text, nil
	case tokIdent:
		switch strings.ToLower(t.text) {
		case "true", "false", "nan", "infinity":
			p.next()
			return strings.ToLower(t.text), nil
		}
	case tokSymbol:
		if t.text == "-" && p.peekAt(1).kind == tokIdent && strings.EqualFold(p.peekAt(1).text, "infinity") {
			p.next()
			p.next()
			return "-infinity", nil
		}
	}
	return "", p.errorf(t, "expected a constant")
}

func (p *parser) createType(createTok token) (*CreateType, error) {
	ct := &CreateType{Pos: pos(createTok)}
	var err error
	if ct.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	if ct.Type, err = p.name("a type name"); err != nil {
		return nil, err
	}
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	for {
		f, err := p.ident("a field name")
		if err != nil {
			return nil, err
		}
		typ, _, err := p.typeText()
		if err != nil {
			return nil, err
		}
		ct.FieldNames = append(ct.FieldNames, f.Name)
		ct.FieldTypes = append(ct.FieldTypes, typ)
		ct.FieldPos = append(ct.FieldPos, f.Pos)
		if !p.acceptSymbol(",") {
			break
		}
	}
	return ct, p.expectSymbol(")")
}

// using parses USING (TIMESTAMP n | TTL n) (AND ...)*; timestampOnly
// rejects TTL (DELETE).
func (p *parser) using(allowTTL bool) (Using, error) {
	var u Using
	if err := p.expectKeyword("using"); err != nil {
		return u, err
	}
	for {
		t := p.peek()
		switch {
		case p.acceptKeyword("timestamp"):
			n, err := p.integer(64)
			if err != nil {
				return u, err
			}
			if u.HasTimestamp {
				return u, p.errorf(t, "TIMESTAMP given twice")
			}
			u.Timestamp, u.HasTimestamp = n, true
		case p.acceptKeyword("ttl"):
			if !allowTTL {
				return u, p.errorf(t, "TTL is not allowed here")
			}
			n, err := p.integer(32)
			if err != nil {
				return u, err
			}
			if n < 0 {
				return u, p.errorf(t, "a TTL cannot be negative")
			}
			if n > maxTTL {
				return u, p.errorf(t, "TTL %d exceeds the maximum of %d seconds (20 years)", n, maxTTL)
			}
			if u.HasTTL {
				return u, p.errorf(t, "TTL given twice")
			}
			u.TTL, u.HasTTL = int32(n), true
		default:
			return u, p.errorf(t, "expected TIMESTAMP or TTL")
		}
		if !p.acceptKeyword("and") {
			return u, nil
		}
	}
}

// maxTTL is Cassandra's Attributes.MAX_TTL (20 years).
const maxTTL = 20 * 365 * 24 * 60 * 60

func (p *parser) integer(bits int) (int64, error) {
	t := p.peek()
	if t.kind != tokInteger {
		return 0, p.errorf(t, "expected an integer")
	}
	p.next()
	n, err := strconv.ParseInt(t.text, 10, bits)
	if err != nil {
		return 0, p.errorf(t, "integer %s out of range", t.text)
	}
	return n, nil
}

func (p *parser) rejectConditions() error {
	if p.isKeyword("if") {
		return p.errorf(p.peek(), "conditional statements (IF ...) need a read and are not supported offline")
	}
	return nil
}

func (p *parser) insert(insTok token) (*Insert, error) {
	ins := &Insert{Pos: pos(insTok)}
	if err := p.expectKeyword("into"); err != nil {
		return nil, err
	}
	var err error
	if ins.Table, err = p.name("a table name"); err != nil {
		return nil, err
	}
	if p.isKeyword("json") {
		return nil, p.errorf(p.peek(), "INSERT JSON is not supported; use the jsondump loader")
	}
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	for {
		id, err := p.ident("a column name")
		if err != nil {
			return nil, err
		}
		ins.Columns = append(ins.Columns, id)
		if !p.acceptSymbol(",") {
			break
		}
	}
	if err := p.expectSymbol(")"); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("values"); err != nil {
		return nil, err
	}
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	for {
		term, err := p.term()
		if err != nil {
			return nil, err
		}
		ins.Values = append(ins.Values, term)
		if !p.acceptSymbol(",") {
			break
		}
	}
	if err := p.expectSymbol(")"); err != nil {
		return nil, err
	}
	if len(ins.Values) != len(ins.Columns) {
		return nil, p.errorf(insTok, "%d columns but %d values", len(ins.Columns), len(ins.Values))
	}
	if err := p.rejectConditions(); err != nil {
		return nil, err
	}
	if p.isKeyword("using") {
		if ins.Using, err = p.using(true); err != nil {
			return nil, err
		}
	}
	return ins, p.rejectConditions()
}

func (p *parser) update(upTok token) (*Update, error) {
	up := &Update{Pos: pos(upTok)}
	var err error
	if up.Table, err = p.name("a table name"); err != nil {
		return nil, err
	}
	if p.isKeyword("using") {
		if up.Using, err = p.using(true); err != nil {
			return nil, err
		}
	}
	if err := p.expectKeyword("set"); err != nil {
		return nil, err
	}
	for {
		a, err := p.assignment()
		if err != nil {
			return nil, err
		}
		up.Assignments = append(up.Assignments, a)
		if !p.acceptSymbol(",") {
			break
		}
	}
	if up.Where, err = p.where(); err != nil {
		return nil, err
	}
	return up, p.rejectConditions()
}

// sameColumn reports whether token t names column col.
func sameColumn(t token, col string) bool {
	switch t.kind {
	case tokIdent:
		return strings.ToLower(t.text) == col
	case tokQuoted:
		return t.text == col
	}
	return false
}

func (p *parser) assignment() (Assignment, error) {
	start := p.peek()
	col, err := p.ident("a column name")
	if err != nil {
		return Assignment{}, err
	}
	a := Assignment{Column: col, Op: OpSet, Pos: pos(start)}
	switch {
	case p.acceptSymbol("["):
		if a.Key, err = p.term(); err != nil {
			return a, err
		}
		if err := p.expectSymbol("]"); err != nil {
			return a, err
		}
		a.Op = OpSetElem
	case p.acceptSymbol("."):
		f, err := p.ident("a field name")
		if err != nil {
			return a, err
		}
		a.Op, a.Field = OpSetField, f.Name
	}
	if err := p.expectSymbol("="); err != nil {
		return a, err
	}
	if a.Op == OpSet && sameColumn(p.peek(), col.Name) {
		after := p.peekAt(1)
		switch {
		case after.kind == tokSymbol && (after.text == "+" || after.text == "-"):
			p.next()
			p.next()
			a.Op = OpAdd
			if after.text == "-" {
				a.Op = OpSubtract
			}
			a.Value, err = p.term()
			return a, err
		case (after.kind == tokInteger || after.kind == tokFloat) && strings.HasPrefix(after.text, "-"):
			// "c = c -5": the lexer read "-5" as one number.
			p.next()
			a.Op = OpSubtract
			a.Value, err = p.term()
			if err == nil {
				a.Value.Text = strings.TrimPrefix(a.Value.Text, "-")
			}
			return a, err
		}
	}
	if a.Value, err = p.term(); err != nil {
		return a, err
	}
	if a.Op == OpSet && p.isSymbol("+") && sameColumn(p.peekAt(1), col.Name) {
		p.next()
		p.next()
		a.Op = OpPrepend
	}
	return a, nil
}

func (p *parser) delete(delTok token) (*Delete, error) {
	del := &Delete{Pos: pos(delTok)}
	if !p.isKeyword("from") {
		for {
			start := p.peek()
			col, err := p.ident("a column name or FROM")
			if err != nil {
				return nil, err
			}
			s := Selection{Column: col, Pos: pos(start)}
			switch {
			case p.acceptSymbol("["):
				if s.Key, err = p.term(); err != nil {
					return nil, err
				}
				if err := p.expectSymbol("]"); err != nil {
					return nil, err
				}
			case p.acceptSymbol("."):
				f, err := p.ident("a field name")
				if err != nil {
					return nil, err
				}
				s.Field = f.Name
			}
			del.Selections = append(del.Selections, s)
			if !p.acceptSymbol(",") {
				break
			}
		}
	}
	if err := p.expectKeyword("from"); err != nil {
		return nil, err
	}
	var err error
	if del.Table, err = p.name("a table name"); err != nil {
		return nil, err
	}
	if p.isKeyword("using") {
		if del.Using, err = p.using(false); err != nil {
			return nil, err
		}
	}
	if del.Where, err = p.where(); err != nil {
		return nil, err
	}
	return del, p.rejectConditions()
}

func (p *parser) where() ([]Relation, error) {
	if err := p.expectKeyword("where"); err != nil {
		return nil, err
	}
	var rels []Relation
	for {
		r, err := p.relation()
		if err != nil {
			return nil, err
		}
		rels = append(rels, r)
		if !p.acceptKeyword("and") {
			return rels, nil
		}
	}
}

func (p *parser) relation() (Relation, error) {
	start := p.peek()
	r := Relation{Pos: pos(start)}
	if p.isKeyword("token") && p.peekAt(1).kind == tokSymbol && p.peekAt(1).text == "(" {
		return r, p.errorf(start, "token() restrictions select many partitions; a statement must name one partition")
	}
	if p.acceptSymbol("(") {
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
	} else {
		id, err := p.ident("a column name")
		if err != nil {
			return r, err
		}
		r.Columns = []Ident{id}
	}
	opTok := p.peek()
	switch {
	case opTok.kind == tokSymbol && (opTok.text == "=" || opTok.text == "<" || opTok.text == "<=" || opTok.text == ">" || opTok.text == ">="):
		p.next()
		r.Op = opTok.text
	case p.acceptKeyword("in"):
		r.Op = "IN"
	default:
		return r, p.errorf(opTok, "expected =, <, <=, >, >= or IN")
	}
	var err error
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
	r.Value, err = p.term()
	return r, err
}

// term parses a literal.
func (p *parser) term() (*Term, error) {
	t := p.peek()
	tp := pos(t)
	switch t.kind {
	case tokString:
		p.next()
		return &Term{Kind: TermString, Text: t.text, Pos: tp}, nil
	case tokInteger:
		p.next()
		return &Term{Kind: TermInteger, Text: t.text, Pos: tp}, nil
	case tokFloat:
		p.next()
		return &Term{Kind: TermFloat, Text: t.text, Pos: tp}, nil
	case tokHex:
		p.next()
		return &Term{Kind: TermHex, Text: t.text, Pos: tp}, nil
	case tokUUID:
		p.next()
		return &Term{Kind: TermUUID, Text: t.text, Pos: tp}, nil
	case tokDuration:
		p.next()
		return &Term{Kind: TermDuration, Text: t.text, Pos: tp}, nil
	case tokIdent:
		lower := strings.ToLower(t.text)
		switch lower {
		case "true", "false":
			p.next()
			return &Term{Kind: TermBoolean, Text: lower, Pos: tp}, nil
		case "null":
			p.next()
			return &Term{Kind: TermNull, Pos: tp}, nil
		case "nan":
			p.next()
			return &Term{Kind: TermFloat, Text: "NaN", Pos: tp}, nil
		case "infinity":
			p.next()
			return &Term{Kind: TermFloat, Text: "Infinity", Pos: tp}, nil
		}
		if p.peekAt(1).kind == tokSymbol && p.peekAt(1).text == "(" {
			p.next()
			p.next()
			fn := &Term{Kind: TermFunction, Text: lower, Pos: tp}
			if !p.isSymbol(")") {
				for {
					arg, err := p.term()
					if err != nil {
						return nil, err
					}
					fn.Elems = append(fn.Elems, arg)
					if !p.acceptSymbol(",") {
						break
					}
				}
			}
			return fn, p.expectSymbol(")")
		}
		p.next()
		return &Term{Kind: TermIdent, Text: lower, Pos: tp}, nil
	case tokQuoted:
		p.next()
		return &Term{Kind: TermIdent, Text: t.text, Pos: tp}, nil
	case tokSymbol:
		switch t.text {
		case "-":
			if next := p.peekAt(1); next.kind == tokDuration && !strings.HasPrefix(next.text, "-") {
				p.next()
				p.next()
				return &Term{Kind: TermDuration, Text: "-" + next.text, Pos: tp}, nil
			}
			if p.peekAt(1).kind == tokIdent {
				switch strings.ToLower(p.peekAt(1).text) {
				case "infinity":
					p.next()
					p.next()
					return &Term{Kind: TermFloat, Text: "-Infinity", Pos: tp}, nil
				case "nan":
					p.next()
					p.next()
					return &Term{Kind: TermFloat, Text: "NaN", Pos: tp}, nil
				}
			}
		case "[":
			p.next()
			return p.elements(&Term{Kind: TermList, Pos: tp}, "]")
		case "(":
			p.next()
			return p.elements(&Term{Kind: TermTuple, Pos: tp}, ")")
		case "{":
			p.next()
			return p.braces(tp)
		case "?", ":":
			return nil, p.errorf(t, "bind markers are not supported")
		}
	}
	return nil, p.errorf(t, "expected a value")
}

// elements parses "a, b, ...)" after the opening bracket.
func (p *parser) elements(term *Term, closing string) (*Term, error) {
	if p.acceptSymbol(closing) {
		return term, nil
	}
	for {
		e, err := p.term()
		if err != nil {
			return nil, err
		}
		term.Elems = append(term.Elems, e)
		if !p.acceptSymbol(",") {
			break
		}
	}
	return term, p.expectSymbol(closing)
}

// braces parses a set, map or UDT literal after '{'.
func (p *parser) braces(tp Pos) (*Term, error) {
	if p.acceptSymbol("}") {
		return &Term{Kind: TermSet, Pos: tp}, nil
	}
	first, err := p.term()
	if err != nil {
		return nil, err
	}
	if !p.acceptSymbol(":") {
		set := &Term{Kind: TermSet, Elems: []*Term{first}, Pos: tp}
		for p.acceptSymbol(",") {
			e, err := p.term()
			if err != nil {
				return nil, err
			}
			set.Elems = append(set.Elems, e)
		}
		return set, p.expectSymbol("}")
	}
	m := &Term{Kind: TermMap, Pos: tp}
	key := first
	for {
		v, err := p.term()
		if err != nil {
			return nil, err
		}
		m.Keys = append(m.Keys, key)
		m.Elems = append(m.Elems, v)
		if !p.acceptSymbol(",") {
			break
		}
		if key, err = p.term(); err != nil {
			return nil, err
		}
		if err := p.expectSymbol(":"); err != nil {
			return nil, err
		}
	}
	return m, p.expectSymbol("}")
}
