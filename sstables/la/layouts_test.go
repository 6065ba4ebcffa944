package la

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// roundTrip writes the canonical JSON doc of table as an la SSTable,
// verifies it, reads it back and compares with doc; it returns the
// uncompressed Data.db.
func roundTrip(t *testing.T, table *schema.Table, doc string) []byte {
	t.Helper()
	parts, _, err := jsondump.DecodeAll(strings.NewReader(doc), table, jsondump.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := writeLA(t, false, table, parts, t.TempDir(), compress.Params{Codec: compress.None})
	if err != nil {
		t.Fatal(err)
	}
	got, r := dumpSSTable(t, d, table)
	if err := r.Verify(); err != nil {
		t.Fatal(err)
	}
	diff, err := jsondump.DiffBytes(table, []byte(got), []byte(doc), jsondump.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Fatalf("read back differs: %s\n%s", diff, got)
	}
	return readData(t, d)
}

// TestCompactSimpleDense: COMPACT STORAGE with one clustering column names
// a cell by the raw clustering value (la-format.md §3.7 f) and writes a
// row deletion as a tombstone between two raw bounds.
func TestCompactSimpleDense(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.sd (pk int, ck text, v int, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE;`)
	data := roundTrip(t, table, `[{"partition":{"key":["1"]},"rows":[
		{"type":"row","clustering":["a"],"deletion_info":{"marked_deleted":10,"local_delete_time":5},"cells":[]},
		{"type":"row","clustering":["cl12"],"cells":[{"name":"v","value":7,"tstamp":20}]}]}]`)
	for _, want := range [][]byte{
		{0, 1, 'a', flagRangeTombstone, 0, 1, 'a'},                           // tombstone [a, a]
		{0, 4, 'c', 'l', '1', '2', 0, 0, 0, 0, 0, 0, 0, 0, 0x14, 0, 0, 0, 4}, // cell "cl12", flags 0, ts 20, value of 4 bytes
	} {
		if !bytes.Contains(data, want) {
			t.Errorf("Data.db lacks %x:\n%x", want, data)
		}
	}
}

// TestCompactSimpleSparse: COMPACT STORAGE without clustering columns
// names cells by the raw column name; Cassandra 3.x models the declared
// columns as static and other names as rows of the hidden column1/value.
func TestCompactSimpleSparse(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.ss (pk int PRIMARY KEY, cl1 int, cl2 text) WITH COMPACT STORAGE;`)
	data := roundTrip(t, table, `[{"partition":{"key":["1"]},"rows":[
		{"type":"static_block","cells":[{"name":"cl1","value":3,"tstamp":20},{"name":"cl2","value":"x","tstamp":20}]},
		{"type":"row","clustering":["dyn"],"cells":[{"name":"value","value":"0x01","tstamp":21}]}]}]`)
	for _, want := range [][]byte{{0, 3, 'c', 'l', '1', 0}, {0, 3, 'c', 'l', '2', 0}, {0, 3, 'd', 'y', 'n', 0}} {
		if !bytes.Contains(data, want) {
			t.Errorf("Data.db lacks %x:\n%x", want, data)
		}
	}
}

// TestPartitionEdgeMarkers: a range from the start of the partition and one
// to its end (3.x range deletions ck < x, ck > y) round-trip; the start is
// written as an empty first component with eoc START, the end as the empty
// bound.
func TestPartitionEdgeMarkers(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.e (pk int, ck int, v int, PRIMARY KEY (pk, ck));`)
	data := roundTrip(t, table, `[{"partition":{"key":["1"]},"rows":[
		{"type":"range_tombstone_bound","start":{"type":"inclusive","deletion_info":{"marked_deleted":10,"local_delete_time":5}}},
		{"type":"range_tombstone_bound","end":{"type":"exclusive","clustering":[3],"deletion_info":{"marked_deleted":10,"local_delete_time":5}}},
		{"type":"row","clustering":[4],"liveness_info":{"tstamp":20},"cells":[{"name":"v","value":1,"tstamp":20}]},
		{"type":"range_tombstone_bound","start":{"type":"exclusive","clustering":[7],"deletion_info":{"marked_deleted":11,"local_delete_time":6}}},
		{"type":"range_tombstone_bound","end":{"type":"inclusive","deletion_info":{"marked_deleted":11,"local_delete_time":6}}}]}]`)
	bottom := []byte{0, 3, 0, 0, eocStart, flagRangeTombstone, 0, 7, 0, 4, 0, 0, 0, 3, eocStart}
	top := []byte{0, 7, 0, 4, 0, 0, 0, 7, eocEnd, flagRangeTombstone, 0, 0}
	for _, want := range [][]byte{bottom, top} {
		if !bytes.Contains(data, want) {
			t.Errorf("Data.db lacks %x:\n%x", want, data)
		}
	}
}

// TestScyllaShadowableFlag: atom flag 0x40 (ScyllaDB's shadowable
// tombstone) is a clear CorruptionError.
func TestScyllaShadowableFlag(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.t (pk int PRIMARY KEY, v int);`)
	data := []byte{0, 4, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0,
		0, 3, 0, 0, 0, flagScyllaShadow, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}
	err := decodeStream(data, table)
	if !errors.Is(err, sstables.ErrCorrupt) || !strings.Contains(err.Error(), "ScyllaDB shadowable") || !strings.Contains(err.Error(), "offset 23") {
		t.Fatalf("got %v", err)
	}
}

