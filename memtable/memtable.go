// Package memtable is castable's in-memory write buffer: a sorted,
// concurrent store of partition mutations that many writer goroutines apply
// to while it is active, and that one flusher reads, in SSTable order, once it
// is frozen.
//
// Partitions are kept in shards, each an insert-only B-tree under its own
// lock, so writers of different partitions rarely contend. With a hashing
// partitioner (Murmur3, Random) the shards are token ranges and the frozen
// memtable is read shard after shard without any sorting; with a key-ordered
// one (ByteOrdered), whose tokens crowd in a corner of the token space, the
// shards are chosen by a hash of the key and freezing merges them. A partition
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
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/prefetch"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// ErrFrozen is returned by Apply once the memtable has been frozen.
var ErrFrozen = errors.New("memtable: frozen")

// Options configure a Memtable. The zero value means the defaults.
type Options struct {
	// Shards is the number of shards, rounded up to a power of two; 0 means
	// 64.
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
	table *schema.Table
	part  dht.Partitioner
	// byHash shards by a hash of the key instead of by token range (a
	// key-ordered partitioner); Freeze then merges the shards.
	byHash  bool
	now     func() time.Time
	noPurge bool
	shift   uint
	shards  []shard

	// err is set when the table names a partitioner dht does not know:
	// Apply returns it, so that nothing is ordered by a guessed partitioner.
	err error

	frozen     atomic.Bool
	freezeOnce sync.Once
	frozenView *Frozen
	freezeErr  error
	dataBytes  atomic.Int64
	memBytes   atomic.Int64
	applied    atomic.Int64
}

type shard struct {
	mu    sync.Mutex
	tree  btree
	slab  slab
	stats *mutation.Stats
	// withDeletions are the entries holding deletions, purged of the data
	// they shadow when the memtable is frozen.
	withDeletions []*entry
	_             [64]byte // keep neighbouring shard locks off one cache line
}

// entry is a partition held by the memtable with what the memtable tracks
// about it.
type entry struct {
	p mutation.Partition
	// size is the partition's data size (see DataSize).
	size int64
	// deletions is set once the partition holds a deletion, so Freeze
	// knows which partitions may hold shadowed data.
	deletions bool
	// whole says the partition lies entirely in the entry (its inline
	// parts): a flush has nothing else of it to fetch.
	whole bool
	// inline holds the parts of a small partition, so that a flush, which
	// visits partitions in token order and thus at random places in
	// memory, finds a whole small partition in one run of cache lines.
	inline inlineParts
}

