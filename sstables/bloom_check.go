package sstables

import (
	"math/bits"

	"github.com/castable-db/castable/dht"
)

// FilterRebuild re-creates, during Verify, the bloom filter of an SSTable
// from its keys: a filter holds exactly the keys written (flush, compaction
// and ScyllaDB alike add each key as it is written), so with the stored
// filter's hash count and size, the keys must set exactly the stored bits.
// MightContain finds a cleared bit; Check finds a set bit no key explains —
// the flips a membership test alone cannot see.
type FilterRebuild struct {
	stored, rebuilt *BloomFilter
}

// NewFilterRebuild starts rebuilding stored (nil means no filter: every
// method does nothing).
func NewFilterRebuild(stored *BloomFilter) *FilterRebuild {
	if stored == nil {
		return &FilterRebuild{}
	}
	return &FilterRebuild{stored: stored, rebuilt: newBloomFilter(stored.hashCount, make([]uint64, len(stored.words)), stored.oldOrder, stored.oldFormat)}
}

// Add records a key and reports whether the stored filter contains it.
func (r *FilterRebuild) Add(key []byte) bool {
	if r.stored == nil {
		return true
	}
	h1, h2 := dht.Murmur3Hash(key)
	r.rebuilt.AddHash(h1, h2)
	return r.stored.MightContainHash(h1, h2)
}

// Check compares the stored filter with the one the keys built. A bit set
// by no key only costs lookups a false positive and no database checks for
// it, so it is reported to warn (naming path, Filter.db, and the offset of
// the first such word), not as an error. A key whose bits are not all set
// is what Add reports: a lookup of it would find nothing.
func (r *FilterRebuild) Check(path string, warn WarnFunc) error {
	if r.stored == nil {
		return nil
	}
	extra, first := 0, -1
	for i, w := range r.stored.words {
		if x := w &^ r.rebuilt.words[i]; x != 0 {
			extra += bits.OnesCount64(x)
			if first < 0 {
				first = i
			}
		}
	}
	if extra > 0 {
		warn.Warnf(path, ComponentFilter, int64(8+8*first), "%d bits (the first in word %d) are set by no partition key: lookups get false positives only, which no database checks for", extra, first)
	}
	return nil
}
