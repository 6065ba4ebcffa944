package mutation

import (
	"encoding/binary"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/schema"
)

func i32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// ckTable is (pk int, ck int, s int static, v int, l set<int>, PRIMARY KEY (pk, ck)).
func ckTable(t testing.TB) *schema.Table {
	t.Helper()
	tb, err := schema.NewTable("ks", "t", []schema.ColumnDef{
		{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey},
		{Name: "ck", Type: schema.Int, Kind: schema.ClusteringKey},
		{Name: "s", Type: schema.Int, Kind: schema.Static},
		{Name: "v", Type: schema.Int, Kind: schema.Regular},
		{Name: "l", Type: schema.SetOf(schema.Int, false), Kind: schema.Regular},
	}, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// twoCkTable is (pk text, ck1 text, ck2 text, ck3 text, PRIMARY KEY (pk, ck1, ck2, ck3)).
func twoCkTable(t testing.TB) *schema.Table {
	t.Helper()
	return must(schema.NewTable("ks", "t", []schema.ColumnDef{
		{Name: "pk", Type: schema.Text, Kind: schema.PartitionKey},
		{Name: "ck1", Type: schema.Text, Kind: schema.ClusteringKey},
		{Name: "ck2", Type: schema.Text, Kind: schema.ClusteringKey},
		{Name: "ck3", Type: schema.Text, Kind: schema.ClusteringKey},
	}, schema.Options{}))
}

func ck(v ...int32) Clustering {
	c := make(Clustering, len(v))
	for i, x := range v {
		c[i] = i32(x)
	}
	return c
}

func TestComparePrefixOrder(t *testing.T) {
	tb := ckTable(t)
	type pos struct {
		k BoundKind
		c Clustering
	}
	// The order range_tombstones_simple's Data.db has, plus extra kinds.
	seq := []pos{
		{InclStartBound, nil},
		{StaticClustering, nil},
		{ClusteringKind, ck(101)},
		{ExclStartBound, ck(101)},
		{ExclEndBound, ck(104)},
		{InclStartBound, ck(104)},
		{ClusteringKind, ck(104)},
		{InclEndBound, ck(104)},
		{ExclEndInclStartBoundary, ck(105)},
		{ClusteringKind, ck(105)},
		{InclEndExclStartBoundary, ck(105)},
		{ClusteringKind, ck(108)},
		{ExclStartBound, ck(108)},
		{InclEndBound, nil},
	}
	for i := range seq {
		for j := range seq {
			got := ComparePrefix(tb, seq[i].k, seq[i].c, seq[j].k, seq[j].c)
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			// Same-position bounds of equal comparison value compare equal.
			if i != j && seq[i].k != ClusteringKind && seq[j].k != ClusteringKind && len(seq[i].c) == len(seq[j].c) &&
				len(seq[i].c) > 0 && string(seq[i].c[0]) == string(seq[j].c[0]) && kindComparison[seq[i].k] == kindComparison[seq[j].k] {
				want = 0
			}
			if got != want {
				t.Errorf("compare %v%v with %v%v = %d, want %d", seq[i].k, seq[i].c, seq[j].k, seq[j].c, got, want)
			}
		}
	}
	// Prefixes: INCL_START(aaa) < row (aaa, x, y) < INCL_END(aaa) < row (aab ...).
	tt := twoCkTable(t)
	text := func(s ...string) Clustering {
		c := Clustering{}
		for _, x := range s {
			c = append(c, []byte(x))
		}
		return c
	}
	if ComparePrefix(tt, InclStartBound, text("aaa"), ClusteringKind, text("aaa", "b", "c")) >= 0 ||
		ComparePrefix(tt, InclEndBound, text("aaa"), ClusteringKind, text("aaa", "b", "c")) <= 0 ||
		ComparePrefix(tt, ExclEndBound, text("aaa", "bbb"), ClusteringKind, text("aaa", "bbb", "c")) >= 0 ||
		ComparePrefix(tt, InclEndBound, text("aaa"), ClusteringKind, text("aab", "", "")) >= 0 {
		t.Fatal("prefix bound order")
	}
}

func TestBoundKindHelpers(t *testing.T) {
	for k := BoundKind(0); k <= ExclStartBound; k++ {
		if k.IsMarkerKind() && k.Invert().Invert() != k {
			t.Errorf("%v: double invert", k)
		}
		if k.IsBoundary() && (!k.IsStart() || !k.IsEnd()) {
			t.Errorf("%v: boundary should start and end", k)
		}
	}
	if ExclEndInclStartBoundary.CloseBound() != ExclEndBound || ExclEndInclStartBoundary.OpenBound() != InclStartBound ||
		InclEndExclStartBoundary.CloseBound() != InclEndBound || InclEndExclStartBoundary.OpenBound() != ExclStartBound {
		t.Fatal("boundary halves")
	}
	if BoundaryKind(InclEndBound) != InclEndExclStartBoundary || BoundaryKind(ExclEndBound) != ExclEndInclStartBoundary {
		t.Fatal("BoundaryKind")
	}
	if !strings.Contains(BoundKind(9).String(), "9") || InclStartBound.String() != "INCL_START_BOUND" {
		t.Fatal("String")
	}
}

func del(ts int64, ldt int64) DeletionTime {
	return DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: ldt}
}

func rt(startK BoundKind, start Clustering, endK BoundKind, end Clustering, d DeletionTime) RangeTombstone {
	return RangeTombstone{Start: Bound{startK, start}, End: Bound{endK, end}, Deletion: d}
}

// intClustering renders an int clustering as [1, 2] without relying on
// the schema's JSON rendering.
func intClustering(c Clustering) string {
	var parts []string
	for _, v := range c {
		parts = append(parts, strconv.Itoa(int(int32(binary.BigEndian.Uint32(v)))))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func markerString(t *schema.Table, ms []RangeTombstoneMarker) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.Kind.String() + clusteringText(t, m.Clustering))
		if !m.Close.IsLive() {
			b.WriteString(" close@" + strconv.FormatInt(m.Close.MarkedForDeleteAt, 10))
		}
		if !m.Open.IsLive() {
			b.WriteString(" open@" + strconv.FormatInt(m.Open.MarkedForDeleteAt, 10))
		}
		b.WriteString("; ")
	}
	return b.String()
}

