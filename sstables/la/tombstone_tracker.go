package la

import (
	"slices"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// tombstoneTracker turns the range tombstones of a 2.2 partition — which
// may be repeated at index block starts, overlap, or be shadowed — into the
// flat marker sequence of the row model, where at most one deletion is open
// at a time. It follows Cassandra 3.x's OldFormatDeserializer
// TombstoneTracker:
//
//   - an opening marker is held back until the next atom is known to start
//     strictly after it, so that a later tombstone with the same start and a
//     newer deletion replaces it;
//   - open tombstones are kept ordered by end bound; the first one closes
//     first, with a boundary when another one is still open;
//   - atoms fully shadowed by the partition deletion or an open tombstone
//     are dropped (that is also how repeated tombstones disappear).
type tombstoneTracker struct {
	t                 *schema.Table
	partitionDeletion mutation.DeletionTime

	open       []trackedTombstone // ordered by stop bound
	hasPending bool
	pending    mutation.RangeTombstoneMarker // openMarkerToReturn
	arena      []byte
	pool       [][]byte
}

// trackedTombstone is a copy of a range tombstone owned by the tracker.
type trackedTombstone struct {
	start, stop legacyBound
	deletion    mutation.DeletionTime
}

func (tr *tombstoneTracker) reset(partitionDeletion mutation.DeletionTime) {
	tr.partitionDeletion = partitionDeletion
	tr.open = tr.open[:0]
	tr.hasPending = false
	tr.arena = tr.arena[:0]
	tr.pool = tr.pool[:0]
}

func (tr *tombstoneTracker) compare(ka mutation.BoundKind, a mutation.Clustering, kb mutation.BoundKind, b mutation.Clustering) int {
	return mutation.ComparePrefix(tr.t, ka, a, kb, b)
}

// copyBound copies b's prefix into the tracker's storage.
func (tr *tombstoneTracker) copyBound(b legacyBound) legacyBound {
	start := len(tr.pool)
	for _, c := range b.prefix {
		if c == nil {
			tr.pool = append(tr.pool, nil)
			continue
		}
		n := len(tr.arena)
		tr.arena = append(tr.arena, c...)
		tr.pool = append(tr.pool, tr.arena[n:len(tr.arena):len(tr.arena)])
	}
	b.prefix = mutation.Clustering(tr.pool[start:len(tr.pool):len(tr.pool)])
	return b
}

// openBound is the position where marker m opens a range.
func openBound(m *mutation.RangeTombstoneMarker) mutation.BoundKind {
	if m.Kind.IsBoundary() {
		return m.Kind.OpenBound()
	}
	return m.Kind
}

// isShadowed reports whether a is fully deleted by the partition deletion
// or an open tombstone.
func (tr *tombstoneTracker) isShadowed(a *legacyAtom, clusteringSize int) bool {
	ts := a.deletionTimestamp()
	if tr.partitionDeletion.Deletes(ts) {
		return true
	}
	row := a.isRowAtom(clusteringSize)
	for i := range tr.open {
		o := &tr.open[i]
		if !row && tr.compare(o.stop.kind, o.stop.prefix, a.stop.kind, a.stop.prefix) < 0 {
			continue // ends before a ends: does not cover it
		}
		if o.deletion.Deletes(ts) {
			return true
		}
	}
	return false
}

// hasOpeningMarkerBefore reports whether the held-back opening marker
// opens strictly before position (k, p).
func (tr *tombstoneTracker) hasOpeningMarkerBefore(k mutation.BoundKind, p mutation.Clustering) bool {
	return tr.hasPending && tr.compare(openBound(&tr.pending), tr.pending.Clustering, k, p) < 0
}

// hasClosingMarkerBefore reports whether the first open tombstone closes
// strictly before position (k, p).
func (tr *tombstoneTracker) hasClosingMarkerBefore(k mutation.BoundKind, p mutation.Clustering) bool {
	return len(tr.open) > 0 && tr.compare(tr.open[0].stop.kind, tr.open[0].stop.prefix, k, p) < 0
}

// hasOpenTombstones reports whether markers remain to be returned.
func (tr *tombstoneTracker) hasOpenTombstones() bool { return tr.hasPending || len(tr.open) > 0 }

func (tr *tombstoneTracker) popOpening(m *mutation.RangeTombstoneMarker) *mutation.RangeTombstoneMarker {
	*m = tr.pending
	tr.hasPending = false
	return m
}

func (tr *tombstoneTracker) popClosing(m *mutation.RangeTombstoneMarker) *mutation.RangeTombstoneMarker {
	first := tr.open[0]
	tr.open = slices.Delete(tr.open, 0, 1)
	if len(tr.open) == 0 {
		*m = mutation.RangeTombstoneMarker{Kind: first.stop.kind, Clustering: first.stop.prefix,
			Close: first.deletion, Open: mutation.Live}
		return m
	}
	*m = mutation.RangeTombstoneMarker{Kind: mutation.BoundaryKind(first.stop.kind), Clustering: first.stop.prefix,
		Close: first.deletion, Open: tr.open[0].deletion}
	return m
}

// popMarker returns whichever marker is due when the atoms are exhausted.
func (tr *tombstoneTracker) popMarker(m *mutation.RangeTombstoneMarker) *mutation.RangeTombstoneMarker {
	if tr.hasPending {
		return tr.popOpening(m)
	}
	return tr.popClosing(m)
}

// openNew starts tracking a tombstone that is not shadowed and opens at or
// after every pending marker.
func (tr *tombstoneTracker) openNew(a *legacyAtom) {
	if len(tr.open) == 0 {
		// Nothing refers to the storage any more.
		tr.arena = tr.arena[:0]
		tr.pool = tr.pool[:0]
		rt := tr.add(a)
		tr.pending = mutation.RangeTombstoneMarker{Kind: rt.start.kind, Clustering: rt.start.prefix,
			Close: mutation.Live, Open: rt.deletion}
		tr.hasPending = true
		return
	}
	if tr.hasPending {
		if a.deletion.Supersedes(tr.pending.Open) {
			tr.pending.Open = a.deletion
		}
	} else {
		current := tr.open[0].deletion
		if a.deletion.Supersedes(current) {
			start := tr.copyBound(a.start)
			tr.pending = mutation.RangeTombstoneMarker{Kind: mutation.BoundaryKind(start.kind.Invert()),
				Clustering: start.prefix, Close: current, Open: a.deletion}
			tr.hasPending = true
		}
	}
	tr.add(a)
}

// add inserts a copy of a, first removing the open tombstones ending at or
// before it that it supersedes.
func (tr *tombstoneTracker) add(a *legacyAtom) trackedTombstone {
	rt := trackedTombstone{start: tr.copyBound(a.start), stop: tr.copyBound(a.stop), deletion: a.deletion}
	for i := 0; i < len(tr.open); i++ {
		e := &tr.open[i]
		if tr.compare(rt.stop.kind, rt.stop.prefix, e.stop.kind, e.stop.prefix) < 0 {
			break
		}
		if !e.deletion.Supersedes(rt.deletion) {
			tr.open = slices.Delete(tr.open, i, i+1)
			i--
		}
	}
	pos := len(tr.open)
	for i := range tr.open {
		if tr.compare(rt.stop.kind, rt.stop.prefix, tr.open[i].stop.kind, tr.open[i].stop.prefix) < 0 {
			pos = i
			break
		}
	}
	tr.open = slices.Insert(tr.open, pos, rt)
	return rt
}
