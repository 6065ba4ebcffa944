package rows

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables/version"
)

// Collector gathers the Stats component of Statistics.db while data is
// written, with Cassandra's MetadataCollector rules (mc-format.md §5.4):
// which items feed the min/max timestamps, local deletion times and TTLs,
// the tombstone drop-time histogram, the min/max clustering values,
// totalColumnsSet and totalRows, and whether a partition deletion was
// written. It never allocates per row once its buffers have grown.
//
// Min/max clustering come in two flavours, both kept:
//   - per position (ma, mb, mc: Cassandra before 3.11.4): the smallest and
//     largest value of each clustering column on its own, over rows and
//     range tombstone bounds (ClusteringBounds);
//   - the whole smallest and largest prefix (md on, CASSANDRA-14861, and
//     5.0's covered slice): rows and bounds compared as clustering
//     prefixes (PrefixBounds).
type Collector struct {
	table           *schema.Table
	clusteringTypes []*schema.Type
	wholePrefix     bool

	prefixSet        bool
	minKind, maxKind mutation.BoundKind
	minPrefix        [][]byte // values, copied into minBuf
	maxPrefix        [][]byte
	minBuf, maxBuf   []byte

	// HasPartitionDeletion is set once a partition deletion is not live.
	HasPartitionDeletion bool

	tsSet              bool
	minTS, maxTS       int64
	ldtSet             bool
	minLDT, maxLDT     int64
	ttlSet             bool
	minTTL, maxTTL     int32
	minClust, maxClust [][]byte
	clustSet           []bool
	// LegacyCounters is set when a counter cell has legacy shards.
	LegacyCounters bool
	// TotalColumnsSet and TotalRows are Statistics.db's column and row
	// counts.
	TotalColumnsSet int64
	TotalRows       int64

	// dropTime receives every local deletion time other than
	// NoDeletionTime (the tombstone histogram), and NoDeletionTime too
	// with liveDropTimes.
	dropTime              func(ldt int64)
	liveDropTimes         bool
	liveLivenessDropTimes bool
	unsigned              bool
	overflowed            bool
	overflowLDT           int64
}

// CollectorOptions configure a Collector.
type CollectorOptions struct {
	// WholePrefix also tracks the whole-prefix min/max clustering
	// (version.HasAccurateMinMax, or improved min/max).
	WholePrefix bool
	// DropTime receives every local deletion time recorded other than
	// NoDeletionTime: the tombstone drop-time histogram.
	DropTime func(ldt int64)
	// LiveDropTimes passes NoDeletionTime to DropTime too: the live cells
	// of the Cassandra 3.0–3.11.x releases that count them in the
	// histogram (version.Profile.SentinelTombstoneBin), and with
	// LiveLivenessDropTimes the live row livenesses too
	// (Profile.SentinelCountsLiveness).
	LiveDropTimes, LiveLivenessDropTimes bool
	// UnsignedDeletionTimes says the version stores local deletion times
	// unsigned (oa on: 1970 … 2106) rather than signed (up to 2038); a
	// time the version cannot store makes Overflow report it.
	UnsignedDeletionTimes bool
}

// NewCollector starts a collector for table, whose serialization header
// has clusteringTypes.
func NewCollector(table *schema.Table, clusteringTypes []*schema.Type, opts CollectorOptions) *Collector {
	n := len(clusteringTypes)
	return &Collector{
		table:                 table,
		clusteringTypes:       clusteringTypes,
		wholePrefix:           opts.WholePrefix,
		minClust:              make([][]byte, n),
		maxClust:              make([][]byte, n),
		clustSet:              make([]bool, n),
		dropTime:              opts.DropTime,
		liveDropTimes:         opts.LiveDropTimes,
		liveLivenessDropTimes: opts.LiveLivenessDropTimes,
		unsigned:              opts.UnsignedDeletionTimes,
	}
}

func (c *Collector) timestamp(ts int64) {
	if !c.tsSet {
		c.tsSet, c.minTS, c.maxTS = true, ts, ts
		return
	}
	c.minTS = min(c.minTS, ts)
	c.maxTS = max(c.maxTS, ts)
}

