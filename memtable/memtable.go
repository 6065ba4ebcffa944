// Package memtable is castable's in-memory write buffer: a sorted,
// concurrent store of partition mutations that many writer goroutines apply
// to while it is active, and that one flusher reads, in SSTable order, once it
// is frozen.
//
// Partitions are kept in token-range shards, each an insert-only B-tree under
// its own lock, so writers of different partitions rarely contend and the
// frozen memtable is read shard after shard without any sorting. A partition
// applied twice is merged with Cassandra's reconciliation rules
// (mutation.Merge) and cleaned of the data its own deletions shadow
// (mutation.PurgeShadowed), so a frozen partition is exactly what a flush
// writes. Memory comes from per-shard slabs: applying a small partition
// allocates nothing in steady state.
package memtable

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// ErrFrozen is returned by Apply once the memtable has been frozen.
var ErrFrozen = errors.New("memtable: frozen")

// Options configure a Memtable. The zero value means the defaults.
type Options struct {
	// Shards is the number of token-range shards, rounded up to a power of
	// two; 0 means 64.
	Shards int
	// Now returns the current time; nil means time.Now. It provides the
	// merge time of reconciliation (mutation.Merge's nowInSec).
	Now func() time.Time
	// NoPurge keeps the data a partition's own deletions shadow instead of
	// removing it with mutation.PurgeShadowed (updates to the same key are
	// still reconciled by mutation.Merge). Loaders of SSTable dumps set it:
	// a dump holds exactly what an SSTable stores, which need not be purged
	// (ScyllaDB keeps a row marker next to an equal shadowable deletion).
	NoPurge bool
}

// Memtable is a concurrent sorted store of the partitions of one table.
// Apply may be called from many goroutines; Freeze ends the writes.
type Memtable struct {
	table   *schema.Table
	now     func() time.Time
	noPurge bool
	shift   uint
	shards  []shard

	frozen    atomic.Bool
	dataBytes atomic.Int64
	memBytes  atomic.Int64
	applied   atomic.Int64
}

type shard struct {
	mu    sync.Mutex
	tree  btree
	slab  slab
	stats *mutation.Stats
	_     [64]byte // keep neighbouring shard locks off one cache line
}

// New returns an empty memtable for table t.
func New(t *schema.Table, opts Options) *Memtable {
	n := opts.Shards
	if n <= 0 {
		n = 64
	}
	logN := bits.Len(uint(n - 1))
	m := &Memtable{
		table:   t,
		now:     opts.Now,
		noPurge: opts.NoPurge,
		shift:   uint(64 - logN),
		shards:  make([]shard, 1<<logN),
	}
	if logN == 0 {
		m.shift = 63 // shardOf must yield 0; a shift of 64 is not allowed
	}
	if m.now == nil {
		m.now = time.Now
	}
	for i := range m.shards {
		m.shards[i].stats = mutation.NewStats(t)
	}
	return m
}

// Table returns the memtable's table.
func (m *Memtable) Table() *schema.Table { return m.table }

// shardOf maps a token to its shard so that shard order is token order.
func (m *Memtable) shardOf(token int64) *shard {
	u := uint64(token) ^ (1 << 63) // order-preserving map of int64 to uint64
	if len(m.shards) == 1 {
		return &m.shards[0]
	}
	return &m.shards[u>>m.shift]
}

// Apply adds the partition update p to the memtable, merging it with what
// the memtable already holds for p's key. p is copied: the caller may reuse
// it and its buffers as soon as Apply returns. The token is computed from the
// key (p.Token is ignored). Rows and markers must be in clustering order and
// cells in column order, as mutation.Builder and the cql package produce them.
func (m *Memtable) Apply(p *mutation.Partition) error {
	if len(p.Key) > 0xFFFF {
		return fmt.Errorf("memtable: partition key of %d bytes exceeds Cassandra's 65535-byte limit", len(p.Key))
	}
	token := dht.Token(p.Key)
	s := m.shardOf(token)
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.frozen.Load() {
		return ErrFrozen
	}
	memBefore := s.slab.allocated
	s.stats.AddPartition(p)

	cp := s.slab.copyPartition(p)
	cp.Token = token
	var delta int64
	if old := s.tree.get(token, cp.Key); old != nil {
		before := dataSize(old)
		if err := mutation.Merge(m.table, old, cp, int32(m.now().Unix())); err != nil {
			return fmt.Errorf("memtable: %w", err)
		}
		if !m.noPurge && hasDeletions(old) {
			if err := mutation.PurgeShadowed(m.table, old); err != nil {
				return fmt.Errorf("memtable: %w", err)
			}
		}
		delta = dataSize(old) - before
	} else {
		if !m.noPurge && hasDeletions(cp) {
			if err := mutation.PurgeShadowed(m.table, cp); err != nil {
				return fmt.Errorf("memtable: %w", err)
			}
		}
		s.tree.insert(token, cp)
		delta = dataSize(cp)
	}
	m.dataBytes.Add(delta)
	m.memBytes.Add(s.slab.allocated - memBefore)
	m.applied.Add(1)
	return nil
}

