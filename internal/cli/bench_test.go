package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/la"
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

// convertBenchSchema is the table of BenchmarkConvert: single-row
// partitions with a blob value, as perf_fast_forward's small-part.
const convertBenchSchema = "CREATE TABLE ks.small_part (pk int PRIMARY KEY, value blob);\n"

// writeConvertInput writes an la SSTable of n single-row partitions whose
// 100-byte values vary in their first half (the rest repeats, so LZ4 finds
// what it finds in real rows) with LZ4 chunks, and returns its Data.db path
// and uncompressed Data.db length.
func writeConvertInput(b *testing.B, dir, schemaFile string, n int) (string, int64) {
	b.Helper()
	table, err := loadTable(schemaFile, "")
	if err != nil {
		b.Fatal(err)
	}
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = binary.BigEndian.AppendUint32(nil, uint32(i))
	}
	slices.SortFunc(keys, func(x, y []byte) int { return dht.ComparePartitions(dht.Murmur3.Token(x), x, dht.Murmur3.Token(y), y) })
	w, err := la.NewWriter(table, sstables.WriterOptions{Dir: dir, Generation: 1,
		Compression: &compress.Params{Codec: compress.LZ4}, ExpectedPartitions: int64(n)}, la.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const ts = 1525385507816568
	value := bytes.Repeat([]byte{'v'}, 100)
	p := &mutation.Partition{Deletion: mutation.Live, Static: mutation.NewRow(nil), Rows: []mutation.Row{{
		Liveness: mutation.LivenessInfo{Timestamp: ts, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime},
		Deletion: mutation.Live, ShadowableDeletion: mutation.Live,
		Cells: []mutation.Cell{{Column: table.Column("value"), Timestamp: ts, TTL: mutation.NoTTL,
			LocalDeletionTime: mutation.NoDeletionTime, Value: value}},
	}}}
	for i, k := range keys {
		for j := 0; j < 50; j += 8 {
			binary.BigEndian.PutUint64(value[j:], uint64(i)*0x9e3779b97f4a7c15+uint64(j))
		}
		p.Key = k
		if err := w.Append(p); err != nil {
			b.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		b.Fatal(err)
	}
	return res.Descriptor.Path(sstables.ComponentData), res.DataLength
}

// BenchmarkConvert measures castable convert of an la SSTable of
// single-row partitions with 100-byte values and LZ4 chunks into mc (the
// job of Cassandra's sstableupgrade), and of its mc result back to la, with
// all cores, fsync included. MB/s is of the uncompressed Data.db stream
// read; rows/s is reported too. The command's peak RSS is measured on the
// binary (README, "Performance").
func BenchmarkConvert(b *testing.B) {
	for _, rows := range []int{100_000, 1_000_000} {
		dir := b.TempDir()
		schemaFile := filepath.Join(dir, "schema.cql")
		if err := os.WriteFile(schemaFile, []byte(convertBenchSchema), 0o644); err != nil {
			b.Fatal(err)
		}
		laData, length := writeConvertInput(b, filepath.Join(dir, "la"), schemaFile, rows)
		mcDir := filepath.Join(dir, "mc")
		if _, err := Convert(context.Background(), &Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true},
			ConvertOptions{SSTables: []string{laData}, Out: mcDir, To: "mc", Schema: schemaFile}); err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct{ from, to, in string }{{"la", "mc", laData}, {"mc", "la", mcDir}} {
			b.Run(fmt.Sprintf("from=%s/to=%s/rows=%d", c.from, c.to, rows), func(b *testing.B) {
				b.SetBytes(length)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					out := filepath.Join(dir, fmt.Sprintf("out-%s-%d", c.to, i))
					if _, err := Convert(context.Background(), &Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true},
						ConvertOptions{SSTables: []string{c.in}, Out: out, To: c.to, Schema: schemaFile}); err != nil {
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
}