// TestUnrepresentable: data la cannot hold is an error naming the
// partition.
func TestUnrepresentable(t *testing.T) {
	s, err := cql.ParseSchema(`CREATE TYPE ks.u (a int, b text);
		CREATE TABLE ks.t (pk int, ck int, s int STATIC, u u, PRIMARY KEY (pk, ck));`)
	if err != nil {
		t.Fatal(err)
	}
	table := s.Tables[0]
	u, sc := table.Column("u"), table.Column("s")
	ts := func(c mutation.Cell) mutation.Cell {
		c.Timestamp, c.TTL, c.LocalDeletionTime = 1, mutation.NoTTL, mutation.NoDeletionTime
		return c
	}
	row := func(cells ...mutation.Cell) mutation.Row {
		r := mutation.NewRow(mutation.Clustering{{0, 0, 0, 1}})
		r.Cells = cells
		return r
	}
	cases := []struct {
		name string
		p    mutation.Partition
		want string
	}{
		{"non-frozen UDT", mutation.Partition{Rows: []mutation.Row{row(ts(mutation.Cell{Column: u, Path: []byte{0, 0}, Value: []byte{0, 0, 0, 1}}))}},
			"non-frozen user-defined type"},
		{"shadowable", mutation.Partition{Rows: []mutation.Row{func() mutation.Row {
			r := row()
			r.Deletion, r.DeletionShadowable = mutation.DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 5}, true
			return r
		}()}}, "shadowable row deletion"},
		{"static row deletion", mutation.Partition{Static: func() mutation.Row {
			r := mutation.NewRow(nil)
			r.Cells = []mutation.Cell{ts(mutation.Cell{Column: sc, Value: []byte{0, 0, 0, 1}})}
			r.Deletion = mutation.DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 5}
			return r
		}()}, "static row has a row deletion"},
		{"huge key", mutation.Partition{Key: make([]byte, 70000)}, "exceeds la's limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.p
			if p.Key == nil {
				p.Key = []byte{0, 0, 0, 7}
			}
			p.Deletion = mutation.Live
			if p.Static.Cells == nil && p.Static.Deletion == (mutation.DeletionTime{}) {
				p.Static = mutation.NewRow(nil)
			}
			_, err := writeLA(t, false, table, []*mutation.Partition{&p}, t.TempDir(), compress.Params{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "partition ") {
				t.Fatalf("got %v, want an error naming the partition and %q", err, c.want)
			}
		})
	}
}

