package bulk

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/castable-db/castable/sstables"
)

// writeQueue is what both sinks share: the hand-off of full buffers (T: a
// frozen memtable, a sorted buffer) to one background writer, and what the
// writer reports back — the SSTables it wrote, and its first error, after
// which it writes nothing more (failed) and Apply returns ErrStopped.
type writeQueue[T any] struct {
	queue chan T
	done  chan struct{} // closed when the writer has returned

	failed  atomic.Bool
	mu      sync.Mutex
	err     error
	results []*sstables.WriteResult
}

func newWriteQueue[T any]() writeQueue[T] {
	return writeQueue[T]{queue: make(chan T), done: make(chan struct{})}
}

// record is the writer's report of one write.
func (q *writeQueue[T]) record(res []*sstables.WriteResult, err error) {
	q.mu.Lock()
	q.results = append(q.results, res...)
	if err != nil && q.err == nil {
		q.err = err
		q.failed.Store(true)
	}
	q.mu.Unlock()
}

// close hands the writer last (when send and ok and nothing failed), waits
// for it to end and returns the SSTables written, in the order they were
// written. When the run failed (ok false, or a write failed) every SSTable
// written is removed, so a failed write leaves nothing behind; the error
// is then the write's, ctx's, or ErrStopped when ok was false.
func (q *writeQueue[T]) close(ctx context.Context, last T, send, ok bool) ([]*sstables.WriteResult, error) {
	var err error
	if ok && send && !q.failed.Load() {
		select {
		case q.queue <- last:
		case <-q.done:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	close(q.queue)
	<-q.done
	q.mu.Lock()
	defer q.mu.Unlock()
	if err == nil {
		err = q.err
	}
	if err == nil && !ok {
		err = ErrStopped
	}
	if err != nil {
		if rerr := RemoveSSTables(q.results); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, err
	}
	return q.results, nil
}
