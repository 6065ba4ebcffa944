package mutation

import (
	"bytes"
	"testing"

	"github.com/castable-db/castable/schema"
)

var (
	intCol     = &schema.Column{Name: "v", Type: &schema.Type{Kind: schema.KindInt}, Kind: schema.Regular}
	counterCol = &schema.Column{Name: "c", Type: &schema.Type{Kind: schema.KindCounter}, Kind: schema.Regular}
)

func live(ts int64, v ...byte) Cell {
	return Cell{Column: intCol, Value: v, Timestamp: ts, TTL: NoTTL, LocalDeletionTime: NoDeletionTime}
}

func expiring(ts int64, ttl int32, expiresAt int64, v ...byte) Cell {
	return Cell{Column: intCol, Value: v, Timestamp: ts, TTL: ttl, LocalDeletionTime: expiresAt}
}

func tombstone(ts int64, ldt int64) Cell {
	return Cell{Column: intCol, Timestamp: ts, TTL: NoTTL, LocalDeletionTime: ldt}
}

func sameCell(a, b Cell) bool {
	return a.Column == b.Column && bytes.Equal(a.Path, b.Path) && bytes.Equal(a.Value, b.Value) &&
		a.Timestamp == b.Timestamp && a.TTL == b.TTL && a.LocalDeletionTime == b.LocalDeletionTime
}

func TestReconcileRegular(t *testing.T) {
	const now = 1000
	cases := []struct {
		name       string
		a, b, want Cell
	}{
		{"greater timestamp wins", live(5, 1), live(6, 0), live(6, 0)},
		{"greater timestamp wins over tombstone", live(7, 1), tombstone(6, 10), live(7, 1)},
		{"tie: tombstone beats live", live(5, 9), tombstone(5, 10), tombstone(5, 10)},
		{"tie: expired beats live", live(5, 9), expiring(5, 10, now-1, 1), expiring(5, 10, now-1, 1)},
		{"tie: unexpired expiring is live, greater value wins", expiring(5, 10, now+5, 1), live(5, 2), live(5, 2)},
		{"tie: greater value (signed bytes: 0x7f > 0x80)", live(5, 0x80), live(5, 0x7f), live(5, 0x7f)},
		{"tie: longer value after common prefix", live(5, 1), live(5, 1, 0), live(5, 1, 0)},
		{"tie: equal values, later expiry wins", expiring(5, 10, now+5, 1), expiring(5, 20, now+15, 1), expiring(5, 20, now+15, 1)},
		{"full tie keeps existing", expiring(5, 10, now+5, 1), expiring(5, 11, now+5, 1), expiring(5, 10, now+5, 1)},
		{"two tombstones: greater ldt", tombstone(5, 10), tombstone(5, 20), tombstone(5, 20)},
	}
	for _, c := range cases {
		got, err := Reconcile(&c.a, &c.b, now)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !sameCell(got, c.want) {
			t.Errorf("%s: got %+v want %+v", c.name, got, c.want)
		}
		// Commutative except for full ties.
		if c.name != "full tie keeps existing" {
			got2, _ := Reconcile(&c.b, &c.a, now)
			if !sameCell(got2, c.want) {
				t.Errorf("%s (swapped): got %+v want %+v", c.name, got2, c.want)
			}
		}
	}
}

func TestReconcileCounter(t *testing.T) {
	id := func(b byte) [16]byte { return [16]byte{b} }
	cc := func(ts int64, shards ...CounterShard) Cell {
		v, err := AppendCounterContext(nil, shards)
		if err != nil {
			t.Fatal(err)
		}
		return Cell{Column: counterCol, Value: v, Timestamp: ts, TTL: NoTTL, LocalDeletionTime: NoDeletionTime}
	}
	tomb := Cell{Column: counterCol, Timestamp: 1, TTL: NoTTL, LocalDeletionTime: 50}
	a := cc(10, CounterShard{ID: id(1), Clock: 1, Count: 5})
	b := cc(20, CounterShard{ID: id(2), Clock: 3, Count: 7})
	got, err := Reconcile(&a, &b, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := cc(20, CounterShard{ID: id(1), Clock: 1, Count: 5}, CounterShard{ID: id(2), Clock: 3, Count: 7})
	if !sameCell(got, want) {
		t.Fatalf("merge: got %+v want %+v", got, want)
	}
	// A tombstone wins whatever its timestamp.
	if got, _ := Reconcile(&b, &tomb, 100); !sameCell(got, tomb) {
		t.Fatalf("tombstone lost: %+v", got)
	}
	if got, _ := Reconcile(&tomb, &b, 100); !sameCell(got, tomb) {
		t.Fatalf("tombstone lost (swapped): %+v", got)
	}
	// A superset with the greater timestamp is returned as is.
	sup := cc(30, CounterShard{ID: id(1), Clock: 2, Count: 6}, CounterShard{ID: id(2), Clock: 3, Count: 7})
	if got, _ := Reconcile(&b, &sup, 100); &got.Value[0] != &sup.Value[0] {
		t.Fatal("superset was copied")
	}
	// Malformed contexts are errors.
	bad := Cell{Column: counterCol, Value: []byte{0, 9}, Timestamp: 1, TTL: NoTTL, LocalDeletionTime: NoDeletionTime}
	if _, err := Reconcile(&a, &bad, 100); err == nil {
		t.Fatal("malformed context accepted")
	}
}

func TestSupersedes(t *testing.T) {
	if !(DeletionTime{5, 10}).Supersedes(DeletionTime{4, 20}) || (DeletionTime{5, 10}).Supersedes(DeletionTime{5, 10}) ||
		!(DeletionTime{5, 11}).Supersedes(DeletionTime{5, 10}) {
		t.Fatal("DeletionTime.Supersedes")
	}
	if !(DeletionTime{5, 10}).Supersedes(Live) || Live.Supersedes(DeletionTime{5, 10}) {
		t.Fatal("Live ordering")
	}
	plain := LivenessInfo{Timestamp: 5, TTL: NoTTL, LocalExpirationTime: NoDeletionTime}
	exp := LivenessInfo{Timestamp: 5, TTL: 10, LocalExpirationTime: 100}
	exp2 := LivenessInfo{Timestamp: 5, TTL: 10, LocalExpirationTime: 200}
	expired := LivenessInfo{Timestamp: 5, TTL: ExpiredLivenessTTL, LocalExpirationTime: 50}
	switch {
	case !exp.Supersedes(plain) || plain.Supersedes(exp):
		t.Fatal("expiring should supersede non-expiring on a timestamp tie")
	case !exp2.Supersedes(exp) || exp.Supersedes(exp2):
		t.Fatal("later expiration should win")
	case !expired.Supersedes(exp2) || exp2.Supersedes(expired):
		t.Fatal("expired liveness should win")
	case plain.Supersedes(plain):
		t.Fatal("equal liveness supersedes itself")
	case !(LivenessInfo{Timestamp: 6, TTL: NoTTL, LocalExpirationTime: NoDeletionTime}).Supersedes(expired):
		t.Fatal("greater timestamp should win")
	}
}