// New returns an empty memtable for table t. A partitioner t's options name
// that package dht does not know makes every Apply fail with an error
// naming it and the table (never a guessed partitioner).
func New(t *schema.Table, opts Options) *Memtable {
	n := opts.Shards
	if n <= 0 {
		n = 64
	}
	logN := bits.Len(uint(n - 1))
	part, err := dht.Lookup(t.Options.Partitioner)
	if err != nil {
		err = fmt.Errorf("memtable: table %s.%s: the partitioner of its schema options: %w", t.Keyspace, t.Name, err)
	}
	m := &Memtable{
		err:     err,
		table:   t,
		part:    part,
		byHash:  part != nil && part.PreservesOrder(),
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
	arena := &entryArena{}
	for i := range m.shards {
		m.shards[i].stats = mutation.NewStats(t)
		m.shards[i].slab.arena = arena
	}
	return m
}

// Table returns the memtable's table.
func (m *Memtable) Table() *schema.Table { return m.table }

// shardOf maps a partition to its shard: by token range, so that shard
// order is token order, or by a hash of the key (byHash).
func (m *Memtable) shardOf(token dht.Token, key []byte) *shard {
	if len(m.shards) == 1 {
		return &m.shards[0]
	}
	u := token.Prefix()
	if m.byHash {
		u, _ = dht.Murmur3Hash(key)
	}
	return &m.shards[u>>m.shift]
}

// Apply adds the partition update p to the memtable, merging it with what
// the memtable already holds for p's key. p is copied: the caller may reuse
// it and its buffers as soon as Apply returns. The token is computed from the
// key with the table's partitioner (p.Token is ignored). Rows and markers must be in clustering order and
// cells in column order, as mutation.Builder and the cql package produce them.
//
// Apply costs O(size of p · log(rows of the partition)): appending rows to a
// large partition in clustering order stays cheap.
func (m *Memtable) Apply(p *mutation.Partition) error {
	if m.err != nil {
		return m.err
	}
	if err := checkKeyLimits(p); err != nil {
		return err
	}
	token := m.part.Token(p.Key)
	s := m.shardOf(token, p.Key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.frozen.Load() {
		return ErrFrozen
	}
	memBefore := s.slab.allocated
	s.stats.AddPartition(p)

	var delta int64
	if e, leaf, at := s.tree.find(token, p.Key); e != nil {
		cp := s.slab.copyPartition(p)
		cp.Token = token
		var err error
		e.whole = false // the merge result lives in the slab too
		if delta, err = m.merge(e, cp); err != nil {
			return fmt.Errorf("memtable: %w", err)
		}
		if !m.noPurge && !e.deletions && hasDeletions(cp) {
			e.deletions = true
			s.withDeletions = append(s.withDeletions, e)
		}
	} else {
		e := s.slab.newEntry()
		s.slab.copyNewEntry(e, p)
		e.p.Token = token
		if m.byHash {
			e.p.Token = m.part.Token(e.p.Key) // refer to the copy of the key
		}
		e.size = dataSize(&e.p)
		delta = e.size
		if !m.noPurge && hasDeletions(&e.p) {
			e.deletions = true
			s.withDeletions = append(s.withDeletions, e)
		}
		s.tree.insertAt(leaf, at, e)
	}
	m.dataBytes.Add(delta)
	m.memBytes.Add(s.slab.allocated - memBefore)
	m.applied.Add(1)
	return nil
}

// merge merges the update cp into the entry e and returns the change of its
// data size, measured on the rows cp touches only (found by binary search),
// so that a large partition costs no full scan per update.
func (m *Memtable) merge(e *entry, cp *mutation.Partition) (int64, error) {
	t := m.table
	old := &e.p
	before := rowDataSize(&old.Static) + markersDataSize(old.Markers)
	for i := range cp.Rows {
		if r := findRow(t, old.Rows, cp.Rows[i].Clustering); r != nil {
			before += rowDataSize(r)
		}
	}
	if err := mutation.Merge(t, old, cp, m.now().Unix()); err != nil {
		return 0, err
	}
	after := rowDataSize(&old.Static) + markersDataSize(old.Markers)
	for i := range cp.Rows {
		if r := findRow(t, old.Rows, cp.Rows[i].Clustering); r != nil {
			after += rowDataSize(r)
		}
	}
	e.size += after - before
	return after - before, nil
}

// findRow returns the row of rows (in clustering order) with clustering c,
// or nil.
func findRow(t *schema.Table, rows []mutation.Row, c mutation.Clustering) *mutation.Row {
	i, found := slices.BinarySearchFunc(rows, c, func(r mutation.Row, c mutation.Clustering) int {
		return mutation.CompareClusterings(t, r.Clustering, c)
	})
	if !found {
		return nil
	}
	return &rows[i]
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
// returned Frozen reads the partitions in SSTable order. Partitions holding
// deletions are cleaned of the data those shadow (mutation.PurgeShadowed),
// as Cassandra's flush does, so a frozen partition is exactly what a flush
// writes; a partition whose deletions cannot be applied (malformed range
// tombstone markers) makes Ascend fail. Calling Freeze again returns the
// same Frozen.
func (m *Memtable) Freeze() *Frozen {
	m.freezeOnce.Do(func() {
		m.frozen.Store(true)
		f := &Frozen{m: m, stats: mutation.NewStats(m.table)}
		// Taking every shard lock waits for in-flight Applies; any later
		// Apply sees the frozen flag under its shard lock. All are taken
		// first, so that the order is allocated once at its size.
		for i := range m.shards {
			s := &m.shards[i]
			s.mu.Lock()
			f.partitions += int64(s.tree.length)
		}
		f.order = m.flatten(f.partitions)
		for i := range m.shards {
			s := &m.shards[i]
			f.stats.Merge(s.stats)
			for _, e := range s.withDeletions {
				e.whole = false
				if err := mutation.PurgeShadowed(m.table, &e.p); err != nil && m.freezeErr == nil {
					m.freezeErr = fmt.Errorf("memtable: %w", err)
				}
				size := dataSize(&e.p)
				m.dataBytes.Add(size - e.size)
				e.size = size
			}
			s.mu.Unlock()
		}
		m.frozenView = f
	})
	return m.frozenView
}

// parallelFlatten is the partition count from which flatten uses several
// goroutines.
const parallelFlatten = 1 << 16

// flatten returns the n partitions of the shards (whose locks the caller
// holds) in SSTable order: shard after shard, each shard's tree in order.
// Large memtables are flattened by a goroutine per core, each filling the
// part of the order its shards own.
func (m *Memtable) flatten(n int64) []*entry {
	if m.byHash {
		return m.mergeShards(n)
	}
	order := make([]*entry, n)
	workers := 1
	if n >= parallelFlatten {
		workers = min(runtime.GOMAXPROCS(0), len(m.shards))
	}
	// Shards [first, last) go to one worker, about n/workers entries each.
	fill := func(first, last int, at int64) {
		for i := first; i < last; i++ {
			t := &m.shards[i].tree
			t.appendEntries(order[at : at : at+int64(t.length)])
			at += int64(t.length)
		}
	}
	var wg sync.WaitGroup
	first, at, start := 0, int64(0), int64(0)
	for w := 1; w <= workers; w++ {
		last := first
		end := n * int64(w) / int64(workers)
		for last < len(m.shards) && (at < end || w == workers) {
			at += int64(m.shards[last].tree.length)
			last++
		}
		if w == workers {
			fill(first, last, start)
			break
		}
		wg.Add(1)
		go func(first, last int, start int64) {
			defer wg.Done()
			fill(first, last, start)
		}(first, last, start)
		first, start = last, at
	}
	wg.Wait()
	return order
}

// mergeShards returns the n partitions of hash-chosen shards (whose locks the
// caller holds) in SSTable order, merging the shards' ordered trees with a
// heap of their heads.
func (m *Memtable) mergeShards(n int64) []*entry {
	runs := make([][]*entry, 0, len(m.shards))
	for i := range m.shards {
		t := &m.shards[i].tree
		if t.length > 0 {
			runs = append(runs, t.appendEntries(make([]*entry, 0, t.length)))
		}
	}
	less := func(a, b []*entry) bool {
		x, y := &a[0].p, &b[0].p
		return dht.ComparePartitions(x.Token, x.Key, y.Token, y.Key) < 0
	}
	// runs[:h] is a binary min-heap by head.
	down := func(i, h int) {
		for {
			c := 2*i + 1
			if c >= h {
				return
			}
			if c+1 < h && less(runs[c+1], runs[c]) {
				c++
			}
			if !less(runs[c], runs[i]) {
				return
			}
			runs[i], runs[c] = runs[c], runs[i]
			i = c
		}
	}
	h := len(runs)
	for i := h/2 - 1; i >= 0; i-- {
		down(i, h)
	}
	order := make([]*entry, 0, n)
	for h > 0 {
		order = append(order, runs[0][0])
		if runs[0] = runs[0][1:]; len(runs[0]) == 0 {
			h--
			runs[0] = runs[h]
		}
		down(0, h)
	}
	return order
}

// Frozen is an immutable memtable, ready to be flushed. It stays valid (and
// keeps its data) until dropped, so a failed flush can be retried.
type Frozen struct {
	m          *Memtable
	partitions int64
	stats      *mutation.Stats
	// order are the partitions in SSTable order, flattened from the shard
	// trees so that Ascend can look ahead.
	order []*entry
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

// Partition returns the i-th partition in SSTable order (0 ≤ i < Len()),
// for readers that walk the memtable at their own pace (package table).
// The partition belongs to the memtable, as with Ascend.
func (f *Frozen) Partition(i int) *mutation.Partition { return &f.order[i].p }

// Ascend calls fn for every partition in SSTable order (token, then key)
// until fn returns false or an error. The partitions belong to the memtable:
// fn must not modify or keep them beyond the memtable's life.
//
// Partitions are laid out in memory in the order they were applied, which
// token order visits at random; Ascend prefetches the memory of the
// partitions a few steps ahead (the entry, which holds a small partition
// whole, then what lies outside it: key, first row, its cells and their
// values) so that their cache misses overlap with the work on the current
// one instead of stalling it.
func (f *Frozen) Ascend(fn func(p *mutation.Partition) error) error {
	if f.m.freezeErr != nil {
		return f.m.freezeErr
	}
	order := f.order
	n := len(order)
	for i, e := range order {
		if j := i + aheadEntry; j < n {
			prefetch.Range(unsafe.Pointer(order[j]), unsafe.Sizeof(entry{}))
		}
		if j := i + aheadData; j < n && !order[j].whole {
			order[j].prefetchData()
		}
		if j := i + aheadValues; j < n && !order[j].whole {
			order[j].prefetchValues()
		}
		if err := fn(&e.p); err != nil {
			return err
		}
	}
	return nil
}

// Prefetch distances, in partitions: each stage needs the memory the
// previous one fetched.
const (
	aheadEntry  = 16
	aheadData   = 8
	aheadValues = 4
)

// holds reports whether p points into the entry (its inline parts).
func (e *entry) holds(p unsafe.Pointer) bool {
	return uintptr(p)-uintptr(unsafe.Pointer(e)) < unsafe.Sizeof(entry{})
}

// prefetchData prefetches the key and the first row when they are not in
// the entry.
func (e *entry) prefetchData() {
	p := &e.p
	if k := unsafe.Pointer(unsafe.SliceData(p.Key)); k != nil && !e.holds(k) {
		prefetch.Bytes(p.Key)
	}
	if len(p.Rows) > 0 {
		if r := unsafe.Pointer(&p.Rows[0]); !e.holds(r) {
			prefetch.Range(r, unsafe.Sizeof(mutation.Row{}))
		}
	}
}

// prefetchValues prefetches the first row's clustering value, and its first
// cells and their values, when they are not in the entry.
func (e *entry) prefetchValues() {
	p := &e.p
	if len(p.Rows) == 0 {
		return
	}
	r := &p.Rows[0]
	if len(r.Clustering) > 0 {
		if v := r.Clustering[0]; len(v) > 0 && !e.holds(unsafe.Pointer(unsafe.SliceData(v))) {
			prefetch.Bytes(v)
		}
	}
	for i := range min(len(r.Cells), 2) {
		c := &r.Cells[i]
		if !e.holds(unsafe.Pointer(c)) {
			prefetch.Pointer(unsafe.Pointer(c))
		}
		if len(c.Value) > 0 && !e.holds(unsafe.Pointer(unsafe.SliceData(c.Value))) {
			prefetch.Bytes(c.Value)
		}
	}
}

// Get returns the partition with the given serialized key, or nil.
func (f *Frozen) Get(key []byte) *mutation.Partition {
	if f.m.err != nil {
		return nil // nothing was applied
	}
	token := f.m.part.Token(key)
	if e := f.m.shardOf(token, key).tree.get(token, key); e != nil {
		return &e.p
	}
	return nil
}
