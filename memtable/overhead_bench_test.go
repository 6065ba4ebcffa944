package memtable

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"

	"github.com/castable-db/castable/mutation"
)

// BenchmarkOverhead measures what the memtable takes per partition and per
// row against the data it holds (keys, clusterings, values: DataSize), for
// perf_fast_forward's two shapes: small-part (one-row partitions, 4-byte key,
// 100-byte value) and large-part (rows of one partition, 4-byte clustering,
// 100-byte value). mem-B/row is MemoryUsed (the slabs and entry chunks);
// heap-B/row the Go heap's growth after a collection, which adds the B-tree
// nodes and, for merged partitions, what Merge allocated; data-B/row the
// logical data.
func BenchmarkOverhead(b *testing.B) {
	for _, shape := range []string{"small-part", "large-part"} {
		for _, rows := range []int{100_000, 1_000_000} {
			b.Run(fmt.Sprintf("impl=%s/size=%d", shape, rows), func(b *testing.B) {
				tbl := smallPart(b)
				if shape == "large-part" {
					tbl = wideTable(b)
				}
				value := make([]byte, 100)
				var p mutation.Partition
				key, ck := make([]byte, 4), make([]byte, 4)
				clustering := mutation.Clustering{ck}
				var mem, heap, data float64
				for b.Loop() {
					var before, after runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					m := New(tbl, Options{})
					for i := range rows {
						if shape == "small-part" {
							binary.BigEndian.PutUint32(key, uint32(i))
							onePartition(&p, tbl, key, value, int64(i))
						} else {
							binary.BigEndian.PutUint32(ck, uint32(2*i+1))
							onePartition(&p, tbl, key, value, int64(i))
							p.Rows[0].Clustering = clustering
						}
						if err := m.Apply(&p); err != nil {
							b.Fatal(err)
						}
					}
					runtime.GC()
					runtime.ReadMemStats(&after)
					mem = float64(m.MemoryUsed()) / float64(rows)
					heap = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(rows)
					data = float64(m.DataSize()) / float64(rows)
					runtime.KeepAlive(m)
				}
				b.ReportMetric(data, "data-B/row")
				b.ReportMetric(mem, "mem-B/row")
				b.ReportMetric(heap, "heap-B/row")
				b.ReportMetric(heap/data, "heap/data")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
