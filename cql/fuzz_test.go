package cql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/schema"
)

// referenceCQL returns the schema.cql files and cql: lines of the
// reference data, for fuzz seeds (empty when the data is absent).
func referenceCQL() (schemas, statements []string) {
	root := testdata.Root()
	dirs, _ := filepath.Glob(filepath.Join(root, "mc-write", "*"))
	for _, dir := range dirs {
		if b, err := os.ReadFile(filepath.Join(dir, "schema.cql")); err == nil {
			schemas = append(schemas, string(b))
		}
		if b, err := os.ReadFile(filepath.Join(dir, "case.txt")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if s, ok := strings.CutPrefix(line, "cql: "); ok {
					statements = append(statements, s)
				}
			}
		}
	}
	_ = filepath.WalkDir(filepath.Join(root, "cassandra"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "source.txt" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, line := range strings.Split(string(b), "\n") {
			if s, ok := strings.CutPrefix(line, "cql: "); ok {
				if strings.HasPrefix(s, "CREATE") {
					schemas = append(schemas, s)
				} else {
					statements = append(statements, s)
				}
			}
		}
		return nil
	})
	return schemas, statements
}

func FuzzParseSchema(f *testing.F) {
	schemas, _ := referenceCQL()
	for _, s := range append(schemas, testSchema, vectorSchema, "CREATE TABLE t (a int PRIMARY KEY) WITH COMPACT STORAGE",
		"CREATE TABLE t (k int PRIMARY KEY, v frozen<list<vector<frozen<list<int>>, 2>>>)") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ParseSchema(src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, tab := range s.Tables {
			for _, c := range tab.Columns() {
				// Every column type round-trips through its marshal name
				// (to the same name: inside a frozen collection, tuple or
				// UDT a vector's element prints without FrozenType, as
				// Cassandra prints it, so only the name is kept there).
				back, err := schema.ParseMarshalName(c.Type.MarshalName())
				if err != nil || !back.Equal(c.Type) && back.MarshalName() != c.Type.MarshalName() {
					t.Fatalf("column %s: %s -> %v (%v)", c.Name, c.Type.MarshalName(), back, err)
				}
			}
			_ = tab.PartitionKeyMarshalName()
		}
	})
}

func FuzzParseStatement(f *testing.F) {
	_, stmts := referenceCQL()
	for _, s := range append(stmts,
		"INSERT INTO ks.t (pk, ck1, ck2, l, m, u) VALUES (1, 2, 'x', ['a'], {'k': 1}, {zip: 1}) USING TTL 5",
		"UPDATE ks.t SET st = st + {1}, m['a'] = 2, l = [1] + l WHERE pk = 1 AND ck1 IN (1, 2) AND ck2 = 'a'",
		"DELETE m['a'], u.zip FROM ks.t USING TIMESTAMP 5 WHERE pk = 1 AND ck1 = 2 AND ck2 = 'b'",
		"DELETE FROM ks.desc_t WHERE pk = 1 AND ck >= 3",
		"UPDATE ks.c SET n = n + 1 WHERE pk = 1 AND ck = 2",
		"BEGIN BATCH INSERT INTO ks.ttl_t (pk, v) VALUES (1, 1); APPLY BATCH",
		"INSERT INTO ks.t (pk, ck1, ck2, fl) VALUES (1, 2, 'x', [1.5, -2, 3e0]) USING TIMESTAMP 1") {
		f.Add(s)
	}
	s, err := ParseSchema(testSchema)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		stmts, err := ParseStatements(src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		b := NewBuilder(s, Options{Now: time.Unix(testNow, 0), DefaultTimestamp: testTS, CounterID: [16]byte{1}})
		for _, st := range stmts {
			if _, ok := st.(*CreateTable); ok {
				continue // keep the shared schema unchanged
			}
			if _, ok := st.(*CreateType); ok {
				continue
			}
			m, err := b.Build(st)
			if err != nil {
				if _, ok := err.(*SyntaxError); !ok {
					t.Fatalf("error of type %T: %v", err, err)
				}
				continue
			}
			if m == nil {
				continue
			}
			// What was built holds valid values.
			p := m.Partition
			for _, r := range append(p.Rows, p.Static) {
				for _, c := range r.Cells {
					typ := c.Column.Type
					if c.Path != nil {
						if err := typ.PathType().Validate(c.Path); err != nil {
							t.Fatalf("%q: path of %s: %v", src, c.Column.Name, err)
						}
						typ = typ.ElementValueType(c.Path)
					}
					if !c.IsTombstone() {
						if err := typ.Validate(c.Value); err != nil {
							t.Fatalf("%q: value of %s: %v", src, c.Column.Name, err)
						}
					}
				}
			}
		}
	})
}

func FuzzParseSelect(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM ks.t",
		"SELECT DISTINCT pk, st FROM ks.t WHERE token(pk) > -5 LIMIT 3",
		"SELECT writetime(v), ttl(v) AS x, count(*) FROM ks.t WHERE pk IN (1, 2) AND (ck1, ck2) >= (1, 'a') PER PARTITION LIMIT 2 ALLOW FILTERING",
		"SELECT a FROM t WHERE m CONTAINS KEY 'k' AND l CONTAINS 3 AND v != 4 AND (a, b) IN ((1, 2)) ORDER BY c DESC",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ParseSelect(src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if s.Star == (len(s.Selectors) > 0) {
			t.Fatalf("%q: star %v with %d selectors", src, s.Star, len(s.Selectors))
		}
		for _, r := range s.Where {
			if len(r.Columns) == 0 || r.Value == nil {
				t.Fatalf("%q: relation %+v", src, r)
			}
		}
	})
}
