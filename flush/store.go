package flush

import (
	"context"
	"sync"

	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// StoreOptions configure a Store. Zero values mean the defaults given per
// field.
type StoreOptions struct {
	// MemtableSize is the memory (memtable.Memtable.MemoryUsed) at which
	// the active memtable is frozen and submitted; 0 means 64 MiB.
	MemtableSize int64
	// Memtable configures every new memtable.
	Memtable memtable.Options
}

// Store is the write side of one table on a node: writers apply mutations
// to the active memtable; when it reaches MemtableSize it is frozen,
// replaced, and submitted to the Service (the writer that fills it waits
// while the service is saturated). It is safe for concurrent use.
type Store struct {
	table *schema.Table
	svc   *Service
	opts  StoreOptions

	mu     sync.RWMutex
	active *memtable.Memtable
}

// NewStore returns a store for table t flushing through svc.
func NewStore(t *schema.Table, svc *Service, opts StoreOptions) *Store {
	if opts.MemtableSize <= 0 {
		opts.MemtableSize = 64 << 20
	}
	return &Store{table: t, svc: svc, opts: opts, active: memtable.New(t, opts.Memtable)}
}

// Apply writes the partition update p (copied; see memtable.Memtable.Apply).
// When p fills the active memtable, Apply submits it for flushing and may
// block while too many memtables wait.
func (s *Store) Apply(ctx context.Context, p *mutation.Partition) error {
	for {
		s.mu.RLock()
		m := s.active
		s.mu.RUnlock()
		err := m.Apply(p)
		if err == memtable.ErrFrozen {
			continue // another writer switched memtables under us
		}
		if err != nil {
			return err
		}
		if m.MemoryUsed() >= s.opts.MemtableSize {
			return s.switchFrom(ctx, m)
		}
		return nil
	}
}

// Flush freezes and submits the active memtable now, if it holds anything.
func (s *Store) Flush(ctx context.Context) error {
	s.mu.RLock()
	m := s.active
	s.mu.RUnlock()
	if m.Applied() == 0 {
		return nil
	}
	return s.switchFrom(ctx, m)
}

// Active returns the memtable writes currently go to.
func (s *Store) Active() *memtable.Memtable {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.active
}

// switchFrom replaces m by a new memtable, unless someone already did, and
// submits m. A memtable that cannot be submitted goes to the service's
// OnError, intact, so no write is lost.
func (s *Store) switchFrom(ctx context.Context, m *memtable.Memtable) error {
	s.mu.Lock()
	if s.active != m {
		s.mu.Unlock()
		return nil
	}
	s.active = memtable.New(s.table, s.opts.Memtable)
	s.mu.Unlock()
	f := m.Freeze()
	if err := s.svc.Submit(ctx, f); err != nil {
		if s.svc.opts.OnError != nil {
			s.svc.opts.OnError(f, err)
		}
		return err
	}
	return nil
}
