package la

import (
	"math"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// collector computes the data-derived fields of Statistics.db the way
// Cassandra 2.2's flush does (ColumnFamily.getColumnStats per partition,
// merged by MetadataCollector; la-format.md §5.4–5.7):
//
//   - min/max timestamp over cell timestamps, range tombstone and partition
//     deletion markedForDeleteAt (live partition deletions excluded);
//   - max local deletion time over every cell (live and counter cells count
//     as INT_MAX), range tombstones and the partition deletion;
//   - a tombstone drop-time histogram of every local deletion time below
//     INT_MAX, built per partition (partition deletion, range tombstones,
//     cells) and merged;
//   - per-component min/max of the clustering prefix of every name (range
//     tombstones contribute their start bound to the minimum and their end
//     bound to the maximum);
//   - partition sizes, cells per partition, HyperLogLog of the keys, and
//     whether a counter context has legacy (local or remote) shards.
type collector struct {
	l     layout
	types []*schema.Type
	p     nameParser

	minTS, maxTS   int64
	maxLDT         int32
	anyPartition   bool
	sizes, cells   *sstables.EstimatedHistogram
	tombstones     *sstables.StreamingHistogram
	partTombstones *sstables.StreamingHistogram
	minNames       [][]byte
	maxNames       [][]byte
	legacyCounters bool
	hll            *sstables.HyperLogLog

	// The partition being collected.
	pMinTS, pMaxTS   int64
	pMaxLDT          int32
	pTSSet, pLDTSet  bool
	pCells           int64
	pHasTombstoneLDT bool
}

func newCollector(t *schema.Table, l layout) *collector {
	c := &collector{
		l:              l,
		minTS:          math.MaxInt64,
		maxTS:          math.MinInt64,
		maxLDT:         math.MinInt32,
		sizes:          sstables.NewEstimatedHistogram(sstables.PartitionSizeOffsets),
		cells:          sstables.NewEstimatedHistogram(sstables.CellCountOffsets),
		tombstones:     sstables.NewStreamingHistogram(0),
		partTombstones: sstables.NewStreamingHistogram(0),
		hll:            sstables.NewHyperLogLog(),
	}
	for _, col := range t.Clustering {
		c.types = append(c.types, col.Type)
	}
	return c
}

// startPartition begins collecting a partition.
// The key's cardinality (hll) is fed by the writer's partition sink.
func (c *collector) startPartition(key []byte, deletion mutation.DeletionTime) {
	c.pTSSet, c.pLDTSet = false, false
	c.pCells = 0
	c.pHasTombstoneLDT = false
	if deletion.LocalDeletionTime < mutation.NoDeletionTime {
		c.tombstone(sstables.LegacyDeletionTime(deletion.LocalDeletionTime))
		c.ldt(sstables.LegacyDeletionTime(deletion.LocalDeletionTime))
		c.ts(deletion.MarkedForDeleteAt)
	}
}

func (c *collector) ts(v int64) {
	if !c.pTSSet {
		c.pMinTS, c.pMaxTS, c.pTSSet = v, v, true
		return
	}
	c.pMinTS = min(c.pMinTS, v)
	c.pMaxTS = max(c.pMaxTS, v)
}

func (c *collector) ldt(v int32) {
	if !c.pLDTSet {
		c.pMaxLDT, c.pLDTSet = v, true
		return
	}
	c.pMaxLDT = max(c.pMaxLDT, v)
}

// tombstone adds a drop time to the partition's histogram, which is
// merged into the SSTable's at the end of the partition (merging bins in
// ascending order, not in encounter order, matters once there are more
// than 100 distinct points).
func (c *collector) tombstone(ldt int32) {
	c.pHasTombstoneLDT = true
	c.partTombstones.Update(float64(ldt))
}

// rangeTombstone adds a range tombstone (its encoded start and end bound).
func (c *collector) rangeTombstone(start, end []byte, d mutation.DeletionTime) {
	c.tombstone(sstables.LegacyDeletionTime(d.LocalDeletionTime))
	c.ts(d.MarkedForDeleteAt)
	c.ldt(sstables.LegacyDeletionTime(d.LocalDeletionTime))
	c.names(start, true, false)
	c.names(end, false, true)
}

// cell adds a written cell.
func (c *collector) cell(a *atom) {
	c.pCells++
	c.ts(a.timestamp)
	switch a.kind {
	case atomTombstoneCell, atomExpiringCell:
		// The drop time goes to the tombstone histogram after the
		// partition's range tombstones (see partitionWriter.finish).
		c.ldt(a.ldt)
	default:
		c.ldt(math.MaxInt32)
	}
	if a.kind == atomCounterCell && !c.legacyCounters {
		if legacy, err := mutation.HasLegacyShards(a.value); err == nil && legacy {
			c.legacyCounters = true
		}
	}
	c.names(a.name, true, true)
}

// names folds the clustering prefix of an encoded name or bound into the
// min and/or max column names.
func (c *collector) names(name []byte, toMin, toMax bool) {
	n := c.l.clusteringPrefixSize()
	if n == 0 {
		return
	}
	var comps [][]byte
	if c.l.compound {
		if !c.p.parse(name) {
			return
		}
		comps = c.p.comps
	} else {
		if len(name) == 0 {
			return // the end of the partition
		}
		comps = [][]byte{name}
	}
	size := min(len(comps), n)
	if toMin {
		c.minNames = foldNames(c.minNames, comps[:size], c.types, -1)
	}
	if toMax {
		c.maxNames = foldNames(c.maxNames, comps[:size], c.types, 1)
	}
}

// foldNames is ColumnNameHelper.minComponents (sign -1) or maxComponents
// (sign 1): the list grows to the candidate's size, and each position keeps
// the smaller (larger) value by its column's comparator. Values are copied.
func foldNames(seen, candidate [][]byte, types []*schema.Type, sign int) [][]byte {
	for i, v := range candidate {
		if i >= len(seen) {
			seen = append(seen, append([]byte{}, v...))
			continue
		}
		cmp := compareValues(types[i], seen[i], v)
		// Ties keep the candidate for the minimum and the existing value
		// for the maximum, as Cassandra does.
		if (sign < 0 && cmp >= 0) || (sign > 0 && cmp < 0) {
			seen[i] = append(seen[i][:0], v...)
		}
	}
	return seen
}

// endPartition folds the partition into the SSTable's statistics. The
// partition's size and cell count (pCells) go to the size and cell
// histograms through the writer's partition sink.
func (c *collector) endPartition() {
	c.anyPartition = true
	// A partition without data contributes the trackers' defaults, as
	// ColumnStats does.
	minTS, maxTS := int64(math.MinInt64), int64(math.MaxInt64)
	if c.pTSSet {
		minTS, maxTS = c.pMinTS, c.pMaxTS
	}
	c.minTS = min(c.minTS, minTS)
	c.maxTS = max(c.maxTS, maxTS)
	maxLDT := int32(math.MaxInt32)
	if c.pLDTSet {
		maxLDT = c.pMaxLDT
	}
	c.maxLDT = max(c.maxLDT, maxLDT)
	if c.pHasTombstoneLDT {
		c.tombstones.Merge(c.partTombstones)
		c.partTombstones.Reset()
	}
}

// statistics returns the collected Statistics (the caller fills validation,
// compaction inputs, replay position, level, repairedAt and compression
// ratio).
func (c *collector) statistics() *sstables.Statistics {
	st := &sstables.Statistics{Cardinality: c.hll.AppendTo(nil)}
	st.Stats = sstables.Stats{
		PartitionSizes:         c.sizes,
		CellsPerPartition:      c.cells,
		MinTimestamp:           c.minTS,
		MaxTimestamp:           c.maxTS,
		MinLocalDeletionTime:   mutation.NoDeletionTime,
		MaxLocalDeletionTime:   sstables.FromLegacyDeletionTime(c.maxLDT),
		TombstoneDropTimes:     c.tombstones,
		MinClusteringValues:    c.minNames,
		MaxClusteringValues:    c.maxNames,
		HasLegacyCounterShards: c.legacyCounters,
	}
	return st
}
