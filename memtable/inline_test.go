package memtable

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// inlineTable is (pk blob, ck blob, a blob, b blob, s blob static,
// PRIMARY KEY (pk, ck)), so that partitions of every shape can be built.
func inlineTable(t testing.TB) *schema.Table {
	t.Helper()
	tbl, err := schema.NewTable("ks", "shapes", []schema.ColumnDef{
		{Name: "pk", Type: schema.Blob, Kind: schema.PartitionKey},
		{Name: "ck", Type: schema.Blob, Kind: schema.ClusteringKey},
		{Name: "a", Type: schema.Blob, Kind: schema.Regular},
		{Name: "b", Type: schema.Blob, Kind: schema.Regular},
		{Name: "s", Type: schema.Blob, Kind: schema.Static},
	}, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// randomShape returns a partition with 0–3 rows of 0–2 cells, values of
// 0–300 bytes (some fit an entry's inline room, some do not), sometimes a
// static cell; key i makes it unique.
func randomShape(r *rand.Rand, tbl *schema.Table, i int) mutation.Partition {
	blob := func(n int) []byte {
		b := make([]byte, n)
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		return b
	}
	p := mutation.Partition{Key: fmt.Appendf(blob(r.IntN(40)), "#%d", i), Deletion: mutation.Live, Static: mutation.NewRow(nil)}
	if r.IntN(4) == 0 {
		p.Static.Cells = []mutation.Cell{{Column: tbl.Static[0], Value: blob(r.IntN(50)), Timestamp: 5, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
	}
	rows := r.IntN(4)
	for k := 0; k < rows; k++ {
		row := mutation.NewRow(mutation.Clustering{[]byte{byte(k), byte(r.IntN(256))}})
		if r.IntN(3) == 0 {
			row.Liveness = mutation.LivenessInfo{Timestamp: 9, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
		}
		for c := 0; c < r.IntN(3); c++ {
			row.Cells = append(row.Cells, mutation.Cell{Column: tbl.Regular[c], Value: blob([]int{0, 3, 100, 150, 300}[r.IntN(5)]), Timestamp: int64(10 + k), TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime})
		}
		if len(row.Cells) == 0 && row.Liveness.IsEmpty() {
			row.Liveness = mutation.LivenessInfo{Timestamp: 9, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
		}
		p.Rows = append(p.Rows, row)
	}
	return p
}

// TestInlineEntriesHoldTheirPartition applies partitions of many shapes,
// scribbles over the caller's buffers, and requires every frozen partition
// to equal what was applied, with one-row partitions kept in their entry as
// far as they fit.
func TestInlineEntriesHoldTheirPartition(t *testing.T) {
	tbl := inlineTable(t)
	m := New(tbl, Options{Shards: 4})
	r := rand.New(rand.NewPCG(3, 4))
	want := map[string]mutation.Partition{}
	for i := range 3000 {
		p := randomShape(r, tbl, i)
		keep := deepCopy(p)
		if err := m.Apply(&p); err != nil {
			t.Fatal(err)
		}
		scribble(&p)
		want[string(keep.Key)] = keep
	}
	f := m.Freeze()
	inlineRows, wholes := 0, 0
	err := f.Ascend(func(p *mutation.Partition) error {
		w, ok := want[string(p.Key)]
		if !ok {
			t.Fatalf("unexpected partition %x", p.Key)
		}
		got := deepCopy(*p)
		got.Token = dht.Token{}
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("partition %x:\n got %+v\nwant %+v", p.Key, got, w)
		}
		e := (*entry)(unsafe.Pointer(p)) // p is the first field of its entry
		if !e.holds(unsafe.Pointer(unsafe.SliceData(p.Key))) && len(p.Key) <= inlineBytes {
			t.Fatalf("key of %d bytes not inline", len(p.Key))
		}
		if len(p.Rows) == 1 {
			if !e.holds(unsafe.Pointer(&p.Rows[0])) {
				t.Fatal("the only row is not inline")
			}
			inlineRows++
		}
		if e.whole {
			// Every byte and struct of the partition lies in the entry.
			in := func(b []byte) bool { return len(b) == 0 || e.holds(unsafe.Pointer(unsafe.SliceData(b))) }
			ok := in(p.Key) && len(p.Static.Cells) == 0 && len(p.Markers) == 0 && len(p.Rows) <= 1
			for _, r := range p.Rows {
				for _, v := range r.Clustering {
					ok = ok && in(v)
				}
				for j := range r.Cells {
					ok = ok && e.holds(unsafe.Pointer(&r.Cells[j])) && in(r.Cells[j].Value) && in(r.Cells[j].Path)
				}
			}
			if !ok {
				t.Fatalf("partition %x marked whole has parts outside its entry", p.Key)
			}
			wholes++
		}
		return nil
	})
	if wholes == 0 {
		t.Fatal("no partition kept whole in its entry")
	}
	if err != nil {
		t.Fatal(err)
	}
	if inlineRows == 0 {
		t.Fatal("no one-row partition")
	}
}

// TestInlineEntryMerge overwrites inline partitions and checks the merge
// result.
func TestInlineEntryMerge(t *testing.T) {
	tbl := smallPart(t)
	m := New(tbl, Options{})
	var p mutation.Partition
	for round := range 3 {
		for i := range 100 {
			onePartition(&p, tbl, intKey(int32(i)), bytes.Repeat([]byte{byte(round)}, 10+round*60), int64(round))
			if err := m.Apply(&p); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, p := range collect(t, m.Freeze()) {
		if v := p.Rows[0].Cells[0].Value; !bytes.Equal(v, bytes.Repeat([]byte{2}, 130)) {
			t.Fatalf("partition %x holds %x after three overwrites", p.Key, v)
		}
		if (*entry)(unsafe.Pointer(p)).whole {
			t.Fatalf("partition %x still marked whole after merges", p.Key)
		}
	}
	// A small partition applied once is whole.
	m = New(tbl, Options{})
	onePartition(&p, tbl, intKey(1), make([]byte, 100), 1)
	if err := m.Apply(&p); err != nil {
		t.Fatal(err)
	}
	if got := collect(t, m.Freeze()); !(*entry)(unsafe.Pointer(got[0])).whole {
		t.Fatal("a small-part partition is not kept whole in its entry")
	}
}

func deepCopy(p mutation.Partition) mutation.Partition {
	cb := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		return append([]byte{}, b...)
	}
	row := func(r mutation.Row) mutation.Row {
		out := r
		if r.Clustering != nil {
			out.Clustering = make(mutation.Clustering, len(r.Clustering))
			for i, v := range r.Clustering {
				out.Clustering[i] = cb(v)
			}
		}
		out.Cells = nil
		for _, c := range r.Cells {
			c.Path, c.Value = cb(c.Path), cb(c.Value)
			out.Cells = append(out.Cells, c)
		}
		out.ComplexDeletions = append([]mutation.ComplexDeletion(nil), r.ComplexDeletions...)
		return out
	}
	out := mutation.Partition{Key: cb(p.Key), Deletion: p.Deletion, Static: row(p.Static)}
	for _, r := range p.Rows {
		out.Rows = append(out.Rows, row(r))
	}
	out.Markers = append([]mutation.RangeTombstoneMarker(nil), p.Markers...)
	return out
}

// scribble overwrites every byte p refers to.
func scribble(p *mutation.Partition) {
	fill := func(b []byte) {
		for i := range b {
			b[i] = 0xEE
		}
	}
	fill(p.Key)
	for _, r := range append([]mutation.Row{p.Static}, p.Rows...) {
		for _, v := range r.Clustering {
			fill(v)
		}
		for _, c := range r.Cells {
			fill(c.Value)
		}
	}
}

// TestFreezeLargeOrder freezes a memtable large enough to be flattened by
// several goroutines and checks that Ascend visits every partition once, in
// SSTable order.
func TestFreezeLargeOrder(t *testing.T) {
	tbl := smallPart(t)
	m := New(tbl, Options{Shards: 16})
	var p mutation.Partition
	n := parallelFlatten + 12345
	for i := range n {
		onePartition(&p, tbl, intKey(int32(i)), []byte{1}, 1)
		if err := m.Apply(&p); err != nil {
			t.Fatal(err)
		}
	}
	got := collect(t, m.Freeze())
	if len(got) != n {
		t.Fatalf("%d partitions, want %d", len(got), n)
	}
	seen := map[string]bool{}
	for i, p := range got {
		if seen[string(p.Key)] {
			t.Fatalf("partition %x visited twice", p.Key)
		}
		seen[string(p.Key)] = true
		if i > 0 && dht.ComparePartitions(got[i-1].Token, got[i-1].Key, p.Token, p.Key) >= 0 {
			t.Fatalf("partitions %d and %d out of order", i-1, i)
		}
	}
}
