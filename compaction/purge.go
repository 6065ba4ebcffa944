package compaction

import (
	"math"

	"github.com/castable-db/castable/mutation"
)

// Purger removes what compaction may drop, as Cassandra's compaction does
// after merging (CompactionIterator's PurgeFunction with the controller's
// gcBefore and its overlap check, and the purge methods of rows and cells):
//
//   - a deletion (partition, row, range, complex, cell tombstone) is
//     purgeable when its local deletion time is before GCBefore and its
//     timestamp below the key's MaxPurgeable bound (no SSTable outside the
//     compaction may hold older data for the key), and when tombstones may
//     be purged at all (OnlyRepaired and an unrepaired compaction forbid
//     it);
//   - an expiring cell that has expired at NowInSec becomes a tombstone
//     written at its timestamp, with the local deletion time its write
//     time (expiration − TTL), and is then purged like one;
//   - an expired primary-key liveness is dropped when purgeable;
//   - a boundary marker whose close and open deletions are both purgeable
//     disappears, one of which is purgeable becomes the bound of the other;
//   - rows and static rows left with nothing are dropped, and a partition
//     left with nothing is not written.
type Purger struct {
	// NowInSec is the compaction time (s since the epoch).
	NowInSec int64
	// GCBefore is NowInSec − gc_grace_seconds: deletions older than this
	// may go.
	GCBefore int64
	// Disabled keeps every tombstone (castable compact --no-purge); the
	// merge still drops what deletions shadow.
	Disabled bool
	// NoTombstonePurge says tombstones must stay although they are old
	// (only_purge_repaired_tombstones on a compaction of unrepaired
	// SSTables); expired cells still become tombstones.
	NoTombstonePurge bool

	// maxPurgeable is the current partition's bound: tombstones at or
	// after it may shadow data outside the compaction.
	maxPurgeable int64
	// copyAll makes nextPurged copy and purge every row, not only those
	// keepsAll cannot vouch for (the reference for tests).
	copyAll bool
}

// StartPartition sets the current partition's purge bound: timestamps
// below maxPurgeable may be purged (math.MaxInt64 when nothing outside the
// compaction can hold the key).
func (p *Purger) StartPartition(maxPurgeable int64) { p.maxPurgeable = maxPurgeable }

// shouldPurge is Cassandra's DeletionPurger.shouldPurge(timestamp,
// localDeletionTime).
func (p *Purger) shouldPurge(ts, ldt int64) bool {
	if p.Disabled || p.NoTombstonePurge {
		return false
	}
	return ldt < p.GCBefore && ts < p.maxPurgeable
}

func (p *Purger) shouldPurgeDeletion(d mutation.DeletionTime) bool {
	return !d.IsLive() && p.shouldPurge(d.MarkedForDeleteAt, d.LocalDeletionTime)
}

// PartitionDeletion returns d, or Live when it is purgeable.
func (p *Purger) PartitionDeletion(d mutation.DeletionTime) mutation.DeletionTime {
	if p.shouldPurgeDeletion(d) {
		return mutation.Live
	}
	return d
}

// Row purges r in place (its Cells and ComplexDeletions slices may be
// rewritten) and reports whether anything is left.
func (p *Purger) Row(r *mutation.Row) bool {
	if p.Disabled {
		return !r.IsEmpty()
	}
	l := r.Liveness
	if !l.IsEmpty() && !l.IsLive(p.NowInSec) && p.shouldPurge(l.Timestamp, l.LocalExpirationTime) {
		r.Liveness = mutation.EmptyLiveness
	}
	if p.shouldPurgeDeletion(r.Deletion) {
		r.Deletion, r.DeletionShadowable = mutation.Live, false
	}
	if p.shouldPurgeDeletion(r.ShadowableDeletion) {
		r.ShadowableDeletion = mutation.Live
	}
	if len(r.ComplexDeletions) > 0 {
		cds := r.ComplexDeletions[:0]
		for _, cd := range r.ComplexDeletions {
			if !cd.Deletion.IsLive() && !p.shouldPurgeDeletion(cd.Deletion) {
				cds = append(cds, cd)
			}
		}
		if len(cds) == 0 {
			cds = nil
		}
		r.ComplexDeletions = cds
	}
	cells := r.Cells[:0]
	for _, c := range r.Cells {
		if c.IsLiveAt(p.NowInSec) {
			cells = append(cells, c)
			continue
		}
		if p.shouldPurge(c.Timestamp, c.LocalDeletionTime) {
			continue
		}
		if c.IsExpiring() {
			// Expired: a tombstone from the write time on, purged or kept
			// as one.
			ldt := c.LocalDeletionTime - int64(c.TTL)
			if p.shouldPurge(c.Timestamp, ldt) {
				continue
			}
			c = mutation.Cell{Column: c.Column, Path: c.Path, Timestamp: c.Timestamp, TTL: mutation.NoTTL, LocalDeletionTime: ldt, Value: c.Value[:0:0]}
		}
		cells = append(cells, c)
	}
	r.Cells = cells
	return !r.IsEmpty()
}

// keepsAll reports, without looking at the purge bounds, that Row would
// leave r exactly as it is: purging is off, or r holds no deletion of any
// kind and nothing expired (every liveness and cell live at NowInSec). It
// may say false of a row Row leaves alone; nextPurged then copies the row
// and purges it as it did before.
func (p *Purger) keepsAll(r *mutation.Row) bool {
	if p.Disabled {
		return true
	}
	if !r.Deletion.IsLive() || !r.ShadowableDeletion.IsLive() || len(r.ComplexDeletions) != 0 {
		return false
	}
	if l := r.Liveness; !l.IsEmpty() && !l.IsLive(p.NowInSec) {
		return false
	}
	for i := range r.Cells {
		if !r.Cells[i].IsLiveAt(p.NowInSec) {
			return false
		}
	}
	return true
}

// Marker purges a range tombstone marker: nil when it goes, the marker
// itself or the bound it turns into otherwise.
func (p *Purger) Marker(m *mutation.RangeTombstoneMarker) *mutation.RangeTombstoneMarker {
	if p.Disabled {
		return m
	}
	if m.Kind.IsBoundary() {
		pc, po := p.shouldPurgeDeletion(m.Close), p.shouldPurgeDeletion(m.Open)
		switch {
		case pc && po:
			return nil
		case pc:
			m.Kind, m.Close = m.Kind.OpenBound(), mutation.Live
		case po:
			m.Kind, m.Open = m.Kind.CloseBound(), mutation.Live
		}
		return m
	}
	d := m.Open
	if m.Kind.IsEnd() {
		d = m.Close
	}
	if p.shouldPurgeDeletion(d) {
		return nil
	}
	return m
}

// NoOverlap is the purge bound of a partition no SSTable outside the
// compaction can hold.
const NoOverlap int64 = math.MaxInt64
