package mutation

// Supersedes reports whether d wins over o: a greater MarkedForDeleteAt, or
// an equal one with a greater LocalDeletionTime (DeletionTime.supersedes).
func (d DeletionTime) Supersedes(o DeletionTime) bool {
	return d.MarkedForDeleteAt > o.MarkedForDeleteAt ||
		(d.MarkedForDeleteAt == o.MarkedForDeleteAt && d.LocalDeletionTime > o.LocalDeletionTime)
}

// Deletes reports whether d deletes data written at timestamp ts
// (ts <= MarkedForDeleteAt). A live deletion deletes nothing that has a
// timestamp.
func (d DeletionTime) Deletes(ts int64) bool {
	return !d.IsLive() && ts <= d.MarkedForDeleteAt
}

// DeletesCell reports whether d deletes c.
func (d DeletionTime) DeletesCell(c *Cell) bool { return d.Deletes(c.Timestamp) }

// MaxDeletion returns the one of a and b that supersedes the other (a on a
// tie).
func MaxDeletion(a, b DeletionTime) DeletionTime {
	if b.Supersedes(a) {
		return b
	}
	return a
}

// IsExpired reports whether l is the "expired liveness" form materialized
// views write (TTL == ExpiredLivenessTTL).
func (l LivenessInfo) IsExpired() bool { return l.TTL == ExpiredLivenessTTL }

// Supersedes reports whether l wins over o when two rows merge, as
// Cassandra 3.11's LivenessInfo.supersedes: the greater timestamp; on a tie
// an expired liveness wins over a non-expired one, then between two of the
// same expiring-ness the later expiration time, and otherwise the expiring
// one.
func (l LivenessInfo) Supersedes(o LivenessInfo) bool {
	if l.Timestamp != o.Timestamp {
		return l.Timestamp > o.Timestamp
	}
	if l.IsExpired() != o.IsExpired() {
		return l.IsExpired()
	}
	if l.IsExpiring() == o.IsExpiring() {
		return l.localExpirationTime() > o.localExpirationTime()
	}
	return l.IsExpiring()
}

func (l LivenessInfo) localExpirationTime() int64 {
	if !l.IsExpiring() {
		return NoDeletionTime
	}
	return l.LocalExpirationTime
}

// IsLive reports whether the liveness makes its row live at nowInSec (s).
func (l LivenessInfo) IsLive(nowInSec int64) bool {
	if l.IsEmpty() {
		return false
	}
	return !l.IsExpiring() || nowInSec < l.LocalExpirationTime
}

// IsLiveAt reports whether c is live at nowInSec (s): not a tombstone and
// not expired (AbstractCell.isLive).
func (c *Cell) IsLiveAt(nowInSec int64) bool {
	return c.LocalDeletionTime == NoDeletionTime || (c.TTL != NoTTL && nowInSec < c.LocalDeletionTime)
}
