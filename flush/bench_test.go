package flush

import (
	"context"
	"encoding/binary"
	"fmt"
	"github.com/castable-db/castable/sstables"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// smallPartMemtable is perf_fast_forward's small-part dataset in one
// memtable: n partitions (pk int PRIMARY KEY, value blob), one 100-byte
// value each, no row marker.
func smallPartMemtable(b *testing.B, n int) *memtable.Frozen {
	b.Helper()
	tbl, err := schema.NewTable("ks", "small_part", []schema.ColumnDef{
		{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey},
		{Name: "value", Type: schema.Blob, Kind: schema.Regular},
	}, schema.Options{})
	if err != nil {
		b.Fatal(err)
	}
	m := memtable.New(tbl, memtable.Options{})
	value := make([]byte, 100)
	for i := range value {
		value[i] = byte(i * 7)
	}
	key := make([]byte, 4)
	cells := make([]mutation.Cell, 1)
	rows := make([]mutation.Row, 1)
	for i := 0; i < n; i++ {
		binary.BigEndian.PutUint32(key, uint32(i))
		cells[0] = mutation.Cell{Column: tbl.Regular[0], Value: value, Timestamp: 1_700_000_000_000_000 + int64(i), TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}
		rows[0] = mutation.NewRow(nil)
		rows[0].Cells = cells
		p := mutation.Partition{Key: key, Deletion: mutation.Live, Static: mutation.NewRow(nil), Rows: rows}
		if err := m.Apply(&p); err != nil {
			b.Fatal(err)
		}
	}
	return m.Freeze()
}

// BenchmarkFlush flushes a memtable of 1,000,000 small partitions (the
// perf_fast_forward small-part flush) per iteration into a real directory,
// fsyncs included, reporting rows/s, allocations and the process CPU time
// (user + system, every goroutine) per row. On a shared machine the CPU time
// per row is the steadier figure: wall time depends on what else runs.
func BenchmarkFlush(b *testing.B) {
	const n = 1_000_000
	frozen := smallPartMemtable(b, n)
	for _, f := range benchFormats(b) {
		for _, codec := range codecs {
			for _, jobs := range []int{1, 2} {
				b.Run(fmt.Sprintf("format=%s/codec=%s/jobs=%d", f.Version(), codec, jobs), func(b *testing.B) {
					b.ReportAllocs()
					gen := 0
					dir := b.TempDir()
					// Collect the garbage of building the memtable now, as
					// perf_fast_forward does, so that no collection started
					// by it runs during the flushes.
					runtime.GC()
					cpu0 := cpuTime()
					for b.Loop() {
						gen++
						res, err := Flush(context.Background(), frozen, Options{
							Format: f,
							WriterOptions: sstables.WriterOptions{
								Dir:         dir,
								Generation:  gen,
								Jobs:        jobs,
								Compression: &compress.Params{Codec: codec},
							},
						})
						if err != nil {
							b.Fatal(err)
						}
						b.SetBytes(res.DataLength)
						b.StopTimer()
						for _, c := range res.Components {
							os.Remove(res.Descriptor.Path(c))
						}
						b.StartTimer()
					}
					b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
					b.ReportMetric(float64(cpuTime()-cpu0)/float64(n*b.N), "cpu-ns/row")
					b.ReportMetric(float64(b.Elapsed())/float64(n*b.N), "ns/row")
					b.ReportMetric(0, "ns/op")
				})
			}
		}
	}
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchFormats is the tests' formats plus nb and oa, the versions Cassandra
// 4.x and 5.0 write, to compare with mc in one run.
func benchFormats(b *testing.B) []sstables.Format {
	out := append([]sstables.Format(nil), formats...)
	for _, name := range []string{"nb", "oa"} {
		f, err := sstables.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}
