package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWriteCSV measures castable write of generated CSV rows for
// BenchmarkSchema (pk int, ck int, v text), 100 rows per partition, into an
// mc SSTable with the default LZ4 compression, through the memtable and
// flush, fsync included. rows/s is the figure the command reports.
func BenchmarkWriteCSV(b *testing.B) {
	for _, rows := range []int64{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("format=mc/rows=%d", rows), func(b *testing.B) {
			dir := b.TempDir()
			schemaFile := writeBenchSchema(b, dir, "")
			in := generateCSV(b, dir, rows, 100)
			size := fileSize(in)
			b.SetBytes(size)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out := filepath.Join(dir, fmt.Sprintf("out%d", i))
				if _, err := Write(context.Background(), &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}},
					WriteOptions{Schema: schemaFile, CSV: in, Out: out}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				os.RemoveAll(out)
				b.StartTimer()
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
