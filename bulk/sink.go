package bulk

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// DefaultMemtableSize is the memtable memory at which a MemtableSink
// flushes by default.
const DefaultMemtableSize = 64 << 20

// SinkOptions configure a MemtableSink. Format and Writer.Dir are
// required; the zero value of every other field means the default given in
// its comment.
type SinkOptions struct {
	// Format is the SSTable format written.
	Format sstables.Format
	// Writer are the options of every SSTable written. Its Generation is
	// the first SSTable's, and each next one takes the next generation;
	// with UUIDs it is ignored.
	Writer sstables.WriterOptions
	// UUIDs names each SSTable with a fresh UUID-based identifier
	// (sstables.NewUUIDID, Cassandra 4.1+), unique across processes and
	// machines, instead of successive generations.
	UUIDs bool
	// CapDeletionTimes caps local deletion and expiration times past
	// 2038-01-19 to that day when Format stores signed 32-bit times (the
	// versions before oa; Cassandra's expiration_date_overflow_policy
	// CAP); otherwise such data fails the flush, naming the partition.
	CapDeletionTimes bool
	// MemtableSize is the memtable memory in bytes at which the data
	// gathered so far is flushed; 0 means DefaultMemtableSize.
	MemtableSize int64
	// MaxSSTableSize caps the Data.db size of each SSTable in bytes (the
	// next SSTable starts at the first partition past it); 0 means no cap.
	MaxSSTableSize int64
	// Verbatim stores partitions as given (memtable.Options.NoPurge): JSON
	// input is SSTable content, not statements.
	Verbatim bool
	// Now is the memtable's clock (reconciliation's merge time); the zero
	// value means the time NewMemtableSink is called.
	Now time.Time
	// OnFlushed, when set, is called with the SSTables of each flush as it
	// ends, on the flushing goroutine.
	OnFlushed func([]*sstables.WriteResult)
}

// MemtableSink gathers partitions in a memtable and flushes it into an
// SSTable whenever it holds MemtableSize bytes. One flush runs in the
// background while the next memtable fills; when a second memtable fills
// before that flush ends, Apply waits. Memory is therefore bounded by about
// two memtables whatever the size of the input. Each SSTable is sorted
// (partitions in token order); SSTables of different flushes overlap.
//
// Apply is called from one goroutine; Close must be called once, at the
// end.
type MemtableSink struct {
	ctx   context.Context
	table *schema.Table
	opts  SinkOptions
	mt    *memtable.Memtable

	writeQueue[*memtable.Frozen]

	applied int
}

// NewMemtableSink returns a sink writing SSTables of table t; ctx bounds
// its flushes.
func NewMemtableSink(ctx context.Context, t *schema.Table, opts SinkOptions) *MemtableSink {
	if opts.MemtableSize <= 0 {
		opts.MemtableSize = DefaultMemtableSize
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if opts.OnFlushed == nil {
		opts.OnFlushed = func([]*sstables.WriteResult) {}
	}
	s := &MemtableSink{ctx: ctx, table: t, opts: opts, writeQueue: newWriteQueue[*memtable.Frozen]()}
	s.mt = s.newMemtable()
	go s.flusher()
	return s
}

func (s *MemtableSink) newMemtable() *memtable.Memtable {
	now := s.opts.Now
	return memtable.New(s.table, memtable.Options{Now: func() time.Time { return now }, NoPurge: s.opts.Verbatim})
}

// Apply adds a partition update (copied; the caller may reuse p). It
// returns ErrStopped once a flush failed (Close reports why).
func (s *MemtableSink) Apply(p *mutation.Partition, _ int) error {
	if s.failed.Load() {
		return ErrStopped
	}
	if s.opts.CapDeletionTimes && !s.opts.Format.Version().UIntDeletionTime() {
		p.CapDeletionTimes(mutation.MaxLegacyDeletionTime, true)
	}
	if err := s.mt.Apply(p); err != nil {
		return err
	}
	if s.applied++; s.applied&1023 == 0 {
		if err := s.ctx.Err(); err != nil {
			return err
		}
	}
	if s.mt.MemoryUsed() >= s.opts.MemtableSize {
		return s.rotate()
	}
	return nil
}

// rotate hands the full memtable to the flusher and starts a new one.
func (s *MemtableSink) rotate() error {
	f := s.mt.Freeze()
	s.mt = s.newMemtable()
	select {
	case s.queue <- f:
		return nil
	case <-s.done:
		return ErrStopped
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

// flusher writes the memtables it receives, one at a time.
func (s *MemtableSink) flusher() {
	defer close(s.done)
	gen := s.opts.Writer.Generation
	for f := range s.queue {
		if s.failed.Load() {
			continue
		}
		res, err := s.flushFrozen(f, gen)
		gen += len(res)
		s.record(res, err)
		s.opts.OnFlushed(res)
	}
}

// Close flushes what is left (when ok), waits for the flusher and returns
// the SSTables written, in the order they were written. When the run
// failed (ok false, or a flush failed) every SSTable this sink wrote is
// removed, so a failed write leaves nothing behind; the error is then the
// flush's, or ErrStopped when ok was false.
func (s *MemtableSink) Close(ok bool) ([]*sstables.WriteResult, error) {
	last := s.mt.Freeze()
	return s.close(s.ctx, last, last.Len() > 0, ok)
}

// RemoveSSTables deletes finished SSTables (TOC.txt first, so that an
// interrupted removal leaves no SSTable that looks complete).
func RemoveSSTables(results []*sstables.WriteResult) error {
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
func (s *MemtableSink) flushFrozen(f *memtable.Frozen, gen int) ([]*sstables.WriteResult, error) {
	opts := flush.Options{Format: s.opts.Format, WriterOptions: s.opts.Writer}
	opts.Generation = gen
	if s.opts.UUIDs {
		opts.Generation = 0
	}
	if s.opts.MaxSSTableSize <= 0 {
		if s.opts.UUIDs {
			opts.UUID = sstables.NewUUIDID().String()
		}
		res, err := flush.Flush(s.ctx, f, opts)
		if err != nil {
			return nil, err
		}
		return []*sstables.WriteResult{&res.WriteResult}, nil
	}
	return writeSplit(s.ctx, f.Table(), opts, flush.DataStats(f), f.Ascend, s.opts.MaxSSTableSize, s.opts.UUIDs)
}

// writeSplit writes the partitions ascend visits (in token order, with
// the statistics stats of them all) into SSTables whose Data.db stops
// growing at the first partition boundary after maxData bytes reached the
// file (the writer's partition sink and Data.db writer hold back up to
// 2 MiB, so an SSTable may pass the cap by that much). The bloom filters
// are sized from each SSTable's real partition count.
func writeSplit(ctx context.Context, t *schema.Table, opts flush.Options, stats sstables.DataStats,
	ascend func(func(*mutation.Partition) error) error, maxData int64, uuids bool) ([]*sstables.WriteResult, error) {
	fsys := &countingFS{FS: sstables.OSFS}
	wopts := opts.WriterOptions
	wopts.FS = fsys
	wopts.Stats = stats
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
	err := ascend(func(p *mutation.Partition) error {
		if w == nil {
			fsys.data.Store(0)
			wopts.Generation = gen
			if uuids {
				wopts.Generation, wopts.UUID = 0, sstables.NewUUIDID().String()
			}
			var err error
			if w, err = opts.Format.NewWriter(t, wopts); err != nil {
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
		if rerr := RemoveSSTables(out); rerr != nil {
			err = errors.Join(err, rerr)
		}
		if uuids {
			return nil, fmt.Errorf("flush into %s: %w", opts.Dir, err)
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
