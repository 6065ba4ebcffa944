package fastforward

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// Config is one population run: a dataset written in one format with one
// codec. Zero values mean the defaults given per field.
type Config struct {
	// Rows is the number of rows (partitions for small-partition
	// datasets); 0 means 1,000,000.
	Rows int64
	// ValueSize is the size of the value blob; 0 means 100.
	ValueSize int
	// FlushThreshold is the memtable memory (memtable.MemoryUsed) above
	// which a flush is triggered; 0 means 300 MiB, ScyllaDB's default.
	FlushThreshold int64
	// Format is the SSTable format (required).
	Format sstables.Format
	// Codec is the Data.db compression; the zero value is none.
	Codec compress.Codec
	// Jobs is the number of compression workers; 0 means all cores.
	Jobs int
	// Dir is the data directory; the table's SSTables go to
	// Dir/ks/<table>-<format>-<codec>/.
	Dir string
	// Seed seeds the value blob.
	Seed uint64
	// Partitioner orders the partitions; nil means dht.Murmur3.
	Partitioner dht.Partitioner
}

func (c *Config) defaults() {
	if c.Rows <= 0 {
		c.Rows = 1_000_000
	}
	if c.ValueSize <= 0 {
		c.ValueSize = 100
	}
	if c.FlushThreshold <= 0 {
		c.FlushThreshold = 300 << 20
	}
	if c.Partitioner == nil {
		c.Partitioner = dht.Murmur3
	}
}

// FlushSample is one measured flush.
type FlushSample struct {
	// Frags is the number of rows applied to the flushed memtable.
	Frags int64
	// Duration is the wall time of freezing and flushing the memtable.
	Duration time.Duration
	// CPU is the process's user+system CPU time during the flush.
	CPU time.Duration
	// Allocs is the number of heap allocations during the flush.
	Allocs uint64
	// Result is what the flush reported.
	Result *flush.Result
}

// FragsPerSecond is the flush's rate.
func (s FlushSample) FragsPerSecond() float64 { return float64(s.Frags) / s.Duration.Seconds() }

// Population is the outcome of populating one configuration.
type Population struct {
	Dataset *Dataset
	Config  Config
	Table   *schema.Table
	// Dir holds the flushed SSTables.
	Dir string
	// Samples are the measured flushes, in order.
	Samples []FlushSample
	// Compacted is one SSTable with the whole dataset (in Dir/compacted),
	// written after the measured flushes, for the read tests.
	Compacted sstables.Descriptor
}

// Key names the configuration: "<dataset>/<format>/<codec>".
func (p *Population) Key() string {
	return p.Dataset.Name + "/" + p.Config.Format.Version().String() + "/" + p.Config.Codec.String()
}

// TableDir is where a configuration's SSTables go.
func TableDir(base string, d *Dataset, f sstables.Format, codec compress.Codec) string {
	return filepath.Join(base, "ks", d.TableName()+"-"+f.Version().String()+"-"+codec.String())
}

// value returns the dataset's value blob: random bytes, the same for every
// row (which makes the data compress very well, as in ScyllaDB's runs).
func value(size int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	v := make([]byte, size)
	for i := range v {
		v[i] = byte(rng.Uint32())
	}
	return v
}

// Value is the dataset's value blob of the given size and seed (see value):
// what every row of a populate run holds.
func Value(size int, seed uint64) []byte { return value(size, seed) }

// Memtable applies the first cfg.Rows rows of dataset d (cfg's value size,
// seed and partitioner) to one memtable, whatever its size, and freezes it:
// the memtable a populate run with an unlimited threshold would flush, for
// benchmarks that flush one memtable many times.
func Memtable(d *Dataset, cfg Config) (*memtable.Frozen, error) {
	cfg.defaults()
	t, err := d.Table()
	if err != nil {
		return nil, err
	}
	t.Options.Partitioner = cfg.Partitioner.Name()
	gen := newGenerator(t, value(cfg.ValueSize, cfg.Seed), time.Now().UnixMicro())
	m := memtable.New(t, memtable.Options{})
	for i := int64(0); i < cfg.Rows; i++ {
		if err := m.Apply(gen.next(d, i)); err != nil {
			return nil, err
		}
	}
	return m.Freeze(), nil
}