// hasDeletions reports whether p holds anything that can shadow other data
// of p, i.e. whether PurgeShadowed could change it.
func hasDeletions(p *mutation.Partition) bool {
	if !p.Deletion.IsLive() || len(p.Markers) > 0 {
		return true
	}
	if rowHasDeletions(&p.Static) {
		return true
	}
	for i := range p.Rows {
		if rowHasDeletions(&p.Rows[i]) {
			return true
		}
	}
	return false
}

func rowHasDeletions(r *mutation.Row) bool {
	return !r.Deletion.IsLive() || !r.ShadowableDeletion.IsLive() || len(r.ComplexDeletions) > 0
}

// DataSize returns the bytes of keys, clustering values, cell paths and
// values the memtable holds (after merges).
func (m *Memtable) DataSize() int64 { return m.dataBytes.Load() }

// MemoryUsed returns the bytes of memory the memtable has taken for its
// partitions (its slabs, including unused space of their last blocks), not
// counting the B-tree nodes and memory Merge allocated. It is what flush
// thresholds compare against.
func (m *Memtable) MemoryUsed() int64 { return m.memBytes.Load() }

// Applied returns the number of partition updates applied.
func (m *Memtable) Applied() int64 { return m.applied.Load() }

// Freeze ends the writes: Apply fails with ErrFrozen from now on, and the
// returned Frozen reads the partitions in SSTable order. Calling Freeze again
// returns an equivalent Frozen.
func (m *Memtable) Freeze() *Frozen {
	m.frozen.Store(true)
	f := &Frozen{m: m, stats: mutation.NewStats(m.table)}
	// Taking every shard lock once waits for in-flight Applies; any later
	// Apply sees the frozen flag under its shard lock.
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		f.partitions += int64(s.tree.length)
		f.stats.Merge(s.stats)
		s.mu.Unlock()
	}
	return f
}

// Frozen is an immutable memtable, ready to be flushed. It stays valid (and
// keeps its data) until dropped, so a failed flush can be retried.
type Frozen struct {
	m          *Memtable
	partitions int64
	stats      *mutation.Stats
}

// Table returns the table of the partitions.
func (f *Frozen) Table() *schema.Table { return f.m.table }

// Len returns the number of partitions.
func (f *Frozen) Len() int64 { return f.partitions }

// Stats returns what the memtable saw in the updates applied to it: the
// encoding minima and the columns that occur (the mc serialization header),
// counted rows and partition updates. Like Cassandra's memtable statistics,
// they cover every update, including data later shadowed.
func (f *Frozen) Stats() *mutation.Stats { return f.stats }

// Applied returns the number of partition updates the memtable received.
func (f *Frozen) Applied() int64 { return f.m.Applied() }

// DataSize is Memtable.DataSize at freeze time.
func (f *Frozen) DataSize() int64 { return f.m.DataSize() }

// MemoryUsed is Memtable.MemoryUsed at freeze time.
func (f *Frozen) MemoryUsed() int64 { return f.m.MemoryUsed() }

// Ascend calls fn for every partition in SSTable order (token, then key)
// until fn returns false or an error. The partitions belong to the memtable:
// fn must not modify or keep them beyond the memtable's life.
func (f *Frozen) Ascend(fn func(p *mutation.Partition) error) error {
	var err error
	for i := range f.m.shards {
		f.m.shards[i].tree.ascend(func(p *mutation.Partition) bool {
			err = fn(p)
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Get returns the partition with the given serialized key, or nil.
func (f *Frozen) Get(key []byte) *mutation.Partition {
	token := dht.Token(key)
	return f.m.shardOf(token).tree.get(token, key)
}