// TestRowDeletionInsideRange: a row deletion (and a newer row) inside a
// deleted range are written as overlapping tombstones and read back as
// they were.
func TestRowDeletionInsideRange(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.r (pk int, ck int, v int, PRIMARY KEY (pk, ck));`)
	roundTrip(t, table, `[{"partition":{"key":["1"]},"rows":[
		{"type":"range_tombstone_bound","start":{"type":"inclusive","clustering":[1],"deletion_info":{"marked_deleted":10,"local_delete_time":5}}},
		{"type":"row","clustering":[3],"liveness_info":{"tstamp":25},"deletion_info":{"marked_deleted":20,"local_delete_time":6},
		 "cells":[{"name":"v","value":1,"tstamp":25}]},
		{"type":"range_tombstone_bound","end":{"type":"inclusive","clustering":[5],"deletion_info":{"marked_deleted":10,"local_delete_time":5}}}]}]`)
}

// TestStaticCollection: a static set overwritten (a complex deletion in the
// static row, written as a tombstone between static bounds) and a list
// with its timeuuid element keys round-trip; the static names start FF FF
// with one empty component per clustering column.
func TestStaticCollection(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.sc (pk int, c1 text, c2 text, s set<int> STATIC, l list<text>, PRIMARY KEY (pk, c1, c2));`)
	data := roundTrip(t, table, `[{"partition":{"key":["1"]},"rows":[
		{"type":"static_block","cells":[
			{"name":"s","deletion_info":{"marked_deleted":9,"local_delete_time":7}},
			{"name":"s","path":["1"],"value":"","tstamp":10},{"name":"s","path":["2"],"value":"","tstamp":10}]},
		{"type":"row","clustering":["a","b"],"liveness_info":{"tstamp":10},"cells":[
			{"name":"l","deletion_info":{"marked_deleted":9,"local_delete_time":7}},
			{"name":"l","path":["50554d6e-29bb-11e5-b345-feff819cdc9f"],"value":"x","tstamp":10}]}]}]`)
	staticStart := []byte{0, 12, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 's', eocStart, flagRangeTombstone, 0, 12, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 's', eocEnd}
	if !bytes.Contains(data, staticStart) {
		t.Fatalf("Data.db lacks the static collection tombstone %x:\n%x", staticStart, data)
	}
}

