package bulk

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// benchCSV returns rows CSV records "pk,ck,v" of testSchema's table,
// rowsPerPartition rows a partition, with a 24-40 character text value that
// varies from row to row (castable gen-csv's rows).
func benchCSV(rows, rowsPerPartition int) []byte {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima"}
	var b []byte
	for i := 0; i < rows; i++ {
		b = strconv.AppendInt(b, int64(i/rowsPerPartition), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(i%rowsPerPartition), 10)
		b = append(b, ',')
		x := uint64(i)*0x9E3779B97F4A7C15 + 1
		for j := 0; j < 3; j++ {
			b = append(b, words[x%uint64(len(words))]...)
			b = append(b, '-')
			x = x>>7 ^ x*31
		}
		b = strconv.AppendUint(b, x%1000000, 10)
		b = append(b, '\n')
	}
	return b
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// countingSink counts what it is given and keeps nothing.
type countingSink struct{ partitions, rows, cells int }

func (c *countingSink) Apply(p *mutation.Partition, _ int) error {
	c.partitions++
	c.rows += len(p.Rows)
	for i := range p.Rows {
		c.cells += len(p.Rows[i].Cells)
	}
	return nil
}

// BenchmarkReadCSV measures ReadCSV turning CSV records into partition
// updates: sink=count hands them to a sink that only counts them (the
// reader's own cost: CSV parsing, value conversion, building mutations),
// sink=memtable to a MemtableSink writing oa SSTables (what castable write
// --csv does, flushes included), sink=sorted the same records in token
// order to a SortedSink (write --csv --sorted). ns/op is per row.
func BenchmarkReadCSV(b *testing.B) {
	s, err := cql.ParseSchema(testSchema)
	if err != nil {
		b.Fatal(err)
	}
	table := s.Tables[0]
	oa, err := sstables.Lookup("oa")
	if err != nil {
		b.Fatal(err)
	}
	const rows = 200_000
	for _, d := range []struct {
		name string
		rpp  int
	}{{"clustered", 10}, {"small", 1}} {
		in := benchCSV(rows, d.rpp)
		sorted := []byte(tokenOrder(b, table, sortedCase{records: strings.Split(strings.TrimSuffix(string(in), "\n"), "\n"), key: intKey}))
		for _, sinkName := range []string{"count", "memtable", "sorted"} {
			b.Run(fmt.Sprintf("data=%s/sink=%s", d.name, sinkName), func(b *testing.B) {
				b.SetBytes(int64(len(in)) / rows)
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				for done := 0; done < b.N; done += rows {
					var sink Sink = &countingSink{}
					input := in
					var c closer
					if sinkName != "count" {
						b.StopTimer()
						opts := SinkOptions{Format: oa, Writer: sstables.WriterOptions{Dir: b.TempDir(), Generation: 1}, Now: time.UnixMicro(1700000000000000)}
						b.StartTimer()
						if sinkName == "memtable" {
							c = NewMemtableSink(context.Background(), table, opts)
						} else {
							c, input = NewSortedSink(context.Background(), table, opts), sorted
						}
						sink = c
					}
					if _, err := ReadCSV(bytes.NewReader(input), ReadOptions{Table: table, Timestamp: 1700000000000000}, sink); err != nil {
						b.Fatal(err)
					}
					if c != nil {
						if _, err := c.Close(true); err != nil {
							b.Fatal(err)
						}
					}
				}
				// CPU time of every goroutine (the writers' too): the
				// steadier figure on a shared machine.
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/row")
			})
		}
	}
}
