package jsondump

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

func testTable(t testing.TB, cql string) *schema.Table {
	t.Helper()
	tb, err := parseTestTable(cql)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestDecodeErrors(t *testing.T) {
	tb := testTable(t, "CREATE TABLE ks.t (pk int, ck int, rc int, s int static, PRIMARY KEY (pk, ck))")
	composite := testTable(t, "CREATE TABLE ks.c (a int, b text, c boolean, v int, PRIMARY KEY ((a, b, c)))")
	counters := testTable(t, "CREATE TABLE ks.n (pk text, ck text, rc counter, PRIMARY KEY (pk, ck))")
	row := func(cells string) string {
		return `[{"partition": {"key": ["1"]}, "rows": [{"type": "row", "clustering": [2], "liveness_info": {"tstamp": 10}, "cells": [` + cells + `]}]}]`
	}
	cases := []struct {
		name, doc string
		table     *schema.Table
		want      []string // substrings of the message
	}{
		{"value does not fit its type", row(`{"name": "rc", "value": "abc"}`), tb,
			[]string{`partition ["1"]`, "row [2]", "column rc", "field value"}},
		{"out of range value", row(`{"name": "rc", "value": 2147483648}`), tb,
			[]string{`partition ["1"]`, "column rc", "field value"}},
		{"unknown column", row(`{"name": "nope", "value": 1}`), tb,
			[]string{"row [2]", `unknown column "nope"`}},
		{"static column in a row", row(`{"name": "s", "value": 1}`), tb,
			[]string{"column s", "not a regular column"}},
		{"missing key component", `[{"partition": {"key": ["1", "x"]}, "rows": []}]`, composite,
			[]string{"key has 2 components", "a, b, c"}},
		{"key component does not parse", `[{"partition": {"key": ["x"]}, "rows": []}]`, tb,
			[]string{"column pk", "field key"}},
		{"missing key", `[{"partition": {"position": 0}, "rows": []}]`, tb,
			[]string{"missing partition key"}},
		{"no partition field", `[{"rows": []}]`, tb,
			[]string{`without a "partition" field`}},
		{"counter without counter_shards", `[{"partition": {"key": ["k"]}, "rows": [{"type": "row", "clustering": ["c"], "cells": [{"name": "rc", "value": 3, "tstamp": 5}]}]}]`, counters,
			[]string{`partition ["k"]`, `row ["c"]`, "column rc", "counter_shards"}},
		{"bad counter shard", `[{"partition": {"key": ["k"]}, "rows": [{"type": "row", "clustering": ["c"], "cells": [{"name": "rc", "value": 3, "tstamp": 5, "counter_shards": [{"counter_id": "zz", "clock": 1, "count": 3}]}]}]}]`, counters,
			[]string{"column rc", "counter_id"}},
		{"cell without tstamp in a row without liveness", `[{"partition": {"key": ["1"]}, "rows": [{"type": "row", "clustering": [2], "cells": [{"name": "rc", "value": 1}]}]}]`, tb,
			[]string{"row [2]", "column rc", "without tstamp"}},
		{"bad tstamp", row(`{"name": "rc", "value": 1, "tstamp": "yesterday"}`), tb,
			[]string{"column rc", "field tstamp"}},
		{"ttl without expires_at", row(`{"name": "rc", "value": 1, "ttl": 5}`), tb,
			[]string{"column rc", "expires_at"}},
		{"clustering too short", `[{"partition": {"key": ["1"]}, "rows": [{"type": "row", "clustering": [], "cells": []}]}]`, tb,
			[]string{"clustering has 0 components"}},
		{"clustering value does not parse", `[{"partition": {"key": ["1"]}, "rows": [{"type": "row", "clustering": ["x"], "cells": []}]}]`, tb,
			[]string{`row ["x"]`, "clustering column ck"}},
		{"unknown row type", `[{"partition": {"key": ["1"]}, "rows": [{"type": "rowz", "cells": []}]}]`, tb,
			[]string{`unknown rows element type "rowz"`}},
		{"boundary with mismatched bounds", `[{"partition": {"key": ["1"]}, "rows": [{"type": "range_tombstone_boundary",
			"start": {"type": "inclusive", "clustering": [1], "deletion_info": {"marked_deleted": 5, "local_delete_time": 5}},
			"end": {"type": "inclusive", "clustering": [1], "deletion_info": {"marked_deleted": 4, "local_delete_time": 5}}}]}]`, tb,
			[]string{"boundary must close inclusive and open exclusive"}},
		{"bound type", `[{"partition": {"key": ["1"]}, "rows": [{"type": "range_tombstone_bound",
			"start": {"type": "open", "deletion_info": {"marked_deleted": 5, "local_delete_time": 5}}}]}]`, tb,
			[]string{"bound type"}},
		{"live deletion info", `[{"partition": {"key": ["1"], "deletion_info": {"marked_deleted": -9223372036854775808, "local_delete_time": 2147483647}}, "rows": []}]`, tb,
			[]string{"live deletion time"}},
		{"syntax error", `[{"partition": {"key": ["1"]}, "rows": [}]`, tb,
			[]string{"decode at offset"}},
		{"truncated", `[{"partition": {"key": ["1"]}, "rows": [`, tb,
			[]string{"jsondump: decode"}},
		{"not a partition", `[1]`, tb,
			[]string{"where a partition object should start"}},
		{"trailing data", `[] []`, tb,
			[]string{"after the end of the array"}},
		{"null value", row(`{"name": "rc", "value": null}`), tb,
			[]string{"null value"}},
		{"value and deletion", row(`{"name": "rc", "value": 1, "deletion_info": {"local_delete_time": 5}}`), tb,
			[]string{"both value and deletion_info"}},
	}
	for _, c := range cases {
		_, _, err := DecodeAll(strings.NewReader(c.doc), c.table, DecodeOptions{})
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		var je *Error
		if !errors.As(err, &je) {
			t.Errorf("%s: error %T is not *jsondump.Error: %v", c.name, err, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", c.name, err, w)
			}
		}
	}
}

func TestDecodeStickyError(t *testing.T) {
	tb := testTable(t, "CREATE TABLE ks.t (pk int, v int, PRIMARY KEY (pk))")
	d := NewDecoder(strings.NewReader(`[{"partition": {"key": ["x"]}, "rows": []}, {"partition": {"key": ["1"]}, "rows": []}]`), tb, DecodeOptions{})
	var p mutation.Partition
	err1 := d.Decode(&p)
	err2 := d.Decode(&p)
	if err1 == nil || err2 != err1 {
		t.Fatalf("errors not sticky: %v / %v", err1, err2)
	}
}

// TestExtensions round-trips what needs json-format.md Part 2: the
// Cassandra-style shadowable deletion, "ttl": 0 in an expiring row, empty
// values of non-string types, non-finite floats, quoted column names, a
// partition deletion with rows, and sstabledump's omitted tstamp and ttl.
func TestExtensions(t *testing.T) {
	tb := testTable(t, `CREATE TABLE ks.x (pk int, ck int, "MyCol" int, d double, f float, s text, l list<int>, m map<text, int>, PRIMARY KEY (pk, ck))`)
	doc := `[{"partition": {"key": ["1"], "position": 0, "deletion_info": {"marked_deleted": 3, "local_delete_time": 100}},
	  "rows": [
	    {"type": "row", "clustering": [1], "liveness_info": {"tstamp": 10, "ttl": 60, "expires_at": 1000},
	     "deletion_info": {"marked_deleted": 5, "local_delete_time": 200, "shadowable": true},
	     "cells": [
	       {"name": "\"MyCol\"", "value": "", "tstamp": 10, "ttl": 0},
	       {"name": "d", "value": "NaN", "tstamp": 10, "ttl": 60, "expires_at": 1000},
	       {"name": "f", "value": "-Infinity", "tstamp": 11, "ttl": 30, "expires_at": 980},
	       {"name": "s", "value": "", "tstamp": 10, "ttl": 0},
	       {"name": "l", "deletion_info": {"marked_deleted": 9, "local_delete_time": 200}},
	       {"name": "l", "path": ["56d81840-69c0-11e8-a327-179d3d84b73d"], "value": 7, "tstamp": 10, "ttl": 60, "expires_at": 1000},
	       {"name": "m", "path": ["k"], "deletion_info": {"local_delete_time": 300}, "tstamp": 12}
	     ]},
	    {"type": "row", "clustering": [2], "shadowable_deletion_info": {"marked_deleted": 6, "local_delete_time": 201}, "cells": []}
	  ]}]`
	parts, pos, err := DecodeAll(strings.NewReader(doc), tb, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := parts[0]
	if err := p.Validate(tb); err != nil {
		t.Fatal(err)
	}
	r := p.Rows[0]
	my := tb.Column("MyCol")
	if !r.DeletionShadowable || r.Cells[0].Column != my || len(r.Cells[0].Value) != 0 || r.Cells[0].IsExpiring() ||
		len(r.ComplexDeletions) != 1 || !p.Rows[1].ShadowableDeletion.Supersedes(mutation.Live) {
		t.Fatalf("decoded %+v", p)
	}
	c := corpusCase{name: "extensions", table: tb}
	for _, o := range []EncodeOptions{{Format: FormatCanonical}, {Format: FormatDump}, {Format: FormatRaw, Layout: LayoutLines}} {
		out := encodeAll(t, c, parts, pos, o)
		if d, err := DiffBytes(tb, []byte(doc), out, DiffOptions{ComparePositions: true}); err != nil || d != "" {
			t.Fatalf("format %d: %q %v\n%s", o.Format, d, err, out)
		}
		if o.Format == FormatDump {
			s := string(out)
			for _, w := range []string{`"name": "\"MyCol\"", "value": "", "ttl": 0}`, `"value": "NaN"}`, `"shadowable": true`,
				`"name": "f", "value": "-Infinity", "tstamp": "1970-01-01T00:00:00.000011Z", "ttl": 30, "expires_at": "1970-01-01T00:16:20Z", "expired": true}`} {
				if !strings.Contains(s, w) {
					t.Errorf("dump form lacks %s:\n%s", w, s)
				}
			}
		}
	}
}

func TestDiffReportsPath(t *testing.T) {
	c := mcWriteTable(t, "multiple_rows")
	a := `[{"partition": {"key": ["0"], "position": 0}, "rows": [{"type": "row", "clustering": [1], "cells": [{"name": "rc1", "value": 10, "tstamp": 5}]}]}]`
	cases := []struct{ b, want string }{
		{`[{"partition": {"key": ["0"], "position": 7}, "rows": [{"type": "row", "clustering": [1], "cells": [{"name": "rc1", "value": 10, "tstamp": "5"}]}]}]`, ""},
		{`[{"partition": {"key": ["0"]}, "rows": [{"type": "row", "clustering": [1], "cells": [{"name": "rc1", "value": 10, "tstamp": 6}]}]}]`,
			`partition ["0"] > rows[0] row [1] > cells[0] rc1 > tstamp: 5 != 6`},
		{`[{"partition": {"key": ["0"]}, "rows": [{"type": "row", "clustering": [1], "cells": [{"name": "rc1", "value": 11, "tstamp": 5}]}]}]`,
			`partition ["0"] > rows[0] row [1] > cells[0] rc1 > value: 10 != 11`},
		{`[{"partition": {"key": ["0"]}, "rows": [{"type": "row", "clustering": [1], "cells": [{"name": "rc1", "value": 10, "tstamp": 5}, {"name": "rc2", "value": 1, "tstamp": 5}]}]}]`,
			`partition ["0"] > rows[0] row [1] > cells: the second document has 1 more element(s)`},
		{`[{"partition": {"key": ["1"]}, "rows": [{"type": "row", "clustering": [1], "cells": [{"name": "rc1", "value": 10, "tstamp": 5}]}]}]`,
			`partition ["0"] > partition > key[0]: "0" != "1"`},
		{`[]`, `only in the first document`},
	}
	for _, cse := range cases {
		d, err := DiffBytes(c, []byte(a), []byte(cse.b), DiffOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if (cse.want == "" && d != "") || !strings.Contains(d, cse.want) {
			t.Errorf("diff %s:\n got %q\nwant %q", cse.b, d, cse.want)
		}
	}
	if d, _ := DiffBytes(c, []byte(a), []byte(strings.Replace(a, `"position": 0`, `"position": 1`, 1)), DiffOptions{ComparePositions: true}); !strings.Contains(d, "position: 0 != 1") {
		t.Errorf("positions not compared: %q", d)
	}
	if !numbersEqual("5.450", "5.45") || !numbersEqual("1e2", "100") || numbersEqual("1", "1.0000001") {
		t.Error("numbersEqual")
	}
}

// TestMemtableFlushMatchesCassandra rebuilds range_tombstones_simple from
// its CQL statements with mutation.Merge (one update per statement, as a
// memtable applies them) and mutation.PurgeShadowed (the flush), and
// compares with the canonical dump of the sstable Cassandra flushed.
func TestMemtableFlushMatchesCassandra(t *testing.T) {
	var c corpusCase
	for _, x := range expectedCases(t) {
		if x.name == "range_tombstones_simple" {
			c = x
		}
	}
	tb := c.table
	parts, _, err := DecodeAll(bytes.NewReader(readFile(t, c.json)), tb, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := parts[0]
	// Write times: the surviving rows' from the dump; the deleted rows'
	// (102, 103, 104, 109, 110) are any time before the deletions.
	ts := map[int32]int64{}
	for _, r := range want.Rows {
		ts[int32(r.Clustering[0][3])|int32(r.Clustering[0][2])<<8] = r.Liveness.Timestamp
	}
	rts, err := mutation.AppendRangeTombstones(nil, want.Markers)
	if err != nil {
		t.Fatal(err)
	}
	v := tb.Column("val")
	mem := &mutation.Partition{Key: want.Key, Token: want.Token, Deletion: mutation.Live, Static: mutation.NewRow(nil)}
	b := mutation.NewBuilder(tb)
	for ck := int32(101); ck <= 110; ck++ {
		w, ok := ts[ck]
		if !ok {
			w = 1529519641190000 + int64(ck)
		}
		b.Reset(want.Key)
		b.StartRow(mutation.Clustering{schema.AppendInt(nil, ck)})
		b.SetLiveness(mutation.LivenessInfo{Timestamp: w, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime})
		b.AddLiveCell(v, nil, schema.AppendInt(nil, 900+ck), w)
		u, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if err := mutation.Merge(tb, mem, u, 0); err != nil {
			t.Fatal(err)
		}
	}
	// The three DELETEs: (101, 104), [104, 105), (108, end]. The dump's
	// ranges carry their deletion times.
	deletes := []mutation.RangeTombstone{
		{Start: mutation.Bound{Kind: mutation.ExclStartBound, Clustering: rts[0].Start.Clustering},
			End: mutation.Bound{Kind: mutation.ExclEndBound, Clustering: rts[1].Start.Clustering}, Deletion: rts[0].Deletion},
		rts[1],
		rts[2],
	}
	for _, d := range deletes {
		u := &mutation.Partition{Key: want.Key, Token: want.Token, Deletion: mutation.Live, Static: mutation.NewRow(nil),
			Markers: mutation.AppendMarkers(tb, nil, []mutation.RangeTombstone{d}, mutation.Live)}
		if err := mutation.Merge(tb, mem, u, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := mutation.PurgeShadowed(tb, mem); err != nil {
		t.Fatal(err)
	}
	// Values are not in the dump's comparison (we invented them): copy.
	for i := range mem.Rows {
		if i < len(want.Rows) {
			mem.Rows[i].Cells[0].Value = want.Rows[i].Cells[0].Value
		}
	}
	var got, exp bytes.Buffer
	for _, x := range []struct {
		p *mutation.Partition
		w *bytes.Buffer
	}{{mem, &got}, {want, &exp}} {
		enc := NewEncoder(x.w, tb, EncodeOptions{Format: FormatCanonical})
		if err := enc.Encode(x.p, 0); err != nil {
			t.Fatal(err)
		}
		enc.Close()
	}
	if d, err := DiffBytes(tb, got.Bytes(), exp.Bytes(), DiffOptions{}); err != nil || d != "" {
		t.Fatalf("memtable flush differs from Cassandra's: %s %v\n%s", d, err, got.String())
	}
}

func TestEncoderMisuse(t *testing.T) {
	tb := testTable(t, "CREATE TABLE ks.t (pk int, v int, PRIMARY KEY (pk))")
	var out bytes.Buffer
	enc := NewEncoder(&out, tb, EncodeOptions{})
	if err := enc.Row(&mutation.Row{}); err == nil {
		t.Fatal("Row outside a partition accepted")
	}
	enc = NewEncoder(&out, tb, EncodeOptions{})
	p := &mutation.Partition{Key: []byte{1, 2}, Deletion: mutation.Live, Static: mutation.NewRow(nil)}
	if err := enc.Encode(p, 0); err == nil || !strings.Contains(err.Error(), "partition key") {
		t.Fatalf("3-byte int key: %v", err)
	}
	if err := enc.Close(); err == nil {
		t.Fatal("sticky error lost")
	}
	// Writer errors surface.
	enc = NewEncoder(failWriter{}, tb, EncodeOptions{})
	p.Key = schema.AppendInt(nil, 1)
	if err := enc.Encode(p, 0); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err == nil {
		t.Fatal("write error lost")
	}
	// An empty document.
	out.Reset()
	enc = NewEncoder(&out, tb, EncodeOptions{Layout: LayoutCompact})
	if err := enc.Close(); err != nil || out.String() != "[]\n" {
		t.Fatalf("empty: %q %v", out.String(), err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestExpiredFlag(t *testing.T) {
	tb := testTable(t, "CREATE TABLE ks.t (pk int, v int, PRIMARY KEY (pk))")
	r := mutation.NewRow(nil)
	r.Cells = []mutation.Cell{{Column: tb.Column("v"), Value: schema.AppendInt(nil, 1), Timestamp: 1, TTL: 10, LocalDeletionTime: 1000}}
	p := &mutation.Partition{Key: schema.AppendInt(nil, 1), Deletion: mutation.Live, Static: mutation.NewRow(nil), Rows: []mutation.Row{r}}
	for _, c := range []struct {
		now  int64
		want string
	}{{999, `"expired": false`}, {1000, `"expired": true`}, {math.MaxInt32 + 10, `"expired": true`}} {
		var out bytes.Buffer
		enc := NewEncoder(&out, tb, EncodeOptions{Now: time.Unix(c.now, 0)})
		if err := enc.Encode(p, -1); err != nil {
			t.Fatal(err)
		}
		enc.Close()
		if !strings.Contains(out.String(), c.want) || strings.Contains(out.String(), "position") {
			t.Errorf("now %d: %s", c.now, out.String())
		}
	}
}

// TestDecodeSmallReads decodes every small corpus document through readers
// that return one byte or half the buffer at a time, so every token
// straddles a refill of the scanner's window, and compares with a whole
// read.
func TestDecodeSmallReads(t *testing.T) {
	for _, c := range append(mcWriteCases(t), expectedCases(t)...) {
		doc := readFile(t, c.json)
		if len(doc) > 300_000 {
			continue
		}
		want, wantPos, err := DecodeAll(bytes.NewReader(doc), c.table, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref := encodeAll(t, c, want, wantPos, EncodeOptions{Format: FormatCanonical})
		for name, r := range map[string]io.Reader{
			"one byte": iotest.OneByteReader(bytes.NewReader(doc)),
			"half":     iotest.HalfReader(bytes.NewReader(doc)),
			"data+EOF": iotest.DataErrReader(bytes.NewReader(doc)),
		} {
			got, gotPos, err := DecodeAll(r, c.table, DecodeOptions{})
			if err != nil {
				t.Fatalf("%s, %s reads: %v", c.name, name, err)
			}
			if out := encodeAll(t, c, got, gotPos, EncodeOptions{Format: FormatCanonical}); !bytes.Equal(out, ref) {
				t.Fatalf("%s, %s reads: different result", c.name, name)
			}
		}
	}
	// A read error is reported, not taken for the end of the input.
	tb := testTable(t, "CREATE TABLE ks.t (pk int, v int, PRIMARY KEY (pk))")
	r := iotest.TimeoutReader(iotest.OneByteReader(strings.NewReader(`[{"partition": {"key": ["1"]}, "rows": []}]`)))
	if _, _, err := DecodeAll(r, tb, DecodeOptions{}); err == nil || !errors.Is(err, iotest.ErrTimeout) {
		t.Fatalf("read error: %v", err)
	}
}

func TestDecodeValueLimit(t *testing.T) {
	tb := testTable(t, "CREATE TABLE ks.t (pk int, v text, PRIMARY KEY (pk))")
	big := strings.Repeat("x", 1<<20)
	doc := `[{"partition": {"key": ["1"]}, "rows": [{"type": "row", "cells": [{"name": "v", "value": "` + big + `", "tstamp": 1}]}]}]`
	if _, _, err := DecodeAll(strings.NewReader(doc), tb, DecodeOptions{MaxValueBytes: 1 << 16}); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("oversized value: %v", err)
	}
	parts, _, err := DecodeAll(strings.NewReader(doc), tb, DecodeOptions{})
	if err != nil || len(parts[0].Rows[0].Cells[0].Value) != 1<<20 {
		t.Fatalf("default limit: %v", err)
	}
	// Deep nesting in a skipped field is bounded too.
	deep := `[{"partition": {"key": ["1"]}, "x": ` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `, "rows": []}]`
	if _, _, err := DecodeAll(strings.NewReader(deep), tb, DecodeOptions{}); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Fatalf("deep nesting: %v", err)
	}
}
