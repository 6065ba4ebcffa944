package sstables

import (
	"errors"
	"io/fs"
	"sync"
)

// KeyLookup loads, once and on first use, the two components a partition
// lookup consults before Index.db: Summary.db and Filter.db. A reader that
// only scans never reads them, so that its memory does not grow with the
// partition count of what it reads (a bloom filter costs about 1.2 bytes a
// partition, the summary one key in 128). The zero value is ready; it is
// safe for concurrent use.
//
// As Cassandra's SSTableReader.load does at open, a missing Summary.db (or
// one that does not parse: Cassandra deletes it) is rebuilt from Index.db,
// and so is a missing Filter.db — in memory only, castable never writes
// into the SSTable it reads (castable rebuild writes them) — each with a
// Warning. A Filter.db that does not parse is an error, as it is for
// Cassandra.
type KeyLookup struct {
	once    sync.Once
	err     error
	summary *Summary
	filter  *BloomFilter
}

// IndexEntryInfo is what a rebuild needs of one Index.db entry.
type IndexEntryInfo struct {
	// Key is the partition key (valid during the call only).
	Key []byte
	// Position is the partition's offset in the uncompressed Data.db.
	Position int64
	// IndexOffset is the entry's offset in Index.db.
	IndexOffset int64
}

// IndexWalker is implemented by the readers of formats with an Index.db
// (every BIG version): WalkIndex calls fn for every entry in order and
// returns the first error, fn's or a CorruptionError of an entry that does
// not decode (after the entries before it were given to fn).
type IndexWalker interface {
	WalkIndex(fn func(e IndexEntryInfo) error) error
}

// LookupRebuild is how KeyLookup rebuilds a missing Summary.db or
// Filter.db.
type LookupRebuild struct {
	// Index walks Index.db; nil means nothing is rebuilt (a lookup without
	// Summary.db scans the whole index, without Filter.db it skips the
	// filter).
	Index IndexWalker
	// FPChance is the bloom filter's false positive chance, Statistics.db's
	// bloom_filter_fp_chance; 0 or 1 means no filter.
	FPChance float64
	// Warn receives a Warning for each component rebuilt.
	Warn WarnFunc
}

// Load returns desc's summary and bloom filter, reading them on the first
// call (later calls return the same values and error, whatever their
// arguments). A component that does not exist is returned as nil.
func (l *KeyLookup) Load(fsys FS, desc Descriptor, opts SummaryReadOptions) (*Summary, *BloomFilter, error) {
	return l.LoadOrRebuild(fsys, desc, opts, LookupRebuild{})
}

// LoadOrRebuild is Load that rebuilds from Index.db, as described on
// KeyLookup, what is missing or (Summary.db) does not parse.
func (l *KeyLookup) LoadOrRebuild(fsys FS, desc Descriptor, opts SummaryReadOptions, rb LookupRebuild) (*Summary, *BloomFilter, error) {
	l.once.Do(func() { l.summary, l.filter, l.err = loadLookup(fsys, desc, opts, rb) })
	return l.summary, l.filter, l.err
}

func loadLookup(fsys FS, desc Descriptor, opts SummaryReadOptions, rb LookupRebuild) (*Summary, *BloomFilter, error) {
	var rebuildSummary, rebuildFilter bool
	summary, err := ReadSummary(fsys, desc, opts)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		rebuildSummary = rb.Index != nil
		if rebuildSummary {
			rb.Warn.Warnf(desc.Path(ComponentSummary), ComponentSummary, -1, "missing: rebuilt from Index.db in memory, as Cassandra and ScyllaDB rebuild it at open (castable rebuild writes it)")
		}
	case errors.Is(err, ErrCorrupt) && rb.Index != nil:
		rebuildSummary = true
		rb.Warn.Warnf(desc.Path(ComponentSummary), ComponentSummary, -1, "unreadable (%v): rebuilt from Index.db in memory, as Cassandra 3.x rebuilds it at open", err)
	default:
		return nil, nil, err
	}
	filter, err := ReadBloomFilter(fsys, desc)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		rebuildFilter = rb.Index != nil && rb.FPChance > 0 && rb.FPChance < 1
		if rebuildFilter {
			rb.Warn.Warnf(desc.Path(ComponentFilter), ComponentFilter, -1, "missing: rebuilt from Index.db in memory, as Cassandra rebuilds the bloom filter at open (castable rebuild writes it)")
		}
	default:
		return nil, nil, err
	}
	if !rebuildSummary && !rebuildFilter {
		return summary, filter, nil
	}
	rs, rf, err := RebuildLookup(rb.Index, desc, rebuildSummary, rebuildFilter, rb.FPChance, SummaryOptions{})
	if err != nil {
		return nil, nil, err
	}
	if rebuildSummary {
		summary = rs
	}
	if rebuildFilter {
		filter = rf
	}
	return summary, filter, nil
}

// RebuildLookup builds from idx the summary (with opts; nil for an SSTable
// without partitions) and the bloom filter of desc's version with false
// positive chance fp, each only when asked for. The filter is sized for
// the exact partition count, as a flush sizes it, which takes a second pass
// over Index.db.
func RebuildLookup(idx IndexWalker, desc Descriptor, wantSummary, wantFilter bool, fp float64, opts SummaryOptions) (*Summary, *BloomFilter, error) {
	var b *SummaryBuilder
	if wantSummary {
		b = NewSummaryBuilder(opts)
	}
	var n int64
	err := idx.WalkIndex(func(e IndexEntryInfo) error {
		n++
		if b != nil {
			b.Add(e.Key, e.IndexOffset)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var summary *Summary
	if b != nil && n > 0 {
		enc, err := b.AppendTo(nil)
		if err != nil {
			return nil, nil, err
		}
		if summary, err = ParseSummary(enc, desc.Path(ComponentSummary)+" (rebuilt)", SummaryReadOptions{Boundaries: opts.Boundaries != nil, DataCompressed: opts.Boundaries != nil && opts.Boundaries.DataCompressed}); err != nil {
			return nil, nil, err
		}
	}
	var filter *BloomFilter
	if wantFilter && fp > 0 && fp < 1 {
		if filter, err = NewBloomFilter(max(n, 1), fp, desc.Version); err != nil {
			return nil, nil, err
		}
		if err := idx.WalkIndex(func(e IndexEntryInfo) error {
			filter.Add(e.Key)
			return nil
		}); err != nil {
			return nil, nil, err
		}
	}
	return summary, filter, nil
}