// TestReadDuplicateAndShadowedTombstones reads atoms as pre-2.2.4
// compactions wrote them: a tombstone twice with the same bounds, an older
// one inside it, a repeated copy after a cell, and a cell the tombstone
// shadows. The reader must give one range and the live row only.
func TestReadDuplicateAndShadowedTombstones(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.d (pk int, ck text, v int, PRIMARY KEY (pk, ck));`)
	l := layoutOf(table)
	del := mutation.DeletionTime{MarkedForDeleteAt: 10, LocalDeletionTime: 7}
	old := mutation.DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 6}
	bound := func(v string, eoc byte) []byte { return appendComponent(nil, []byte(v), eoc) }
	rt := func(start, end []byte, d mutation.DeletionTime) atom {
		return atom{kind: atomRangeTombstone, name: start, end: end, deletion: d}
	}
	cell := func(ck, col string, ts int64) atom {
		name := appendComponent(appendComponent(nil, []byte(ck), 0), []byte(col), 0)
		return atom{kind: atomCell, name: name, timestamp: ts, value: []byte{0, 0, 0, 1}}
	}
	atoms := []atom{
		rt(bound("a", eocStart), bound("c", eocEnd), del),
		rt(bound("a", eocStart), bound("c", eocEnd), del),
		rt(bound("b", eocStart), bound("b", eocEnd), old), // a row deletion older than the range
		cell("b", "v", 20),
		rt(bound("a", eocStart), bound("c", eocEnd), del), // repeated at a block start
		cell("bb", "v", 9), // shadowed by the range
	}
	data := appendShortBytes(nil, []byte{0, 0, 0, 1})
	data = append(data, liveDeletionBytes[:]...)
	for i := range atoms {
		data = appendAtom(data, &atoms[i])
	}
	data = append(data, 0, 0)
	in := newSliceInput(data, 0, "Data.db", sstables.ComponentData)
	s := &scanner{tokens: dht.Murmur3, in: in, pr: newPartitionReader(table, l)}
	p, err := s.NextPartition()
	if err != nil {
		t.Fatal(err)
	}
	whole, err := readWholePartition(s, p)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := jsondump.NewEncoder(&buf, table, jsondump.EncodeOptions{Format: jsondump.FormatCanonical, Layout: jsondump.LayoutLines})
	if err := enc.Encode(whole, 0); err != nil {
		t.Fatal(err)
	}
	enc.Close()
	want := `{"partition":{"key":["1"],"position":0},"rows":[
		{"type":"range_tombstone_bound","start":{"type":"inclusive","clustering":["a"],"deletion_info":{"marked_deleted":10,"local_delete_time":7}}},
		{"type":"row","clustering":["b"],"cells":[{"name":"v","value":1,"tstamp":20}]},
		{"type":"range_tombstone_bound","end":{"type":"inclusive","clustering":["c"],"deletion_info":{"marked_deleted":10,"local_delete_time":7}}}]}`
	diff, err := jsondump.DiffBytes(table, buf.Bytes(), []byte(want), jsondump.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Fatalf("%s\n%s", diff, buf.String())
	}
}

// TestReadSplitTombstones reads what 2.2's RangeTombstoneList makes of a
// prefix deletion (ck1 = x) and a newer row deletion (x, y) inside it:
// [x, (x,y)) @10, [(x,y), (x,y)] @20, ((x,y), x] @10. The result must be a
// valid marker sequence with the row deletion between the two ranges.
func TestReadSplitTombstones(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.s (pk int, ck1 text, ck2 text, v int, PRIMARY KEY (pk, ck1, ck2));`)
	d10 := mutation.DeletionTime{MarkedForDeleteAt: 10, LocalDeletionTime: 7}
	d20 := mutation.DeletionTime{MarkedForDeleteAt: 20, LocalDeletionTime: 8}
	x := func(eoc byte) []byte { return appendComponent(nil, []byte("x"), eoc) }
	xy := func(eoc byte) []byte { return appendComponent(appendComponent(nil, []byte("x"), 0), []byte("y"), eoc) }
	atoms := []atom{
		{kind: atomRangeTombstone, name: x(eocStart), end: xy(eocStart), deletion: d10},
		{kind: atomRangeTombstone, name: xy(eocStart), end: xy(eocEnd), deletion: d20},
		{kind: atomRangeTombstone, name: xy(eocEnd), end: x(eocEnd), deletion: d10},
	}
	data := appendShortBytes(nil, []byte{0, 0, 0, 1})
	data = append(data, liveDeletionBytes[:]...)
	for i := range atoms {
		data = appendAtom(data, &atoms[i])
	}
	data = append(data, 0, 0)
	s := &scanner{tokens: dht.Murmur3, in: newSliceInput(data, 0, "Data.db", sstables.ComponentData), pr: newPartitionReader(table, layoutOf(table))}
	if _, err := s.NextPartition(); err != nil {
		t.Fatal(err)
	}
	// The scanner's stream order must be clustering order (a streaming
	// consumer such as a converting writer relies on it).
	var got []string
	prevKind, prev := mutation.BoundKind(0), mutation.Clustering(nil)
	for i := 0; ; i++ {
		row, m, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		var kind mutation.BoundKind
		var c mutation.Clustering
		switch {
		case row != nil:
			kind, c = mutation.ClusteringKind, cloneRow(row).Clustering
			if row.Deletion != d20 {
				t.Fatalf("row deletion %v", row.Deletion)
			}
		case m != nil:
			kind, c = m.Kind, cloneMarker(m).Clustering
		default:
			want := "INCL_START_BOUND EXCL_END_BOUND CLUSTERING EXCL_START_BOUND INCL_END_BOUND"
			if g := strings.Join(got, " "); g != want {
				t.Fatalf("stream %s, want %s", g, want)
			}
			return
		}
		if i > 0 && mutation.ComparePrefix(table, prevKind, prev, kind, c) >= 0 {
			t.Fatalf("%v %x does not come after %v %x", kind, c, prevKind, prev)
		}
		prevKind, prev = kind, c
		got = append(got, kind.String())
	}
}

// TestUnrepresentableDuration: a table with a duration column (3.10+)
// cannot be written as la; the error names the column.
func TestUnrepresentableDuration(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.d (pk int PRIMARY KEY, d duration, l list<frozen<tuple<int, duration>>>);`)
	_, err := writeLA(t, false, table, nil, t.TempDir(), compress.Params{})
	if err == nil || !strings.Contains(err.Error(), "duration") || !strings.Contains(err.Error(), "column d") {
		t.Fatalf("got %v, want an error naming the duration column", err)
	}
}
