package compaction_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/sstables"
)

// benchInputs writes four SSTables of version v with rows rows in all
// (each a window of clustering keys overlapping its neighbour's by half)
// into a temporary directory, once per (v, rows).
func benchInputs(b *testing.B, v string, rows int) []sstables.Descriptor {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("castable-compaction-bench-%s-%d", v, rows))
	if descs, err := sstables.ListSSTables(sstables.OSFS, filepath.Join(dir, "in")); err == nil && len(descs) == 4 {
		return descs
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	schemaFile := filepath.Join(dir, "bench.cql")
	if err := os.WriteFile(schemaFile, []byte(cli.BenchmarkSchema), 0o644); err != nil {
		b.Fatal(err)
	}
	const window = 100
	partitions := rows / 4 / window
	for i := 0; i < 4; i++ {
		csvFile := filepath.Join(dir, fmt.Sprintf("rows-%d.csv", i))
		f, err := os.Create(csvFile)
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for pk := 0; pk < partitions; pk++ {
			for ck := i * window / 2; ck < i*window/2+window; ck++ {
				fmt.Fprintf(w, "%d,%d,value %d of row %d-%d with some text\n", pk, ck, i, pk, ck)
			}
		}
		w.Flush()
		f.Close()
		if _, err := cli.Write(context.Background(), &cli.Env{Stdout: os.Stderr, Stderr: os.Stderr, Quiet: true}, cli.WriteOptions{Schema: schemaFile, CSV: csvFile,
			Out: filepath.Join(dir, "in"), Format: v, Generation: i + 1, Timestamp: int64(1700000000000000 + i), MemtableSize: 1 << 40}); err != nil {
			b.Fatal(err)
		}
	}
	descs, err := sstables.ListSSTables(sstables.OSFS, filepath.Join(dir, "in"))
	if err != nil {
		b.Fatal(err)
	}
	return descs
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCompact: four overlapping SSTables (half of each one's rows
// also in its neighbour) compacted into one, per version and size; the
// reported MB/s are of uncompressed input, per second of wall time and per
// second of the process's CPU time (MB/cpu-s, with cpu-ns/input-row).
//
//	go test -run '^$' -bench Compact -benchtime 3x ./compaction
func BenchmarkCompact(b *testing.B) {
	for _, v := range []string{"nb", "me"} {
		for _, rows := range []int{400_000} {
			b.Run(fmt.Sprintf("format=%s/rows=%d", v, rows), func(b *testing.B) {
				descs := benchInputs(b, v, rows)
				var readers []sstables.Reader
				var length int64
				for _, d := range descs {
					r, err := sstables.OpenAny(d, nil, sstables.ReaderOptions{ReadAhead: 4})
					if err != nil {
						b.Fatal(err)
					}
					defer r.Close()
					length += r.(sstables.DataFileReader).DataFile().Length()
					readers = append(readers, r)
				}
				b.SetBytes(length)
				b.ReportAllocs()
				b.ResetTimer()
				var cpu time.Duration
				for i := 0; i < b.N; i++ {
					out := b.TempDir()
					cpu0 := cpuTime()
					if _, err := compaction.Compact(context.Background(), readers, readers[0].Table(), compaction.Options{Out: out, Generation: 1, Jobs: 1}); err != nil {
						b.Fatal(err)
					}
					cpu += cpuTime() - cpu0
				}
				// The process's CPU time (every goroutine: read-ahead,
				// compression, GC) is steadier than the wall time on a
				// shared machine; it is what a per-core comparison needs.
				b.ReportMetric(float64(length)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(rows), "cpu-ns/input-row")
			})
		}
	}
}
