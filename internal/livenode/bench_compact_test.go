package livenode

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/node"
	"github.com/castable-db/castable/sstables"
)

var benchRows = flag.Int("livenode.bench-rows", 1_000_000, "BenchmarkCompactionAgainstNode: rows written, in 4 SSTables that overlap by half")

// writeBenchInputs writes four SSTables of version v (generations 1–4)
// into dir: rows (pk, ck, v) of ks.bench, each SSTable the rows of a
// window of clustering keys overlapping its neighbour's by half, at
// timestamps that make the later ones win.
func writeBenchInputs(tb testing.TB, dir, ks, v string, rows int) (schemaFile string) {
	tb.Helper()
	schemaFile = filepath.Join(dir, "bench.cql")
	ddl := strings.Replace(cli.BenchmarkSchema, "ks.bench", ks+".bench", 1)
	if err := os.WriteFile(schemaFile, []byte(ddl), 0o644); err != nil {
		tb.Fatal(err)
	}
	const parts, window = 4, 100 // rows per partition per SSTable
	perSST := rows / parts
	partitions := perSST / window
	for i := 0; i < parts; i++ {
		csvFile := filepath.Join(dir, fmt.Sprintf("rows-%d.csv", i))
		f, err := os.Create(csvFile)
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for pk := 0; pk < partitions; pk++ {
			for ck := i * window / 2; ck < i*window/2+window; ck++ {
				fmt.Fprintf(w, "%d,%d,value %d of row %d-%d with some text\n", pk, ck, i, pk, ck)
			}
		}
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		f.Close()
		if _, err := cli.Write(context.Background(), quiet(), cli.WriteOptions{Schema: schemaFile, CSV: csvFile, Out: filepath.Join(dir, "in"),
			Format: v, Generation: i + 1, Timestamp: int64(1700000000000000 + i), MemtableSize: 1 << 40}); err != nil {
			tb.Fatal(err)
		}
	}
	return schemaFile
}

var compactedLine = regexp.MustCompile(`Compacted \([^)]*\) (\d+) sstables to .* in ([\d,]+)ms`)

// nodeCompactionMillis returns the duration of the last compaction the
// node logged ("Compacted (…) N sstables to […] … in Tms"), or -1 when it
// logged none (3.11 logs it at DEBUG).
func nodeCompactionMillis(tb testing.TB, n *node.Node) int64 {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(n.Dir, "logs", "stdout.log"))
	if err != nil {
		tb.Fatal(err)
	}
	m := compactedLine.FindAllSubmatch(b, -1)
	if len(m) == 0 {
		return -1
	}
	ms, err := strconv.ParseInt(strings.ReplaceAll(string(m[len(m)-1][2]), ",", ""), 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	return ms
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCompactionAgainstNode: the same four overlapping SSTables
// (1M rows by default, -livenode.bench-rows) major-compacted by the live
// node (compaction throughput unthrottled, one compactor: one core) and
// by castable's compaction.Compact with one compression job, side by side
// in each iteration. It reports the input MB/s (uncompressed Data.db) and
// rows/s of each, castable's per CPU-second (it may use both cores: the
// scan reads ahead), and the ratio.
//
//	go test -run '^$' -bench CompactionAgainstNode -benchtime 3x ./internal/livenode
func BenchmarkCompactionAgainstNode(b *testing.B) {
	for _, f := range []*node.Flavour{node.Cassandra50, node.Cassandra311} {
		b.Run(f.Name, func(b *testing.B) {
			n := node.Get(b, f)
			if _, err := n.Nodetool("setcompactionthroughput", "0"); err != nil {
				b.Fatal(err)
			}
			v := f.Flushes().String()
			for i := 0; i < b.N; i++ {
				ks := n.Keyspace(b)
				dir := b.TempDir()
				schemaFile := writeBenchInputs(b, dir, ks, v, *benchRows)
				ddl, _ := os.ReadFile(schemaFile)
				if err := n.ExecInOrder(strings.TrimSuffix(strings.TrimSpace(string(ddl)), ";") + " WITH compaction = {'class': 'SizeTieredCompactionStrategy'}"); err != nil {
					b.Fatal(err)
				}
				if _, err := n.Nodetool("disableautocompaction", ks, "bench"); err != nil {
					b.Fatal(err)
				}
				in := filepath.Join(dir, "in")
				descs, err := sstables.ListSSTables(sstables.OSFS, in)
				if err != nil || len(descs) != 4 {
					b.Fatalf("%v %v", descs, err)
				}
				var inputLen int64
				var readers []sstables.Reader
				for _, d := range descs {
					r, err := sstables.OpenAny(d, nil, sstables.ReaderOptions{ReadAhead: 4})
					if err != nil {
						b.Fatal(err)
					}
					defer r.Close()
					inputLen += r.(sstables.DataFileReader).DataFile().Length()
					readers = append(readers, r)
				}
				if err := n.Load(ks, "bench", in); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := n.Compact(ks, "bench"); err != nil {
					b.Fatal(err)
				}
				// The node's own figure when it logs one, else the time
				// nodetool compact took (which waits for the compaction;
				// the call itself costs some tens of ms).
				nodeMS := nodeCompactionMillis(b, n)
				if nodeMS < 0 {
					nodeMS = time.Since(t1).Milliseconds()
				}

				cpu0, t0 := cpuTime(), time.Now()
				res, err := compaction.Compact(context.Background(), readers, readers[0].Table(), compaction.Options{Out: filepath.Join(dir, "out"), Jobs: 1})
				if err != nil {
					b.Fatal(err)
				}
				wall, cpu := time.Since(t0), cpuTime()-cpu0
				mb := float64(inputLen) / 1e6
				nodeMBs := mb / (float64(nodeMS) / 1000)
				ourMBs := mb / wall.Seconds()
				ourCPU := mb / cpu.Seconds()
				b.ReportMetric(nodeMBs, "node-MB/s")
				b.ReportMetric(ourMBs, "castable-MB/s")
				b.ReportMetric(ourCPU, "castable-MB/cpu-s")
				b.ReportMetric(ourCPU/nodeMBs, "per-core-ratio")
				b.ReportMetric(float64(res.Rows)/wall.Seconds(), "castable-rows/s")
				b.ReportMetric(float64(res.Rows)/(float64(nodeMS)/1000), "node-rows/s")
				b.Logf("%s: %.1f MB of input, %d rows out: node %d ms (%.1f MB/s), castable %v wall, %v cpu (%.1f MB/s, %.1f MB/cpu-s): %.2f× per core",
					v, mb, res.Rows, nodeMS, nodeMBs, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), ourMBs, ourCPU, ourCPU/nodeMBs)
			}
		})
	}
}
