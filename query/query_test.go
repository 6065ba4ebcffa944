package query

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/table"
)

const testSchema = `
CREATE TABLE ks.t (a int, b text, c int, d text, s int static, v int, w text, l list<int>, m map<text, int>, f frozen<set<int>>,
  PRIMARY KEY ((a, b), c, d)) WITH CLUSTERING ORDER BY (c ASC, d DESC);
CREATE TABLE ks.p (k int PRIMARY KEY, v int);
`

var testNow = time.Unix(1_800_000_000, 0)

const testData = `
INSERT INTO ks.t (a, b, c, d, v, w, l, m, f) VALUES (1, 'x', 1, 'a', 10, 'p', [1, 2], {'k': 1}, {7}) USING TIMESTAMP 100;
INSERT INTO ks.t (a, b, c, d, v, w) VALUES (1, 'x', 1, 'b', 11, 'q') USING TIMESTAMP 101 AND TTL 1000;
INSERT INTO ks.t (a, b, c, d, v) VALUES (1, 'x', 2, 'a', 12) USING TIMESTAMP 102;
INSERT INTO ks.t (a, b, c, d, v) VALUES (1, 'x', 3, 'c', 13) USING TIMESTAMP 103;
INSERT INTO ks.t (a, b, s) VALUES (1, 'x', 5) USING TIMESTAMP 104;
INSERT INTO ks.t (a, b, c, d, v) VALUES (1, 'y', 1, 'a', 20) USING TIMESTAMP 105;
INSERT INTO ks.t (a, b, c, d, v, m) VALUES (2, 'x', 1, 'a', 30, {'z': 9}) USING TIMESTAMP 106;
INSERT INTO ks.t (a, b, s) VALUES (3, 'x', 7) USING TIMESTAMP 107;
INSERT INTO ks.t (a, b, c, d, v, s) VALUES (4, 'x', 1, 'a', 40, null) USING TIMESTAMP 108;
INSERT INTO ks.p (k, v) VALUES (1, 1) USING TIMESTAMP 1;
INSERT INTO ks.p (k, v) VALUES (2, 2) USING TIMESTAMP 1;
INSERT INTO ks.p (k, v) VALUES (3, 3) USING TIMESTAMP 1;
INSERT INTO ks.p (k, v) VALUES (4, 4) USING TIMESTAMP 1;
`

func testSets(t testing.TB) (map[string]*table.Set, map[string]*schema.Table) {
	t.Helper()
	s, err := cql.ParseSchema(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	b := cql.NewBuilder(s, cql.Options{Now: testNow})
	muts, err := b.Exec(testData)
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]*table.Set{}
	tables := map[string]*schema.Table{}
	for _, name := range []string{"t", "p"} {
		tab := s.Table("ks." + name)
		mt := memtable.New(tab, memtable.Options{Now: func() time.Time { return testNow }})
		for _, m := range muts {
			if m.Table == tab {
				if err := mt.Apply(m.Partition); err != nil {
					t.Fatal(err)
				}
			}
		}
		set, err := table.NewSet(nil, mt.Freeze(), table.Options{Table: tab, Now: testNow})
		if err != nil {
			t.Fatal(err)
		}
		sets[name], tables[name] = set, set.Table()
	}
	return sets, tables
}

