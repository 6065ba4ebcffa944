package flush

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/sstables"
)

// ServiceOptions configure a Service. Zero values mean the defaults given
// per field.
type ServiceOptions struct {
	// Options are the flush options; Generation is ignored (the service
	// assigns generations).
	Options
	// MaxConcurrent is the number of flushes that run at once; 0 means 1.
	MaxConcurrent int
	// MaxPending is the number of submitted memtables that may wait for a
	// flush; Submit blocks when that many wait (back-pressure). 0 means 2.
	MaxPending int
	// Retries is how many times a failed flush is retried (after
	// RetryDelay, doubling) before its memtable is given up to OnError;
	// 0 means 3, a negative value means no retry.
	Retries int
	// RetryDelay is the first delay before a retry; 0 means 100ms.
	RetryDelay time.Duration
	// OnFlushed is called, from a flushing goroutine, with every finished
	// SSTable, before the flush counts as done (Wait returns after it). It
	// must not block for long.
	OnFlushed func(*Result)
	// Generations, when set, gives the flushes their generations (shared
	// with a compaction.Service writing into the same directory); nil
	// means the service's own counter, from the directory's next free one.
	Generations *sstables.Generations
	// OnError is called when a memtable could not be flushed after its
	// retries (or the service was cancelled while it waited or ran); the
	// memtable is intact and may be resubmitted.
	OnError func(f *memtable.Frozen, err error)
}

// Service flushes frozen memtables in the background. It is safe for
// concurrent use.
type Service struct {
	opts   ServiceOptions
	ctx    context.Context
	cancel context.CancelFunc

	queue chan *memtable.Frozen
	wg    sync.WaitGroup
	// sendMu is held for reading by Submit while it sends, and for writing
	// by Close while it closes the queue, so no send hits a closed channel.
	sendMu sync.RWMutex

	mu      sync.Mutex
	nextGen int
	closed  bool
	stats   ServiceStats
	running map[*memtable.Frozen]*Progress
	idle    *sync.Cond
}

// ServiceStats are the service's running totals.
type ServiceStats struct {
	// Submitted, Flushed and Failed count memtables.
	Submitted, Flushed, Failed int64
	// Retries counts retried flush attempts.
	Retries int64
	// Fragments and Partitions count what the flushed memtables held.
	Fragments, Partitions int64
	// BytesIn is the memtables' data size, BytesOut the SSTables' size.
	BytesIn, BytesOut int64
	// FlushTime is the total wall time spent flushing.
	FlushTime time.Duration
}

// Progress is the state of one running flush.
type Progress struct {
	Generation int
	// Done and Total count partitions.
	Done, Total int64
	Started     time.Time
}

// NewService starts a service writing into opts.Dir. It first removes what
// interrupted writes left there (sstables.CleanupTemporary) and takes the
// next free generation. Cancelling ctx stops the service: running flushes are
// aborted (their files removed), waiting memtables are handed to OnError.
func NewService(ctx context.Context, opts ServiceOptions) (*Service, error) {
	if err := opts.Options.resolveFormat(); err != nil {
		return nil, err
	}
	if opts.Dir == "" {
		return nil, errors.New("flush: service needs a directory")
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = sstables.OSFS
	}
	if err := fsys.MkdirAll(opts.Dir); err != nil {
		return nil, err
	}
	if _, err := sstables.CleanupTemporary(fsys, opts.Dir); err != nil {
		return nil, fmt.Errorf("flush: cleaning %s: %w", opts.Dir, err)
	}
	gen, err := sstables.NextGeneration(fsys, opts.Dir)
	if err != nil {
		return nil, err
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 1
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = 2
	}
	if opts.Retries == 0 {
		opts.Retries = 3
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = 100 * time.Millisecond
	}
	s := &Service{
		opts:    opts,
		queue:   make(chan *memtable.Frozen, opts.MaxPending),
		nextGen: gen,
		running: map[*memtable.Frozen]*Progress{},
	}
	s.idle = sync.NewCond(&s.mu)
	s.ctx, s.cancel = context.WithCancel(ctx)
	for i := 0; i < opts.MaxConcurrent; i++ {
		s.wg.Add(1)
		go s.worker()
	}
	return s, nil
}

