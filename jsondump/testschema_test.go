package jsondump

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/schema"
)

// parseTestTable builds a table from the simple CREATE TABLE statements of
// the test corpus: native types, set/list/map of native types, PRIMARY KEY
// with a composite partition key, and COMPACT STORAGE. It is a test helper
// standing in for the cql package (which owns real CQL parsing).
func parseTestTable(stmt string) (*schema.Table, error) {
	re := regexp.MustCompile(`(?is)CREATE\s+TABLE\s+(?:(\w+)\.)?(\w+)\s*\((.*)\)\s*(WITH.*)?;?\s*$`)
	m := re.FindStringSubmatch(strings.TrimSpace(stmt))
	if m == nil {
		return nil, fmt.Errorf("not a CREATE TABLE: %q", stmt)
	}
	ks, name, body, with := m[1], m[2], m[3], m[4]
	// Split the body at top-level commas.
	var parts []string
	depth, start := 0, 0
	for i, c := range body {
		switch c {
		case '(', '<':
			depth++
		case ')', '>':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(body[start:i]))
				start = i + 1
			}
		}
	}
	parts = append(parts, strings.TrimSpace(body[start:]))
	type coldef struct {
		name   string
		typ    *schema.Type
		static bool
	}
	var cols []coldef
	var pk, ckeys []string
	for _, p := range parts {
		if strings.HasPrefix(strings.ToUpper(p), "PRIMARY KEY") {
			inner := strings.TrimSpace(p[len("PRIMARY KEY"):])
			inner = strings.TrimSpace(inner[1 : len(inner)-1]) // strip the outer parentheses
			if strings.HasPrefix(inner, "(") {
				end := strings.Index(inner, ")")
				for _, k := range strings.Split(inner[1:end], ",") {
					pk = append(pk, strings.ToLower(strings.TrimSpace(k)))
				}
				inner = inner[end+1:]
			} else {
				first, rest, _ := strings.Cut(inner, ",")
				pk = []string{strings.ToLower(strings.TrimSpace(first))}
				inner = rest
			}
			for _, k := range strings.Split(inner, ",") {
				if k = strings.TrimSpace(k); k != "" {
					ckeys = append(ckeys, strings.ToLower(k))
				}
			}
			continue
		}
		fields := strings.Fields(p)
		if len(fields) < 2 {
			return nil, fmt.Errorf("bad column %q", p)
		}
		colName := strings.ToLower(fields[0])
		if strings.HasPrefix(fields[0], `"`) {
			colName = strings.Trim(fields[0], `"`)
		}
		rest := strings.Join(fields[1:], " ")
		static := false
		if strings.HasSuffix(strings.ToUpper(rest), " STATIC") {
			static = true
			rest = strings.TrimSpace(rest[:len(rest)-len(" STATIC")])
		}
		primary := false
		if strings.HasSuffix(strings.ToUpper(rest), " PRIMARY KEY") {
			primary = true
			rest = strings.TrimSpace(rest[:len(rest)-len(" PRIMARY KEY")])
		}
		typ, err := parseTestType(rest)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", colName, err)
		}
		cols = append(cols, coldef{colName, typ, static})
		if primary {
			pk = []string{colName}
		}
	}
	kindOf := map[string]schema.ColumnKind{}
	for _, k := range pk {
		kindOf[k] = schema.PartitionKey
	}
	for _, k := range ckeys {
		kindOf[k] = schema.ClusteringKey
	}
	var defs []schema.ColumnDef
	byName := map[string]coldef{}
	for _, c := range cols {
		byName[c.name] = c
	}
	// Key columns in key order, then the others in declaration order.
	for _, k := range append(append([]string(nil), pk...), ckeys...) {
		c, ok := byName[k]
		if !ok {
			return nil, fmt.Errorf("key column %s not declared", k)
		}
		defs = append(defs, schema.ColumnDef{Name: k, Type: c.typ, Kind: kindOf[k]})
	}
	for _, c := range cols {
		if _, isKey := kindOf[c.name]; isKey {
			continue
		}
		kind := schema.Regular
		if c.static {
			kind = schema.Static
		}
		defs = append(defs, schema.ColumnDef{Name: c.name, Type: c.typ, Kind: kind})
	}
	opts := schema.Options{CompactStorage: strings.Contains(strings.ToUpper(with), "COMPACT STORAGE")}
	if ks == "" {
		ks = "ks"
	}
	return schema.NewTable(ks, name, defs, opts)
}