// run answers src as CSV lines without the header.
func run(t *testing.T, sets map[string]*table.Set, tables map[string]*schema.Table, src string) (string, error) {
	t.Helper()
	sel, err := cql.ParseSelect(src)
	if err != nil {
		return "", err
	}
	tab, set := tables[sel.Table.Name], sets[sel.Table.Name]
	if tab == nil {
		tab, set = tables["t"], sets["t"]
	}
	q, err := Prepare(sel, tab, Options{Now: testNow})
	if err != nil {
		return "", err
	}
	rows, err := q.Run(set)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var buf bytes.Buffer
	w := NewCSVWriter(&buf, q.Columns())
	for {
		r, err := rows.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		if err := w.Row(r); err != nil {
			return "", err
		}
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	return strings.Join(lines, "\n"), nil
}

func TestQueries(t *testing.T) {
	sets, tables := testSets(t)
	for _, tc := range []struct{ q, want string }{
		{"SELECT a, b, c, d, v FROM ks.t WHERE a = 1 AND b = 'x'",
			"a,b,c,d,v\n1,x,1,b,11\n1,x,1,a,10\n1,x,2,a,12\n1,x,3,c,13"},
		{"SELECT * FROM ks.t WHERE a = 3 AND b = 'x'",
			"a,b,c,d,s,f,l,m,v,w\n3,x,,,7,,,,,"},
		{"SELECT c, d FROM ks.t WHERE a = 1 AND b = 'x' AND c > 1",
			"c,d\n2,a\n3,c"},
		{"SELECT c, d FROM ks.t WHERE a = 1 AND b = 'x' AND c = 1 AND d < 'b'",
			"c,d\n1,a"},
		{"SELECT c, d FROM ks.t WHERE a = 1 AND b = 'x' AND (c, d) >= (1, 'b') AND (c, d) < (3, 'c')",
			"c,d\n1,b\n2,a"},
		{"SELECT c, d FROM ks.t WHERE a = 1 AND b = 'x' AND c IN (3, 1) AND d IN ('a', 'c')",
			"c,d\n1,a\n3,c"},
		{"SELECT c, d FROM ks.t WHERE a = 1 AND b = 'x' AND (c, d) IN ((3, 'c'), (1, 'b'))",
			"c,d\n1,b\n3,c"},
		{"SELECT a, b, v FROM ks.t WHERE a IN (2, 1) AND b IN ('y', 'x') AND c = 1 AND d = 'a'",
			"a,b,v\n1,x,10\n1,y,20\n2,x,30"},
		{"SELECT a, b, c FROM ks.t WHERE a = 1 AND b = 'x' LIMIT 2", "a,b,c\n1,x,1\n1,x,1"},
		{"SELECT COUNT(*) FROM ks.t WHERE a = 1 AND b = 'x'", "count\n4"},
		{"SELECT count(1) AS n, v FROM ks.t WHERE a = 9 AND b = 'x'", "n,v\n0,"},
		{"SELECT v, writetime(v), ttl(w), ttl(v) FROM ks.t WHERE a = 1 AND b = 'x' AND c = 1",
			"v,writetime(v),ttl(w),ttl(v)\n11,101,1000,1000\n10,100,,"},
		{"SELECT DISTINCT a, b, s FROM ks.t", ""},
		{"SELECT c, v FROM ks.t WHERE a = 1 AND b = 'x' AND v > 11 ALLOW FILTERING", "c,v\n2,12\n3,13"},
		{"SELECT c, v FROM ks.t WHERE a = 1 AND b = 'x' AND v != 11 ALLOW FILTERING", "c,v\n1,10\n2,12\n3,13"},
		{"SELECT c, v FROM ks.t WHERE a = 1 AND b = 'x' AND v IN (13, 10) ALLOW FILTERING", "c,v\n1,10\n3,13"},
		{"SELECT a, v FROM ks.t WHERE m CONTAINS KEY 'z' ALLOW FILTERING", "a,v\n2,30"},
		{"SELECT a, v FROM ks.t WHERE l CONTAINS 2 ALLOW FILTERING", "a,v\n1,10"},
		{"SELECT a, v FROM ks.t WHERE m CONTAINS 9 ALLOW FILTERING", "a,v\n2,30"},
		{"SELECT a, b, c, s FROM ks.t WHERE s = 5 ALLOW FILTERING", "a,b,c,s\n1,x,1,5\n1,x,1,5\n1,x,2,5\n1,x,3,5"},
		{"SELECT a, b, c FROM ks.t WHERE a = 1 AND b = 'x' AND d = 'a' ALLOW FILTERING", "a,b,c\n1,x,1\n1,x,2"},
		// Cassandra's filter sees a static row unpurged: a deleted static
		// cell has the empty value, which sorts first.
		{"SELECT a, v, s FROM ks.t WHERE s < 0 ALLOW FILTERING", "a,v,s\n4,40,"},
		{"SELECT a, b, c FROM ks.t WHERE a = 1 AND b = 'x' PER PARTITION LIMIT 1", "a,b,c\n1,x,1"},
		{"SELECT k FROM ks.p WHERE k IN (4, 1, 3, 1)", "k\n1\n3\n4"},
		{"SELECT k FROM ks.p WHERE token(k) >= token(2) AND token(k) <= token(2)", "k\n2"},
		{"SELECT k FROM ks.p WHERE token(k) > token(2) AND token(k) < token(2)", "k"},
		{"SELECT k FROM ks.p WHERE k > 2 ALLOW FILTERING", ""},
		{"SELECT k, v FROM ks.p WHERE k = 2 AND token(k) = token(2)", "k,v\n2,2"},
		{"SELECT COUNT(*) FROM ks.p", "count\n4"},
		{"SELECT COUNT(*) FROM ks.p LIMIT 1", "count\n4"},
	} {
		got, err := run(t, sets, tables, tc.q)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if tc.want == "" {
			// Order-dependent on tokens: only check the row count and the
			// header.
			t.Logf("%s:\n%s", tc.q, got)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.q, got, tc.want)
		}
	}
}