// ErrClosed is returned by Submit after Close.
var ErrClosed = errors.New("flush: service closed")

// Submit queues f for flushing. It blocks while MaxPending memtables are
// already waiting — the back-pressure that slows writers down to the speed
// of the disk — until there is room, ctx is done, or the service stops.
func (s *Service) Submit(ctx context.Context, f *memtable.Frozen) error {
	s.sendMu.RLock()
	defer s.sendMu.RUnlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	s.stats.Submitted++
	s.mu.Unlock()
	select {
	case s.queue <- f:
		return nil
	case <-ctx.Done():
		s.undoSubmit()
		return ctx.Err()
	case <-s.ctx.Done():
		s.undoSubmit()
		return s.ctx.Err()
	}
}

func (s *Service) undoSubmit() {
	s.mu.Lock()
	s.stats.Submitted--
	s.mu.Unlock()
}

// Wait blocks until every memtable submitted so far has been flushed or
// given up.
func (s *Service) Wait() {
	s.mu.Lock()
	for s.stats.Flushed+s.stats.Failed < s.stats.Submitted {
		s.idle.Wait()
	}
	s.mu.Unlock()
}

// Close stops accepting memtables, flushes those already submitted, and
// stops the workers. Cancel the service's context instead to stop without
// flushing.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.sendMu.Lock()
	close(s.queue)
	s.sendMu.Unlock()
	s.wg.Wait()
	s.cancel()
	return nil
}

// Stats returns the running totals.
func (s *Service) Stats() ServiceStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Running returns the progress of the flushes under way.
func (s *Service) Running() []Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Progress, 0, len(s.running))
	for _, p := range s.running {
		out = append(out, *p)
	}
	return out
}

func (s *Service) generation() int {
	if s.opts.Generations != nil {
		return s.opts.Generations.Next()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.nextGen
	s.nextGen++
	return g
}

func (s *Service) worker() {
	defer s.wg.Done()
	for {
		select {
		case f, ok := <-s.queue:
			if !ok {
				return
			}
			if err := s.ctx.Err(); err != nil {
				s.fail(f, err)
				continue
			}
			s.flushWithRetries(f)
		case <-s.ctx.Done():
			// Hand back what still waits; Submit no longer enqueues.
			for {
				select {
				case f, ok := <-s.queue:
					if !ok {
						return
					}
					s.fail(f, s.ctx.Err())
				default:
					return
				}
			}
		}
	}
}

func (s *Service) flushWithRetries(f *memtable.Frozen) {
	delay := s.opts.RetryDelay
	for attempt := 0; ; attempt++ {
		res, err := s.flushOnce(f)
		if err == nil {
			// The callback first: Wait returns once it has run (a
			// compaction service learns of the SSTable in it).
			if s.opts.OnFlushed != nil {
				s.opts.OnFlushed(res)
			}
			s.mu.Lock()
			s.stats.Flushed++
			s.stats.Fragments += res.Fragments
			s.stats.Partitions += res.Partitions
			s.stats.BytesIn += res.MemtableBytes
			s.stats.BytesOut += res.BytesWritten
			s.stats.FlushTime += res.Duration
			s.idle.Broadcast()
			s.mu.Unlock()
			return
		}
		if s.ctx.Err() != nil || attempt >= s.opts.Retries {
			s.fail(f, err)
			return
		}
		s.mu.Lock()
		s.stats.Retries++
		s.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-s.ctx.Done():
			s.fail(f, err)
			return
		}
		delay *= 2
	}
}

func (s *Service) flushOnce(f *memtable.Frozen) (*Result, error) {
	opts := s.opts.Options
	opts.Generation = s.generation()
	p := &Progress{Generation: opts.Generation, Total: f.Len(), Started: time.Now()}
	s.mu.Lock()
	s.running[f] = p
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.running, f)
		s.mu.Unlock()
	}()
	return flush(s.ctx, f, opts, func(done int64) {
		s.mu.Lock()
		p.Done = done
		s.mu.Unlock()
	})
}

func (s *Service) fail(f *memtable.Frozen, err error) {
	s.mu.Lock()
	s.stats.Failed++
	s.idle.Broadcast()
	s.mu.Unlock()
	if s.opts.OnError != nil {
		s.opts.OnError(f, err)
	}
}
