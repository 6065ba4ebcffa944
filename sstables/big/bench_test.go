package big

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"runtime"
	"sort"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// nullFS discards everything written, so that benchmarks measure the
// writer rather than the disk.
type nullFS struct{}

type nullFile struct{ size int64 }

func (nullFS) Create(string) (sstables.File, error) { return &nullFile{}, nil }
func (nullFS) Open(name string) (sstables.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
func (nullFS) Rename(string, string) error            { return nil }
func (nullFS) Remove(string) error                    { return nil }
func (nullFS) SyncDir(string) error                   { return nil }
func (nullFS) ReadDir(string) ([]string, error)       { return nil, nil }
func (nullFS) MkdirAll(string) error                  { return nil }
func (f *nullFile) Read([]byte) (int, error)          { return 0, fs.ErrInvalid }
func (f *nullFile) ReadAt([]byte, int64) (int, error) { return 0, fs.ErrInvalid }
func (f *nullFile) Write(p []byte) (int, error)       { f.size += int64(len(p)); return len(p), nil }
func (f *nullFile) Close() error                      { return nil }
func (f *nullFile) Sync() error                       { return nil }
func (f *nullFile) Size() (int64, error)              { return f.size, nil }

// benchKeys returns n int partition keys in token order.
func benchKeys(n int) [][]byte {
	type kt struct {
		key   []byte
		token dht.Token
	}
	ks := make([]kt, n)
	for i := range ks {
		k := binary.BigEndian.AppendUint32(nil, uint32(i))
		ks[i] = kt{k, dht.Murmur3.Token(k)}
	}
	sort.Slice(ks, func(i, j int) bool { return dht.ComparePartitions(ks[i].token, ks[i].key, ks[j].token, ks[j].key) < 0 })
	out := make([][]byte, n)
	for i := range ks {
		out[i] = ks[i].key
	}
	return out
}

// BenchmarkWriter writes single-row partitions of (pk int PRIMARY KEY,
// value blob) with 100-byte values through the whole writer (Data.db with
// its codec, Index.db, Summary, Filter, Statistics) into a discarding FS.
func BenchmarkWriter(b *testing.B) {
	table, err := schema.NewTable("ks", "t", []schema.ColumnDef{
		{Name: "pk", Type: &schema.Type{Kind: schema.KindInt}, Kind: schema.PartitionKey},
		{Name: "value", Type: &schema.Type{Kind: schema.KindBlob}, Kind: schema.Regular},
	}, schema.Options{})
	if err != nil {
		b.Fatal(err)
	}
	valueCol := table.Column("value")
	for _, size := range []int{100_000, 1_000_000} {
		keys := benchKeys(size)
		for _, codec := range []compress.Codec{compress.None, compress.LZ4} {
			for _, jobs := range []int{1, 2} {
				name := fmt.Sprintf("codec=%s/jobs=%d/rows=%d", codec, jobs, size)
				b.Run(name, func(b *testing.B) {
					value := make([]byte, 100)
					const ts = 1525385507816568
					p := &mutation.Partition{
						Deletion: mutation.Live,
						Static:   mutation.NewRow(nil),
						Rows: []mutation.Row{{
							Liveness:           mutation.LivenessInfo{Timestamp: ts, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime},
							Deletion:           mutation.Live,
							ShadowableDeletion: mutation.Live,
							Cells:              []mutation.Cell{{Column: valueCol, Timestamp: ts, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}},
						}},
					}
					var dataLen int64
					var mallocs uint64
					b.ReportAllocs()
					b.ResetTimer()
					for it := 0; it < b.N; it++ {
						w, err := NewWriter(vmc, table, sstables.WriterOptions{
							Dir: "/bench", Generation: 1, FS: nullFS{},
							Compression:        &compress.Params{Codec: codec},
							Jobs:               jobs,
							ExpectedPartitions: int64(size),
							Stats:              sstables.DataStats{Known: true, MinTimestamp: ts, MinLocalDeletionTime: mutation.NoDeletionTime, Columns: []*schema.Column{valueCol}},
						})
						if err != nil {
							b.Fatal(err)
						}
						var ms0, ms1 runtime.MemStats
						runtime.ReadMemStats(&ms0)
						for i, k := range keys {
							binary.BigEndian.PutUint64(value, uint64(i)*0x9E3779B97F4A7C15)
							binary.BigEndian.PutUint64(value[50:], uint64(i))
							p.Key = k
							p.Rows[0].Cells[0].Value = value
							if err := w.Append(p); err != nil {
								b.Fatal(err)
							}
						}
						runtime.ReadMemStats(&ms1)
						mallocs += ms1.Mallocs - ms0.Mallocs
						res, err := w.Finish()
						if err != nil {
							b.Fatal(err)
						}
						dataLen = res.DataLength
					}
					b.StopTimer()
					sec := b.Elapsed().Seconds()
					rows := float64(size) * float64(b.N)
					b.SetBytes(dataLen)
					b.ReportMetric(rows/sec, "rows/s")
					b.ReportMetric(float64(mallocs)/rows, "allocs/row")
				})
			}
		}
	}
}

// benchTable is (pk int PRIMARY KEY, value blob).
func benchTable(tb testing.TB) *schema.Table {
	table, err := schema.NewTable("ks", "t", []schema.ColumnDef{
		{Name: "pk", Type: &schema.Type{Kind: schema.KindInt}, Kind: schema.PartitionKey},
		{Name: "value", Type: &schema.Type{Kind: schema.KindBlob}, Kind: schema.Regular},
	}, schema.Options{Compression: map[string]string{"class": ""}})
	if err != nil {
		tb.Fatal(err)
	}
	return table
}

// writeBench writes n single-row partitions into dir (or a nullFS when
// fsys is nullFS) and returns the writer's result.
func writeBench(tb testing.TB, table *schema.Table, keys [][]byte, opts sstables.WriterOptions) *sstables.WriteResult {
	col := table.Column("value")
	const ts = 1525385507816568
	value := make([]byte, 100)
	p := &mutation.Partition{Deletion: mutation.Live, Static: mutation.NewRow(nil), Rows: []mutation.Row{{
		Liveness: mutation.LivenessInfo{Timestamp: ts, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime},
		Deletion: mutation.Live, ShadowableDeletion: mutation.Live,
		Cells: []mutation.Cell{{Column: col, Timestamp: ts, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime, Value: value}},
	}}}
	opts.Generation = 1
	opts.ExpectedPartitions = int64(len(keys))
	opts.Stats = sstables.DataStats{Known: true, MinTimestamp: ts, MinLocalDeletionTime: mutation.NoDeletionTime, Columns: []*schema.Column{col}}
	w, err := NewWriter(vmc, table, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for i, k := range keys {
		binary.BigEndian.PutUint64(value, uint64(i))
		p.Key = k
		if err := w.Append(p); err != nil {
			tb.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// TestAppendDoesNotAllocate checks the steady state of the write path: a
// single-row partition costs no allocation (amortized buffer growth of the
// summary aside).
func TestAppendDoesNotAllocate(t *testing.T) {
	table := benchTable(t)
	col := table.Column("value")
	keys := benchKeys(3000)
	const ts = 1525385507816568
	value := make([]byte, 100)
	p := &mutation.Partition{Deletion: mutation.Live, Static: mutation.NewRow(nil), Rows: []mutation.Row{{
		Liveness: mutation.LivenessInfo{Timestamp: ts, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime},
		Deletion: mutation.Live, ShadowableDeletion: mutation.Live,
		Cells: []mutation.Cell{{Column: col, Timestamp: ts, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime, Value: value}},
	}}}
	for _, codec := range []compress.Codec{compress.None, compress.LZ4} {
		w, err := NewWriter(vmc, table, sstables.WriterOptions{Dir: "/a", Generation: 1, FS: nullFS{}, Jobs: 1,
			Compression: &compress.Params{Codec: codec}, ExpectedPartitions: int64(len(keys)),
			Stats: sstables.DataStats{Known: true, MinTimestamp: ts, Columns: []*schema.Column{col}}})
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		next := func() {
			p.Key = keys[i]
			i++
			if err := w.Append(p); err != nil {
				t.Fatal(err)
			}
		}
		for i < 1000 {
			next()
		}
		if a := testing.AllocsPerRun(1500, next); a > 0 {
			t.Errorf("codec %s: %v allocations per single-row partition", codec, a)
		}
		w.Abort()
	}
}

// BenchmarkScan reads single-row partitions back through Scan.
func BenchmarkScan(b *testing.B) {
	table := benchTable(b)
	keys := benchKeys(100_000)
	for _, codec := range []compress.Codec{compress.None, compress.LZ4} {
		b.Run(fmt.Sprintf("codec=%s/rows=%d", codec, len(keys)), func(b *testing.B) {
			res := writeBench(b, table, keys, sstables.WriterOptions{Dir: b.TempDir(), Compression: &compress.Params{Codec: codec}})
			r, err := Open(res.Descriptor, table, sstables.ReaderOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.SetBytes(res.DataLength)
			b.ReportAllocs()
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				sc, _ := r.Scan()
				n := 0
				for {
					_, err := sc.NextPartition()
					if err != nil {
						break
					}
					for {
						row, _, err := sc.Next()
						if err != nil {
							b.Fatal(err)
						}
						if row == nil {
							break
						}
						n++
					}
				}
				if n != len(keys) {
					b.Fatalf("read %d rows", n)
				}
			}
			b.ReportMetric(float64(len(keys))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkLookup looks single-row partitions up by key (Filter.db →
// Summary.db → Index.db → Data.db) in random order.
func BenchmarkLookup(b *testing.B) {
	table := benchTable(b)
	keys := benchKeys(100_000)
	for _, codec := range []compress.Codec{compress.None, compress.LZ4} {
		b.Run(fmt.Sprintf("codec=%s/rows=%d", codec, len(keys)), func(b *testing.B) {
			res := writeBench(b, table, keys, sstables.WriterOptions{Dir: b.TempDir(), Compression: &compress.Params{Codec: codec}})
			r, err := Open(res.Descriptor, table, sstables.ReaderOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				key := keys[(i*7919)%len(keys)]
				p, err := r.Get(key)
				if err != nil || p == nil {
					b.Fatalf("Get(%x): %v, %v", key, p, err)
				}
			}
		})
	}
}