// TestTokenOrder: a scan returns partitions in token order, IN in the
// order of the key values.
func TestTokenOrder(t *testing.T) {
	sets, tables := testSets(t)
	got, err := run(t, sets, tables, "SELECT k, token(k) FROM ks.p")
	if err == nil {
		t.Fatalf("token() in the selection: %q, want an error", got)
	}
	all, err := run(t, sets, tables, "SELECT k FROM ks.p")
	if err != nil {
		t.Fatal(err)
	}
	keys := strings.Split(all, "\n")[1:]
	p := sets["p"].Partitioner()
	for i := 1; i < len(keys); i++ {
		a, _ := schema.Int.FromString(keys[i-1])
		b, _ := schema.Int.FromString(keys[i])
		if p.Token(a).Prefix() > p.Token(b).Prefix() {
			t.Errorf("%s before %s: not token order", keys[i-1], keys[i])
		}
	}
	// A token range: the keys after the second one's token.
	q := "SELECT k FROM ks.p WHERE token(k) > token(" + keys[1] + ")"
	got, err = run(t, sets, tables, q)
	if err != nil {
		t.Fatal(err)
	}
	if want := "k\n" + strings.Join(keys[2:], "\n"); got != want {
		t.Errorf("%s: %q, want %q", q, got, want)
	}
}

