package sstables

import "github.com/castable-db/castable/dht"

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

// Check compares the stored filter with the one the keys built; the error
// names path (Filter.db) and the offset of the first differing word.
func (r *FilterRebuild) Check(path string) error {
	if r.stored == nil {
		return nil
	}
	for i, w := range r.stored.words {
		if w != r.rebuilt.words[i] {
			return Corruptf(path, string(ComponentFilter), int64(8+8*i),
				"bits %016x of word %d are set by no partition key", w&^r.rebuilt.words[i], i)
		}
	}
	return nil
}
