package compaction

import (
	"testing"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

var (
	colV = &schema.Column{Name: "v", Type: schema.Text, Kind: schema.Regular, Index: 2}
	colS = &schema.Column{Name: "s", Type: schema.SetOf(schema.Text, false), Kind: schema.Regular, Index: 3}
)

func del(ts, ldt int64) mutation.DeletionTime {
	return mutation.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: ldt}
}

// Purger.Row follows Cassandra's Row.purge and Cell.purge: an expired cell
// becomes a tombstone dated at its write time (and goes once that is past
// grace), a tombstone goes past grace unless data outside could be older
// than it, and a live cell stays.
func TestPurgeRow(t *testing.T) {
	p := &Purger{NowInSec: 1000, GCBefore: 900}
	p.StartPartition(NoOverlap)
	live := mutation.Cell{Column: colV, Value: []byte("a"), Timestamp: 5, LocalDeletionTime: mutation.NoDeletionTime}
	expiredRecent := mutation.Cell{Column: colV, Value: []byte("b"), Timestamp: 6, TTL: 50, LocalDeletionTime: 990} // written at 940: kept as a tombstone
	expiredOld := mutation.Cell{Column: colV, Value: []byte("c"), Timestamp: 7, TTL: 50, LocalDeletionTime: 920}    // written at 870: gone
	oldTombstone := mutation.Cell{Column: colV, Timestamp: 8, LocalDeletionTime: 899}                               // gone
	recentTombstone := mutation.Cell{Column: colV, Timestamp: 9, LocalDeletionTime: 900}                            // kept (not before GCBefore)
	notExpired := mutation.Cell{Column: colV, Value: []byte("d"), Timestamp: 10, TTL: 50, LocalDeletionTime: 1001}  // kept as it is

	for _, tc := range []struct {
		name string
		in   mutation.Cell
		want *mutation.Cell
	}{
		{"live", live, &live},
		{"expired within grace", expiredRecent, &mutation.Cell{Column: colV, Timestamp: 6, TTL: mutation.NoTTL, LocalDeletionTime: 940}},
		{"expired past grace", expiredOld, nil},
		{"tombstone past grace", oldTombstone, nil},
		{"tombstone within grace", recentTombstone, &recentTombstone},
		{"expiring", notExpired, &notExpired},
	} {
		r := mutation.NewRow(mutation.Clustering{[]byte{1}})
		r.Cells = []mutation.Cell{tc.in}
		kept := p.Row(&r)
		switch {
		case tc.want == nil && (kept || len(r.Cells) != 0):
			t.Errorf("%s: kept %+v", tc.name, r.Cells)
		case tc.want != nil && (!kept || len(r.Cells) != 1 || r.Cells[0].Timestamp != tc.want.Timestamp ||
			r.Cells[0].LocalDeletionTime != tc.want.LocalDeletionTime || r.Cells[0].TTL != tc.want.TTL || string(r.Cells[0].Value) != string(tc.want.Value)):
			t.Errorf("%s: got %+v, want %+v", tc.name, r.Cells, *tc.want)
		}
	}

	// An overlapping SSTable holding data from timestamp 8 on: only the
	// tombstones older than that may go.
	p.StartPartition(8)
	r := mutation.NewRow(mutation.Clustering{[]byte{1}})
	r.Cells = []mutation.Cell{{Column: colV, Timestamp: 7, LocalDeletionTime: 10}}
	if p.Row(&r) {
		t.Error("a tombstone older than every overlapping datum was kept")
	}
	r.Cells = []mutation.Cell{{Column: colV, Timestamp: 8, LocalDeletionTime: 10}}
	if !p.Row(&r) {
		t.Error("a tombstone that may shadow overlapping data was purged")
	}

	// Row deletion, complex deletion and an expired liveness.
	p.StartPartition(NoOverlap)
	r = mutation.NewRow(mutation.Clustering{[]byte{1}})
	r.Deletion = del(3, 100)
	r.Liveness = mutation.LivenessInfo{Timestamp: 4, TTL: 10, LocalExpirationTime: 500}
	r.ComplexDeletions = []mutation.ComplexDeletion{{Column: colS, Deletion: del(2, 950)}}
	if !p.Row(&r) || !r.Deletion.IsLive() || !r.Liveness.IsEmpty() || len(r.ComplexDeletions) != 1 {
		t.Errorf("got %+v", r)
	}
	p.NoTombstonePurge = true
	r = mutation.NewRow(mutation.Clustering{[]byte{1}})
	r.Cells = []mutation.Cell{oldTombstone, expiredOld}
	if !p.Row(&r) || len(r.Cells) != 2 || r.Cells[1].TTL != mutation.NoTTL || r.Cells[1].LocalDeletionTime != 870 {
		t.Errorf("only_purge_repaired_tombstones: %+v", r.Cells)
	}
}

// Purger.Marker follows PurgeFunction.applyToMarker: a boundary loses the
// purgeable half and keeps the other as a bound.
func TestPurgeMarker(t *testing.T) {
	p := &Purger{NowInSec: 1000, GCBefore: 900}
	p.StartPartition(NoOverlap)
	old, recent := del(1, 10), del(2, 950)
	for _, tc := range []struct {
		in       mutation.RangeTombstoneMarker
		gone     bool
		wantKind mutation.BoundKind
	}{
		{mutation.RangeTombstoneMarker{Kind: mutation.InclStartBound, Open: old, Close: mutation.Live}, true, 0},
		{mutation.RangeTombstoneMarker{Kind: mutation.ExclEndBound, Close: recent, Open: mutation.Live}, false, mutation.ExclEndBound},
		{mutation.RangeTombstoneMarker{Kind: mutation.ExclEndInclStartBoundary, Close: old, Open: recent}, false, mutation.InclStartBound},
		{mutation.RangeTombstoneMarker{Kind: mutation.InclEndExclStartBoundary, Close: recent, Open: old}, false, mutation.InclEndBound},
		{mutation.RangeTombstoneMarker{Kind: mutation.InclEndExclStartBoundary, Close: old, Open: old}, true, 0},
	} {
		m := tc.in
		got := p.Marker(&m)
		if (got == nil) != tc.gone || (got != nil && got.Kind != tc.wantKind) {
			t.Errorf("%v: got %+v", tc.in, got)
		}
		if got != nil && got.Kind.IsStart() && got.Open.IsLive() || got != nil && got.Kind.IsEnd() && got.Close.IsLive() {
			t.Errorf("%v: the kept half lost its deletion: %+v", tc.in, got)
		}
	}
}
