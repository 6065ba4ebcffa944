package sorted

import (
	"math"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// auxBuilders holds what is fed once per partition besides Data.db and
// the index layout's components: Filter.db, the HyperLogLog++ cardinality
// and the histograms of Statistics.db. The partition sink feeds the
// filter, cardinality and the size and cell histograms on its goroutine
// (keys are hashed once: the writer passes the Murmur3 halves it computed
// for the token); the writer's goroutine feeds the tombstone histogram.
type auxBuilders struct {
	v        version.Version
	profile  version.Profile
	fpChance float64
	filter   *sstables.BloomFilter
	// sizeFilter says the filter is sized at Finish (ExpectedPartitions
	// 0) from the keys' Murmur3 halves the sink keeps.
	sizeFilter bool
	hll        *sstables.HyperLogLog
	sizes      *sstables.EstimatedHistogram
	cells      *sstables.EstimatedHistogram
	tombstones *sstables.StreamingHistogram
	err        error
}

// tombstoneRoundSeconds is the granularity of the tombstone drop-time
// histogram: Cassandra 3.11 rounds every local deletion time up to a
// multiple of 60 s (CASSANDRA-13038).
const tombstoneRoundSeconds = 60

func newAuxBuilders(v version.Version, profile version.Profile, table *schema.Table, opts *sstables.WriterOptions) *auxBuilders {
	fp := table.Options.BloomFilterFPChance
	if fp == 0 {
		fp = 0.01
	}
	a := &auxBuilders{
		v:          v,
		profile:    profile,
		fpChance:   fp,
		hll:        sstables.NewHyperLogLog(),
		sizes:      sstables.NewEstimatedHistogram(profile.PartitionSizeBuckets),
		cells:      sstables.NewEstimatedHistogram(profile.CellCountBuckets),
		tombstones: sstables.NewStreamingHistogram(sstables.DefaultStreamingHistogramBins),
	}
	if fp < 1 {
		if opts.ExpectedPartitions > 0 {
			a.filter, a.err = sstables.NewBloomFilter(opts.ExpectedPartitions, fp, v)
		} else {
			a.sizeFilter = true
		}
	}
	return a
}

// addDropTime records a local deletion time in the tombstone histogram;
// NoDeletionTime (a live cell, with Profile.SentinelTombstoneBin) goes in
// the bin at Integer.MAX_VALUE, where those releases counted it.
func (a *auxBuilders) addDropTime(ldt int64) {
	if ldt == mutation.NoDeletionTime {
		a.tombstones.Update(math.MaxInt32)
		return
	}
	p := ldt
	if r := p % tombstoneRoundSeconds; r != 0 && !a.profile.UnroundedDropTimes {
		p += tombstoneRoundSeconds - r
	}
	if !a.v.UIntDeletionTime() && p > math.MaxInt32 {
		p = math.MaxInt32 // the 32-bit histogram saturates
	}
	a.tombstones.Update(float64(p))
}

// finish returns Filter.db (none when the filter is disabled); hashes are
// the keys' Murmur3 halves (h1, h2 pairs) when the filter is sized now.
func (a *auxBuilders) finish(hashes []uint64) ([]Component, error) {
	if a.err != nil {
		return nil, a.err
	}
	var out []Component
	var err error
	if a.sizeFilter {
		n := int64(len(hashes) / 2)
		if a.filter, err = sstables.NewBloomFilter(n, a.fpChance, a.v); err != nil {
			return nil, err
		}
		for i := 0; i+1 < len(hashes); i += 2 {
			a.filter.AddHash(hashes[i], hashes[i+1])
		}
	}
	if a.filter != nil {
		out = append(out, Component{Component: sstables.ComponentFilter, Bytes: a.filter.AppendTo(nil)})
	}
	return out, nil
}

func (a *auxBuilders) cardinality() []byte { return a.hll.AppendTo(nil) }

// tombstoneHistogram is the tombstone histogram as the version's writer
// stores it (maxBinSize 100 before 4.0, the bin count from 4.0).
func (a *auxBuilders) tombstoneHistogram() *sstables.StreamingHistogram {
	return a.tombstones.WithStoredMaxBins(a.profile.TombstoneMaxBins)
}