func TestRefused(t *testing.T) {
	sets, tables := testSets(t)
	for _, tc := range []struct{ q, want string }{
		{"SELECT * FROM ks.t WHERE v = 1", requiresAllowFiltering},
		{"SELECT * FROM ks.t WHERE a = 1", requiresAllowFiltering},
		{"SELECT * FROM ks.t WHERE c = 1", requiresAllowFiltering},
		{"SELECT * FROM ks.t WHERE a = 1 AND b = 'x' AND d = 'a'", `PRIMARY KEY column "d" cannot be restricted as preceding column "c" is not restricted`},
		{"SELECT * FROM ks.t WHERE a = 1 AND b = 'x' AND c > 1 AND d = 'a'", `Clustering column "d" cannot be restricted (preceding column "c" is restricted by a non-EQ relation)`},
		{"SELECT * FROM ks.t WHERE a = 1 AND a = 2 AND b = 'x'", "a cannot be restricted by more than one relation if it includes an Equal"},
		{"SELECT * FROM ks.t WHERE a = 1 AND b = 'x' AND c > 1 AND c > 2", "More than one restriction was found for the start bound on c"},
		{"SELECT * FROM ks.t WHERE token(b, a) > 0", "The token function arguments must be in the partition key order: a, b"},
		{"SELECT * FROM ks.t WHERE token(a) > 0", "The token() function must be applied to all partition key components or none of them"},
		{"SELECT nope FROM ks.t", "Undefined column name nope"},
		{"SELECT writetime(a) FROM ks.t", "Cannot use selection function writeTime on PRIMARY KEY part a"},
		{"SELECT ttl(l) FROM ks.t", "ttl() of a non-frozen collection (l) is not supported"},
		{"SELECT a, b, s FROM ks.t WHERE a = 1 AND b = 'x' AND c = 1", "Cannot restrict clustering columns when selecting only static columns"},
		{"SELECT DISTINCT a, b, v FROM ks.t", "SELECT DISTINCT queries must only request partition key columns and/or static columns (not v)"},
		{"SELECT DISTINCT a FROM ks.t", "SELECT DISTINCT queries must request all the partition key columns (missing b)"},
		{"SELECT DISTINCT a, b FROM ks.t WHERE a = 1 AND b = 'x' AND c = 1", "SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns."},
		{"SELECT DISTINCT a, b FROM ks.t PER PARTITION LIMIT 1", "PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries"},
		{"SELECT COUNT(*) FROM ks.t PER PARTITION LIMIT 1", "PER PARTITION LIMIT is not allowed with aggregate queries."},
		{"SELECT * FROM ks.t WHERE v CONTAINS 1 ALLOW FILTERING", "Cannot use CONTAINS on non-collection column v"},
		{"SELECT * FROM ks.t WHERE l CONTAINS KEY 1 ALLOW FILTERING", "Cannot use CONTAINS KEY on non-map column l"},
		{"SELECT * FROM ks.t WHERE l = [1] ALLOW FILTERING", "Collection column 'l' (list<int>) cannot be restricted by a '=' relation"},
		{"SELECT * FROM ks.t WHERE (a, b) = (1, 'x')", "Multi-column relations can only be applied to clustering columns but was applied to: a"},
		{"SELECT * FROM ks.t WHERE a = 1 AND b = 'x' AND (d, c) = ('a', 1)", "Clustering columns must appear in the PRIMARY KEY order in multi-column relations: (d, c)"},
		{"SELECT * FROM ks.t WHERE a = 1 AND b = 'x' AND c = 1 AND (c, d) = (1, 'a')", "Mixing single column relations and multi column relations on clustering columns is not allowed"},
		{"SELECT * FROM ks.other", "table ks.other does not exist (the SSTables hold ks.t)"},
		{"SELECT * FROM ks.t ORDER BY c DESC", "ORDER BY is not supported by castable query"},
		{"SELECT * FROM ks.t WHERE a = null AND b = 'x'", "Invalid null value in condition for column a"},
		{"SELECT * FROM ks.t WHERE a = 'x' AND b = 'x'", "column a"},
	} {
		got, err := run(t, sets, tables, tc.q)
		if err == nil {
			t.Errorf("%s: %q, want error %q", tc.q, got, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want %q", tc.q, err, tc.want)
		}
		var ire *InvalidRequestError
		var se *cql.SyntaxError
		if !errors.As(err, &ire) && !errors.As(err, &se) {
			t.Errorf("%s: error of type %T", tc.q, err)
		}
	}
}

func TestFormats(t *testing.T) {
	sets, tables := testSets(t)
	q, err := Parse("SELECT a, b, c, d, l, m, f, writetime(v) FROM ks.t WHERE a = 1 AND b = 'x' AND c = 1 AND d = 'a'", tables["t"], Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mk   func(io.Writer, []Column) Writer
		want string
	}{
		{NewTableWriter, "\n a | b | c | d |      l |        m |   f | writetime(v)\n---+---+---+---+--------+----------+-----+--------------\n 1 | x | 1 | a | [1, 2] | {'k': 1} | {7} |          100\n\n(1 rows)\n"},
		{NewCSVWriter, "a,b,c,d,l,m,f,writetime(v)\n1,x,1,a,\"[1, 2]\",{'k': 1},{7},100\n"},
		{NewJSONWriter, `{"a":1,"b":"x","c":1,"d":"a","l":[1, 2],"m":{"k": 1},"f":[7],"writetime(v)":100}` + "\n"},
	} {
		rows, err := q.Run(sets["t"])
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w := tc.mk(&buf, rows.Columns())
		for {
			r, err := rows.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			w.Row(r)
		}
		w.Close()
		rows.Close()
		if buf.String() != tc.want {
			t.Errorf("got\n%s\nwant\n%s", buf.String(), tc.want)
		}
	}
}

func TestCQLSHForms(t *testing.T) {
	ts := schema.AppendTimestamp(nil, 1714979289010)
	for _, tc := range []struct {
		typ  *schema.Type
		v    []byte
		want string
	}{
		{schema.Timestamp, ts, "2024-05-06 07:08:09.010000+0000"},
		{schema.Boolean, []byte{1}, "True"},
		{schema.Blob, []byte{0xca, 0xfe}, "0xcafe"},
		{schema.Float, schema.AppendFloat(nil, 1.0/3), "0.33333"},
		{schema.Double, schema.AppendDouble(nil, 1.0/3), "0.333333333333"},
		{schema.Text, nil, "null"},
		{schema.ListOf(schema.Text, true), append(schema.AppendCollectionSize(nil, 1), schema.AppendCollectionValue(nil, []byte("it's"))...), "['it''s']"},
		{schema.TupleOf(schema.Int, schema.Text), append(schema.AppendTupleField(nil, schema.AppendInt(nil, 1)), schema.AppendTupleField(nil, nil)...), "(1, null)"},
	} {
		if got := string(AppendCQLSH(nil, tc.typ, tc.v)); got != tc.want {
			t.Errorf("%s %x: %q, want %q", tc.typ, tc.v, got, tc.want)
		}
	}
}

// TestRefused311: what Cassandra 3.11 refuses and 5.0 answers.
func TestRefused311(t *testing.T) {
	_, tables := testSets(t)
	for _, tc := range []struct{ q, want string }{
		{"SELECT * FROM ks.t WHERE v != 1 ALLOW FILTERING", `Unsupported "!=" relation: v != 1`},
		{"SELECT * FROM ks.t WHERE v IN (1, 2) ALLOW FILTERING", "IN predicates on non-primary-key columns (v) is not yet supported"},
		{"SELECT * FROM ks.t WHERE a = 1 AND b = 'x' AND c IN (1, 2)", "Cannot restrict clustering columns by IN relations when a collection is selected by the query"},
		{"SELECT * FROM ks.t WHERE a IN (1, 2) AND c = 1 ALLOW FILTERING", "IN restrictions are not supported when the query involves filtering"},
		{"SELECT writetime(l) FROM ks.t", "Cannot use selection function writeTime on non-frozen collection l"},
	} {
		_, err := Parse(tc.q, tables["t"], Options{Release: "3.11"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.q, err, tc.want)
		}
		if _, err := Parse(tc.q, tables["t"], Options{}); err == nil == strings.HasPrefix(tc.q, "SELECT writetime") {
			t.Errorf("%s: 5.0: %v", tc.q, err)
		}
	}
}

// FuzzQuery: no statement panics the planner or the executor.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM ks.t WHERE a = 1 AND b = 'x' AND (c, d) >= (1, 'b') LIMIT 2",
		"SELECT a, b, s, writetime(v), ttl(w), count(*) FROM ks.t WHERE token(a, b) > 0 AND v IN (1, 2) ALLOW FILTERING",
		"SELECT DISTINCT a, b FROM ks.t WHERE a IN (1, 2) AND b IN ('x')",
		"SELECT k FROM ks.p WHERE k > 2 AND token(k) <= token(3) PER PARTITION LIMIT 1 ALLOW FILTERING",
		"SELECT * FROM ks.t WHERE m CONTAINS KEY 'z' AND l CONTAINS 2 AND f CONTAINS 7 ALLOW FILTERING",
	} {
		f.Add(s)
	}
	sets, tables := testSets(f)
	f.Fuzz(func(t *testing.T, src string) {
		sel, err := cql.ParseSelect(src)
		if err != nil {
			return
		}
		name := sel.Table.Name
		if tables[name] == nil {
			name = "t"
		}
		q, err := Prepare(sel, tables[name], Options{Now: testNow})
		if err != nil {
			var ire *InvalidRequestError
			var se *cql.SyntaxError
			if !errors.As(err, &ire) && !errors.As(err, &se) {
				t.Fatalf("%q: error of type %T: %v", src, err, err)
			}
			return
		}
		rows, err := q.Run(sets[name])
		if err != nil {
			return
		}
		defer rows.Close()
		w := NewTableWriter(io.Discard, q.Columns())
		for i := 0; i < 1000; i++ {
			r, err := rows.Next()
			if err != nil {
				break
			}
			if len(r) != len(q.Columns()) {
				t.Fatalf("%q: %d values for %d columns", src, len(r), len(q.Columns()))
			}
			w.Row(r)
		}
		w.Close()
	})
}