// Populate writes the dataset into memtables, flushing (and measuring) each
// one when it crosses the threshold, and the last, partial one at the end;
// then it writes the compacted SSTable for the read tests (not measured).
func Populate(ctx context.Context, d *Dataset, cfg Config) (*Population, error) {
	cfg.defaults()
	if cfg.Format == nil {
		return nil, fmt.Errorf("fastforward: no format")
	}
	t, err := d.Table()
	if err != nil {
		return nil, err
	}
	t.Options.Partitioner = cfg.Partitioner.Name()
	pop := &Population{Dataset: d, Config: cfg, Table: t, Dir: TableDir(cfg.Dir, d, cfg.Format, cfg.Codec)}
	if err := os.RemoveAll(pop.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(pop.Dir, 0o755); err != nil {
		return nil, err
	}
	val := value(cfg.ValueSize, cfg.Seed)
	gen := newGenerator(t, val, time.Now().UnixMicro())
	params := &compress.Params{Codec: cfg.Codec}
	m := memtable.New(t, memtable.Options{})
	generation := 1
	var frags int64
	flushNow := func() error {
		s, err := measureFlush(ctx, m, flush.Options{
			Format: cfg.Format,
			WriterOptions: sstables.WriterOptions{
				Dir:         pop.Dir,
				Generation:  generation,
				Compression: params,
				Jobs:        cfg.Jobs,
			},
		})
		if err != nil {
			return err
		}
		s.Frags = frags
		pop.Samples = append(pop.Samples, s)
		generation++
		frags = 0
		m = memtable.New(t, memtable.Options{})
		return nil
	}
	for i := int64(0); i < cfg.Rows; i++ {
		if err := m.Apply(gen.next(d, i)); err != nil {
			return nil, err
		}
		frags++
		if m.MemoryUsed() > cfg.FlushThreshold {
			if err := flushNow(); err != nil {
				return nil, err
			}
		}
		if i%65536 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if frags > 0 {
		if err := flushNow(); err != nil {
			return nil, err
		}
	}
	m = nil
	runtime.GC()
	pop.Compacted, err = writeCompacted(ctx, d, cfg, t, val, filepath.Join(pop.Dir, "compacted"))
	if err != nil {
		return nil, fmt.Errorf("compacting: %w", err)
	}
	return pop, nil
}

// measureFlush freezes m and flushes it, measuring wall time, CPU time and
// heap allocations. The garbage of population is collected first so that a
// collection does not land inside the measurement by chance.
func measureFlush(ctx context.Context, m *memtable.Memtable, opts flush.Options) (FlushSample, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	start := time.Now()
	res, err := flush.Flush(ctx, m.Freeze(), opts)
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&after)
	if err != nil {
		return FlushSample{}, err
	}
	return FlushSample{Duration: elapsed, CPU: cpu, Allocs: after.Mallocs - before.Mallocs, Result: res}, nil
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writeCompacted writes the whole dataset as one SSTable, streaming it in
// partition order through the writer (what a major compaction of the
// flushed SSTables produces), with memory bounded by the key list.
func writeCompacted(ctx context.Context, d *Dataset, cfg Config, t *schema.Table, val []byte, dir string) (sstables.Descriptor, error) {
	desc := sstables.Descriptor{Dir: dir, Version: cfg.Format.Version(), Generation: 1}
	w, err := cfg.Format.NewWriter(t, sstables.WriterOptions{
		Dir: dir, Generation: 1, Compression: &compress.Params{Codec: cfg.Codec}, Jobs: cfg.Jobs,
		ExpectedPartitions: partitions(d, cfg.Rows),
	})
	if err != nil {
		return desc, err
	}
	gen := newGenerator(t, val, time.Now().UnixMicro())
	err = func() error {
		if d.Large {
			// One partition, rows generated in clustering order.
			first := gen.next(d, 0)
			if err := w.StartPartition(first); err != nil {
				return err
			}
			for i := int64(0); i < cfg.Rows; i++ {
				p := gen.next(d, i)
				if err := w.AppendRow(&p.Rows[0]); err != nil {
					return err
				}
				if i%65536 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
			}
			return w.EndPartition()
		}
		for n, i := range tokenOrder(d, gen, cfg.Rows, cfg.Partitioner) {
			p := gen.next(d, i)
			p.Token = cfg.Partitioner.Token(p.Key)
			if err := w.Append(p); err != nil {
				return err
			}
			if n%65536 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
		}
		return nil
	}()
	if err == nil {
		_, err = w.Finish()
	}
	if err != nil {
		w.Abort()
		return desc, err
	}
	return desc, nil
}

func partitions(d *Dataset, rows int64) int64 {
	if d.Large {
		return 1
	}
	return rows
}

// tokenOrder returns the row numbers of a small-partition dataset in
// partition order.
func tokenOrder(d *Dataset, gen *generator, rows int64, part dht.Partitioner) []int64 {
	type entry struct {
		prefix uint64 // the token's leading bits
		i      int64
	}
	order := make([]entry, rows)
	for i := range order {
		p := gen.next(d, int64(i))
		order[i] = entry{part.Token(p.Key).Prefix(), int64(i)}
	}
	slices.SortFunc(order, func(a, b entry) int {
		if a.prefix != b.prefix {
			if a.prefix < b.prefix {
				return -1
			}
			return 1
		}
		// Equal prefixes: compare whole tokens, then the keys.
		ka := append([]byte(nil), gen.next(d, a.i).Key...)
		kb := gen.next(d, b.i).Key
		return dht.ComparePartitions(part.Token(ka), ka, part.Token(kb), kb)
	})
	out := make([]int64, rows)
	for i, e := range order {
		out[i] = e.i
	}
	return out
}
