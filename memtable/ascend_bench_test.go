package memtable

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/castable-db/castable/mutation"
)

// BenchmarkAscend walks a frozen memtable of 1,000,000 small partitions
// (perf_fast_forward's small-part) reading what a flush reads of each
// partition — the entry, the static row's fields, the row, the cell and
// every cache line of the key and the value — and reports the walk's cost
// per partition: the memory part of a flush, whose partitions live in apply
// order but are visited in token order.
func BenchmarkAscend(b *testing.B) {
	const n = 1_000_000
	tbl := smallPart(b)
	m := New(tbl, Options{})
	value := make([]byte, 100)
	var p mutation.Partition
	key := make([]byte, 4)
	for i := range n {
		binary.BigEndian.PutUint32(key, uint32(i))
		onePartition(&p, tbl, key, value, int64(i))
		if err := m.Apply(&p); err != nil {
			b.Fatal(err)
		}
	}
	f := m.Freeze()
	runtime.GC()
	b.ReportAllocs()
	var sink int64
	for b.Loop() {
		err := f.Ascend(func(p *mutation.Partition) error {
			sink += int64(p.Key[0]) + int64(p.Token.Prefix()) + p.Deletion.MarkedForDeleteAt
			sink += int64(len(p.Static.Cells)+len(p.Static.ComplexDeletions)+len(p.Markers)) + p.Static.Liveness.Timestamp
			for i := range p.Rows {
				r := &p.Rows[i]
				sink += r.Liveness.Timestamp + r.Deletion.MarkedForDeleteAt + int64(len(r.Clustering))
				for j := range r.Cells {
					c := &r.Cells[j]
					sink += c.Timestamp + int64(c.TTL) + int64(c.Column.Index)
					for k := 0; k < len(c.Value); k += 64 {
						sink += int64(c.Value[k])
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(n*b.N), "ns/partition")
	b.ReportMetric(0, "ns/op")
	if sink == 42 {
		b.Log(sink)
	}
}
