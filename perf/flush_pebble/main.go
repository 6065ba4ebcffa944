// Command flush_pebble measures castable's flush against pebble's
// sstable.Writer, the Go peer of ../shared/spec/baselines.md, side by side in
// one process: every round writes pebble's table first, then flushes the same
// frozen memtable in each castable format asked for, and prints each run's
// wall rate and CPU time per row with its ratios to the pebble run just
// before it. Pebble is not a dependency of castable: this module has its own
// go.mod, as heavy optional integrations do.
//
// The memtable is one of perf_fast_forward's datasets (internal/fastforward),
// built once; pebble gets as many entries, in order, 16-byte keys and the
// dataset's value blob (the same bytes every row holds), Snappy, to a real
// file with fsync. The CPU time per row (user+system of the process, every
// goroutine) is the per-core figure: with another process on one of the two
// cores, wall rates say how the flush shares the machine, CPU per row what
// each row costs.
//
//	go run -tags liblz4 . -rounds 3 -formats nb,mc,oa,da -codec lz4
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/internal/fastforward"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
	"github.com/castable-db/castable/sstables/version"
	"github.com/cockroachdb/pebble/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/sstable"
	"github.com/cockroachdb/pebble/vfs"
)

func main() {
	rows := flag.Int64("rows", 1_000_000, "rows (partitions of small-part, rows of the large partition)")
	dataset := flag.String("dataset", "small-part", "perf_fast_forward dataset")
	formats := flag.String("formats", defaultFormats(), "castable versions to flush, comma-separated (default: the default version, then the newest of each family each release writes)")
	codec := flag.String("codec", "lz4", "castable's Data.db compression")
	pebbleCodec := flag.String("pebble-codec", "snappy", "pebble's block compression: snappy, zstd or none")
	jobs := flag.Int("jobs", 0, "castable's compression workers (0: all cores)")
	rounds := flag.Int("rounds", 3, "rounds")
	dir := flag.String("dir", "", "where the tables go (default: a temporary directory)")
	flag.Parse()
	if err := run(*rows, *dataset, *formats, *codec, *pebbleCodec, *jobs, *rounds, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "flush_pebble:", err)
		os.Exit(1)
	}
}