// clusteringText renders int or text clusterings for test messages.
func clusteringText(t *schema.Table, c Clustering) string {
	if len(t.Clustering) > 0 && t.Clustering[0].Type.Kind == schema.KindInt {
		return intClustering(c)
	}
	var parts []string
	for _, v := range c {
		parts = append(parts, strconv.Quote(string(v)))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func TestRangeTombstoneListOverlap(t *testing.T) {
	tb := ckTable(t)
	cases := []struct {
		name string
		add  []RangeTombstone
		want string
	}{
		{"nested newer splits older",
			[]RangeTombstone{rt(InclStartBound, ck(1), InclEndBound, ck(10), del(5, 1)), rt(InclStartBound, ck(3), InclEndBound, ck(4), del(7, 1))},
			"INCL_START_BOUND[1] open@5; EXCL_END_INCL_START_BOUNDARY[3] close@5 open@7; INCL_END_EXCL_START_BOUNDARY[4] close@7 open@5; INCL_END_BOUND[10] close@5; "},
		{"nested older is absorbed",
			[]RangeTombstone{rt(InclStartBound, ck(1), InclEndBound, ck(10), del(7, 1)), rt(InclStartBound, ck(3), InclEndBound, ck(4), del(5, 1))},
			"INCL_START_BOUND[1] open@7; INCL_END_BOUND[10] close@7; "},
		{"overlap newer on the right",
			[]RangeTombstone{rt(InclStartBound, ck(1), InclEndBound, ck(5), del(5, 1)), rt(InclStartBound, ck(3), InclEndBound, ck(8), del(7, 1))},
			"INCL_START_BOUND[1] open@5; EXCL_END_INCL_START_BOUNDARY[3] close@5 open@7; INCL_END_BOUND[8] close@7; "},
		{"overlap older on the right",
			[]RangeTombstone{rt(InclStartBound, ck(1), InclEndBound, ck(5), del(7, 1)), rt(InclStartBound, ck(3), InclEndBound, ck(8), del(5, 1))},
			"INCL_START_BOUND[1] open@7; INCL_END_EXCL_START_BOUNDARY[5] close@7 open@5; INCL_END_BOUND[8] close@5; "},
		{"overlap newer on the left, added out of order",
			[]RangeTombstone{rt(InclStartBound, ck(3), InclEndBound, ck(8), del(5, 1)), rt(InclStartBound, ck(1), InclEndBound, ck(5), del(7, 1))},
			"INCL_START_BOUND[1] open@7; INCL_END_EXCL_START_BOUNDARY[5] close@7 open@5; INCL_END_BOUND[8] close@5; "},
		{"disjoint out of order",
			[]RangeTombstone{rt(InclStartBound, ck(5), InclEndBound, ck(8), del(5, 1)), rt(InclStartBound, ck(1), ExclEndBound, ck(3), del(5, 1))},
			"INCL_START_BOUND[1] open@5; EXCL_END_BOUND[3] close@5; INCL_START_BOUND[5] open@5; INCL_END_BOUND[8] close@5; "},
		{"adjacent equal deletions stay a boundary",
			[]RangeTombstone{rt(InclStartBound, ck(1), ExclEndBound, ck(3), del(5, 1)), rt(InclStartBound, ck(3), InclEndBound, ck(5), del(5, 1))},
			"INCL_START_BOUND[1] open@5; EXCL_END_INCL_START_BOUNDARY[3] close@5 open@5; INCL_END_BOUND[5] close@5; "},
		{"equal timestamps: existing wins",
			[]RangeTombstone{rt(InclStartBound, ck(1), InclEndBound, ck(5), del(5, 1)), rt(InclStartBound, ck(3), InclEndBound, ck(8), del(5, 9))},
			"INCL_START_BOUND[1] open@5; INCL_END_EXCL_START_BOUNDARY[5] close@5 open@5; INCL_END_BOUND[8] close@5; "},
		{"whole partition over pieces",
			[]RangeTombstone{rt(InclStartBound, ck(1), InclEndBound, ck(2), del(5, 1)), rt(InclStartBound, ck(4), InclEndBound, ck(5), del(5, 1)), rt(InclStartBound, nil, InclEndBound, nil, del(9, 1))},
			// Cassandra's insertFrom splits the new range at the old
			// pieces' starts: a boundary with equal deletions remains.
			"INCL_START_BOUND[] open@9; EXCL_END_INCL_START_BOUNDARY[4] close@9 open@9; INCL_END_BOUND[] close@9; "},
		{"empty range ignored",
			[]RangeTombstone{rt(ExclStartBound, ck(3), ExclEndBound, ck(3), del(5, 1))},
			""},
	}
	for _, c := range cases {
		l := NewRangeTombstoneList(tb)
		for _, r := range c.add {
			l.Add(r)
		}
		got := markerString(tb, l.AppendMarkers(nil, Live))
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		// Markers convert back to the same ranges.
		back, err := AppendRangeTombstones(nil, l.AppendMarkers(nil, Live))
		if err != nil || len(back) != l.Len() {
			t.Errorf("%s: round trip %v (%d ranges, want %d)", c.name, err, len(back), l.Len())
		}
	}
}

func TestMergeOverlappedRangeTombstones(t *testing.T) {
	// mc-write/overlapped_range_tombstones: two DELETEs from two memtables.
	tb := twoCkTable(t)
	aaa, bbb := []byte("aaa"), []byte("bbb")
	d1, d2 := del(1525385507816568, 1527821291), del(1525385507816578, 1527821308)
	p1 := &Partition{Key: []byte("key"), Deletion: Live, Static: NewRow(nil)}
	p1.Markers = AppendMarkers(tb, nil, []RangeTombstone{rt(InclStartBound, Clustering{aaa}, InclEndBound, Clustering{aaa}, d1)}, Live)
	p2 := &Partition{Key: []byte("key"), Deletion: Live, Static: NewRow(nil)}
	p2.Markers = AppendMarkers(tb, nil, []RangeTombstone{rt(InclStartBound, Clustering{aaa, bbb}, InclEndBound, Clustering{aaa, bbb}, d2)}, Live)
	if err := Merge(tb, p1, p2, 0); err != nil {
		t.Fatal(err)
	}
	want := []RangeTombstoneMarker{
		{Kind: InclStartBound, Clustering: Clustering{aaa}, Close: Live, Open: d1},
		{Kind: ExclEndInclStartBoundary, Clustering: Clustering{aaa, bbb}, Close: d1, Open: d2},
		{Kind: InclEndExclStartBoundary, Clustering: Clustering{aaa, bbb}, Close: d2, Open: d1},
		{Kind: InclEndBound, Clustering: Clustering{aaa}, Close: d1, Open: Live},
	}
	if !reflect.DeepEqual(p1.Markers, want) {
		t.Fatalf("got %s\nwant %s", markerString(tb, p1.Markers), markerString(tb, want))
	}
	if err := p1.Validate(tb); err != nil {
		t.Fatal(err)
	}
}

func liveCell(col *schema.Column, ts int64, v []byte) Cell {
	return Cell{Column: col, Value: v, Timestamp: ts, TTL: NoTTL, LocalDeletionTime: NoDeletionTime}
}

func insertRow(tb *schema.Table, c int32, ts int64, v int32) Row {
	r := NewRow(ck(c))
	r.Liveness = LivenessInfo{Timestamp: ts, TTL: NoTTL, LocalExpirationTime: NoDeletionTime}
	r.Cells = []Cell{liveCell(tb.Column("v"), ts, i32(v))}
	return r
}

func TestMergeAndPurgeRangeTombstonesSimple(t *testing.T) {
	// The statements of cassandra/3.x/uncompressed/range_tombstones_simple:
	// ten INSERTs then three range DELETEs, one memtable, flushed.
	tb := ckTable(t)
	key := i32(1)
	mem := &Partition{Key: key, Deletion: Live, Static: NewRow(nil)}
	for i := int32(0); i < 10; i++ {
		u := &Partition{Key: key, Deletion: Live, Static: NewRow(nil), Rows: []Row{insertRow(tb, 101+i, 1000+int64(i), 1001+i)}}
		if err := Merge(tb, mem, u, 0); err != nil {
			t.Fatal(err)
		}
	}
	deletes := []RangeTombstone{
		rt(ExclStartBound, ck(101), ExclEndBound, ck(104), del(2000, 10)),
		rt(InclStartBound, ck(104), ExclEndBound, ck(105), del(2001, 10)),
		rt(ExclStartBound, ck(108), InclEndBound, nil, del(2002, 11)),
	}
	for _, d := range deletes {
		u := &Partition{Key: key, Deletion: Live, Static: NewRow(nil), Markers: AppendMarkers(tb, nil, []RangeTombstone{d}, Live)}
		if err := Merge(tb, mem, u, 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(mem.Rows) != 10 {
		t.Fatalf("memtable keeps shadowed rows: %d rows", len(mem.Rows))
	}
	if err := mem.Validate(tb); err != nil {
		t.Fatal(err)
	}
	if err := PurgeShadowed(tb, mem); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := mem.Unfiltered(tb, func(r *Row, m *RangeTombstoneMarker) error {
		if r != nil {
			got = append(got, "row"+intClustering(r.Clustering))
		} else {
			got = append(got, m.Kind.String()+intClustering(m.Clustering))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"row[101]", "EXCL_START_BOUND[101]", "EXCL_END_INCL_START_BOUNDARY[104]", "EXCL_END_BOUND[105]",
		"row[105]", "row[106]", "row[107]", "row[108]", "EXCL_START_BOUND[108]", "INCL_END_BOUND[]"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("flushed sequence\n got %v\nwant %v", got, want)
	}
	// An error from the callback stops the iteration.
	stop := errors.New("stop")
	n := 0
	if err := mem.Unfiltered(tb, func(*Row, *RangeTombstoneMarker) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("Unfiltered error: %v after %d calls", err, n)
	}
}

func TestMergeRows(t *testing.T) {
	tb := ckTable(t)
	v, l := tb.Column("v"), tb.Column("l")
	elem := func(x int32, ts int64) Cell {
		return Cell{Column: l, Path: i32(x), Value: []byte{}, Timestamp: ts, TTL: NoTTL, LocalDeletionTime: NoDeletionTime}
	}

	// Overwriting a collection: the newer complex deletion removes older
	// elements; newer elements stay.
	a := NewRow(ck(1))
	a.Liveness = LivenessInfo{Timestamp: 10, TTL: NoTTL, LocalExpirationTime: NoDeletionTime}
	a.Cells = []Cell{liveCell(v, 10, i32(1)), elem(1, 10), elem(2, 10)}
	a.ComplexDeletions = []ComplexDeletion{{Column: l, Deletion: del(9, 100)}}
	b := NewRow(ck(1))
	b.Liveness = LivenessInfo{Timestamp: 20, TTL: NoTTL, LocalExpirationTime: NoDeletionTime}
	b.Cells = []Cell{elem(3, 20)}
	b.ComplexDeletions = []ComplexDeletion{{Column: l, Deletion: del(19, 200)}}
	if err := MergeRows(&a, &b, 0); err != nil {
		t.Fatal(err)
	}
	if a.Liveness.Timestamp != 20 || len(a.Cells) != 2 || a.Cells[0].Column != v || string(a.Cells[1].Path) != string(i32(3)) ||
		len(a.ComplexDeletions) != 1 || a.ComplexDeletions[0].Deletion != del(19, 200) {
		t.Fatalf("collection overwrite: %+v", a)
	}

	// A row deletion deletes older liveness and cells of both sides.
	c := insertRow(tb, 1, 10, 5)
	d := NewRow(ck(1))
	d.Deletion = del(15, 300)
	d.Cells = []Cell{liveCell(v, 16, i32(6))}
	if err := MergeRows(&c, &d, 0); err != nil {
		t.Fatal(err)
	}
	if !c.Liveness.IsEmpty() || c.Deletion != del(15, 300) || len(c.Cells) != 1 || c.Cells[0].Timestamp != 16 {
		t.Fatalf("row deletion: %+v", c)
	}

	// A shadowable deletion is dropped by a newer liveness.
	e := NewRow(ck(1))
	e.Deletion, e.DeletionShadowable = del(15, 300), true
	f := insertRow(tb, 1, 20, 7)
	if err := MergeRows(&e, &f, 0); err != nil {
		t.Fatal(err)
	}
	if !e.Deletion.IsLive() || e.DeletionShadowable || e.Liveness.Timestamp != 20 {
		t.Fatalf("shadowable: %+v", e)
	}
	g := NewRow(ck(1))
	g.ShadowableDeletion = del(15, 300)
	h := insertRow(tb, 1, 20, 7)
	if err := MergeRows(&g, &h, 0); err != nil || !g.ShadowableDeletion.IsLive() {
		t.Fatalf("scylla shadowable: %+v %v", g, err)
	}
}

func TestMergePartitions(t *testing.T) {
	tb := ckTable(t)
	key := i32(7)
	dst := &Partition{Key: key, Deletion: del(5, 1), Static: NewRow(nil), Rows: []Row{insertRow(tb, 2, 10, 1), insertRow(tb, 4, 10, 1)}}
	src := &Partition{Key: key, Deletion: del(3, 1), Static: NewRow(nil), Rows: []Row{insertRow(tb, 1, 20, 2), insertRow(tb, 4, 20, 2), insertRow(tb, 9, 20, 2)}}
	src.Static.Cells = []Cell{liveCell(tb.Column("s"), 20, i32(3))}
	if err := Merge(tb, dst, src, 0); err != nil {
		t.Fatal(err)
	}
	if dst.Deletion != del(5, 1) {
		t.Fatal("older partition deletion replaced the newer")
	}
	var cks []string
	for _, r := range dst.Rows {
		cks = append(cks, intClustering(r.Clustering))
	}
	if strings.Join(cks, "") != "[1][2][4][9]" || dst.Rows[2].Liveness.Timestamp != 20 || len(dst.Static.Cells) != 1 {
		t.Fatalf("rows %v static %+v", cks, dst.Static)
	}
	if err := dst.Validate(tb); err != nil {
		t.Fatal(err)
	}
	// Purge: the partition deletion at 5 deletes nothing here (rows at 10+).
	before := len(dst.Rows)
	if err := PurgeShadowed(tb, dst); err != nil || len(dst.Rows) != before {
		t.Fatalf("purge removed live rows: %v", err)
	}
	// A newer partition deletion shadows everything older.
	upd := &Partition{Key: key, Deletion: del(15, 2), Static: NewRow(nil)}
	if err := Merge(tb, dst, upd, 0); err != nil {
		t.Fatal(err)
	}
	if err := PurgeShadowed(tb, dst); err != nil {
		t.Fatal(err)
	}
	if len(dst.Rows) != 3 || len(dst.Rows[0].Cells) != 1 || dst.Rows[0].Cells[0].Timestamp != 20 || !dst.HasStatic() {
		t.Fatalf("after partition deletion: %+v", dst.Rows)
	}
}

func TestPurgeShadowedComplex(t *testing.T) {
	tb := ckTable(t)
	l := tb.Column("l")
	r := NewRow(ck(1))
	r.Deletion = del(10, 1)
	r.Cells = []Cell{
		{Column: l, Path: i32(1), Value: []byte{}, Timestamp: 9, TTL: NoTTL, LocalDeletionTime: NoDeletionTime},
		{Column: l, Path: i32(2), Value: []byte{}, Timestamp: 11, TTL: NoTTL, LocalDeletionTime: NoDeletionTime},
		{Column: l, Path: i32(3), Value: []byte{}, Timestamp: 13, TTL: NoTTL, LocalDeletionTime: NoDeletionTime},
	}
	r.ComplexDeletions = []ComplexDeletion{{Column: l, Deletion: del(12, 1)}}
	p := &Partition{Key: i32(1), Deletion: Live, Static: NewRow(nil), Rows: []Row{r}}
	if err := PurgeShadowed(tb, p); err != nil {
		t.Fatal(err)
	}
	got := p.Rows[0]
	if len(got.Cells) != 1 || string(got.Cells[0].Path) != string(i32(3)) || len(got.ComplexDeletions) != 1 {
		t.Fatalf("complex purge: %+v", got)
	}
	// A row whose only content is shadowed by the partition deletion
	// disappears.
	q := &Partition{Key: i32(1), Deletion: del(50, 1), Static: NewRow(nil), Rows: []Row{insertRow(tb, 1, 10, 1)}}
	if err := PurgeShadowed(tb, q); err != nil || len(q.Rows) != 0 {
		t.Fatalf("shadowed row kept: %v %+v", err, q.Rows)
	}
}

func TestValidate(t *testing.T) {
	tb := ckTable(t)
	v, s := tb.Column("v"), tb.Column("s")
	good := func() *Partition {
		return &Partition{Key: i32(1), Deletion: Live, Static: NewRow(nil), Rows: []Row{insertRow(tb, 1, 10, 1), insertRow(tb, 2, 10, 1)}}
	}
	if err := good().Validate(tb); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(p *Partition){
		"empty key":            func(p *Partition) { p.Key = nil },
		"rows out of order":    func(p *Partition) { p.Rows[0], p.Rows[1] = p.Rows[1], p.Rows[0] },
		"short clustering":     func(p *Partition) { p.Rows[0].Clustering = nil },
		"static cell in a row": func(p *Partition) { p.Rows[0].Cells = []Cell{liveCell(s, 1, i32(1))} },
		"regular cell static":  func(p *Partition) { p.Static.Cells = []Cell{liveCell(v, 1, i32(1))} },
		"duplicate cells":      func(p *Partition) { p.Rows[0].Cells = append(p.Rows[0].Cells, p.Rows[0].Cells[0]) },
		"wrong fixed length":   func(p *Partition) { p.Rows[0].Cells[0].Value = []byte{1} },
		"ttl without expiry":   func(p *Partition) { p.Rows[0].Cells[0].TTL = 5 },
		"unclosed marker": func(p *Partition) {
			p.Markers = []RangeTombstoneMarker{{Kind: InclStartBound, Close: Live, Open: del(1, 1)}}
		},
		"close without open": func(p *Partition) {
			p.Markers = []RangeTombstoneMarker{{Kind: InclEndBound, Close: del(1, 1), Open: Live}}
		},
		"row marker kind": func(p *Partition) { p.Markers = []RangeTombstoneMarker{{Kind: ClusteringKind}} },
		"mismatched close": func(p *Partition) {
			p.Markers = []RangeTombstoneMarker{{Kind: InclStartBound, Close: Live, Open: del(1, 1)}, {Kind: InclEndBound, Close: del(2, 1), Open: Live}}
		},
	}
	for name, mutate := range cases {
		p := good()
		mutate(p)
		err := p.Validate(tb)
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: err = %v", name, err)
			continue
		}
		if !strings.Contains(err.Error(), "partition") {
			t.Errorf("%s: message %q does not name the partition", name, err)
		}
	}
	if _, err := schema.Int.AppendJSON(nil, i32(1)); err != nil {
		t.Skip("schema JSON rendering not available yet")
	}
	p := good()
	p.Rows[1].Cells[0].Value = []byte{1, 2}
	if err := p.Validate(tb); err == nil || !strings.Contains(err.Error(), `["1"]`) || !strings.Contains(err.Error(), "[2]") || !strings.Contains(err.Error(), "column v") {
		t.Fatalf("message should name partition, row and column: %v", err)
	}
}

func TestBuilder(t *testing.T) {
	tb := ckTable(t)
	v, l, s := tb.Column("v"), tb.Column("l"), tb.Column("s")
	b := NewBuilder(tb)
	for round := 0; round < 2; round++ {
		b.Reset(i32(5))
		b.StartRow(ck(3))
		b.AddLiveCell(v, nil, i32(30), 7)
		b.StartRow(ck(1))
		b.SetLiveness(LivenessInfo{Timestamp: 7, TTL: NoTTL, LocalExpirationTime: NoDeletionTime})
		b.AddLiveCell(l, i32(2), []byte{}, 7)
		b.AddLiveCell(v, nil, i32(10), 7)
		b.AddLiveCell(l, i32(1), []byte{}, 7)
		b.AddComplexDeletion(l, del(6, 100))
		b.StartStatic()
		b.AddLiveCell(s, nil, i32(99), 7)
		p, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(tb); err != nil {
			t.Fatal(err)
		}
		if !p.Token.Equal(dht.Murmur3.Token(i32(5))) || len(p.Rows) != 2 || intClustering(p.Rows[0].Clustering) != "[1]" ||
			len(p.Rows[0].Cells) != 3 || p.Rows[0].Cells[0].Column != v || len(p.Rows[0].ComplexDeletions) != 1 ||
			len(p.Rows[1].Cells) != 1 || len(p.Static.Cells) != 1 || p.Rows[0].Liveness.Timestamp != 7 {
			t.Fatalf("built %+v", p)
		}
	}
	b.Reset(i32(5))
	b.StartRow(ck(1))
	b.StartRow(ck(1))
	if _, err := b.Finish(); err == nil {
		t.Fatal("duplicate rows accepted")
	}
}

// blobTable is (pk int PRIMARY KEY, value blob), the memtable hot path.
func blobTable(tb testing.TB) *schema.Table {
	return must(schema.NewTable("ks", "kv", []schema.ColumnDef{
		{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey},
		{Name: "value", Type: schema.Blob, Kind: schema.Regular},
	}, schema.Options{}))
}

func TestBuilderAllocations(t *testing.T) {
	tb := blobTable(t)
	col := tb.Column("value")
	b := NewBuilder(tb)
	key := i32(1)
	value := make([]byte, 100)
	build := func(cells int) func() {
		return func() {
			b.Reset(key)
			b.StartRow(nil)
			b.SetLiveness(LivenessInfo{Timestamp: 1, TTL: NoTTL, LocalExpirationTime: NoDeletionTime})
			for i := 0; i < cells; i++ {
				b.AddLiveCell(col, nil, value, 1)
			}
			if _, err := b.Finish(); err != nil && cells == 1 {
				panic(err)
			}
		}
	}
	build(1)()
	one := testing.AllocsPerRun(200, build(1))
	if one > 4 {
		t.Fatalf("1-cell partition: %v allocations, want <= 4 (partition, rows, cells, bytes)", one)
	}
}

// BenchmarkBuilder builds single-row partitions of (pk int, v0..v9 blob)
// with 100-byte values: allocations stay constant as cells grow.
func BenchmarkBuilder(b *testing.B) {
	defs := []schema.ColumnDef{{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey}}
	for i := 0; i < 10; i++ {
		defs = append(defs, schema.ColumnDef{Name: "v" + strconv.Itoa(i), Type: schema.Blob, Kind: schema.Regular})
	}
	tb := must(schema.NewTable("ks", "kv", defs, schema.Options{}))
	key := i32(1)
	value := make([]byte, 100)
	for _, cells := range []int{1, 10} {
		b.Run("cells="+strconv.Itoa(cells), func(b *testing.B) {
			bl := NewBuilder(tb)
			b.ReportAllocs()
			b.SetBytes(int64(len(key) + cells*len(value)))
			for b.Loop() {
				bl.Reset(key)
				bl.StartRow(nil)
				bl.SetLiveness(LivenessInfo{Timestamp: 1, TTL: NoTTL, LocalExpirationTime: NoDeletionTime})
				for c := 0; c < cells; c++ {
					bl.AddLiveCell(tb.Regular[c], nil, value, 1)
				}
				if _, err := bl.Finish(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestUnfilteredNoAllocation(t *testing.T) {
	tb := ckTable(t)
	p := &Partition{Key: i32(1), Deletion: Live, Static: NewRow(nil),
		Rows:    []Row{insertRow(tb, 1, 1, 1), insertRow(tb, 5, 1, 1), insertRow(tb, 9, 1, 1)},
		Markers: AppendMarkers(tb, nil, []RangeTombstone{rt(InclStartBound, ck(3), InclEndBound, ck(6), del(9, 1))}, Live)}
	n := 0
	fn := func(r *Row, m *RangeTombstoneMarker) error { n++; return nil }
	if a := testing.AllocsPerRun(100, func() { _ = p.Unfiltered(tb, fn) }); a != 0 {
		t.Fatalf("Unfiltered allocates %v times", a)
	}
	if n != 100*5+5 {
		t.Fatalf("%d calls", n)
	}
	var zero Row
	if !zero.IsEmpty() || !(&Partition{}).Static.IsEmpty() {
		t.Fatal("the zero row should be empty")
	}
}

func TestMergeRowsAcrossTableInstances(t *testing.T) {
	t1, t2 := ckTable(t), ckTable(t)
	a := insertRow(t1, 1, 10, 1)
	a.ComplexDeletions = []ComplexDeletion{{Column: t1.Column("l"), Deletion: del(5, 1)}}
	b := insertRow(t2, 1, 20, 2)
	b.ComplexDeletions = []ComplexDeletion{{Column: t2.Column("l"), Deletion: del(6, 1)}}
	if err := MergeRows(&a, &b, 0); err != nil {
		t.Fatal(err)
	}
	if len(a.Cells) != 1 || a.Cells[0].Timestamp != 20 || len(a.ComplexDeletions) != 1 || a.ComplexDeletions[0].Deletion != del(6, 1) {
		t.Fatalf("merged %+v", a)
	}
}
