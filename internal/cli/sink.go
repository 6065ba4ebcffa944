package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// sinkOptions configure a memtableSink.
type sinkOptions struct {
	format sstables.Format
	// writer are the options of every SSTable written; its Generation is
	// the first SSTable's, and each next one takes the next generation.
	writer         sstables.WriterOptions
	memtableSize   int64 // 0: DefaultMemtableSize
	maxSSTableSize int64 // 0: no cap
	// verbatim stores partitions as given (memtable.Options.NoPurge): JSON
	// input is SSTable content, not statements.
	verbatim bool
	now      time.Time
	progress *progress
}

// memtableSink gathers partitions in a memtable and flushes it into an
// SSTable whenever it holds memtableSize bytes. One flush runs in the
// background while the next memtable fills; when a second memtable fills
// before that flush ends, apply waits. Memory is therefore bounded by about
// two memtables whatever the size of the input.
type memtableSink struct {
	ctx   context.Context
	table *schema.Table
	opts  sinkOptions
	mt    *memtable.Memtable

	queue chan *memtable.Frozen
	done  chan struct{}

	applied int
	failed  atomic.Bool
	mu      sync.Mutex
	err     error
	results []*sstables.WriteResult
}

func newMemtableSink(ctx context.Context, t *schema.Table, opts sinkOptions) *memtableSink {
	if opts.memtableSize <= 0 {
		opts.memtableSize = DefaultMemtableSize
	}
	s := &memtableSink{ctx: ctx, table: t, opts: opts, queue: make(chan *memtable.Frozen), done: make(chan struct{})}
	s.mt = s.newMemtable()
	go s.flusher()
	return s
}

func (s *memtableSink) newMemtable() *memtable.Memtable {
	now := s.opts.now
	return memtable.New(s.table, memtable.Options{Now: func() time.Time { return now }, NoPurge: s.opts.verbatim})
}

// apply adds a partition update (copied; the caller may reuse p).
func (s *memtableSink) apply(p *mutation.Partition) error {
	if s.failed.Load() {
		return errInputStop
	}
	if err := s.mt.Apply(p); err != nil {
		return err
	}
	if s.applied++; s.applied&1023 == 0 {
		if err := s.ctx.Err(); err != nil {
			return err
		}
	}
	if s.mt.MemoryUsed() >= s.opts.memtableSize {
		return s.rotate()
	}
	return nil
}

// rotate hands the full memtable to the flusher and starts a new one.
func (s *memtableSink) rotate() error {
	f := s.mt.Freeze()
	s.mt = s.newMemtable()
	select {
	case s.queue <- f:
		return nil
	case <-s.done:
		return errInputStop
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

// flusher writes the memtables it receives, one at a time.
func (s *memtableSink) flusher() {
	defer close(s.done)
	gen := s.opts.writer.Generation
	for f := range s.queue {
		if s.failed.Load() {
			continue
		}
		res, err := s.flushFrozen(f, gen)
		gen += len(res)
		s.mu.Lock()
		s.results = append(s.results, res...)
		if err != nil && s.err == nil {
			s.err = err
			s.failed.Store(true)
		}
		s.mu.Unlock()
		s.opts.progress.addSSTables(int64(len(res)))
	}
}

// close flushes what is left (when ok), waits for the flusher and returns
// the SSTables written. When the run failed (ok false, or a flush failed)
// every SSTable this run wrote is removed, so a failed write leaves
// nothing behind.
func (s *memtableSink) close(ok bool) ([]*sstables.WriteResult, error) {
	var err error
	if last := s.mt.Freeze(); ok && last.Len() > 0 && !s.failed.Load() {
		select {
		case s.queue <- last:
		case <-s.done:
		case <-s.ctx.Done():
			err = s.ctx.Err()
		}
	}
	close(s.queue)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		err = s.err
	}
	if err == nil && !ok {
		err = errInputStop
	}
	if err != nil {
		if rerr := removeSSTables(s.results); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, err
	}
	return s.results, nil
}

// removeSSTables deletes finished SSTables (TOC.txt first, so that an
// interrupted removal leaves no SSTable that looks complete).
func removeSSTables(results []*sstables.WriteResult) error {
	var errs []error
	for _, r := range results {
		d := r.Descriptor
		if err := sstables.OSFS.Remove(d.Path(sstables.ComponentTOC)); err != nil {
			errs = append(errs, err)
		}
		for _, c := range r.Components {
			if c == sstables.ComponentTOC {
				continue
			}
			if err := sstables.OSFS.Remove(d.Path(c)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// flushFrozen writes f as one SSTable of generation gen (flush.Flush), or,
// with a size cap, as several of successive generations.
func (s *memtableSink) flushFrozen(f *memtable.Frozen, gen int) ([]*sstables.WriteResult, error) {
	opts := flush.Options{Format: s.opts.format, WriterOptions: s.opts.writer}
	opts.Generation = gen
	if s.opts.maxSSTableSize <= 0 {
		res, err := flush.Flush(s.ctx, f, opts)
		if err != nil {
			return nil, err
		}
		return []*sstables.WriteResult{&res.WriteResult}, nil
	}
	return splitFlush(s.ctx, f, opts, s.opts.maxSSTableSize)
}

// splitFlush writes f into SSTables whose Data.db stops growing at the
// first partition boundary after maxData bytes reached the file (the writer's
// partition sink and Data.db writer hold back up to 2 MiB, so an SSTable may
// pass the cap by that much). The bloom filters
// are sized from each SSTable's real partition count.
func splitFlush(ctx context.Context, f *memtable.Frozen, opts flush.Options, maxData int64) ([]*sstables.WriteResult, error) {
	fsys := &countingFS{FS: sstables.OSFS}
	wopts := opts.WriterOptions
	wopts.FS = fsys
	wopts.Stats = flush.DataStats(f)
	var out []*sstables.WriteResult
	var w sstables.Writer
	gen := opts.Generation
	finish := func() error {
		res, err := w.Finish()
		if err != nil {
			return err
		}
		w = nil
		out = append(out, res)
		gen++
		return nil
	}
	n := 0
	err := f.Ascend(func(p *mutation.Partition) error {
		if w == nil {
			fsys.data.Store(0)
			wopts.Generation = gen
			var err error
			if w, err = opts.Format.NewWriter(f.Table(), wopts); err != nil {
				return err
			}
		}
		if err := w.Append(p); err != nil {
			return err
		}
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if fsys.data.Load() >= maxData {
			return finish()
		}
		return nil
	})
	if err == nil && w != nil {
		err = finish()
	}
	if err != nil {
		if w != nil {
			if aerr := w.Abort(); aerr != nil {
				err = errors.Join(err, aerr)
			}
		}
		if rerr := removeSSTables(out); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, fmt.Errorf("flush into %s from generation %d: %w", opts.Dir, opts.Generation, err)
	}
	return out, nil
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
