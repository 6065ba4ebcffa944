package mutation

import (
	"testing"

	"github.com/castable-db/castable/schema"
)

func statsTable() *schema.Table {
	intT := &schema.Type{Kind: schema.KindInt}
	return &schema.Table{
		PartitionKey: []*schema.Column{{Name: "pk", Type: intT, Kind: schema.PartitionKey}},
		Static:       []*schema.Column{{Name: "s", Type: intT, Kind: schema.Static}},
		Regular: []*schema.Column{
			{Name: "a", Type: intT, Kind: schema.Regular, Index: 0},
			{Name: "b", Type: intT, Kind: schema.Regular, Index: 1},
			{Name: "c", Type: &schema.Type{Kind: schema.KindCounter}, Kind: schema.Regular, Index: 2},
		},
	}
}

func TestStatsEncodingMinima(t *testing.T) {
	tb := statsTable()
	a, b := tb.Regular[0], tb.Regular[1]
	s := NewStats(tb)
	if got := s.EncodingStats(); got != (EncodingStats{EncodingEpochTimestamp, EncodingEpochLocalDeletionTime, EncodingEpochTTL}) {
		t.Fatalf("empty stats %+v", got)
	}
	p := &Partition{Key: []byte{0, 0, 0, 1}, Deletion: Live, Static: NewRow(nil)}
	r := NewRow(Clustering{})
	r.Liveness = LivenessInfo{Timestamp: 500, TTL: NoTTL, LocalExpirationTime: NoDeletionTime}
	r.Cells = []Cell{{Column: b, Value: []byte{0, 0, 0, 1}, Timestamp: 400, TTL: NoTTL, LocalDeletionTime: NoDeletionTime}}
	p.Rows = []Row{r}
	s.AddPartition(p)
	// Only live data: minimum timestamp; ldt and ttl fall back to epochs
	// (live cells do not count for the ldt minimum).
	if got := s.EncodingStats(); got != (EncodingStats{400, EncodingEpochLocalDeletionTime, EncodingEpochTTL}) {
		t.Fatalf("live only: %+v", got)
	}
	if cols := s.Columns(nil); len(cols) != 1 || cols[0] != b {
		t.Fatalf("columns %v", cols)
	}

	q := &Partition{Key: []byte{0, 0, 0, 2}, Deletion: DeletionTime{MarkedForDeleteAt: 900, LocalDeletionTime: 3000}, Static: NewRow(nil)}
	q.Static.Cells = []Cell{{Column: tb.Static[0], Timestamp: 950, TTL: NoTTL, LocalDeletionTime: 2000}}
	r2 := NewRow(Clustering{})
	r2.Liveness = LivenessInfo{Timestamp: 1000, TTL: 60, LocalExpirationTime: 2500}
	r2.Cells = []Cell{{Column: a, Value: []byte{0, 0, 0, 2}, Timestamp: 1000, TTL: 30, LocalDeletionTime: 2470}}
	q.Rows = []Row{r2}
	q.Markers = []RangeTombstoneMarker{
		{Kind: InclStartBound, Close: Live, Open: DeletionTime{MarkedForDeleteAt: 300, LocalDeletionTime: 1500}},
		{Kind: InclEndBound, Close: DeletionTime{MarkedForDeleteAt: 300, LocalDeletionTime: 1500}, Open: Live},
	}
	s.AddPartition(q)
	if got := s.EncodingStats(); got != (EncodingStats{300, 1500, 30}) {
		t.Fatalf("mixed: %+v", got)
	}
	if cols := s.Columns(nil); len(cols) != 3 || cols[0] != tb.Static[0] || cols[1] != a || cols[2] != b {
		t.Fatalf("columns %v", cols)
	}
	if s.Partitions() != 2 || s.Rows() != 3 {
		t.Fatalf("counts %d %d", s.Partitions(), s.Rows())
	}
	if s.HasLegacyCounterShards() {
		t.Fatal("no counters yet")
	}
	legacy, _ := AppendCounterContext(nil, []CounterShard{{Kind: CounterRemote, Clock: 1, Count: 1}})
	r3 := NewRow(Clustering{})
	r3.Cells = []Cell{{Column: tb.Regular[2], Value: legacy, Timestamp: 2000, TTL: NoTTL, LocalDeletionTime: NoDeletionTime}}
	s.AddPartition(&Partition{Key: []byte{1}, Deletion: Live, Static: NewRow(nil), Rows: []Row{r3}})
	if !s.HasLegacyCounterShards() {
		t.Fatal("legacy shard not noticed")
	}
	s.Reset()
	if s.Partitions() != 0 || len(s.Columns(nil)) != 0 || s.EncodingStats().MinTimestamp != EncodingEpochTimestamp {
		t.Fatal("Reset")
	}
}

func TestStatsNoAllocation(t *testing.T) {
	tb := statsTable()
	s := NewStats(tb)
	r := NewRow(Clustering{})
	r.Liveness = LivenessInfo{Timestamp: 5, TTL: NoTTL, LocalExpirationTime: NoDeletionTime}
	r.Cells = []Cell{
		{Column: tb.Regular[0], Value: []byte{1, 2, 3, 4}, Timestamp: 5, TTL: NoTTL, LocalDeletionTime: NoDeletionTime},
		{Column: tb.Regular[1], Value: []byte{1, 2, 3, 4}, Timestamp: 5, TTL: 9, LocalDeletionTime: 100},
	}
	p := &Partition{Key: []byte{1}, Deletion: Live, Static: NewRow(nil), Rows: []Row{r, r, r}}
	if n := testing.AllocsPerRun(100, func() { s.AddPartition(p) }); n != 0 {
		t.Fatalf("AddPartition allocates %v times", n)
	}
}
