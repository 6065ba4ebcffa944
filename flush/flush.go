// Package flush writes frozen memtables into SSTables: the embedded write
// path of a database node.
//
// Flush turns one memtable.Frozen into one SSTable through any
// sstables.Format (mc or la, any codec): partitions are serialized in order on
// the calling goroutine, which hands the bytes in batches to the writer's
// partition sink; on a goroutine of its own the sink writes Index.db and
// builds the summary, bloom filter and key statistics, while Data.db chunks
// are compressed and checksummed (inline or on a pool of workers,
// sstables.DataWriter) and written in large pieces by another goroutine with
// direct I/O where the filesystem allows. The digest is built by combining
// chunk checksums, every component is written under a temporary name, synced,
// renamed, and TOC.txt comes last. On any error the partial files are removed
// and the frozen memtable is untouched, so the flush can be retried.
//
// Service runs flushes for a node: it accepts frozen memtables, runs a
// bounded number at once, blocks submitters when too many wait
// (back-pressure), assigns generations, retries failures, and hands every
// finished SSTable to a callback. Store adds the active-memtable bookkeeping on
// top: writers apply mutations, and full memtables are frozen and submitted.
package flush

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// DefaultFormat is the version a flush writes when Options.Format is nil:
// version.Default, castable's one default (what Cassandra 4.0, 4.1 and 5.0
// in its shipped compatibility mode write by default).
const DefaultFormat = version.Default

// Options configure one flush. Zero values mean the defaults given per field.
type Options struct {
	// Format is the SSTable format to write; nil means DefaultFormat
	// (looked up in the registry: the program links the formats, e.g. by
	// importing sstables/formats).
	Format sstables.Format
	// WriterOptions are passed to the writer (see sstables.WriterOptions):
	// Dir is required, and Generation (or UUID) for Flush, whereas Service
	// assigns generations. The flush sets ExpectedPartitions and Stats
	// from the memtable.
	sstables.WriterOptions
}

// Result describes a finished flush.
type Result struct {
	sstables.WriteResult
	// Fragments is the number of partition updates applied to the memtable
	// (what perf_fast_forward counts as fragments for small partitions).
	Fragments int64
	// MemtableBytes is the memtable's data size (keys, clusterings, values).
	MemtableBytes int64
	// Duration is the wall time of the flush, from the first partition to
	// the TOC.txt rename.
	Duration time.Duration
}

// FragmentsPerSecond is Fragments divided by Duration.
func (r *Result) FragmentsPerSecond() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.Fragments) / r.Duration.Seconds()
}

// Ratio is the on-disk Data.db size divided by its uncompressed length.
func (r *Result) Ratio() float64 {
	if r.DataLength == 0 {
		return 0
	}
	return float64(r.DataFileSize) / float64(r.DataLength)
}

// checkEvery is how many partitions are written between context checks.
const checkEvery = 4096

// DataStats returns the writer statistics of a frozen memtable: the minima
// mc delta-encodes against and the columns its serialization header lists,
// as Cassandra takes them from its memtable.
func DataStats(f *memtable.Frozen) sstables.DataStats {
	return WriterStats(f.Stats())
}

// WriterStats converts statistics collected over some data into the
// writer's DataStats (see DataStats).
func WriterStats(s *mutation.Stats) sstables.DataStats {
	e := s.EncodingStats()
	return sstables.DataStats{
		Known:                true,
		MinTimestamp:         e.MinTimestamp,
		MinLocalDeletionTime: e.MinLocalDeletionTime,
		MinTTL:               e.MinTTL,
		// A non-nil slice: nil would mean "every column of the table".
		Columns: s.Columns(make([]*schema.Column, 0, 8)),
	}
}

// Flush writes f into a new SSTable of generation opts.Generation in
// opts.Dir. Nothing is visible under the final names until the SSTable is
// complete; on error every file the flush created is removed and f can be
// flushed again. Cancelling ctx aborts the flush.
func Flush(ctx context.Context, f *memtable.Frozen, opts Options) (*Result, error) {
	return flush(ctx, f, opts, nil)
}

// resolveFormat sets a nil Format to DefaultFormat's.
func (o *Options) resolveFormat() error {
	if o.Format != nil {
		return nil
	}
	f, err := sstables.Lookup(DefaultFormat)
	if err != nil {
		return fmt.Errorf("flush: no Format given and the default %s is not linked (import sstables/formats): %w", DefaultFormat, err)
	}
	o.Format = f
	return nil
}

// progressFunc receives the number of partitions written so far.
type progressFunc func(done int64)

func flush(ctx context.Context, f *memtable.Frozen, opts Options, progress progressFunc) (*Result, error) {
	if err := opts.resolveFormat(); err != nil {
		return nil, err
	}
	if opts.Dir == "" {
		return nil, errors.New("flush: no directory")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	wopts := opts.WriterOptions
	wopts.ExpectedPartitions = f.Len()
	wopts.Stats = DataStats(f)
	w, err := opts.Format.NewWriter(f.Table(), wopts)
	if err != nil {
		return nil, fmt.Errorf("flush: %w", err)
	}
	var n int64
	err = f.Ascend(func(p *mutation.Partition) error {
		if err := w.Append(p); err != nil {
			return err
		}
		n++
		if n%checkEvery == 0 {
			if progress != nil {
				progress(n)
			}
			return ctx.Err()
		}
		return nil
	})
	var res *sstables.WriteResult
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		res, err = w.Finish()
	}
	if err != nil {
		if aerr := w.Abort(); aerr != nil {
			err = errors.Join(err, fmt.Errorf("abort: %w", aerr))
		}
		return nil, fmt.Errorf("flush of %s generation %d: %w", opts.Dir, opts.Generation, err)
	}
	if progress != nil {
		progress(n)
	}
	return &Result{
		WriteResult:   *res,
		Fragments:     f.Applied(),
		MemtableBytes: f.DataSize(),
		Duration:      time.Since(start),
	}, nil
}
