package compaction_test

import (
	"context"
	"encoding/binary"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
)

// writeOnePartition streams one partition of rows [from, to) with 1 KiB
// values (compressible, so the files stay small while the partition is
// large) at timestamp ts into an SSTable of generation gen, row by row.
func writeOnePartition(t *testing.T, tab *schema.Table, dir string, gen, from, to int, ts int64) sstables.Reader {
	t.Helper()
	f, err := sstables.Lookup("nb")
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.NewWriter(tab, sstables.WriterOptions{Dir: dir, Generation: gen, ExpectedPartitions: 1, Jobs: 1,
		Compression: &compress.Params{Codec: compress.LZ4, ChunkLength: 16 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	key := binary.BigEndian.AppendUint32(nil, 7)
	p := &mutation.Partition{Key: key, Token: dht.Murmur3.Token(key), Deletion: mutation.Live, Static: mutation.NewRow(nil)}
	if err := w.StartPartition(p); err != nil {
		t.Fatal(err)
	}
	v := tab.Column("v")
	value := make([]byte, 1024)
	row := mutation.NewRow(nil)
	row.Liveness = mutation.LivenessInfo{Timestamp: ts, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
	for c := from; c < to; c++ {
		binary.BigEndian.PutUint32(value, uint32(c))
		row.Clustering = mutation.Clustering{binary.BigEndian.AppendUint32(nil, uint32(c))}
		row.Cells = append(row.Cells[:0], mutation.Cell{Column: v, Value: value, Timestamp: ts, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime})
		if err := w.AppendRow(&row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.EndPartition(); err != nil {
		t.Fatal(err)
	}
	res, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	r, err := sstables.OpenAny(res.Descriptor, tab, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// peakLiveHeap samples the live heap (as of each GC) until stop is
// closed.
func peakLiveHeap(stop <-chan struct{}, peak *atomic.Uint64, wg *sync.WaitGroup) {
	defer wg.Done()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for {
		metrics.Read(s)
		if v := s[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
		select {
		case <-stop:
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// TestCompactPartitionLargerThanMemory: two SSTables each holding one
// partition of 1 KiB rows — together several times the memory limit —
// merge (half their rows overlapping) and compact under that limit
// (debug.SetMemoryLimit), and the live heap never approaches the
// partition's size: the merge and the writers stream row by row. The full
// run is 300,000 rows a partition (300 MiB each) under 64 MiB; -short is
// 40,000 rows (40 MiB each) under 16 MiB.
func TestCompactPartitionLargerThanMemory(t *testing.T) {
	rows, limit := 300_000, int64(64<<20)
	if testing.Short() {
		rows, limit = 40_000, 16<<20
	}
	sch, err := cql.ParseSchema("CREATE TABLE ks.t (k int, c int, v blob, PRIMARY KEY (k, c));")
	if err != nil {
		t.Fatal(err)
	}
	tab := sch.Table("ks.t")
	dir := t.TempDir()
	a := writeOnePartition(t, tab, dir+"/in", 1, 0, rows, 1)
	b := writeOnePartition(t, tab, dir+"/in", 2, rows/2, rows+rows/2, 2)

	runtime.GC()
	old := debug.SetMemoryLimit(limit)
	defer debug.SetMemoryLimit(old)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go peakLiveHeap(stop, &peak, &wg)
	res, err := compaction.Compact(context.Background(), []sstables.Reader{a, b}, tab, compaction.Options{Out: dir + "/out", Generation: 1, Jobs: 1})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(rows + rows/2); res.Rows != want || res.Partitions != 1 {
		t.Fatalf("compacted %d partitions, %d rows; want 1, %d", res.Partitions, res.Rows, want)
	}
	partition := int64(rows) << 10
	t.Logf("two partitions of %d MiB merged into one of %d MiB under a %d MiB limit: peak live heap %.1f MiB",
		partition>>20, res.Rows>>10, limit>>20, float64(peak.Load())/(1<<20))
	if p := int64(peak.Load()); p > limit {
		t.Errorf("peak live heap %d MiB, over the %d MiB limit (a partition is %d MiB)", p>>20, limit>>20, partition>>20)
	}
	// The output reads back whole, row by row.
	r, err := sstables.OpenAny(res.Outputs[0].Descriptor, tab, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if _, err := sc.NextPartition(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		row, _, err := sc.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			break
		}
		c := int(binary.BigEndian.Uint32(row.Clustering[0]))
		wantTS := int64(1)
		if c >= rows/2 {
			wantTS = 2
		}
		if c != n || row.Cells[0].Timestamp != wantTS || int(binary.BigEndian.Uint32(row.Cells[0].Value)) != c {
			t.Fatalf("row %d: clustering %d, timestamp %d", n, c, row.Cells[0].Timestamp)
		}
		n++
	}
	if n != rows+rows/2 {
		t.Fatalf("read back %d rows", n)
	}
}
