package sstables

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

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
	keys            int64 // the keys added
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
	r.keys++
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

// CheckSize warns when the stored filter is far too small for the keys
// added: when its false positive chance for them is 50% or more and at
// least twice the table's fpChance (Statistics.db's bloom_filter_fp_chance; 0
// means the default 0.01). Cassandra's own bulk writer (CQLSSTableWriter,
// also under cassandra-analytics) sizes Filter.db for zero keys —
// FilterFactory.getFilter(0, fp), 16 bytes — whatever it then writes, so
// nearly every lookup of a key such an SSTable does not hold goes on to
// index, its partition index (Index.db, or Partitions.db for BTI). The
// databases read it; castable rebuild --filter writes the filter a flush
// writes for that key count (RebuildOptions.Filter).
func (r *FilterRebuild) CheckSize(path string, fpChance float64, index Component, warn WarnFunc) {
	if r.stored == nil || r.keys == 0 {
		return
	}
	if fpChance <= 0 || fpChance > 1 {
		fpChance = DefaultBloomFilterFPChance
	}
	if fpChance >= 1 {
		return // a table without a filter; this one is a leftover
	}
	p := r.stored.FalsePositiveChance(r.keys)
	if p < 0.5 || p < 2*fpChance {
		return
	}
	warn.Warnf(path, ComponentFilter, -1,
		"Filter.db of %s bytes for %s partitions: every lookup of a key the SSTable does not hold reads %s (false-positive chance %s instead of %s); it was sized for far fewer partitions (Cassandra's CQLSSTableWriter sizes it for none), and castable rebuild --filter writes the one Cassandra's flush writes for that count",
		groupThousands(int64(r.stored.SerializedSize())), groupThousands(r.keys), index, percent(p), percent(fpChance))
}

// FalsePositiveChance returns the chance that f reports a key it does not
// hold as present once n keys were added: (1 − e^(−K·n/m))^K for K hashes
// over m bits.
func (f *BloomFilter) FalsePositiveChance(n int64) float64 {
	if f.capacity == 0 {
		return 1
	}
	k := float64(f.hashCount)
	return math.Pow(-math.Expm1(-k*float64(n)/float64(f.capacity)), k)
}

// percent formats a probability for a message: "≈ 100%", "1%", "0.31%".
func percent(p float64) string {
	switch {
	case p >= 0.9995:
		return "≈ 100%"
	case p >= 0.1:
		return strconv.FormatFloat(100*p, 'f', 0, 64) + "%"
	}
	return strconv.FormatFloat(100*p, 'g', 2, 64) + "%"
}

// groupThousands formats n with thousands separators ("1,000,000").
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
