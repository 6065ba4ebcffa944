package mutation

// Rules are the reconciliation rules of a Cassandra release line: which of
// two versions of a cell with equal timestamps wins. The releases differ
// there and nowhere else in the merge.
type Rules uint8

const (
	// Rules3 are Cassandra 2.x, 3.0 and 3.11's (Cells.reconcile with
	// Conflicts.resolveRegular): on equal timestamps a cell that is not
	// live at the merge time (a tombstone, or an expiring cell already
	// expired) wins over a live one, then the greater value compared as
	// Java's ByteBuffer.compareTo does (signed bytes), then the later local
	// deletion time. Reconcile applies them.
	Rules3 Rules = iota
	// Rules4 are Cassandra 4.0 and later's (CASSANDRA-14592, so that the
	// outcome does not depend on when the merge runs): on equal timestamps
	// a tombstone or an expiring cell wins over a live one whether or not
	// it has expired, a tombstone over an expiring cell, then the later
	// local deletion time (between two tombstones or two expiring cells),
	// then the greater value compared as unsigned bytes; the first version
	// on a full tie.
	Rules4
)

// String names the rules.
func (r Rules) String() string {
	if r == Rules4 {
		return "Cassandra 4.0+"
	}
	return "Cassandra 3.x"
}

// Reconcile returns the version of a cell (same column and path) that wins
// under r; a is the earlier (existing) version, b the later. Counters merge
// shard by shard under both (see Reconcile).
func (r Rules) Reconcile(a, b *Cell, nowInSec int64) (Cell, error) {
	if r != Rules4 {
		return Reconcile(a, b, nowInSec)
	}
	if isCounterCell(a) || isCounterCell(b) {
		return reconcileCounter4(a, b)
	}
	if a.Timestamp != b.Timestamp {
		if a.Timestamp > b.Timestamp {
			return *a, nil
		}
		return *b, nil
	}
	aDel := a.LocalDeletionTime != NoDeletionTime // expiring or tombstone
	bDel := b.LocalDeletionTime != NoDeletionTime
	if aDel || bDel {
		if aDel != bDel {
			if aDel {
				return *a, nil
			}
			return *b, nil
		}
		aTomb, bTomb := !a.IsExpiring(), !b.IsExpiring()
		if aTomb != bTomb {
			if aTomb {
				return *a, nil
			}
			return *b, nil
		}
		if a.LocalDeletionTime != b.LocalDeletionTime {
			if a.LocalDeletionTime > b.LocalDeletionTime {
				return *a, nil
			}
			return *b, nil
		}
	}
	if compareUnsigned(a.Value, b.Value) >= 0 {
		return *a, nil
	}
	return *b, nil
}

// reconcileCounter4 is Cassandra 4.0+'s resolveCounter: a tombstone wins
// over a live counter whatever the timestamps, an empty value over a
// non-empty one (the greater timestamp between two empty ones), otherwise
// the contexts merge.
func reconcileCounter4(a, b *Cell) (Cell, error) {
	aTomb, bTomb := a.IsTombstone(), b.IsTombstone()
	if aTomb || bTomb {
		if aTomb {
			return *a, nil
		}
		return *b, nil
	}
	aEmpty, bEmpty := len(a.Value) == 0, len(b.Value) == 0
	if aEmpty || bEmpty {
		if aEmpty != bEmpty {
			if aEmpty {
				return *a, nil
			}
			return *b, nil
		}
		if a.Timestamp > b.Timestamp {
			return *a, nil
		}
		return *b, nil
	}
	return mergeCounterCells(a, b)
}

// compareUnsigned compares byte strings as unsigned bytes, then the shorter
// first (ByteBufferUtil.compareUnsigned).
func compareUnsigned(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}
