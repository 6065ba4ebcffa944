package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/castable-db/castable/bulk"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// The write without a shuffle (Options.NoShuffle): each reading bundle
// gathers what it reads in one memtable and flushes it, as castable write
// does, into one SSTable per writer (range or node) the memtable's
// partitions go to, cut at the writers' token boundaries. Nothing is
// encoded, moved or decoded between the stages: the only elements are the
// files in and the SSTables' descriptions out. The price is the number of
// SSTables: each writer's directory gets one SSTable per flush of every
// bundle, where the shuffle gives it one per flush of its own memtable.

func init() {
	register.DoFn4x1[context.Context, fileio.ReadableFile, func(int, string), func(string), error](&directFn{})
}

// directBundles counts the bundles of this process holding a memtable:
// they share Options.MemtableSize, so that a worker's memtables take about
// as much memory however many bundles it runs at once.
var directBundles atomic.Int64

// directFn reads input files and writes their SSTables itself, one
// memtable per bundle (see above).
type directFn struct {
	Job  job
	w    *worker
	sink *splitSink
}

// Setup builds the worker state.
func (fn *directFn) Setup() error {
	w, err := fn.Job.worker()
	fn.w = w
	return err
}

// StartBundle forgets what a failed bundle may have left.
// (Beam wants the emitters of FinishBundle here too.)
func (fn *directFn) StartBundle(_ context.Context, _ func(int, string), _ func(string)) {
	fn.abort()
}

// abort drops the sink of a bundle that did not finish, and its SSTables.
func (fn *directFn) abort() {
	if fn.sink != nil {
		fn.sink.close(false)
		fn.sink = nil
	}
}

// Teardown drops what an unfinished bundle left.
func (fn *directFn) Teardown() { fn.abort() }

// ProcessElement reads one file into the bundle's memtable.
func (fn *directFn) ProcessElement(ctx context.Context, f fileio.ReadableFile, emit func(int, string), bad func(string)) error {
	if fn.sink == nil {
		s, err := newSplitSink(fn.Job, fn.w)
		if err != nil {
			return err
		}
		fn.sink = s
	}
	err := fn.read(ctx, f, bad)
	if err != nil {
		fn.abort()
	}
	return err
}

