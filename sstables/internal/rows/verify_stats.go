package rows

import (
	"strconv"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// StatsBounds checks, during Verify, that every timestamp, local deletion
// time and TTL the data holds lies within the bounds Statistics.db records
// (its Stats component). Cassandra's collector takes them from exactly the
// data written (mc-format.md §5.4: deletions, livenesses, cells, markers),
// so the data never falls outside. Data.db itself is covered by its checksums
// and digest, checked before; what this catches is damage to Statistics.db:
// to the bounds, and to the serialization header's minima that every
// timestamp, deletion time and TTL is delta-encoded against (a damaged
// minimum shifts every decoded value, silently, and out of the bounds).
//
// A local deletion time outside the bounds is a Warning, not an error:
// ScyllaDB writes mc files whose bounds miss a tombstone of Data.db, and
// neither Cassandra's verifier nor ScyllaDB's compares the data with the
// bounds (they read such a file). Timestamps and TTLs stay errors.
type StatsBounds struct {
	s      *sstables.Stats
	path   string // Statistics.db
	warn   sstables.WarnFunc
	warned bool // the first local deletion time out of bounds was reported
}

// NewStatsBounds checks against s, read from the Statistics.db at path;
// warn receives the warning about a local deletion time out of bounds.
func NewStatsBounds(s *sstables.Stats, path string, warn sstables.WarnFunc) *StatsBounds {
	return &StatsBounds{s: s, path: path, warn: warn}
}

func (b *StatsBounds) fail(what string, v, lo, hi int64, partitionOffset int64) error {
	return sstables.Corruptf(b.path, string(sstables.ComponentStatistics), -1,
		"the partition at Data.db offset %d holds %s %d, outside the Stats bounds [%d, %d] (damaged bounds or serialization header minima)",
		partitionOffset, what, v, lo, hi)
}

func (b *StatsBounds) timestamp(ts, at int64) error {
	if ts < b.s.MinTimestamp || ts > b.s.MaxTimestamp {
		return b.fail("timestamp", ts, b.s.MinTimestamp, b.s.MaxTimestamp, at)
	}
	return nil
}

func (b *StatsBounds) localDeletionTime(ldt int64, at int64) error {
	if (ldt < b.s.MinLocalDeletionTime || ldt > b.s.MaxLocalDeletionTime) && !b.warned {
		b.warned = true
		b.warn.Warnf(b.path, sstables.ComponentStatistics, -1,
			"the partition at Data.db offset %d holds local deletion time %s, outside the Stats bounds [%s, %s] (as in some files ScyllaDB wrote, or a damaged bound or serialization header minimum): Cassandra and ScyllaDB read it and their verifiers do not compare the data with these bounds, but compaction trusts them (whole-SSTable expiry, droppable tombstone estimates)",
			at, ldtString(ldt), ldtString(b.s.MinLocalDeletionTime), ldtString(b.s.MaxLocalDeletionTime))
	}
	return nil
}

// ldtString formats a local deletion time, "none" for live data's.
func ldtString(ldt int64) string {
	if ldt == mutation.NoDeletionTime {
		return "none"
	}
	return strconv.FormatInt(ldt, 10)
}

func (b *StatsBounds) ttl(ttl int32, at int64) error {
	if ttl < b.s.MinTTL || ttl > b.s.MaxTTL {
		return b.fail("TTL", int64(ttl), int64(b.s.MinTTL), int64(b.s.MaxTTL), at)
	}
	return nil
}

// Deletion checks a partition deletion of the partition at Data.db offset at.
func (b *StatsBounds) Deletion(d mutation.DeletionTime, at int64) error {
	if d.IsLive() {
		return nil
	}
	if err := b.timestamp(d.MarkedForDeleteAt, at); err != nil {
		return err
	}
	return b.localDeletionTime(d.LocalDeletionTime, at)
}

// row checks a static or clustering row.
// Row checks a row of the partition at Data.db offset at.
func (b *StatsBounds) Row(r *mutation.Row, at int64) error {
	if l := r.Liveness; !l.IsEmpty() {
		if err := b.timestamp(l.Timestamp, at); err != nil {
			return err
		}
		if err := b.ttl(l.TTL, at); err != nil {
			return err
		}
		if err := b.localDeletionTime(l.LocalExpirationTime, at); err != nil {
			return err
		}
	}
	if err := b.Deletion(r.Deletion, at); err != nil {
		return err
	}
	if err := b.Deletion(r.ShadowableDeletion, at); err != nil {
		return err
	}
	for i := range r.ComplexDeletions {
		if err := b.Deletion(r.ComplexDeletions[i].Deletion, at); err != nil {
			return err
		}
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		if err := b.timestamp(c.Timestamp, at); err != nil {
			return err
		}
		if err := b.ttl(c.TTL, at); err != nil {
			return err
		}
		if err := b.localDeletionTime(c.LocalDeletionTime, at); err != nil {
			return err
		}
	}
	return nil
}

// marker checks a range tombstone bound or boundary.
// Marker checks a range tombstone marker of the partition at Data.db offset at.
func (b *StatsBounds) Marker(m *mutation.RangeTombstoneMarker, at int64) error {
	if err := b.Deletion(m.Close, at); err != nil {
		return err
	}
	return b.Deletion(m.Open, at)
}