func (c *Collector) localDeletionTime(ldt int64) {
	c.checkFits(ldt)
	if !c.ldtSet {
		c.ldtSet, c.minLDT, c.maxLDT = true, ldt, ldt
	} else {
		c.minLDT = min(c.minLDT, ldt)
		c.maxLDT = max(c.maxLDT, ldt)
	}
	if c.dropTime != nil && (ldt != mutation.NoDeletionTime || c.liveDropTimes) {
		c.dropTime(ldt)
	}
}

func (c *Collector) ttl(ttl int32) {
	if !c.ttlSet {
		c.ttlSet, c.minTTL, c.maxTTL = true, ttl, ttl
		return
	}
	c.minTTL = min(c.minTTL, ttl)
	c.maxTTL = max(c.maxTTL, ttl)
}

// deletion records a deletion time unless it is live.
func (c *Collector) deletion(d mutation.DeletionTime) {
	if d.IsLive() {
		return
	}
	c.timestamp(d.MarkedForDeleteAt)
	c.localDeletionTime(d.LocalDeletionTime)
}

// liveness records a row's primary key liveness unless it is empty.
func (c *Collector) liveness(l mutation.LivenessInfo) {
	if l.IsEmpty() {
		return
	}
	c.timestamp(l.Timestamp)
	c.ttl(l.TTL)
	if l.LocalExpirationTime == mutation.NoDeletionTime && c.liveDropTimes && !c.liveLivenessDropTimes {
		c.ldtOnly(l.LocalExpirationTime)
		return
	}
	c.localDeletionTime(l.LocalExpirationTime)
}

// ldtOnly records a local deletion time in the min/max without the
// tombstone histogram.
func (c *Collector) ldtOnly(ldt int64) {
	c.checkFits(ldt)
	if !c.ldtSet {
		c.ldtSet, c.minLDT, c.maxLDT = true, ldt, ldt
		return
	}
	c.minLDT = min(c.minLDT, ldt)
	c.maxLDT = max(c.maxLDT, ldt)
}

// cell records a cell.
func (c *Collector) cell(cell *mutation.Cell) {
	c.timestamp(cell.Timestamp)
	c.ttl(cell.TTL)
	c.localDeletionTime(cell.LocalDeletionTime)
}

// row records a row's column count (totalColumnsSet, totalRows).
func (c *Collector) row(columns int64) {
	c.TotalColumnsSet += columns
	c.TotalRows++
}

// checkFits records the first local deletion time the version cannot
// store.
func (c *Collector) checkFits(ldt int64) {
	if ldt == mutation.NoDeletionTime || c.overflowed {
		return
	}
	if c.unsigned && (ldt < 0 || ldt > mutation.MaxDeletionTime) || !c.unsigned && (ldt > mutation.MaxLegacyDeletionTime || ldt < math.MinInt32) {
		c.overflowed, c.overflowLDT = true, ldt
	}
}

// Overflow returns an error for the first local deletion or expiration
// time recorded that the version written cannot store (one past 2038 for
// the versions with signed deletion times, a negative one for those with
// unsigned ones, version.Version.UIntDeletionTime), and clears it.
func (c *Collector) Overflow() error {
	if !c.overflowed {
		return nil
	}
	c.overflowed = false
	t := time.Unix(c.overflowLDT, 0).UTC().Format(time.RFC3339)
	if c.unsigned {
		return fmt.Errorf("%w: local deletion time %d (%s) is outside the unsigned 32-bit range of %s (1970 … 2106); a negative time is an overflowed TTL of Cassandra 3.x (CASSANDRA-14092), which castable scrub --reinsert-overflowed-ttl repairs", ErrDeletionTimeOverflow, c.overflowLDT, t, unsignedVersions())
	}
	return fmt.Errorf("%w: local deletion time %d (%s) is past 2038-01-19T03:14:06Z, the last the versions with signed deletion times store; write one of %s, or cap it (Cassandra's expiration_date_overflow_policy CAP)", ErrDeletionTimeOverflow, c.overflowLDT, t, unsignedVersions())
}

// unsignedVersions names the versions whose deletion times are unsigned.
func unsignedVersions() string {
	return version.Summarize(version.Select(version.Version.UIntDeletionTime))
}