func parseTestType(s string) (*schema.Type, error) {
	s = strings.TrimSpace(s)
	lower := strings.ToLower(s)
	if i := strings.Index(lower, "<"); i >= 0 && strings.HasSuffix(lower, ">") {
		outer, inner := lower[:i], s[i+1:len(s)-1]
		frozen := false
		if outer == "frozen" {
			t, err := parseTestType(inner)
			if err != nil {
				return nil, err
			}
			return t.Freeze(), nil
		}
		var args []*schema.Type
		depth, start := 0, 0
		for j, c := range inner {
			switch c {
			case '<':
				depth++
			case '>':
				depth--
			case ',':
				if depth == 0 {
					t, err := parseTestType(inner[start:j])
					if err != nil {
						return nil, err
					}
					args = append(args, t)
					start = j + 1
				}
			}
		}
		t, err := parseTestType(inner[start:])
		if err != nil {
			return nil, err
		}
		args = append(args, t)
		switch outer {
		case "set":
			return schema.SetOf(args[0], frozen), nil
		case "list":
			return schema.ListOf(args[0], frozen), nil
		case "map":
			if len(args) != 2 {
				return nil, fmt.Errorf("map needs two types: %q", s)
			}
			return schema.MapOf(args[0], args[1], frozen), nil
		case "tuple":
			return schema.TupleOf(args...), nil
		}
		return nil, fmt.Errorf("unknown type %q", s)
	}
	kinds := map[string]schema.Kind{
		"ascii": schema.KindAscii, "bigint": schema.KindBigint, "blob": schema.KindBlob, "boolean": schema.KindBoolean,
		"counter": schema.KindCounter, "date": schema.KindDate, "decimal": schema.KindDecimal, "double": schema.KindDouble,
		"duration": schema.KindDuration, "float": schema.KindFloat, "inet": schema.KindInet, "int": schema.KindInt,
		"smallint": schema.KindSmallint, "text": schema.KindText, "varchar": schema.KindText, "time": schema.KindTime,
		"timestamp": schema.KindTimestamp, "timeuuid": schema.KindTimeuuid, "tinyint": schema.KindTinyint,
		"uuid": schema.KindUUID, "varint": schema.KindVarint,
	}
	k, ok := kinds[lower]
	if !ok {
		return nil, fmt.Errorf("unknown type %q", s)
	}
	return schema.NativeType(k), nil
}

// corpusCase is one folder of the test corpus with its table.
type corpusCase struct {
	name, dir, json string
	table           *schema.Table
}

// mcWriteCases lists testdata/mc-write/*/ with their schema.cql parsed.
func mcWriteCases(t testing.TB) []corpusCase {
	root := testdata.Path(t, "mc-write")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusCase
	for _, d := range dirs {
		dir := filepath.Join(root, d.Name())
		cql, err := os.ReadFile(filepath.Join(dir, "schema.cql"))
		if err != nil {
			t.Fatal(err)
		}
		tb, err := parseTestTable(string(cql))
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		out = append(out, corpusCase{name: d.Name(), dir: dir, json: filepath.Join(dir, "data.json"), table: tb})
	}
	if len(out) == 0 {
		t.Fatal("no mc-write cases")
	}
	return out
}

// expectedCases lists testdata/cassandra/3.x/uncompressed/*/expected.json
// with the table from the CREATE TABLE line of their source.txt.
func expectedCases(t testing.TB) []corpusCase {
	root := testdata.Path(t, "cassandra", "3.x", "uncompressed")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusCase
	for _, d := range dirs {
		dir := filepath.Join(root, d.Name())
		src, err := os.ReadFile(filepath.Join(dir, "source.txt"))
		if err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "expected.json")); err != nil {
			continue
		}
		var stmt string
		for _, line := range strings.Split(string(src), "\n") {
			if s, ok := strings.CutPrefix(line, "cql: "); ok && strings.Contains(strings.ToUpper(s), "CREATE TABLE") {
				stmt = s
			}
		}
		tb, err := parseTestTable(stmt)
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		out = append(out, corpusCase{name: d.Name(), dir: dir, json: filepath.Join(dir, "expected.json"), table: tb})
	}
	if len(out) != 8 {
		t.Fatalf("found %d expected.json cases, want 8", len(out))
	}
	return out
}
