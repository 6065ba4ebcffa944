package mutation

import "github.com/castable-db/castable/schema"

// Reconcile returns the cell that wins when two versions of the same cell
// (same column and path) meet, following Cassandra 3.11's Cells.reconcile
// and Conflicts.resolveRegular / resolveCounter. a is the existing version,
// b the update; nowInSec (s since the epoch) decides whether an expiring
// cell is still live, as 3.11 does.
//
// Regular cells: the greater timestamp wins; on a tie a cell that is not
// live at nowInSec (a tombstone or an expired cell) wins over a live one;
// then the greater value, compared as Java's ByteBuffer.compareTo does
// (signed bytes, then the shorter first); then the greater local deletion
// time, a on a full tie.
//
// Counter cells: a tombstone wins over a live counter (between two
// tombstones the greater timestamp, b on a tie); an empty value loses to a
// non-empty one; otherwise the contexts merge (MergeCounterContexts) with
// the greater timestamp, and the result is a new live cell unless one input
// already was that result. The returned cell may share a's or b's Value; a
// merged context is newly allocated.
func Reconcile(a, b *Cell, nowInSec int64) (Cell, error) {
	if isCounterCell(a) || isCounterCell(b) {
		return reconcileCounter(a, b, nowInSec)
	}
	if a.Timestamp != b.Timestamp {
		if a.Timestamp > b.Timestamp {
			return *a, nil
		}
		return *b, nil
	}
	aLive, bLive := a.IsLiveAt(nowInSec), b.IsLiveAt(nowInSec)
	if aLive != bLive {
		if aLive {
			return *b, nil
		}
		return *a, nil
	}
	if c := javaCompareBytes(a.Value, b.Value); c != 0 {
		if c > 0 {
			return *a, nil
		}
		return *b, nil
	}
	if a.LocalDeletionTime < b.LocalDeletionTime {
		return *b, nil
	}
	return *a, nil
}

func isCounterCell(c *Cell) bool {
	return c.Column != nil && c.Column.Type != nil && c.Column.Type.Kind == schema.KindCounter && !c.IsTombstone()
}

func reconcileCounter(a, b *Cell, nowInSec int64) (Cell, error) {
	aLive, bLive := a.IsLiveAt(nowInSec), b.IsLiveAt(nowInSec)
	if !aLive {
		if bLive || a.Timestamp > b.Timestamp {
			return *a, nil
		}
		return *b, nil
	}
	if !bLive {
		return *b, nil
	}
	if len(a.Value) == 0 {
		if len(b.Value) > 0 || a.Timestamp > b.Timestamp {
			return *a, nil
		}
		return *b, nil
	}
	if len(b.Value) == 0 {
		return *b, nil
	}
	return mergeCounterCells(a, b)
}

// mergeCounterCells merges two live counter cells' contexts with the
// greater timestamp; the result is a new live cell unless one input already
// was that result.
func mergeCounterCells(a, b *Cell) (Cell, error) {
	merged, which, err := mergeCounterContexts(a.Value, b.Value)
	if err != nil {
		return Cell{}, err
	}
	ts := max(a.Timestamp, b.Timestamp)
	switch {
	case which == mergedLeft && ts == a.Timestamp:
		return *a, nil
	case which == mergedRight && ts == b.Timestamp:
		return *b, nil
	}
	if which != mergedNew {
		merged = append([]byte(nil), merged...)
	}
	return Cell{Column: a.Column, Path: a.Path, Value: merged, Timestamp: ts, TTL: NoTTL, LocalDeletionTime: NoDeletionTime}, nil
}

// javaCompareBytes compares like java.nio.ByteBuffer.compareTo: bytes as
// signed values, then the shorter buffer first.
func javaCompareBytes(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			if int8(a[i]) < int8(b[i]) {
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
