package cql

// Pos is a position in the CQL source: 1-based line and column.
type Pos struct{ Line, Column int }

// Name is a possibly keyspace-qualified table or type name.
type Name struct {
	Keyspace string // "" when not qualified
	Name     string
	Pos      Pos
}

// String returns keyspace.name, or name when unqualified.
func (n Name) String() string {
	if n.Keyspace == "" {
		return n.Name
	}
	return n.Keyspace + "." + n.Name
}

// Statement is a parsed CQL statement: *CreateTable, *CreateType,
// *CreateKeyspace, *Use, *Insert, *Update or *Delete.
type Statement interface {
	statementPos() Pos
}

// ColumnDecl is a column of CREATE TABLE.
type ColumnDecl struct {
	Name       string
	Type       string // CQL type text, parsed against the known UDTs
	TypePos    Pos
	Static     bool
	PrimaryKey bool // declared inline "PRIMARY KEY"
	Pos        Pos
}

// CreateTable is CREATE TABLE (or COLUMNFAMILY).
type CreateTable struct {
	Table        Name
	IfNotExists  bool
	Columns      []ColumnDecl
	PartitionKey []string // from PRIMARY KEY (...) or the inline declaration
	Clustering   []string
	// ClusteringOrder maps clustering columns to true when declared DESC.
	ClusteringOrder map[string]bool
	CompactStorage  bool
	// Options are the WITH options other than CLUSTERING ORDER and COMPACT
	// STORAGE: a constant's text, or a map literal's entries.
	Options map[string]OptionValue
	Pos     Pos
}

// OptionValue is the value of a table option.
type OptionValue struct {
	Text string            // constant text (string contents, number, boolean)
	Map  map[string]string // map literal entries, when IsMap
	// IsMap is set for map literal values such as compression = {...}.
	IsMap bool
	Pos   Pos
}

// CreateType is CREATE TYPE.
type CreateType struct {
	Type        Name
	IfNotExists bool
	FieldNames  []string
	FieldTypes  []string
	FieldPos    []Pos
	Pos         Pos
}

// CreateKeyspace is CREATE KEYSPACE; its options are not interpreted.
type CreateKeyspace struct {
	Keyspace string
	Pos      Pos
}

// Use is USE keyspace.
type Use struct {
	Keyspace string
	Pos      Pos
}

// Using holds USING TIMESTAMP / TTL.
type Using struct {
	Timestamp    int64
	HasTimestamp bool
	TTL          int32
	HasTTL       bool
}

// Insert is INSERT INTO t (cols) VALUES (terms).
type Insert struct {
	Table   Name
	Columns []Ident
	Values  []*Term
	Using   Using
	Pos     Pos
}

// Ident is a column name with its position.
type Ident struct {
	Name string
	Pos  Pos
}

// Relation is one WHERE condition: Column Op Value, or a multi-column
// relation (a, b) Op (x, y) when Columns has several entries, or (SELECT
// only) token(a, b) Op Value when Token is set.
type Relation struct {
	Columns []Ident
	Op      string // =, <, <=, >, >=, IN; SELECT also !=, CONTAINS, CONTAINS KEY
	Value   *Term  // a tuple term for multi-column relations and IN
	Token   bool
	Pos     Pos
}

// Operation kinds of an UPDATE assignment.
const (
	OpSet      = "set"      // c = v
	OpAdd      = "add"      // c = c + v
	OpPrepend  = "prepend"  // c = v + c
	OpSubtract = "subtract" // c = c - v
	OpSetElem  = "setelem"  // c[k] = v
	OpSetField = "setfield" // c.f = v
)

// Assignment is one SET clause of UPDATE.
type Assignment struct {
	Column Ident
	Op     string
	Key    *Term  // element key for OpSetElem
	Field  string // field for OpSetField
	Value  *Term
	Pos    Pos
}

// Update is UPDATE t SET ... WHERE ....
type Update struct {
	Table       Name
	Using       Using
	Assignments []Assignment
	Where       []Relation
	Pos         Pos
}

// Selection is one column of DELETE: the column, an element c[k], or a
// field c.f.
type Selection struct {
	Column Ident
	Key    *Term
	Field  string
	Pos    Pos
}

// Delete is DELETE [selections] FROM t WHERE ....
type Delete struct {
	Selections []Selection
	Table      Name
	Using      Using
	Where      []Relation
	Pos        Pos
}

func (s *CreateTable) statementPos() Pos    { return s.Pos }
func (s *CreateType) statementPos() Pos     { return s.Pos }
func (s *CreateKeyspace) statementPos() Pos { return s.Pos }
func (s *Use) statementPos() Pos            { return s.Pos }
func (s *Insert) statementPos() Pos         { return s.Pos }
func (s *Update) statementPos() Pos         { return s.Pos }
func (s *Delete) statementPos() Pos         { return s.Pos }

// TermKind classifies a literal term.
type TermKind uint8

// The kinds of literal terms.
const (
	TermNull     TermKind = iota
	TermString            // 'text'
	TermInteger           // 123, -5
	TermFloat             // 1.5, 1e3, NaN, Infinity, -Infinity
	TermBoolean           // true, false
	TermHex               // 0x...
	TermUUID              // 01234567-...
	TermDuration          // 1h4m, P1D
	TermList              // [a, b]
	TermSet               // {a, b} (also {} )
	TermMap               // {k: v}; keys may be field identifiers (UDT literal)
	TermTuple             // (a, b)
	TermFunction          // name(args)
	TermIdent             // a bare identifier (UDT field names in {f: v})
)

// Term is a literal value as written; it gets a type when it is bound to a
// column.
type Term struct {
	Kind  TermKind
	Text  string  // scalar text; function or identifier name
	Elems []*Term // list, set, tuple elements; map values; function args
	Keys  []*Term // map keys
	Pos   Pos
}
