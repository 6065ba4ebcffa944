// Package table reads a set of SSTables of one table — any versions, big
// and BTI and la mixed — and optionally a frozen memtable as one partition
// stream in the partitioner's order, reconciled as Cassandra reconciles
// them when it reads or compacts (UnfilteredRowIterators.merge):
//
//   - a partition's deletion is the one that supersedes the others;
//   - rows with the same clustering merge with mutation.RowMerger under the
//     active deletion (the partition's, or the merged range tombstone that
//     covers the row): cells by timestamp and the release's tie rules
//     (mutation.Rules), expiring against non-expiring, counters shard by
//     shard, row, shadowable and complex deletions;
//   - range tombstone markers merge as Cassandra's RangeTombstoneMarker
//     merger does: the merged stream opens, closes or crosses a boundary
//     wherever the greatest deletion open in any source changes (and does
//     not supersede the partition's).
//
// The merge streams row by row: a Scanner holds one unfiltered per source
// and the merged row, never a partition, so a partition of any size
// merges in memory bounded by the number of sources and a row. Nothing is
// purged: shadowed data is dropped as the merge drops it, tombstones and
// expired cells stay (package compaction purges).
//
// Point lookups (Set.Get) skip SSTables by bloom filter (through each
// reader's lookup) and by timestamp: SSTables are consulted newest first,
// and once a partition deletion newer than an SSTable's newest timestamp
// has been seen, that SSTable and the older ones cannot hold anything that
// survives it (Cassandra's SinglePartitionReadCommand).
package table

import (
	"errors"
	"fmt"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// Options configure a Set. The zero value of each field means the default
// its comment gives.
type Options struct {
	// Table is the schema; nil means the schema the first SSTable recovers
	// from its serialization header (la SSTables need one). Every input
	// must agree with it.
	Table *schema.Table
	// Now is the merge time; the zero value means time.Now(). Under
	// mutation.Rules3 it decides whether an expiring cell still lives.
	Now time.Time
	// Rules are the reconciliation rules; nil means the rules of the
	// newest input's release (Cassandra 4.0+'s for na and later, 3.x's
	// before).
	Rules *mutation.Rules
	// Reader configures the SSTable readers the Set opens.
	Reader sstables.ReaderOptions
}

// Set is the SSTables (and memtable) of one table, read as one.
type Set struct {
	table   *schema.Table
	part    dht.Partitioner
	readers []sstables.Reader
	mem     *memtable.Frozen
	rules   mutation.Rules
	now     int64
	owned   bool
}

// Open opens the SSTables descs (and takes the optional frozen memtable
// mem) as one table. It fails when they do not describe one table under
// one partitioner.
func Open(descs []sstables.Descriptor, mem *memtable.Frozen, opts Options) (*Set, error) {
	t := opts.Table
	var readers []sstables.Reader
	closeAll := func() {
		for _, r := range readers {
			r.Close()
		}
	}
	for _, d := range descs {
		r, err := sstables.OpenAny(d, t, opts.Reader)
		if err != nil {
			closeAll()
			return nil, err
		}
		readers = append(readers, r)
		if t == nil {
			t = r.Table()
		}
	}
	s, err := NewSet(readers, mem, opts)
	if err != nil {
		closeAll()
		return nil, err
	}
	s.owned = true
	return s, nil
}

// NewSet is Open over readers already open (which the Set does not close).
func NewSet(readers []sstables.Reader, mem *memtable.Frozen, opts Options) (*Set, error) {
	if len(readers) == 0 && mem == nil {
		return nil, errors.New("table: no SSTable and no memtable to read")
	}
	t := opts.Table
	if t == nil {
		if len(readers) > 0 {
			t = readers[0].Table()
		} else {
			t = mem.Table()
		}
	}
	var part dht.Partitioner
	for _, r := range readers {
		p := r.Partitioner()
		if part == nil {
			part = p
		} else if p != part {
			return nil, fmt.Errorf("table: %s is ordered by %s, %s by %s: not one table", readers[0].Descriptor(), part.Name(), r.Descriptor(), p.Name())
		}
		if rt := r.Table(); rt.Keyspace != t.Keyspace || rt.Name != t.Name {
			if rt.Keyspace != "" && t.Keyspace != "" {
				return nil, fmt.Errorf("table: %s holds %s.%s, not %s.%s", r.Descriptor(), rt.Keyspace, rt.Name, t.Keyspace, t.Name)
			}
		}
	}
	if part == nil {
		var err error
		if part, err = dht.Lookup(t.Options.Partitioner); err != nil {
			return nil, fmt.Errorf("table %s.%s: %w", t.Keyspace, t.Name, err)
		}
	}
	t = sstables.WithPartitioner(t, part)
	rules := mutation.Rules3
	if opts.Rules != nil {
		rules = *opts.Rules
	} else {
		for _, r := range readers {
			if RulesOf(r.Descriptor()) == mutation.Rules4 {
				rules = mutation.Rules4
			}
		}
		if len(readers) == 0 {
			rules = mutation.Rules4
		}
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	return &Set{table: t, part: part, readers: readers, mem: mem, rules: rules, now: now.Unix()}, nil
}

// RulesOf returns the reconciliation rules of the release that writes the
// SSTable's version.
func RulesOf(d sstables.Descriptor) mutation.Rules {
	if d.Version.Profile().Reconcile4 {
		return mutation.Rules4
	}
	return mutation.Rules3
}

// Table returns the schema the Set reads with (its partitioner the
// SSTables').
func (s *Set) Table() *schema.Table { return s.table }

// Partitioner returns the partitioner that orders the Set.
func (s *Set) Partitioner() dht.Partitioner { return s.part }

// Readers returns the SSTable readers, in the order given.
func (s *Set) Readers() []sstables.Reader { return s.readers }

// Rules returns the reconciliation rules the Set merges with.
func (s *Set) Rules() mutation.Rules { return s.rules }

// NowInSec is the merge time in seconds since the epoch.
func (s *Set) NowInSec() int64 { return s.now }

// Close closes the readers Open opened.
func (s *Set) Close() error {
	if !s.owned {
		return nil
	}
	var first error
	for _, r := range s.readers {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
