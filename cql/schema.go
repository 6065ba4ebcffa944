package cql

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/castable-db/castable/schema"
)

// Schema is the set of user-defined types and tables declared by CQL DDL.
type Schema struct {
	// Keyspace is the current keyspace (from the last USE), used for
	// unqualified names; "" when none was set.
	Keyspace string
	// Types are the user-defined types in declaration order.
	Types []*schema.Type
	// Tables are the tables in declaration order.
	Tables []*schema.Table
	// TypeOptions are how Apply parses column and field types: by default
	// a quoted custom class castable does not know is an error (see
	// schema.TypeOptions.OpaqueUnknownTypes).
	TypeOptions schema.TypeOptions
}

// ParseSchema parses CREATE TYPE, CREATE TABLE, CREATE KEYSPACE and USE
// statements (a schema.cql file) and returns the declared types and
// tables. Other statements are an error.
func ParseSchema(src string) (*Schema, error) {
	return ParseSchemaOptions(src, schema.TypeOptions{})
}

// ParseSchemaOptions is ParseSchema with the given type parsing options.
func ParseSchemaOptions(src string, opts schema.TypeOptions) (*Schema, error) {
	stmts, err := ParseStatements(src)
	if err != nil {
		return nil, err
	}
	s := &Schema{TypeOptions: opts}
	for _, st := range stmts {
		switch st.(type) {
		case *Insert, *Update, *Delete:
			p := st.statementPos()
			return nil, &SyntaxError{Line: p.Line, Column: p.Column, Msg: "a schema holds only CREATE and USE statements"}
		}
		if err := s.Apply(st); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func semanticError(p Pos, format string, args ...any) error {
	return &SyntaxError{Line: p.Line, Column: p.Column, Msg: fmt.Sprintf(format, args...)}
}

// Apply adds a DDL statement (CreateTable, CreateType, CreateKeyspace,
// Use) to the schema. DML statements are ignored (see Builder).
func (s *Schema) Apply(st Statement) error {
	switch st := st.(type) {
	case *Use:
		s.Keyspace = st.Keyspace
	case *CreateKeyspace:
	case *CreateType:
		return s.createType(st)
	case *CreateTable:
		return s.createTable(st)
	}
	return nil
}

func (s *Schema) qualify(n Name) (ks, name string) {
	if n.Keyspace != "" {
		return n.Keyspace, n.Name
	}
	return s.Keyspace, n.Name
}

// Type returns the user-defined type "name" or "keyspace.name", or nil.
func (s *Schema) Type(name string) *schema.Type {
	ks, n, qualified := strings.Cut(name, ".")
	if !qualified {
		ks, n = "", name
	}
	var found *schema.Type
	for _, t := range s.Types {
		if t.Name != n {
			continue
		}
		if t.Keyspace == ks {
			return t
		}
		if !qualified && (ks == "" && t.Keyspace == s.Keyspace || found == nil) {
			found = t
		}
	}
	return found
}

// Table returns the table "name" or "keyspace.name", or nil. An unqualified
// name prefers the current keyspace, then the only table of that name.
func (s *Schema) Table(name string) *schema.Table {
	ks, n, qualified := strings.Cut(name, ".")
	if !qualified {
		n = name
	}
	var candidates []*schema.Table
	for _, t := range s.Tables {
		if t.Name != n {
			continue
		}
		if qualified {
			if t.Keyspace == ks {
				return t
			}
			continue
		}
		if t.Keyspace == s.Keyspace {
			return t
		}
		candidates = append(candidates, t)
	}
	if len(candidates) == 1 {
		return candidates[0]
	}
	return nil
}

func (s *Schema) tableFor(n Name) (*schema.Table, error) {
	var t *schema.Table
	if n.Keyspace != "" {
		t = s.Table(n.Keyspace + "." + n.Name)
	} else {
		t = s.Table(n.Name)
	}
	if t == nil {
		return nil, semanticError(n.Pos, "unknown table %s", n)
	}
	return t, nil
}

// udts is the resolver ParseCQLType uses: every type by name and by
// keyspace.name (the current keyspace's types win for bare names).
func (s *Schema) udts(ks string) schema.UDTs {
	m := schema.UDTs{}
	for _, t := range s.Types {
		m[t.Keyspace+"."+t.Name] = t
		if _, taken := m[t.Name]; !taken || t.Keyspace == ks {
			m[t.Name] = t
		}
	}
	return m
}

func typeError(at Pos, text string, err error) error {
	if se, ok := err.(*schema.TypeSyntaxError); ok {
		line, col := at.Line, at.Column
		for _, r := range text[:min(se.Offset, len(text))] {
			if r == '\n' {
				line++
				col = 1
			} else {
				col++
			}
		}
		return &SyntaxError{Line: line, Column: col, Msg: se.Msg, Near: text[min(se.Offset, len(text)):]}
	}
	return semanticError(at, "%v", err)
}

func (s *Schema) createType(st *CreateType) error {
	ks, name := s.qualify(st.Type)
	for _, t := range s.Types {
		if t.Keyspace == ks && t.Name == name {
			if st.IfNotExists {
				return nil
			}
			return semanticError(st.Pos, "type %s already exists", st.Type)
		}
	}
	seen := map[string]bool{}
	types := make([]*schema.Type, len(st.FieldTypes))
	for i, text := range st.FieldTypes {
		if seen[st.FieldNames[i]] {
			return semanticError(st.FieldPos[i], "field %s declared twice", st.FieldNames[i])
		}
		seen[st.FieldNames[i]] = true
		t, err := s.TypeOptions.ParseCQLFieldType(text, s.udts(ks))
		if err != nil {
			return typeError(st.FieldPos[i], text, err)
		}
		if t.Kind == schema.KindCounter {
			return semanticError(st.FieldPos[i], "a user type field cannot be a counter")
		}
		types[i] = t
	}
	s.Types = append(s.Types, schema.UDTOf(ks, name, st.FieldNames, types, false))
	return nil
}

func (s *Schema) createTable(st *CreateTable) error {
	ks, name := s.qualify(st.Table)
	for _, t := range s.Tables {
		if t.Keyspace == ks && t.Name == name {
			if st.IfNotExists {
				return nil
			}
			return semanticError(st.Pos, "table %s already exists", st.Table)
		}
	}
	kind := map[string]schema.ColumnKind{}
	for _, c := range st.PartitionKey {
		kind[c] = schema.PartitionKey
	}
	for _, c := range st.Clustering {
		if _, dup := kind[c]; dup {
			return semanticError(st.Pos, "column %s appears twice in the PRIMARY KEY", c)
		}
		kind[c] = schema.ClusteringKey
	}
	declared := map[string]ColumnDecl{}
	for _, d := range st.Columns {
		if _, dup := declared[d.Name]; dup {
			return semanticError(d.Pos, "column %s declared twice", d.Name)
		}
		declared[d.Name] = d
	}
	for c := range kind {
		if _, ok := declared[c]; !ok {
			return semanticError(st.Pos, "PRIMARY KEY column %s is not declared", c)
		}
	}
	for c := range st.ClusteringOrder {
		if kind[c] != schema.ClusteringKey {
			return semanticError(st.Pos, "CLUSTERING ORDER names %s, which is not a clustering column", c)
		}
	}
	// CLUSTERING ORDER BY must list clustering columns in their order.
	var ordered []string
	for c := range st.ClusteringOrder {
		ordered = append(ordered, c)
	}
	idx := map[string]int{}
	for i, c := range st.Clustering {
		idx[c] = i
	}
	sort.Slice(ordered, func(i, j int) bool { return idx[ordered[i]] < idx[ordered[j]] })
	for i, c := range ordered {
		if idx[c] != i {
			return semanticError(st.Pos, "CLUSTERING ORDER BY must list the clustering columns in order (from %s)", st.Clustering[0])
		}
	}

	udts := s.udts(ks)
	defs := make([]schema.ColumnDef, 0, len(st.Columns))
	add := func(d ColumnDecl, k schema.ColumnKind) error {
		t, err := s.TypeOptions.ParseCQLType(d.Type, udts)
		if err != nil {
			return typeError(d.TypePos, d.Type, err)
		}
		if k == schema.PartitionKey || k == schema.ClusteringKey {
			if d.Static {
				return semanticError(d.Pos, "primary key column %s cannot be static", d.Name)
			}
			// Key columns of a collection or UDT type are frozen
			// implicitly only when declared frozen; a non-frozen one is an
			// error.
			if t.IsComplex() {
				return semanticError(d.TypePos, "primary key column %s cannot have the non-frozen type %s", d.Name, t)
			}
		}
		if k == schema.ClusteringKey && st.ClusteringOrder[d.Name] {
			t = schema.ReversedOf(t)
		}
		if k == schema.Regular && d.Static {
			k = schema.Static
		}
		defs = append(defs, schema.ColumnDef{Name: d.Name, Type: t, Kind: k})
		return nil
	}
	for _, c := range st.PartitionKey {
		if err := add(declared[c], schema.PartitionKey); err != nil {
			return err
		}
	}
	for _, c := range st.Clustering {
		if err := add(declared[c], schema.ClusteringKey); err != nil {
			return err
		}
	}
	for _, d := range st.Columns {
		if _, isKey := kind[d.Name]; isKey {
			continue
		}
		if err := add(d, schema.Regular); err != nil {
			return err
		}
	}
	opts, err := tableOptions(st)
	if err != nil {
		return err
	}
	t, err := schema.NewTable(ks, name, defs, opts)
	if err != nil {
		return semanticError(st.Pos, "%v", err)
	}
	s.Tables = append(s.Tables, t)
	return nil
}

// tableOptions maps the WITH options that change bytes on disk; the others
// are kept as text in Options.Extra.
func tableOptions(st *CreateTable) (schema.Options, error) {
	o := schema.Options{CompactStorage: st.CompactStorage}
	for name, v := range st.Options {
		num := func(lo, hi float64) (float64, error) {
			if v.IsMap {
				return 0, semanticError(v.Pos, "option %s takes a number", name)
			}
			f, err := strconv.ParseFloat(v.Text, 64)
			if err != nil || f < lo || f > hi {
				return 0, semanticError(v.Pos, "option %s: %q is not a number in [%v, %v]", name, v.Text, lo, hi)
			}
			return f, nil
		}
		integer := func(lo int64) (int, error) {
			if v.IsMap {
				return 0, semanticError(v.Pos, "option %s takes an integer", name)
			}
			n, err := strconv.ParseInt(v.Text, 10, 32)
			if err != nil || n < lo {
				return 0, semanticError(v.Pos, "option %s: %q is not an integer >= %d", name, v.Text, lo)
			}
			return int(n), nil
		}
		var err error
		switch name {
		case "compression":
			if !v.IsMap {
				return o, semanticError(v.Pos, "option compression takes a map")
			}
			o.Compression = v.Map
		case "bloom_filter_fp_chance":
			var f float64
			if f, err = num(0, 1); err == nil {
				if f == 0 {
					// Cassandra rejects 0; keep it distinct from "default".
					err = semanticError(v.Pos, "bloom_filter_fp_chance must be > 0")
				}
				o.BloomFilterFPChance = f
			}
		case "crc_check_chance":
			var f float64
			if f, err = num(0, 1); err == nil {
				if f == 0 {
					f = schema.CRCCheckNever
				}
				o.CRCCheckChance = f
			}
		case "min_index_interval":
			o.MinIndexInterval, err = integer(1)
		case "max_index_interval":
			o.MaxIndexInterval, err = integer(1)
		case "default_time_to_live":
			var n int
			if n, err = integer(0); err == nil && n > maxTTL {
				err = semanticError(v.Pos, "default_time_to_live %d exceeds %d", n, maxTTL)
			}
			o.DefaultTimeToLive = n
		case "gc_grace_seconds":
			var n int
			n, err = integer(0)
			o.GCGraceSeconds, o.GCGraceSet = n, err == nil
		case "compaction":
			if !v.IsMap {
				err = semanticError(v.Pos, "compaction must be a map")
				break
			}
			o.Compaction = v.Map
		default:
			if o.Extra == nil {
				o.Extra = map[string]string{}
			}
			if v.IsMap {
				keys := make([]string, 0, len(v.Map))
				for k := range v.Map {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				var b strings.Builder
				b.WriteByte('{')
				for i, k := range keys {
					if i > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "'%s': '%s'", k, v.Map[k])
				}
				b.WriteByte('}')
				o.Extra[name] = b.String()
			} else {
				o.Extra[name] = v.Text
			}
		}
		if err != nil {
			return o, err
		}
	}
	if o.MinIndexInterval != 0 && o.MaxIndexInterval != 0 && o.MaxIndexInterval < o.MinIndexInterval {
		return o, semanticError(st.Pos, "max_index_interval %d is below min_index_interval %d", o.MaxIndexInterval, o.MinIndexInterval)
	}
	return o, nil
}
