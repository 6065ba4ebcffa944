package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/schema"
)

// maxSchemaFile bounds the size of a schema file read into memory.
const maxSchemaFile = 16 << 20

// loadSchema parses a CQL schema file (CREATE TYPE / CREATE TABLE
// statements, as cqlsh DESCRIBE prints them) and returns the parsed schema.
func loadSchema(path string) (*cql.Schema, error) {
	return loadSchemaTypes(path, schema.TypeOptions{})
}

// loadSchemaTypes is loadSchema parsing types with the given options.
func loadSchemaTypes(path string, types schema.TypeOptions) (*cql.Schema, error) {
	src, err := readSmallFile(path, maxSchemaFile)
	if err != nil {
		return nil, err
	}
	s, err := cql.ParseSchemaOptions(string(src), types)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", path, err)
	}
	return s, nil
}

// pickTable returns the table named name ("table" or "keyspace.table") of
// s, or its only table when name is empty.
func pickTable(s *cql.Schema, path, name string) (*schema.Table, error) {
	if name != "" {
		t := s.Table(name)
		if t == nil {
			return nil, Usagef("schema %s: no table %q (it declares %s)", path, name, tableNames(s))
		}
		return t, nil
	}
	switch len(s.Tables) {
	case 0:
		return nil, Usagef("schema %s: declares no table (want a CREATE TABLE statement)", path)
	case 1:
		return s.Tables[0], nil
	}
	return nil, Usagef("schema %s: declares %d tables (%s); choose one with --table", path, len(s.Tables), tableNames(s))
}

func tableNames(s *cql.Schema) string {
	names := make([]string, len(s.Tables))
	for i, t := range s.Tables {
		names[i] = t.Keyspace + "." + t.Name
	}
	return strings.Join(names, ", ")
}

// loadTable loads the table of a --schema/--table pair; it returns nil
// when no schema file is given.
func loadTable(path, name string) (*schema.Table, error) {
	return loadTableTypes(path, name, false)
}

// loadTableTypes is loadTable, with a custom class castable does not know
// read as opaque bytes when opaque is set.
func loadTableTypes(path, name string, opaque bool) (*schema.Table, error) {
	if path == "" {
		if name != "" {
			return nil, Usagef("--table needs --schema")
		}
		return nil, nil
	}
	s, err := loadSchemaTypes(path, schema.TypeOptions{OpaqueUnknownTypes: opaque})
	if err != nil {
		return nil, err
	}
	return pickTable(s, path, name)
}

// readSmallFile reads a file ("-" is not accepted) that must fit in limit
// bytes.
func readSmallFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d this file may have", path, st.Size(), limit)
	}
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// setPartitioner makes every table of s use the partitioner name (short or
// full class name; "" leaves the tables' own, Murmur3 by default): a
// cluster orders all its tables with one.
func setPartitioner(s *cql.Schema, name string) error {
	if name == "" {
		return nil
	}
	p, err := dht.Lookup(name)
	if err != nil {
		return Usagef("--partitioner: %v", err)
	}
	for _, t := range s.Tables {
		t.Options.Partitioner = p.Name()
	}
	return nil
}
