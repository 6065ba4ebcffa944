package big

import (
	"math"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// collector gathers the Stats component of Statistics.db while data is
// written, with Cassandra 3.11's MetadataCollector rules (mc-format.md
// §5.4): which items feed the min/max timestamps, local deletion times and
// TTLs, the tombstone drop-time histogram, per-position min/max clustering
// values, totalColumnsSet and totalRows. It never allocates per row once its
// buffers have grown.
type collector struct {
	clusteringTypes []*schema.Type

	tsSet              bool
	minTS, maxTS       int64
	ldtSet             bool
	minLDT, maxLDT     int64
	ttlSet             bool
	minTTL, maxTTL     int32
	minClust, maxClust [][]byte
	clustSet           []bool
	legacyCounters     bool
	totalColumnsSet    int64
	totalRows          int64

	// dropTime receives every local deletion time other than
	// NoDeletionTime (the tombstone histogram).
	dropTime func(ldt int64)
}

func newCollector(clusteringTypes []*schema.Type, dropTime func(int64)) *collector {
	n := len(clusteringTypes)
	return &collector{
		clusteringTypes: clusteringTypes,
		minClust:        make([][]byte, n),
		maxClust:        make([][]byte, n),
		clustSet:        make([]bool, n),
		dropTime:        dropTime,
	}
}

func (c *collector) timestamp(ts int64) {
	if !c.tsSet {
		c.tsSet, c.minTS, c.maxTS = true, ts, ts
		return
	}
	c.minTS = min(c.minTS, ts)
	c.maxTS = max(c.maxTS, ts)
}

func (c *collector) localDeletionTime(ldt int64) {
	if !c.ldtSet {
		c.ldtSet, c.minLDT, c.maxLDT = true, ldt, ldt
	} else {
		c.minLDT = min(c.minLDT, ldt)
		c.maxLDT = max(c.maxLDT, ldt)
	}
	if ldt != mutation.NoDeletionTime && c.dropTime != nil {
		c.dropTime(ldt)
	}
}

func (c *collector) ttl(ttl int32) {
	if !c.ttlSet {
		c.ttlSet, c.minTTL, c.maxTTL = true, ttl, ttl
		return
	}
	c.minTTL = min(c.minTTL, ttl)
	c.maxTTL = max(c.maxTTL, ttl)
}

// deletion records a deletion time unless it is live.
func (c *collector) deletion(d mutation.DeletionTime) {
	if d.IsLive() {
		return
	}
	c.timestamp(d.MarkedForDeleteAt)
	c.localDeletionTime(d.LocalDeletionTime)
}

// liveness records a row's primary key liveness unless it is empty.
func (c *collector) liveness(l mutation.LivenessInfo) {
	if l.IsEmpty() {
		return
	}
	c.timestamp(l.Timestamp)
	c.ttl(l.TTL)
	c.localDeletionTime(l.LocalExpirationTime)
}

// cell records a cell.
func (c *collector) cell(cell *mutation.Cell) {
	c.timestamp(cell.Timestamp)
	c.ttl(cell.TTL)
	c.localDeletionTime(cell.LocalDeletionTime)
}

// row records a row's column count (totalColumnsSet, totalRows).
func (c *collector) row(columns int64) {
	c.totalColumnsSet += columns
	c.totalRows++
}

// clustering records the values of a row clustering or a range tombstone
// bound: per position the minimum and maximum with that column's
// comparator. Null components are skipped.
func (c *collector) clustering(vals mutation.Clustering) {
	for i, v := range vals {
		if i >= len(c.clusteringTypes) {
			break
		}
		if v == nil {
			continue
		}
		t := c.clusteringTypes[i]
		if !c.clustSet[i] {
			c.clustSet[i] = true
			c.minClust[i] = append(c.minClust[i][:0], v...)
			c.maxClust[i] = append(c.maxClust[i][:0], v...)
			continue
		}
		if t.Compare(v, c.minClust[i]) < 0 {
			c.minClust[i] = append(c.minClust[i][:0], v...)
		}
		if t.Compare(v, c.maxClust[i]) > 0 {
			c.maxClust[i] = append(c.maxClust[i][:0], v...)
		}
	}
}

// clusteringBounds returns the min and max lists, each truncated before
// the first position that never received a value (Cassandra's makeList).
func (c *collector) clusteringBounds() (minVals, maxVals [][]byte) {
	for i := range c.clustSet {
		if !c.clustSet[i] {
			break
		}
		minVals = append(minVals, c.minClust[i])
		maxVals = append(maxVals, c.maxClust[i])
	}
	return minVals, maxVals
}

// Defaults of Cassandra's trackers when nothing was recorded.
func (c *collector) timestamps() (int64, int64) {
	if !c.tsSet {
		return math.MinInt64, math.MaxInt64
	}
	return c.minTS, c.maxTS
}

func (c *collector) localDeletionTimes() (int64, int64) {
	if !c.ldtSet {
		return mutation.NoDeletionTime, mutation.NoDeletionTime
	}
	return c.minLDT, c.maxLDT
}

func (c *collector) ttls() (int32, int32) {
	if !c.ttlSet {
		return 0, 0
	}
	return c.minTTL, c.maxTTL
}