func (fn *directFn) read(ctx context.Context, f fileio.ReadableFile, bad func(string)) error {
	name := f.Metadata.Path
	rc, err := f.Open(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	in := &countingReader{r: rc}
	opts, err := fn.w.readOptions(ctx, &fn.Job, name, bad)
	if err != nil {
		return err
	}
	sink := bulk.Sink(fn.sink)
	if fn.Job.BadRecords {
		sink = &badSink{ctx: ctx, sink: fn.sink, name: name, table: fn.w, bad: bad}
	}
	_, err = bulk.Read(fn.Job.Kind, in, opts, sink)
	beam.NewCounter(metricNamespace, mInputBytes).Inc(ctx, in.n)
	beam.NewCounter(metricNamespace, mInputFiles).Inc(ctx, 1)
	return err
}

// badSink turns the partitions the memtable refuses into bad records.
type badSink struct {
	ctx   context.Context
	sink  *splitSink
	name  string
	table *worker
	bad   func(string)
}

func (b *badSink) Apply(p *mutation.Partition, line int) error {
	err := b.sink.Apply(p, line)
	if err == nil || errors.Is(err, bulk.ErrStopped) || b.ctx.Err() != nil {
		return err
	}
	beam.NewCounter(metricNamespace, mBadRecords).Inc(b.ctx, 1)
	b.bad(badRecord{File: b.name, Line: line, Error: fmt.Sprintf("%s:%d: partition %s: %v", b.name, line, mutation.FormatKey(b.table.table, p.Key), err)}.String())
	return nil
}

// FinishBundle flushes the bundle's memtable and emits its SSTables, per
// writer, for the final stage.
func (fn *directFn) FinishBundle(ctx context.Context, emit func(int, string), _ func(string)) error {
	s := fn.sink
	fn.sink = nil
	if s == nil {
		return nil
	}
	written, err := s.close(true)
	if err != nil {
		return err
	}
	for _, ws := range written {
		if !isLocal(fn.Job.Out) {
			if err := upload(ctx, s.local(ws.writer), ws.info.From, ws.info.Prefix, ws.info.Components); err != nil {
				return fmt.Errorf("writer %s: %w", writerName(fn.w.plan, ws.writer), err)
			}
		}
		// The flushes ran beside the bundle; its counters take a
		// bundle's context, so they are counted here.
		name := writerName(fn.w.plan, ws.writer)
		counter := func(m string) beam.Counter { return beam.NewCounter(metricNamespace, name+"/"+m) }
		counter(mSSTables).Inc(ctx, 1)
		counter(mRows).Inc(ctx, ws.res.Rows)
		counter(mPartitions).Inc(ctx, ws.res.Partitions)
		counter(mBytes).Inc(ctx, ws.res.BytesWritten)
		b, _ := json.Marshal(ws.info)
		emit(ws.writer, string(b))
	}
	s.removeLocal()
	return nil
}

// readOptions are the bulk.ReadOptions of one input file (the CQL reader
// gets a schema of its own: DDL in one file does not reach the others).
func (w *worker) readOptions(ctx context.Context, j *job, name string, bad func(string)) (bulk.ReadOptions, error) {
	opts := bulk.ReadOptions{
		Name: name, Table: w.table, CSV: j.CSV, Timestamp: j.Timestamp, Now: w.now,
		OnRows: func(n int64) { beam.NewCounter(metricNamespace, mInputRows).Inc(ctx, n) },
	}
	if j.Kind == bulk.CQL {
		sch, table, err := loadTable(j.SchemaText, "schema", j.Table, j.Partitioner)
		if err != nil {
			return opts, err
		}
		opts.Schema, opts.Table = sch, table
	}
	if j.BadRecords {
		opts.OnBadRecord = func(b *bulk.BadRecord) error {
			beam.NewCounter(metricNamespace, mBadRecords).Inc(ctx, 1)
			bad(badRecord{File: b.Name, Line: b.Line, Error: b.Error(), Record: b.Record}.String())
			return nil
		}
	}
	return opts, nil
}

// splitSink is one bundle's memtable: it flushes whenever the memtable
// holds the process's share of MemtableSize (the size over the bundles
// holding one), in the background while the next fills (two memtables at
// most, as bulk.MemtableSink), each flush into one SSTable (or more, past
// MaxSSTableSize) per writer.
type splitSink struct {
	job     job
	w       *worker
	attempt string // the bundle's directory under the run's temporary one
	mt      *memtable.Memtable

	queue chan *memtable.Frozen
	done  chan struct{}

	failed  atomic.Bool
	mu      sync.Mutex
	err     error
	written []writtenSSTable
	results []*sstables.WriteResult
	closed  bool
}

// writtenSSTable is one SSTable a bundle wrote, for writer.
type writtenSSTable struct {
	writer int
	info   sstableInfo
	res    *sstables.WriteResult // counted in FinishBundle, on the bundle's context
}

func newSplitSink(j job, w *worker) (*splitSink, error) {
	s := &splitSink{job: j, w: w, attempt: sstables.NewUUIDID().String(),
		queue: make(chan *memtable.Frozen), done: make(chan struct{})}
	if !isLocal(j.Out) {
		dir, err := os.MkdirTemp(j.LocalDir, "castable-beam-")
		if err != nil {
			return nil, err
		}
		s.attempt = dir
	}
	s.mt = s.newMemtable()
	directBundles.Add(1)
	go s.flusher()
	return s, nil
}

func (s *splitSink) newMemtable() *memtable.Memtable {
	now := s.w.now
	return memtable.New(s.w.table, memtable.Options{Now: func() time.Time { return now }, NoPurge: s.job.Kind == bulk.JSON})
}

// local is the directory a writer's SSTables are written into: under the
// run's temporary directory for a local Out (the final stage renames them
// from there), else in the worker's scratch directory.
func (s *splitSink) local(wi int) string {
	wr := s.w.plan.writers[wi]
	rel := []string{wr.Dir, s.w.table.Keyspace, s.job.TableDir}
	if !isLocal(s.job.Out) {
		return filepath.Join(append([]string{s.attempt}, rel...)...)
	}
	return joinPath(append([]string{s.job.Temp, s.attempt}, rel...)...)
}

// remote is where a writer's SSTables are uploaded to for a remote Out.
func (s *splitSink) remote(wi int) string {
	wr := s.w.plan.writers[wi]
	return joinPath(s.job.Temp, filepath.Base(s.attempt), wr.Dir, s.w.table.Keyspace, s.job.TableDir)
}

func (s *splitSink) removeLocal() {
	if !isLocal(s.job.Out) {
		os.RemoveAll(s.attempt)
	}
}

// threshold is the memtable size at which the bundle flushes.
func (s *splitSink) threshold() int64 {
	size := s.job.Memtable
	if size <= 0 {
		size = bulk.DefaultMemtableSize
	}
	return size / max(directBundles.Load(), 1)
}

// Apply adds a partition update (copied).
func (s *splitSink) Apply(p *mutation.Partition, _ int) error {
	if s.failed.Load() {
		return bulk.ErrStopped
	}
	if err := s.mt.Apply(p); err != nil {
		return err
	}
	if s.mt.MemoryUsed() >= s.threshold() {
		return s.rotate()
	}
	return nil
}

func (s *splitSink) rotate() error {
	f := s.mt.Freeze()
	s.mt = s.newMemtable()
	select {
	case s.queue <- f:
		return nil
	case <-s.done:
		return bulk.ErrStopped
	}
}

func (s *splitSink) flusher() {
	defer close(s.done)
	for f := range s.queue {
		if s.failed.Load() {
			continue
		}
		written, results, err := s.flush(f)
		s.mu.Lock()
		s.written = append(s.written, written...)
		s.results = append(s.results, results...)
		if err != nil && s.err == nil {
			s.err = err
			s.failed.Store(true)
		}
		s.mu.Unlock()
	}
}

// close flushes what is left (when ok) and returns the SSTables written;
// when the bundle failed (ok false, or a flush failed) it removes them.
func (s *splitSink) close(ok bool) ([]writtenSSTable, error) {
	if s.closed {
		return nil, errors.New("castable-beam: a bundle's memtable closed twice")
	}
	s.closed = true
	defer directBundles.Add(-1)
	if last := s.mt.Freeze(); ok && last.Len() > 0 && !s.failed.Load() {
		select {
		case s.queue <- last:
		case <-s.done:
		}
	}
	close(s.queue)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.err
	if err == nil && !ok {
		err = bulk.ErrStopped
	}
	if err != nil {
		if rerr := bulk.RemoveSSTables(s.results); rerr != nil {
			err = errors.Join(err, rerr)
		}
		s.removeLocal()
		return nil, err
	}
	return s.written, nil
}

// flush writes a frozen memtable: its partitions in token order, each
// appended to the SSTable of every writer it goes to (opened on its first
// partition, and again past MaxSSTableSize).
func (s *splitSink) flush(f *memtable.Frozen) (written []writtenSSTable, results []*sstables.WriteResult, err error) {
	p := s.w.plan
	type open struct {
		w    sstables.Writer
		data *countingFS
	}
	outs := make([]*open, len(p.writers))
	stats := flush.DataStats(f)
	finish := func(wi int) error {
		o := outs[wi]
		outs[wi] = nil
		res, err := o.w.Finish()
		if err != nil {
			return err
		}
		results = append(results, res)
		written = append(written, writtenSSTable{writer: wi, info: s.describe(wi, res), res: res})
		return nil
	}
	err = f.Ascend(func(part *mutation.Partition) error {
		for _, wi := range p.writersOf(part.Token) {
			o := outs[wi]
			if o == nil {
				dir := s.local(wi)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
				o = &open{}
				wopts := sstables.WriterOptions{Dir: dir, UUID: sstables.NewUUIDID().String(),
					Compression: &s.w.params, Jobs: s.job.Jobs, Stats: stats}
				if s.job.MaxSSTable > 0 {
					// Counted only when capped: the OS filesystem's own
					// files write Data.db with direct I/O.
					o.data = &countingFS{FS: sstables.OSFS}
					wopts.FS = o.data
				}
				w, err := s.w.format.NewWriter(f.Table(), wopts)
				if err != nil {
					return err
				}
				o.w = w
				outs[wi] = o
			}
			if err := o.w.Append(part); err != nil {
				return fmt.Errorf("writer %s: %w", writerName(p, wi), err)
			}
			if s.job.MaxSSTable > 0 && o.data.data.Load() >= s.job.MaxSSTable {
				if err := finish(wi); err != nil {
					return err
				}
			}
		}
		return nil
	})
	for wi := range outs {
		if outs[wi] == nil {
			continue
		}
		if err == nil {
			err = finish(wi)
			continue
		}
		if aerr := outs[wi].w.Abort(); aerr != nil {
			err = errors.Join(err, aerr)
		}
	}
	return written, results, err
}

// describe is the final stage's description of an SSTable a bundle wrote.
func (s *splitSink) describe(wi int, r *sstables.WriteResult) sstableInfo {
	wr := s.w.plan.writers[wi]
	d := r.Descriptor
	prefix := strings.TrimSuffix(filepath.Base(d.Path(sstables.ComponentData)), string(sstables.ComponentData))
	from := s.local(wi)
	if !isLocal(s.job.Out) {
		from = s.remote(wi)
	}
	info := sstableInfo{From: from, To: joinPath(s.job.Out, wr.Dir, s.w.table.Keyspace, s.job.TableDir), Prefix: prefix,
		Partitions: r.Partitions, Rows: r.Rows, Bytes: r.BytesWritten, DataBytes: r.DataLength}
	for _, c := range r.Components {
		info.Components = append(info.Components, string(c))
	}
	return info
}

// countingFS counts the bytes written to Data.db files.
type countingFS struct {
	sstables.FS
	data atomic.Int64
}

func (c *countingFS) Create(name string) (sstables.File, error) {
	f, err := c.FS.Create(name)
	if err != nil || !strings.HasSuffix(filepath.Base(name), string(sstables.ComponentData)) {
		return f, err
	}
	return &countingFile{File: f, n: &c.data}, nil
}

type countingFile struct {
	sstables.File
	n *atomic.Int64
}

func (f *countingFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	f.n.Add(int64(n))
	return n, err
}
