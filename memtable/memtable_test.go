package memtable

import (
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// smallPart is perf_fast_forward's small-part table: (pk int PRIMARY KEY, value blob).
func smallPart(t testing.TB) *schema.Table {
	t.Helper()
	tbl, err := schema.NewTable("ks", "small_part", []schema.ColumnDef{
		{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey},
		{Name: "value", Type: schema.Blob, Kind: schema.Regular},
	}, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func intKey(v int32) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(v))
}

// onePartition fills p (reusing its memory) with a one-row, one-cell update.
func onePartition(p *mutation.Partition, tbl *schema.Table, key []byte, value []byte, ts int64) {
	if cap(p.Rows) == 0 {
		p.Rows = make([]mutation.Row, 1)
		p.Rows[0].Cells = make([]mutation.Cell, 1)
	}
	*p = mutation.Partition{Key: key, Deletion: mutation.Live, Static: mutation.NewRow(nil), Rows: p.Rows[:1]}
	r := &p.Rows[0]
	cells := r.Cells[:1]
	*r = mutation.NewRow(nil)
	cells[0] = mutation.Cell{Column: tbl.Regular[0], Value: value, Timestamp: ts, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}
	r.Cells = cells
}

func collect(t testing.TB, f *Frozen) []*mutation.Partition {
	t.Helper()
	var out []*mutation.Partition
	if err := f.Ascend(func(p *mutation.Partition) error { out = append(out, p); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestApplyOrdersPartitionsByToken(t *testing.T) {
	for _, part := range []dht.Partitioner{dht.Murmur3, dht.Random, dht.ByteOrdered, dht.OrderPreserving} {
		t.Run(part.Name(), func(t *testing.T) { testApplyOrder(t, part) })
	}
}

func testApplyOrder(t *testing.T, part dht.Partitioner) {
	tbl := smallPart(t)
	tbl.Options.Partitioner = part.Name()
	for _, shards := range []int{1, 4, 64} {
		m := New(tbl, Options{Shards: shards})
		var p mutation.Partition
		for i := int32(0); i < 5000; i++ {
			onePartition(&p, tbl, intKey(i), []byte{byte(i)}, 100)
			if err := m.Apply(&p); err != nil {
				t.Fatal(err)
			}
		}
		got := collect(t, m.Freeze())
		if len(got) != 5000 {
			t.Fatalf("shards=%d: %d partitions, want 5000", shards, len(got))
		}
		for i := 1; i < len(got); i++ {
			if dht.ComparePartitions(got[i-1].Token, got[i-1].Key, got[i].Token, got[i].Key) >= 0 {
				t.Fatalf("shards=%d: partitions %d and %d out of order", shards, i-1, i)
			}
			if !got[i].Token.Equal(part.Token(got[i].Key)) {
				t.Fatalf("token not computed from the key")
			}
		}
		// Every partition lands in a shard, and key-ordered tokens do not
		// crowd into one of them.
		used := 0
		for i := range m.shards {
			if m.shards[i].tree.length > 0 {
				used++
			}
		}
		if shards == 64 && used < 32 {
			t.Errorf("shards=%d: only %d shards hold partitions", shards, used)
		}
		if f := m.Freeze(); f.Get(intKey(77)) == nil || f.Get(intKey(6000)) != nil {
			t.Errorf("shards=%d: Get does not find what was applied", shards)
		}
	}
}

func TestApplyCopiesInput(t *testing.T) {
	tbl := smallPart(t)
	m := New(tbl, Options{})
	key, value := intKey(7), []byte("hello")
	var p mutation.Partition
	onePartition(&p, tbl, key, value, 1)
	if err := m.Apply(&p); err != nil {
		t.Fatal(err)
	}
	key[3], value[0] = 99, 'X'
	p.Rows[0].Cells[0].Timestamp = 5
	got := m.Freeze().Get(intKey(7))
	if got == nil || string(got.Rows[0].Cells[0].Value) != "hello" || got.Rows[0].Cells[0].Timestamp != 1 {
		t.Fatalf("memtable shares the caller's memory: %+v", got)
	}
}

func TestOverwriteReconciles(t *testing.T) {
	tbl := smallPart(t)
	m := New(tbl, Options{Now: func() time.Time { return time.Unix(1600000000, 0) }})
	var p mutation.Partition
	apply := func(v string, ts int64) {
		onePartition(&p, tbl, intKey(1), []byte(v), ts)
		if err := m.Apply(&p); err != nil {
			t.Fatal(err)
		}
	}
	apply("new", 20)
	apply("old", 10) // older write loses
	apply("aaa", 20) // equal timestamp: the greater value wins ("new" > "aaa")
	before := m.DataSize()
	apply("zzz", 20) // equal timestamp, greater value wins
	f := m.Freeze()
	got := f.Get(intKey(1))
	if c := got.Rows[0].Cells[0]; string(c.Value) != "zzz" || c.Timestamp != 20 {
		t.Fatalf("cell = %q@%d, want zzz@20", c.Value, c.Timestamp)
	}
	if f.Len() != 1 || m.Applied() != 4 {
		t.Fatalf("len %d applied %d", f.Len(), m.Applied())
	}
	if m.DataSize() != before {
		t.Fatalf("data size changed from %d to %d on a same-size overwrite", before, m.DataSize())
	}
	if want := int64(4 + 3); m.DataSize() != want {
		t.Fatalf("DataSize = %d, want %d", m.DataSize(), want)
	}
}

func TestPartitionDeletionShadowsOlderRows(t *testing.T) {
	tbl := smallPart(t)
	m := New(tbl, Options{})
	var p mutation.Partition
	onePartition(&p, tbl, intKey(1), []byte("v"), 10)
	if err := m.Apply(&p); err != nil {
		t.Fatal(err)
	}
	del := mutation.Partition{Key: intKey(1), Deletion: mutation.DeletionTime{MarkedForDeleteAt: 15, LocalDeletionTime: 1000}, Static: mutation.NewRow(nil)}
	if err := m.Apply(&del); err != nil {
		t.Fatal(err)
	}
	got := m.Freeze().Get(intKey(1))
	if len(got.Rows) != 0 || got.Deletion.MarkedForDeleteAt != 15 {
		t.Fatalf("deleted partition still has rows %+v / deletion %+v", got.Rows, got.Deletion)
	}
}

func TestFreezeStopsApplies(t *testing.T) {
	tbl := smallPart(t)
	m := New(tbl, Options{})
	m.Freeze()
	var p mutation.Partition
	onePartition(&p, tbl, intKey(1), []byte("v"), 1)
	if err := m.Apply(&p); err != ErrFrozen {
		t.Fatalf("Apply after Freeze = %v, want ErrFrozen", err)
	}
}

func TestFrozenStatsCoverUpdates(t *testing.T) {
	tbl := smallPart(t)
	m := New(tbl, Options{})
	var p mutation.Partition
	for i, ts := range []int64{500, 300, 900} {
		onePartition(&p, tbl, intKey(int32(i)), []byte("v"), ts)
		if err := m.Apply(&p); err != nil {
			t.Fatal(err)
		}
	}
	f := m.Freeze()
	if got := f.Stats().EncodingStats().MinTimestamp; got != 300 {
		t.Fatalf("min timestamp %d, want 300", got)
	}
	if cols := f.Stats().Columns(nil); len(cols) != 1 || cols[0].Name != "value" {
		t.Fatalf("columns %v", cols)
	}
}

// TestConcurrentApply runs many writers at once (run with -race): every
// partition written is found exactly once, with the newest value.
func TestConcurrentApply(t *testing.T) {
	tbl := smallPart(t)
	m := New(tbl, Options{Shards: 8})
	const writers, perWriter = 8, 2000
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var p mutation.Partition
			for i := 0; i < perWriter; i++ {
				// Writers overlap on half of the keys.
				k := int32(i)
				if i%2 == 1 {
					k = int32(w*perWriter + i + 1_000_000)
				}
				onePartition(&p, tbl, intKey(k), []byte(fmt.Sprintf("w%d", w)), int64(w))
				if err := m.Apply(&p); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	got := collect(t, m.Freeze())
	want := perWriter/2 + writers*perWriter/2
	if len(got) != want {
		t.Fatalf("%d partitions, want %d", len(got), want)
	}
	for _, p := range got {
		if k := int32(binary.BigEndian.Uint32(p.Key)); k < 1_000_000 {
			if v := string(p.Rows[0].Cells[0].Value); v != fmt.Sprintf("w%d", writers-1) {
				t.Fatalf("shared key %d holds %q, want the newest write w%d", k, v, writers-1)
			}
		}
	}
}

func BenchmarkApply(b *testing.B) {
	tbl := smallPart(b)
	value := make([]byte, 100)
	var p mutation.Partition
	key := make([]byte, 4)
	m := New(tbl, Options{})
	b.ReportAllocs()
	b.SetBytes(int64(len(value) + len(key)))
	i := uint32(0)
	for b.Loop() {
		binary.BigEndian.PutUint32(key, i)
		i++
		onePartition(&p, tbl, key, value, int64(i))
		if err := m.Apply(&p); err != nil {
			b.Fatal(err)
		}
	}
}

// wideTable is (pk int, ck int, v blob, PRIMARY KEY (pk, ck)).
func wideTable(t testing.TB) *schema.Table {
	t.Helper()
	tbl, err := schema.NewTable("ks", "wide", []schema.ColumnDef{
		{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey},
		{Name: "ck", Type: schema.Int, Kind: schema.ClusteringKey},
		{Name: "v", Type: schema.Blob, Kind: schema.Regular},
	}, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func wideRow(p *mutation.Partition, tbl *schema.Table, pk, ck int32, value []byte, ts int64) {
	onePartition(p, tbl, intKey(pk), value, ts)
	p.Rows[0].Clustering = mutation.Clustering{intKey(ck)}
}

// TestDataSizeIsExact: after inserts, overwrites with values of other
// sizes and deletions, DataSize equals the size of what the frozen
// memtable holds.
func TestDataSizeIsExact(t *testing.T) {
	tbl := wideTable(t)
	m := New(tbl, Options{Shards: 4})
	var p mutation.Partition
	for i := 0; i < 3000; i++ {
		ck := int32((i * 7919) % 500)
		wideRow(&p, tbl, int32(i%7), ck, make([]byte, i%37), int64(i))
		if err := m.Apply(&p); err != nil {
			t.Fatal(err)
		}
	}
	del := mutation.Partition{Key: intKey(3), Deletion: mutation.DeletionTime{MarkedForDeleteAt: 1500, LocalDeletionTime: 10}, Static: mutation.NewRow(nil)}
	if err := m.Apply(&del); err != nil {
		t.Fatal(err)
	}
	f := m.Freeze()
	var want int64
	for _, p := range collect(t, f) {
		want += dataSize(p)
		for i := 1; i < len(p.Rows); i++ {
			if mutation.CompareClusterings(tbl, p.Rows[i-1].Clustering, p.Rows[i].Clustering) >= 0 {
				t.Fatal("rows out of clustering order")
			}
		}
		if string(p.Key) == string(intKey(3)) {
			for _, r := range p.Rows {
				if r.Cells[0].Timestamp <= 1500 {
					t.Fatalf("row written at %d survived the partition deletion at 1500", r.Cells[0].Timestamp)
				}
			}
		}
	}
	if got := m.DataSize(); got != want {
		t.Fatalf("DataSize %d, what is held %d", got, want)
	}
}

// BenchmarkApplyWidePartition appends rows in clustering order to one
// partition: the cost per row must not grow with the partition.
func BenchmarkApplyWidePartition(b *testing.B) {
	tbl := wideTable(b)
	value := make([]byte, 100)
	var p mutation.Partition
	m := New(tbl, Options{})
	b.ReportAllocs()
	b.SetBytes(int64(len(value) + 4))
	key, ckBuf := intKey(0), make([]byte, 4)
	clustering := mutation.Clustering{ckBuf}
	ck := uint32(0)
	for b.Loop() {
		binary.BigEndian.PutUint32(ckBuf, ck)
		onePartition(&p, tbl, key, value, int64(ck))
		p.Rows[0].Clustering = clustering
		ck++
		if err := m.Apply(&p); err != nil {
			b.Fatal(err)
		}
	}
}
