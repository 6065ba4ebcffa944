package la

import (
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"

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

// benchTable is CREATE TABLE ks.t (pk int PRIMARY KEY, value blob).
func benchTable(tb testing.TB) *schema.Table {
	return tableFromCQL(tb, `CREATE TABLE ks.t (pk int PRIMARY KEY, value blob) WITH compression = {'class': ''};`)
}

const benchTS = 1525385507816568

// benchPartition is a one-row partition (row marker and a value cell, as
// an INSERT writes them) whose key and value the benchmark rewrites.
func benchPartition(table *schema.Table, value []byte) *mutation.Partition {
	col := table.Column("value")
	return &mutation.Partition{Deletion: mutation.Live, Static: mutation.NewRow(nil), Rows: []mutation.Row{{
		Liveness: mutation.LivenessInfo{Timestamp: benchTS, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime},
		Deletion: mutation.Live, ShadowableDeletion: mutation.Live,
		Cells: []mutation.Cell{{Column: col, Timestamp: benchTS, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime, Value: value}},
	}}}
}

// BenchmarkWriter writes single-row partitions of (pk int PRIMARY KEY,
// value blob) with 100-byte values (half of each value varies) through the
// whole la writer (Data.db with its codec and Adler-32 checksums, Index.db,
// Summary, Filter, Statistics) into a discarding FS. One op is one
// SSTable; rows/s, MB/s (of uncompressed Data.db) and allocs/row are
// reported.
func BenchmarkWriter(b *testing.B) {
	table := benchTable(b)
	for _, size := range []int{1_000_000} {
		keys := benchKeys(size)
		for _, codec := range []compress.Codec{compress.None, compress.LZ4} {
			for _, jobs := range []int{1, 2} {
				b.Run(fmt.Sprintf("codec=%s/jobs=%d/rows=%d", codec, jobs, size), func(b *testing.B) {
					value := make([]byte, 100)
					p := benchPartition(table, value)
					var dataLen int64
					var mallocs uint64
					cpu0 := cpuTime()
					b.ReportAllocs()
					b.ResetTimer()
					for it := 0; it < b.N; it++ {
						w, err := NewWriter(table, sstables.WriterOptions{
							Dir: "/bench", Generation: 1, FS: nullFS{},
							Compression:        &compress.Params{Codec: codec},
							Jobs:               jobs,
							ExpectedPartitions: int64(size),
						}, Options{})
						if err != nil {
							b.Fatal(err)
						}
						var ms0, ms1 runtime.MemStats
						runtime.ReadMemStats(&ms0)
						for i, k := range keys {
							binary.BigEndian.PutUint64(value, uint64(i)*0x9E3779B97F4A7C15)
							binary.BigEndian.PutUint64(value[50:], uint64(i))
							p.Key = k
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
					// CPU time of the process (all goroutines), which a
					// busy shared machine distorts less than wall time.
					b.ReportMetric(rows/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
					b.ReportMetric(float64(mallocs)/rows, "allocs/row")
				})
			}
		}
	}
}

// TestAppendDoesNotAllocate checks the steady state of the write path: a
// single-row partition costs no allocation, with a live cell or with a
// tombstone (which feeds the drop-time histogram).
func TestAppendDoesNotAllocate(t *testing.T) {
	table := benchTable(t)
	keys := benchKeys(3000)
	value := make([]byte, 100)
	p := benchPartition(table, value)
	deleted := benchPartition(table, nil)
	deleted.Rows[0].Cells[0].LocalDeletionTime = 1500000000
	for _, tc := range []struct {
		codec compress.Codec
		p     *mutation.Partition
	}{{compress.None, p}, {compress.LZ4, p}, {compress.None, deleted}} {
		codec, p := tc.codec, tc.p
		w, err := NewWriter(table, sstables.WriterOptions{Dir: "/a", Generation: 1, FS: nullFS{}, Jobs: 1,
			Compression: &compress.Params{Codec: codec}, ExpectedPartitions: int64(len(keys))}, Options{})
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
			value := make([]byte, 100)
			p := benchPartition(table, value)
			w, err := NewWriter(table, sstables.WriterOptions{Dir: b.TempDir(), Generation: 1,
				Compression: &compress.Params{Codec: codec}, ExpectedPartitions: int64(len(keys))}, Options{})
			if err != nil {
				b.Fatal(err)
			}
			for i, k := range keys {
				binary.BigEndian.PutUint64(value, uint64(i))
				p.Key = k
				if err := w.Append(p); err != nil {
					b.Fatal(err)
				}
			}
			res, err := w.Finish()
			if err != nil {
				b.Fatal(err)
			}
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
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
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
					b.Fatalf("%d rows, want %d", n, len(keys))
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(len(keys))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