// defaultFormats names the versions flushed when -formats is not given,
// derived from the version table: castable's default, then the newest
// version of each family each release writes (3.11's big, 5.0's big and
// BTI).
func defaultFormats() string {
	names := []string{version.Default}
	seen := map[string]bool{version.Default: true}
	for _, rel := range version.Releases() {
		for _, fam := range []version.Family{version.Big, version.BTI} {
			vs := version.Select(func(v version.Version) bool {
				return v.Family() == fam && v.Writable() && v.WrittenBy(rel) && !v.Scylla()
			})
			if len(vs) == 0 {
				continue
			}
			if n := vs[len(vs)-1].String(); !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return strings.Join(names, ",")
}

// sample is one measured write.
type sample struct {
	wall, cpu time.Duration
	bytes     int64 // file size written (Data.db for castable)
}

func (s sample) rate(rows int64) float64 { return float64(rows) / s.wall.Seconds() }
func (s sample) cpuPerRow(rows int64) float64 {
	return float64(s.cpu.Nanoseconds()) / float64(rows)
}

func run(rows int64, dataset, formatList, codecName, pebbleCodec string, jobs, rounds int, dir string) error {
	d, err := fastforward.FindDataset(dataset)
	if err != nil {
		return err
	}
	codec, err := compress.ParseCodec(codecName)
	if err != nil {
		return err
	}
	pc, err := pebbleCompression(pebbleCodec)
	if err != nil {
		return err
	}
	var fs []sstables.Format
	for _, name := range strings.Split(formatList, ",") {
		f, err := sstables.Lookup(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		fs = append(fs, f)
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "flush_pebble"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	val := fastforward.Value(100, 0)
	frozen, err := fastforward.Memtable(d, fastforward.Config{Rows: rows})
	if err != nil {
		return err
	}
	fmt.Printf("%s, %d rows; pebble v1.1.5 sstable.Writer (%s, 16-byte keys, %d-byte values) vs castable flush (%s, jobs %d); GOMAXPROCS %d\n",
		dataset, rows, pebbleCodec, len(val), codecName, jobs, runtime.GOMAXPROCS(0))
	fmt.Printf("%-6s %-8s %9s %10s %12s %12s %12s %10s\n", "round", "impl", "wall s", "M rows/s", "cpu-ns/row", "file MB", "x pebble", "x per core")
	ratios := map[string][]float64{}
	perCore := map[string][]float64{}
	impls := []string{"pebble"}
	for _, f := range fs {
		impls = append(impls, f.Version().String())
	}
	rates := map[string][]float64{}
	cpus := map[string][]float64{}
	gen := 0
	for r := 1; r <= rounds; r++ {
		ps, err := writePebble(filepath.Join(dir, "pebble.sst"), rows, val, pc)
		if err != nil {
			return err
		}
		report(r, "pebble", ps, rows, ps)
		rates["pebble"] = append(rates["pebble"], ps.rate(rows))
		cpus["pebble"] = append(cpus["pebble"], ps.cpuPerRow(rows))
		for _, f := range fs {
			gen++
			s, err := flushOnce(frozen, f, codec, jobs, dir, gen)
			if err != nil {
				return err
			}
			name := f.Version().String()
			report(r, name, s, rows, ps)
			rates[name] = append(rates[name], s.rate(rows))
			cpus[name] = append(cpus[name], s.cpuPerRow(rows))
			ratios[name] = append(ratios[name], s.rate(rows)/ps.rate(rows))
			perCore[name] = append(perCore[name], ps.cpuPerRow(rows)/s.cpuPerRow(rows))
		}
	}
	fmt.Println("medians:")
	for _, name := range impls {
		line := fmt.Sprintf("  %-8s %6.2f M rows/s %8.1f cpu-ns/row", name, median(rates[name])/1e6, median(cpus[name]))
		if name != "pebble" {
			line += fmt.Sprintf("   x pebble %.2f %v, per core %.2f %v", median(ratios[name]), round2(ratios[name]), median(perCore[name]), round2(perCore[name]))
		}
		fmt.Println(line)
	}
	return nil
}

func report(r int, name string, s sample, rows int64, pebble sample) {
	fmt.Printf("%-6d %-8s %9.3f %10.2f %12.1f %12.1f %12.2f %10.2f\n", r, name, s.wall.Seconds(), s.rate(rows)/1e6,
		s.cpuPerRow(rows), float64(s.bytes)/1e6, s.rate(rows)/pebble.rate(rows), pebble.cpuPerRow(rows)/s.cpuPerRow(rows))
}

func pebbleCompression(name string) (sstable.Compression, error) {
	switch name {
	case "snappy":
		return sstable.SnappyCompression, nil
	case "zstd":
		return sstable.ZstdCompression, nil
	case "none":
		return sstable.NoCompression, nil
	}
	return 0, fmt.Errorf("unknown pebble codec %q", name)
}

// writePebble writes rows entries with 16-byte big-endian keys and value val
// into a new table at path, fsync included (the writable's Finish syncs).
func writePebble(path string, rows int64, val []byte, c sstable.Compression) (sample, error) {
	runtime.GC()
	cpu0, start := cpuTime(), time.Now()
	f, err := vfs.Default.Create(path)
	if err != nil {
		return sample{}, err
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), sstable.WriterOptions{Compression: c})
	var key [16]byte
	for i := range rows {
		binary.BigEndian.PutUint64(key[8:], uint64(i))
		if err := w.Set(key[:], val); err != nil {
			return sample{}, err
		}
	}
	if err := w.Close(); err != nil {
		return sample{}, err
	}
	s := sample{wall: time.Since(start), cpu: cpuTime() - cpu0}
	if fi, err := os.Stat(path); err == nil {
		s.bytes = fi.Size()
	}
	return s, os.Remove(path)
}

// flushOnce flushes frozen as generation gen of format f into dir, then
// removes the SSTable.
func flushOnce(frozen *memtable.Frozen, f sstables.Format, codec compress.Codec, jobs int, dir string, gen int) (sample, error) {
	runtime.GC()
	cpu0, start := cpuTime(), time.Now()
	res, err := flush.Flush(context.Background(), frozen, flush.Options{
		Format: f,
		WriterOptions: sstables.WriterOptions{
			Dir: dir, Generation: gen, Jobs: jobs,
			Compression: &compress.Params{Codec: codec},
		},
	})
	if err != nil {
		return sample{}, err
	}
	s := sample{wall: time.Since(start), cpu: cpuTime() - cpu0, bytes: res.DataFileSize}
	for _, c := range res.Components {
		os.Remove(res.Descriptor.Path(c))
	}
	return s, nil
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func round2(v []float64) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = fmt.Sprintf("%.2f", x)
	}
	return out
}