// ErrDeletionTimeOverflow reports data whose local deletion or expiration
// time the version written cannot store.
var ErrDeletionTimeOverflow = errors.New("deletion time does not fit the version")

// partitionDeletion records a partition's deletion.
func (c *Collector) partitionDeletion(d mutation.DeletionTime) {
	if !d.IsLive() {
		c.HasPartitionDeletion = true
	}
	c.deletion(d)
}

// prefix records the clustering of a row (kind ClusteringKind) or a range
// tombstone bound or boundary for the whole-prefix bounds.
func (c *Collector) prefix(kind mutation.BoundKind, vals mutation.Clustering) {
	if !c.wholePrefix {
		return
	}
	if !c.prefixSet {
		c.prefixSet = true
		c.minKind = kind
		c.minPrefix, c.minBuf = copyPrefix(c.minPrefix, c.minBuf, vals)
		c.maxKind = kind
		c.maxPrefix, c.maxBuf = copyPrefix(c.maxPrefix, c.maxBuf, vals)
		return
	}
	if mutation.ComparePrefix(c.table, kind, vals, c.maxKind, c.maxPrefix) > 0 {
		c.maxKind = kind
		c.maxPrefix, c.maxBuf = copyPrefix(c.maxPrefix, c.maxBuf, vals)
	} else if mutation.ComparePrefix(c.table, kind, vals, c.minKind, c.minPrefix) < 0 {
		c.minKind = kind
		c.minPrefix, c.minBuf = copyPrefix(c.minPrefix, c.minBuf, vals)
	}
}

// copyPrefix copies vals into buf, returning the values (dst reused) and
// the buffer; nil values stay nil, empty ones are non-nil and empty.
func copyPrefix(dst [][]byte, buf []byte, vals mutation.Clustering) ([][]byte, []byte) {
	b := buf[:0]
	for _, v := range vals {
		b = append(b, v...)
	}
	dst = dst[:0]
	off := 0
	for _, v := range vals {
		switch {
		case v == nil:
			dst = append(dst, nil)
		case len(v) == 0:
			dst = append(dst, EmptyValue)
		default:
			dst = append(dst, b[off:off+len(v):off+len(v)])
			off += len(v)
		}
	}
	return dst, b
}

// PrefixBounds returns the whole smallest and largest prefix recorded, and
// false when nothing was.
func (c *Collector) PrefixBounds() (minKind mutation.BoundKind, minVals [][]byte, maxKind mutation.BoundKind, maxVals [][]byte, ok bool) {
	return c.minKind, c.minPrefix, c.maxKind, c.maxPrefix, c.prefixSet
}

// clustering records the values of a row clustering or a range tombstone
// bound: per position the minimum and maximum with that column's
// comparator. Null components are skipped.
func (c *Collector) clustering(vals mutation.Clustering) {
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

// ClusteringBounds returns the per-position min and max lists, each
// truncated before the first position that never received a value
// (Cassandra's makeList).
func (c *Collector) ClusteringBounds() (minVals, maxVals [][]byte) {
	for i := range c.clustSet {
		if !c.clustSet[i] {
			break
		}
		minVals = append(minVals, c.minClust[i])
		maxVals = append(maxVals, c.maxClust[i])
	}
	return minVals, maxVals
}

// Timestamps returns the min and max timestamps (Cassandra's tracker
// defaults when nothing was recorded, as LocalDeletionTimes and TTLs).
func (c *Collector) Timestamps() (int64, int64) {
	if !c.tsSet {
		return math.MinInt64, math.MaxInt64
	}
	return c.minTS, c.maxTS
}

// LocalDeletionTimes returns the min and max local deletion times.
func (c *Collector) LocalDeletionTimes() (int64, int64) {
	if !c.ldtSet {
		return mutation.NoDeletionTime, mutation.NoDeletionTime
	}
	return c.minLDT, c.maxLDT
}

// TTLs returns the min and max TTLs.
func (c *Collector) TTLs() (int32, int32) {
	if !c.ttlSet {
		return 0, 0
	}
	return c.minTTL, c.maxTTL
}
