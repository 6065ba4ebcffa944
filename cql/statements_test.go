package cql

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

const testSchema = `
CREATE TYPE ks.addr (street text, zip int);
CREATE TABLE ks.t (
  pk int, ck1 int, ck2 text, v int, s text STATIC, b blob,
  l list<text>, st set<int>, m map<text, int>, fl frozen<list<int>>, u addr, fu frozen<addr>,
  tp tuple<int, text>, ts timestamp, d date, tm time, du duration, f float, db double, dec decimal,
  vi varint, id uuid, tid timeuuid, ip inet, bo boolean,
  PRIMARY KEY (pk, ck1, ck2));
CREATE TABLE ks.desc_t (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH CLUSTERING ORDER BY (ck DESC);
CREATE TABLE ks.c (pk int, ck int, n counter, PRIMARY KEY (pk, ck));
CREATE TABLE ks.ttl_t (pk int PRIMARY KEY, v int) WITH default_time_to_live = 100;
`

const testNow = 1600000000
const testTS = 1600000000000000

func testBuilder(t *testing.T) (*Builder, *Schema) {
	t.Helper()
	s, err := ParseSchema(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	var seq byte
	opts := Options{Now: time.Unix(testNow, 0), DefaultTimestamp: testTS,
		TimeUUID: func(prepend bool) [16]byte {
			seq++
			u := [16]byte{0, 0, 0, seq, 0, 0, 0x10, 0}
			if prepend {
				u[3] = 0
				u[2] = 0xff - seq
				u[0] = 0 // earlier than every append: time_low high byte 0, see below
			}
			return u
		},
		CounterID: [16]byte{1}}
	return NewBuilder(s, opts), s
}

func build(t *testing.T, b *Builder, src string) *mutation.Partition {
	t.Helper()
	ms, err := b.Exec(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if len(ms) != 1 {
		t.Fatalf("%s: %d mutations", src, len(ms))
	}
	return ms[0].Partition
}

func i32(v int32) []byte { return schema.AppendInt(nil, v) }

func TestInsertRowAndCells(t *testing.T) {
	b, _ := testBuilder(t)
	p := build(t, b, `INSERT INTO ks.t (pk, ck1, ck2, v, s, b, l, st, m, fl, u, fu, tp) VALUES
	  (1, 2, 'x', null, 'stat', 0xcafe, ['a', 'b'], {3, 1, 3}, {'k': 1, 'a': 2}, [5, 6], {street: 'main', zip: 7}, {zip: 8}, (9, 'nine'))
	  USING TTL 50`)
	if !bytes.Equal(p.Key, i32(1)) || len(p.Rows) != 1 {
		t.Fatalf("partition %+v", p)
	}
	r := p.Rows[0]
	if len(r.Clustering) != 2 || !bytes.Equal(r.Clustering[0], i32(2)) || string(r.Clustering[1]) != "x" {
		t.Errorf("clustering %q", r.Clustering)
	}
	if r.Liveness.Timestamp != testTS || r.Liveness.TTL != 50 || r.Liveness.LocalExpirationTime != testNow+50 {
		t.Errorf("liveness %+v", r.Liveness)
	}
	byName := map[string][]mutation.Cell{}
	for _, c := range r.Cells {
		byName[c.Column.Name] = append(byName[c.Column.Name], c)
	}
	if v := byName["v"]; len(v) != 1 || !v[0].IsTombstone() || v[0].LocalDeletionTime != testNow || v[0].Timestamp != testTS {
		t.Errorf("null v: %+v", v)
	}
	if c := byName["b"]; len(c) != 1 || !bytes.Equal(c[0].Value, []byte{0xca, 0xfe}) || c[0].TTL != 50 || c[0].LocalDeletionTime != testNow+50 {
		t.Errorf("b: %+v", c)
	}
	if l := byName["l"]; len(l) != 2 || string(l[0].Value) != "a" || string(l[1].Value) != "b" || l[0].Path[3] != 1 {
		t.Errorf("l: %+v", l)
	}
	if st := byName["st"]; len(st) != 2 || !bytes.Equal(st[0].Path, i32(1)) || !bytes.Equal(st[1].Path, i32(3)) || len(st[0].Value) != 0 {
		t.Errorf("st: %+v", st)
	}
	if m := byName["m"]; len(m) != 2 || string(m[0].Path) != "a" || !bytes.Equal(m[0].Value, i32(2)) {
		t.Errorf("m: %+v", m)
	}
	if fl := byName["fl"]; len(fl) != 1 || len(fl[0].Value) != 4+2*8 {
		t.Errorf("fl: %+v", fl)
	}
	if u := byName["u"]; len(u) != 2 || !bytes.Equal(u[0].Path, []byte{0, 0}) || !bytes.Equal(u[1].Path, []byte{0, 1}) || !bytes.Equal(u[1].Value, i32(7)) {
		t.Errorf("u: %+v", u)
	}
	if fu := byName["fu"]; len(fu) != 1 || !bytes.Equal(fu[0].Value, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 4, 0, 0, 0, 8}) {
		t.Errorf("fu: %x", fu[0].Value)
	}
	if tp := byName["tp"]; len(tp) != 1 || !bytes.Equal(tp[0].Value, []byte{0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0, 4, 'n', 'i', 'n', 'e'}) {
		t.Errorf("tp: %x", tp[0].Value)
	}
	if len(r.ComplexDeletions) != 4 {
		t.Errorf("complex deletions %+v", r.ComplexDeletions)
	}
	for _, cd := range r.ComplexDeletions {
		if cd.Deletion.MarkedForDeleteAt != testTS-1 || cd.Deletion.LocalDeletionTime != testNow {
			t.Errorf("complex deletion %+v", cd)
		}
	}
	if len(p.Static.Cells) != 1 || string(p.Static.Cells[0].Value) != "stat" || !p.Static.Liveness.IsEmpty() {
		t.Errorf("static %+v", p.Static)
	}
	// Cells come in column order, then path order.
	for i := 1; i < len(r.Cells); i++ {
		if mutation.CompareCells(&r.Cells[i-1], &r.Cells[i]) >= 0 {
			t.Errorf("cells out of order at %d", i)
		}
	}
}

func TestInsertDefaultTTLAndOverrides(t *testing.T) {
	b, _ := testBuilder(t)
	p := build(t, b, `INSERT INTO ks.ttl_t (pk, v) VALUES (1, 2)`)
	if p.Rows[0].Liveness.TTL != 100 || p.Rows[0].Cells[0].TTL != 100 || p.Rows[0].Clustering != nil {
		t.Errorf("default TTL: %+v", p.Rows[0])
	}
	p = build(t, b, `INSERT INTO ks.ttl_t (pk, v) VALUES (1, 2) USING TTL 0 AND TIMESTAMP 42`)
	if p.Rows[0].Liveness.IsExpiring() || p.Rows[0].Cells[0].IsExpiring() || p.Rows[0].Cells[0].Timestamp != 42 {
		t.Errorf("TTL 0: %+v", p.Rows[0])
	}
	// A collection set to null writes only the complex deletion.
	p = build(t, b, `INSERT INTO ks.t (pk, ck1, ck2, st) VALUES (1, 1, '', null)`)
	if len(p.Rows[0].Cells) != 0 || len(p.Rows[0].ComplexDeletions) != 1 || len(p.Rows[0].Clustering[1]) != 0 || p.Rows[0].Clustering[1] == nil {
		t.Errorf("null set: %+v", p.Rows[0])
	}
}

func TestUpdateOperations(t *testing.T) {
	b, _ := testBuilder(t)
	p := build(t, b, `UPDATE ks.t USING TIMESTAMP 7 SET st = st + {5, 4}, m['z'] = 3, m['y'] = null, l = l + ['e'], u.zip = 11, v = 1, s = 'S'
	   WHERE pk = 1 AND ck1 = 2 AND ck2 = 'x'`)
	r := p.Rows[0]
	if !r.Liveness.IsEmpty() || len(r.ComplexDeletions) != 0 {
		t.Errorf("UPDATE writes no liveness and no complex deletion: %+v", r)
	}
	var names []string
	for _, c := range r.Cells {
		if c.Timestamp != 7 {
			t.Errorf("cell %s timestamp %d", c.Column.Name, c.Timestamp)
		}
		name := c.Column.Name
		if c.IsTombstone() {
			name += "-"
		}
		names = append(names, name)
	}
	if got := strings.Join(names, ","); got != "v,l,m-,m,st,st,u" {
		t.Errorf("cells %s", got)
	}
	if len(p.Static.Cells) != 1 {
		t.Errorf("static %+v", p.Static)
	}
	p = build(t, b, `UPDATE ks.t SET st = st - {1}, m = m - {'a', 'b'}, l = ['p'] + l WHERE pk = 1 AND ck1 = 2 AND ck2 = 'x'`)
	names = nil
	for _, c := range p.Rows[0].Cells {
		name := c.Column.Name
		if c.IsTombstone() {
			name += "-"
		}
		names = append(names, name)
	}
	if got := strings.Join(names, ","); got != "l,m-,m-,st-" {
		t.Errorf("removals %s", got)
	}
	// Overwriting a collection in UPDATE deletes it first.
	p = build(t, b, `UPDATE ks.t SET m = {'q': 1} WHERE pk = 1 AND ck1 = 2 AND ck2 = 'x'`)
	if len(p.Rows[0].ComplexDeletions) != 1 || p.Rows[0].ComplexDeletions[0].Deletion.MarkedForDeleteAt != testTS-1 {
		t.Errorf("overwrite %+v", p.Rows[0])
	}
	// Static-only update needs no clustering.
	p = build(t, b, `UPDATE ks.t SET s = 'only' WHERE pk = 3`)
	if len(p.Rows) != 0 || len(p.Static.Cells) != 1 {
		t.Errorf("static update %+v", p)
	}
	// IN on clustering writes several rows.
	p = build(t, b, `UPDATE ks.t SET v = 1 WHERE pk = 3 AND ck1 IN (1, 2) AND ck2 IN ('a', 'b')`)
	if len(p.Rows) != 4 {
		t.Errorf("IN rows %d", len(p.Rows))
	}
}

func TestListPrependOrder(t *testing.T) {
	s, err := ParseSchema(`CREATE TABLE ks.l (pk int PRIMARY KEY, l list<int>)`)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(s, Options{Now: time.Unix(testNow, 0)})
	app := build(t, b, `UPDATE ks.l SET l = l + [1, 2] WHERE pk = 1`)
	pre := build(t, b, `UPDATE ks.l SET l = [-2, -1] + l WHERE pk = 1`)
	tab := s.Tables[0]
	if err := mutation.Merge(tab, app, pre, testNow); err != nil {
		t.Fatal(err)
	}
	var vals []int32
	for _, c := range app.Rows[0].Cells {
		if c.Path[6]>>4 != 1 {
			t.Errorf("list path %x is not a version 1 uuid", c.Path)
		}
		vals = append(vals, int32(binary.BigEndian.Uint32(c.Value)))
	}
	if len(vals) != 4 || vals[0] != -2 || vals[1] != -1 || vals[2] != 1 || vals[3] != 2 {
		t.Errorf("list order %v", vals)
	}
}

func TestCounterUpdates(t *testing.T) {
	b, _ := testBuilder(t)
	p1 := build(t, b, `UPDATE ks.c SET n = n + 5 WHERE pk = 1 AND ck = 1`)
	p2 := build(t, b, `UPDATE ks.c SET n = n -2 WHERE pk = 1 AND ck = 1`)
	for i, p := range []*mutation.Partition{p1, p2} {
		shards, err := mutation.ParseCounterContext(p.Rows[0].Cells[0].Value)
		if err != nil || len(shards) != 1 || shards[0].ID != [16]byte{1} || shards[0].Kind != mutation.CounterGlobal {
			t.Fatalf("context %d: %+v %v", i, shards, err)
		}
		want := []int64{5, 3}[i]
		if shards[0].Count != want || shards[0].Clock != testTS+int64(i) {
			t.Errorf("update %d: %+v", i, shards[0])
		}
	}
	for _, bad := range []string{
		`UPDATE ks.c SET n = 5 WHERE pk = 1 AND ck = 1`,
		`UPDATE ks.c USING TTL 5 SET n = n + 1 WHERE pk = 1 AND ck = 1`,
		`UPDATE ks.c USING TIMESTAMP 5 SET n = n + 1 WHERE pk = 1 AND ck = 1`,
		`INSERT INTO ks.c (pk, ck, n) VALUES (1, 1, 1)`,
	} {
		if _, err := b.Exec(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestDeleteForms(t *testing.T) {
	b, s := testBuilder(t)
	tab := s.Table("ks.t")
	p := build(t, b, `DELETE FROM ks.t WHERE pk = 1`)
	if p.Deletion.MarkedForDeleteAt != testTS || p.Deletion.LocalDeletionTime != testNow || len(p.Rows)+len(p.Markers) != 0 {
		t.Errorf("partition deletion %+v", p)
	}
	p = build(t, b, `DELETE FROM ks.t USING TIMESTAMP 9 WHERE pk = 1 AND ck1 = 2 AND ck2 = 'a'`)
	if len(p.Rows) != 1 || p.Rows[0].Deletion.MarkedForDeleteAt != 9 {
		t.Errorf("row deletion %+v", p.Rows)
	}
	p = build(t, b, `DELETE v, l, m['k'], st[3], u.zip, s FROM ks.t WHERE pk = 1 AND ck1 = 2 AND ck2 = 'a'`)
	r := p.Rows[0]
	if len(r.Cells) != 4 || len(r.ComplexDeletions) != 1 || r.ComplexDeletions[0].Deletion.MarkedForDeleteAt != testTS {
		t.Errorf("column deletion %+v", r)
	}
	for _, c := range r.Cells {
		if !c.IsTombstone() {
			t.Errorf("cell %s is not a tombstone", c.Column.Name)
		}
	}
	if len(p.Static.Cells) != 1 || !p.Static.Cells[0].IsTombstone() {
		t.Errorf("static tombstone %+v", p.Static)
	}
	type marker struct {
		kind mutation.BoundKind
		n    int
	}
	check := func(src string, want ...marker) {
		t.Helper()
		p := build(t, b, src)
		if len(p.Markers) != len(want) {
			t.Fatalf("%s: %d markers", src, len(p.Markers))
		}
		for i, w := range want {
			m := p.Markers[i]
			if m.Kind != w.kind || len(m.Clustering) != w.n {
				t.Errorf("%s: marker %d = %v/%d, want %v/%d", src, i, m.Kind, len(m.Clustering), w.kind, w.n)
			}
		}
		if !p.Markers[0].Open.Supersedes(mutation.Live) || !p.Markers[1].Close.Supersedes(mutation.Live) {
			t.Errorf("%s: deletion times %+v", src, p.Markers)
		}
		if mutation.ComparePrefix(tab, p.Markers[0].Kind, p.Markers[0].Clustering, p.Markers[1].Kind, p.Markers[1].Clustering) >= 0 {
			t.Errorf("%s: markers out of order", src)
		}
	}
	check(`DELETE FROM ks.t WHERE pk = 1 AND ck1 = 2`, marker{mutation.InclStartBound, 1}, marker{mutation.InclEndBound, 1})
	check(`DELETE FROM ks.t WHERE pk = 1 AND ck1 > 2`, marker{mutation.ExclStartBound, 1}, marker{mutation.InclEndBound, 0})
	check(`DELETE FROM ks.t WHERE pk = 1 AND ck1 <= 2`, marker{mutation.InclStartBound, 0}, marker{mutation.InclEndBound, 1})
	check(`DELETE FROM ks.t WHERE pk = 1 AND ck1 = 2 AND ck2 >= 'a' AND ck2 < 'c'`, marker{mutation.InclStartBound, 2}, marker{mutation.ExclEndBound, 2})
	check(`DELETE FROM ks.t WHERE pk = 1 AND (ck1, ck2) > (1, 'a') AND (ck1, ck2) <= (3, 'b')`, marker{mutation.ExclStartBound, 2}, marker{mutation.InclEndBound, 2})
	// On a DESC column the range runs from the upper value down.
	p = build(t, b, `DELETE FROM ks.desc_t WHERE pk = 1 AND ck > 101 AND ck <= 104`)
	if p.Markers[0].Kind != mutation.InclStartBound || !bytes.Equal(p.Markers[0].Clustering[0], i32(104)) ||
		p.Markers[1].Kind != mutation.ExclEndBound || !bytes.Equal(p.Markers[1].Clustering[0], i32(101)) {
		t.Errorf("DESC range %+v", p.Markers)
	}
}

func TestLiterals(t *testing.T) {
	b, s := testBuilder(t)
	tab := s.Table("ks.t")
	cases := []struct{ col, lit, json string }{
		{"ck2", `'it''s'`, `"it's"`},
		{"ck2", `$$dollar 'quoted'$$`, `"dollar 'quoted'"`},
		{"b", `textAsBlob('great')`, `"0x6772656174"`},
		{"b", `intAsBlob(1)`, `"0x00000001"`},
		{"v", `blobAsInt(0x00000005)`, `5`},
		{"ts", `'2015-05-01 09:30:54.234+0000'`, `"2015-05-01 09:30:54.234Z"`},
		{"ts", `1430472654234`, `"2015-05-01 09:30:54.234Z"`},
		{"ts", `toTimestamp('2017-05-05')`, `"2017-05-05 00:00:00.000Z"`},
		{"d", `'2017-05-05'`, `"2017-05-05"`},
		{"tm", `'19:45:05.090'`, `"19:45:05.090000000"`},
		{"du", `1h4m48s20ms`, `"1h4m48s20ms"`},
		{"du", `-P1Y2M`, `"-1y2mo"`},
		{"du", `P2W`, `"14d"`},
		{"du", `P0001-02-03T04:05:06`, `"1y2mo3d4h5m6s"`},
		{"f", `7.62`, `7.62`},
		{"f", `-Infinity`, `"-Infinity"`},
		{"db", `1e10`, `1.0E10`},
		{"db", `NaN`, `"NaN"`},
		{"dec", `5.45`, `5.45`},
		{"dec", `-1`, `-1`},
		{"vi", `123456789012345678901234567890`, `123456789012345678901234567890`},
		{"id", `01234567-0123-0123-0123-0123456789AB`, `"01234567-0123-0123-0123-0123456789ab"`},
		{"tid", `50554d6e-29bb-11e5-b345-feff819cdc9f`, `"50554d6e-29bb-11e5-b345-feff819cdc9f"`},
		{"ip", `'::1'`, `"0:0:0:0:0:0:0:1"`},
		{"bo", `TRUE`, `true`},
		{"fl", `[1, 2]`, `[1, 2]`},
		{"fu", `{street: 'a'}`, `{"street": "a", "zip": null}`},
		{"fu", `{"street": 'a', zip: 5}`, `{"street": "a", "zip": 5}`},
		{"tp", `(1, null)`, `[1, null]`},
		{"v", `-2147483648`, `-2147483648`},
	}
	for _, c := range cases {
		col := tab.Column(c.col)
		term, err := parseTerm(c.lit)
		if err != nil {
			t.Errorf("%s: %v", c.lit, err)
			continue
		}
		v, err := b.value(term, col.Type, col.Name)
		if err != nil {
			t.Errorf("%s as %s: %v", c.lit, col.Type, err)
			continue
		}
		j, err := col.Type.AppendJSON(nil, v)
		if err != nil || string(j) != c.json {
			t.Errorf("%s as %s = %s (%v), want %s", c.lit, col.Type, j, err, c.json)
		}
	}
	// now() is a version 1 timeuuid at the builder's clock.
	term, _ := parseTerm("now()")
	v, err := b.value(term, schema.Timeuuid, "tid")
	if err != nil || v[6]>>4 != 1 {
		t.Fatalf("now(): %x %v", v, err)
	}
	term, _ = parseTerm("toUnixTimestamp(now())")
	if v, err := b.value(term, schema.Bigint, "x"); err != nil || int64(binary.BigEndian.Uint64(v)) != testNow*1000 {
		t.Errorf("toUnixTimestamp(now()) = %x %v", v, err)
	}
	bad := []struct{ col, lit, msg string }{
		{"v", `'5'`, "invalid string constant"},
		{"v", `1.5`, "invalid floating point constant"},
		{"v", `2147483648`, "out of range"},
		{"b", `'x'`, "not a blob"},
		{"v", `0x01`, "use blobAsint"},
		{"tid", `01234567-0123-0123-0123-0123456789ab`, "version 0"},
		{"fl", `[1, null]`, "null is not allowed"},
		{"fu", `{nope: 1}`, "unknown field"},
		{"tp", `(1, 'a', 3)`, "3 components"},
		{"ck2", `nope()`, "unknown function"},
		{"v", `textAsBlob('x')`, "returns blob"},
		{"d", `'2017-02-30'`, "no such date"},
		{"ck2", `ident`, "unexpected identifier"},
	}
	for _, c := range bad {
		col := tab.Column(c.col)
		term, err := parseTerm(c.lit)
		if err == nil {
			_, err = b.value(term, col.Type, col.Name)
		}
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s as %s: %v, want %q", c.lit, col.Type, err, c.msg)
		}
	}
}

// parseTerm parses a single literal.
func parseTerm(src string) (*Term, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, src: src}
	term, err := p.term()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tokEOF {
		return nil, p.errorf(p.peek(), "trailing input")
	}
	return term, nil
}

func TestStatementErrors(t *testing.T) {
	b, _ := testBuilder(t)
	cases := map[string]string{
		"INSERT INTO ks.t (pk, ck1, ck2, v) VALUES (1, 2, 'x', 3) IF NOT EXISTS": "line 1, column 58: conditional statements",
		"UPDATE ks.t SET v = 1 WHERE pk = 1 AND ck1 = 1 AND ck2 = 'a' IF v = 2":  "conditional statements",
		"INSERT INTO ks.t (pk, ck1, ck2, nope) VALUES (1, 2, 'x', 3)":            "line 1, column 33: unknown column nope",
		"INSERT INTO ks.t (pk, ck1, v) VALUES (1, 2, 3)":                         "missing clustering column ck2",
		"INSERT INTO ks.t (ck1, ck2, v) VALUES (1, 'a', 3)":                      "missing partition key column pk",
		"INSERT INTO ks.t (pk, ck1, ck2) VALUES (1, 2)":                          "3 columns but 2 values",
		"INSERT INTO ks.nope (pk) VALUES (1)":                                    "unknown table ks.nope",
		"INSERT INTO ks.t (pk, ck1, ck2, v) VALUES (null, 2, 'x', 3)":            "cannot be null",
		"UPDATE ks.t SET l[0] = 'x' WHERE pk = 1 AND ck1 = 1 AND ck2 = 'a'":      "needs a read",
		"UPDATE ks.t SET l = l - ['x'] WHERE pk = 1 AND ck1 = 1 AND ck2 = 'a'":   "needs a read",
		"DELETE l[0] FROM ks.t WHERE pk = 1 AND ck1 = 1 AND ck2 = 'a'":           "needs a read",
		"UPDATE ks.t SET fl = fl + [1] WHERE pk = 1 AND ck1 = 1 AND ck2 = 'a'":   "frozen",
		"UPDATE ks.t SET v = 1 WHERE pk IN (1, 2) AND ck1 = 1 AND ck2 = 'a'":     "must be restricted by =",
		"UPDATE ks.t SET v = 1 WHERE pk = 1 AND ck2 = 'a'":                       "ck2 is restricted but ck1",
		"UPDATE ks.t SET v = 1 WHERE pk = 1 AND ck1 = 1":                         "missing = restriction on clustering column ck2",
		"UPDATE ks.t SET v = 1 WHERE pk = 1 AND v = 1":                           "cannot be restricted",
		"UPDATE ks.t SET pk = 1 WHERE pk = 1":                                    "cannot be updated",
		"DELETE v FROM ks.t WHERE pk = 1 AND ck1 > 1":                            "cannot name columns",
		"DELETE FROM ks.t WHERE pk = 1 AND ck1 > 3 AND ck1 < 2":                  "the range is empty",
		"DELETE FROM ks.t USING TTL 5 WHERE pk = 1":                              "TTL is not allowed",
		"INSERT INTO ks.t (pk, ck1, ck2) VALUES (1, 2, 'x') USING TTL -1":        "cannot be negative",
		"INSERT INTO ks.t (pk, ck1, ck2) VALUES (1, 2, 'x') USING TTL 999999999": "exceeds the maximum",
		"UPDATE ks.t SET v = ? WHERE pk = 1":                                     "bind markers",
		"SELECT * FROM ks.t":                                                     "line 1, column 1: expected CREATE",
		"INSERT INTO ks.t (pk, ck1, ck2) VALUES (1, 2, 'x'":                      "expected ')' at the end of input",
		"INSERT INTO ks.t (pk, ck1, ck2)\n  VALUES (1, 2, 'x) ":                  "line 2, column 17: unterminated string",
		"DELETE FROM ks.t WHERE token(pk) > 5":                                   "token() restrictions",
	}
	for src, want := range cases {
		_, err := b.Exec(src)
		var se *SyntaxError
		if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}

func TestBatch(t *testing.T) {
	b, _ := testBuilder(t)
	ms, err := b.Exec(`BEGIN UNLOGGED BATCH USING TIMESTAMP 77
	  INSERT INTO ks.t (pk, ck1, ck2, v) VALUES (1, 1, 'a', 1);
	  DELETE FROM ks.t WHERE pk = 2;
	APPLY BATCH;`)
	if err != nil || len(ms) != 2 {
		t.Fatalf("%v %d", err, len(ms))
	}
	if ms[0].Partition.Rows[0].Liveness.Timestamp != 77 || ms[1].Partition.Deletion.MarkedForDeleteAt != 77 {
		t.Errorf("batch timestamps %+v %+v", ms[0].Partition.Rows[0].Liveness, ms[1].Partition.Deletion)
	}
}

func TestCompactStorageWrites(t *testing.T) {
	s, err := ParseSchema(`
CREATE TABLE ks.dense (pk int, ck int, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE;
CREATE TABLE ks.kv (k text PRIMARY KEY, a int, b text) WITH COMPACT STORAGE;`)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(s, Options{Now: time.Unix(testNow, 0), DefaultTimestamp: testTS})
	p := build(t, b, `INSERT INTO ks.dense (pk, ck) VALUES (1, 2)`)
	r := p.Rows[0]
	if !r.Liveness.IsEmpty() || len(r.Cells) != 1 || !r.Cells[0].Column.Hidden || r.Cells[0].Value == nil || len(r.Cells[0].Value) != 0 {
		t.Errorf("dense compact row %+v", r)
	}
	p = build(t, b, `INSERT INTO ks.kv (k, a, b) VALUES ('x', 1, 'y')`)
	if len(p.Rows) != 0 || len(p.Static.Cells) != 2 || !p.Static.Liveness.IsEmpty() {
		t.Errorf("static compact %+v", p)
	}
	if _, err := b.Exec(`INSERT INTO ks.dense (pk, ck, value) VALUES (1, 2, 0x)`); err == nil {
		t.Error("hidden column accepted")
	}
}
