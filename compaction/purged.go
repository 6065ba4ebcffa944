package compaction

import (
	"math"
	"slices"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/table"
)

// LivePurger returns the purger that leaves only live data at nowInSec:
// every deletion goes whatever its age (gc grace 0, and deletions dated
// after nowInSec too) and every cell expired at nowInSec — right when the
// SSTables merged are the whole table, since a tombstone then shadows
// nothing the merge has not already dropped. castable dump of several
// SSTables shows the merged table through it.
func LivePurger(nowInSec int64) *Purger {
	p := &Purger{NowInSec: nowInSec, GCBefore: math.MaxInt64}
	p.StartPartition(NoOverlap)
	return p
}

// PurgedScanner is a merged scan with a purge applied, streamed row by
// row: what a compaction writes, without writing it. Partitions the purge
// leaves empty are skipped. Every partition is purged with the bound
// NoOverlap (the SSTables merged are the whole table).
type PurgedScanner struct {
	sc *table.Scanner
	p  *Purger

	part        mutation.Partition
	row         mutation.Row
	marker      mutation.RangeTombstoneMarker
	first       *mutation.Row
	firstMarker *mutation.RangeTombstoneMarker
	peeked      bool
}

// NewPurgedScanner purges sc's merged stream with p. Closing it closes sc.
func NewPurgedScanner(sc *table.Scanner, p *Purger) *PurgedScanner {
	return &PurgedScanner{sc: sc, p: p}
}

// NextPartition advances to the next partition that has something left
// after the purge and returns its header (valid until the next call);
// io.EOF after the last.
func (s *PurgedScanner) NextPartition() (*mutation.Partition, error) {
	for {
		head, err := s.sc.NextPartition()
		if err != nil {
			return nil, err
		}
		s.p.StartPartition(NoOverlap)
		s.part = *head
		s.part.Deletion = s.p.PartitionDeletion(head.Deletion)
		static := head.Static
		static.Cells = slices.Clone(head.Static.Cells)
		static.ComplexDeletions = slices.Clone(head.Static.ComplexDeletions)
		if !static.IsEmpty() && !s.p.Row(&static) {
			static = mutation.NewRow(nil)
		}
		s.part.Static = static
		s.first, s.firstMarker, err = nextPurged(s.sc, s.p, &s.row, &s.marker)
		if err != nil {
			return nil, err
		}
		s.peeked = true
		if s.part.Deletion.IsLive() && s.part.Static.IsEmpty() && s.first == nil && s.firstMarker == nil {
			continue
		}
		return &s.part, nil
	}
}

// Next returns the partition's next row or marker left by the purge, nil,
// nil at its end (valid until the next call).
func (s *PurgedScanner) Next() (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
	if s.peeked {
		s.peeked = false
		return s.first, s.firstMarker, nil
	}
	return nextPurged(s.sc, s.p, &s.row, &s.marker)
}

// Position is -1: a merged partition has no one Data.db offset.
func (s *PurgedScanner) Position() int64 { return -1 }

// Close closes the merged scan.
func (s *PurgedScanner) Close() error { return s.sc.Close() }

// PurgePartition purges a whole partition (a point lookup's, Set.Get) in
// place with p and returns it, or nil when nothing is left.
func PurgePartition(part *mutation.Partition, p *Purger) *mutation.Partition {
	p.StartPartition(NoOverlap)
	part.Deletion = p.PartitionDeletion(part.Deletion)
	if !part.Static.IsEmpty() && !p.Row(&part.Static) {
		part.Static = mutation.NewRow(nil)
	}
	rows := part.Rows[:0]
	for i := range part.Rows {
		if p.Row(&part.Rows[i]) {
			rows = append(rows, part.Rows[i])
		}
	}
	part.Rows = rows
	markers := part.Markers[:0]
	for i := range part.Markers {
		if m := p.Marker(&part.Markers[i]); m != nil {
			markers = append(markers, *m)
		}
	}
	part.Markers = markers
	if part.Deletion.IsLive() && part.Static.IsEmpty() && len(part.Rows) == 0 && len(part.Markers) == 0 {
		return nil
	}
	return part
}
