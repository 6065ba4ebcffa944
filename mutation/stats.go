package mutation

import "github.com/castable-db/castable/schema"

// Encoding stats epochs: the values the mc serialization header encodes
// against (2015-09-22T00:00:00Z in µs and s, and TTL 0), which are also the
// fallbacks when a kind of value never occurs (mc-format.md §5.5).
const (
	EncodingEpochTimestamp         int64 = 1442880000000000
	EncodingEpochLocalDeletionTime int64 = 1442880000
	EncodingEpochTTL               int32 = 0
)

// EncodingStats are the minima mc delta-encodes times against.
type EncodingStats struct {
	MinTimestamp         int64
	MinLocalDeletionTime int64
	MinTTL               int32
}

// Stats accumulates, partition by partition, what Cassandra's memtable
// tracks for the serialization header: the minimum timestamp of anything
// that has one, the minimum local deletion time of tombstones and expiring
// data, the minimum TTL of expiring data (EncodingStats.Collector), and the
// set of static and regular columns that have a cell or a complex deletion
// in some row. It also notes legacy counter shards. AddPartition does not
// allocate. The zero value is not usable; use NewStats.
type Stats struct {
	t *schema.Table

	minTimestamp   int64
	minLDT         int64
	minTTL         int32
	hasTimestamp   bool
	hasLDT, hasTTL bool

	static, regular []bool
	legacyCounters  bool
	partitions      int64
	rows            int64
}

// NewStats returns an empty collector for table t.
func NewStats(t *schema.Table) *Stats {
	s := &Stats{t: t}
	s.static = make([]bool, len(t.Static))
	s.regular = make([]bool, len(t.Regular))
	s.Reset()
	return s
}

// Reset empties s for reuse with the same table.
func (s *Stats) Reset() {
	s.hasTimestamp, s.hasLDT, s.hasTTL = false, false, false
	s.minTimestamp, s.minLDT, s.minTTL = 0, 0, 0
	clear(s.static)
	clear(s.regular)
	s.legacyCounters = false
	s.partitions, s.rows = 0, 0
}

func (s *Stats) timestamp(ts int64) {
	if !s.hasTimestamp || ts < s.minTimestamp {
		s.minTimestamp, s.hasTimestamp = ts, true
	}
}

func (s *Stats) localDeletionTime(ldt int64) {
	if !s.hasLDT || ldt < s.minLDT {
		s.minLDT, s.hasLDT = ldt, true
	}
}

func (s *Stats) ttl(ttl int32) {
	if !s.hasTTL || ttl < s.minTTL {
		s.minTTL, s.hasTTL = ttl, true
	}
}

func (s *Stats) deletion(d DeletionTime) {
	if d.IsLive() {
		return
	}
	s.timestamp(d.MarkedForDeleteAt)
	s.localDeletionTime(d.LocalDeletionTime)
}

func (s *Stats) liveness(l LivenessInfo) {
	if l.IsEmpty() {
		return
	}
	s.timestamp(l.Timestamp)
	if l.IsExpiring() {
		s.ttl(l.TTL)
		s.localDeletionTime(l.LocalExpirationTime)
	}
}

func (s *Stats) cell(c *Cell) {
	s.timestamp(c.Timestamp)
	switch {
	case c.IsExpiring():
		s.ttl(c.TTL)
		s.localDeletionTime(c.LocalDeletionTime)
	case c.IsTombstone():
		s.localDeletionTime(c.LocalDeletionTime)
	}
	if !s.legacyCounters && c.Column.Type.Kind == schema.KindCounter && !c.IsTombstone() {
		if legacy, err := HasLegacyShards(c.Value); err == nil && legacy {
			s.legacyCounters = true
		}
	}
}

func (s *Stats) column(col *schema.Column) {
	var set []bool
	switch col.Kind {
	case schema.Static:
		set = s.static
	case schema.Regular:
		set = s.regular
	default:
		return
	}
	if col.Index >= 0 && col.Index < len(set) {
		set[col.Index] = true
	}
}

// AddRow adds one row (static or clustering) to the statistics.
func (s *Stats) AddRow(r *Row) {
	s.liveness(r.Liveness)
	s.deletion(r.Deletion)
	s.deletion(r.ShadowableDeletion)
	var last *schema.Column
	for i := range r.Cells {
		c := &r.Cells[i]
		s.cell(c)
		if c.Column != last {
			s.column(c.Column)
			last = c.Column
		}
	}
	for i := range r.ComplexDeletions {
		s.deletion(r.ComplexDeletions[i].Deletion)
		s.column(r.ComplexDeletions[i].Column) // a live one too: the column is listed
	}
	s.rows++
}

// AddMarker adds a range tombstone marker (both deletions of a boundary).
func (s *Stats) AddMarker(m *RangeTombstoneMarker) {
	s.deletion(m.Close)
	s.deletion(m.Open)
}

// AddPartition adds everything in p.
func (s *Stats) AddPartition(p *Partition) {
	s.partitions++
	s.deletion(p.Deletion)
	if !p.Static.IsEmpty() {
		s.AddRow(&p.Static)
	}
	for i := range p.Rows {
		s.AddRow(&p.Rows[i])
	}
	for i := range p.Markers {
		s.AddMarker(&p.Markers[i])
	}
}

// EncodingStats returns the minima, each falling back to its epoch when no
// value of its kind was seen.
func (s *Stats) EncodingStats() EncodingStats {
	e := EncodingStats{MinTimestamp: EncodingEpochTimestamp, MinLocalDeletionTime: EncodingEpochLocalDeletionTime, MinTTL: EncodingEpochTTL}
	if s.hasTimestamp {
		e.MinTimestamp = s.minTimestamp
	}
	if s.hasLDT {
		e.MinLocalDeletionTime = s.minLDT
	}
	if s.hasTTL {
		e.MinTTL = s.minTTL
	}
	return e
}

// Columns appends to dst the static then regular columns that occurred, in
// canonical order (the mc serialization header's column lists).
func (s *Stats) Columns(dst []*schema.Column) []*schema.Column {
	for i, ok := range s.static {
		if ok {
			dst = append(dst, s.t.Static[i])
		}
	}
	for i, ok := range s.regular {
		if ok {
			dst = append(dst, s.t.Regular[i])
		}
	}
	return dst
}

// HasLegacyCounterShards reports whether some counter context had local or
// remote shards.
func (s *Stats) HasLegacyCounterShards() bool { return s.legacyCounters }

// Partitions returns the number of partitions added.
func (s *Stats) Partitions() int64 { return s.partitions }

// Rows returns the number of rows added (clustering rows and non-empty
// static rows).
func (s *Stats) Rows() int64 { return s.rows }
