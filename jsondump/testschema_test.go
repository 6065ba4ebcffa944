package jsondump

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/schema"
)

// parseTestTable parses CREATE TABLE (and CREATE TYPE) statements with the
// cql package and returns the last table declared.
func parseTestTable(stmt string) (*schema.Table, error) {
	s, err := cql.ParseSchema(stmt)
	if err != nil {
		return nil, err
	}
	if len(s.Tables) == 0 {
		return nil, fmt.Errorf("no CREATE TABLE in %q", stmt)
	}
	return s.Tables[len(s.Tables)-1], nil
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
