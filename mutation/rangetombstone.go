package mutation

import (
	"fmt"

	"github.com/castable-db/castable/schema"
)

// Bound is a start or end of a deleted clustering range: a prefix and
// whether it is inclusive. An empty prefix is the start (with
// InclStartBound) or the end (with InclEndBound) of the partition.
type Bound struct {
	Kind       BoundKind
	Clustering Clustering
}

// Bottom is the start of the partition, Top its end.
var (
	Bottom = Bound{Kind: InclStartBound}
	Top    = Bound{Kind: InclEndBound}
)

// RangeTombstone deletes the clustering range [Start, End] (each bound
// inclusive or exclusive by its kind).
type RangeTombstone struct {
	Start, End Bound
	Deletion   DeletionTime
}

func compareBounds(t *schema.Table, a, b Bound) int {
	return ComparePrefix(t, a.Kind, a.Clustering, b.Kind, b.Clustering)
}

// invertBound returns the bound that meets b exactly (the same prefix with
// the inverted kind): the end just before an inclusive start, and so on.
func invertBound(b Bound) Bound { return Bound{Kind: b.Kind.Invert(), Clustering: b.Clustering} }

// isEmptySlice reports whether [start, end] selects nothing (Slice.isEmpty).
func isEmptySlice(t *schema.Table, start, end Bound) bool {
	return compareBounds(t, end, start) <= 0
}

// RangeTombstoneList is Cassandra's RangeTombstoneList: a sorted list of
// non-overlapping deleted ranges. Adding a range splits and trims existing
// ones so that where two ranges overlap the greater MarkedForDeleteAt wins
// (on equal MarkedForDeleteAt the range already in the list wins), exactly
// as a memtable combines the range deletions of its updates. Adjacent
// ranges are kept apart (they become boundary markers).
type RangeTombstoneList struct {
	t      *schema.Table
	ranges []RangeTombstone
}

// NewRangeTombstoneList returns an empty list for table t.
func NewRangeTombstoneList(t *schema.Table) *RangeTombstoneList {
	return &RangeTombstoneList{t: t}
}

// Reset empties l for reuse with table t.
func (l *RangeTombstoneList) Reset(t *schema.Table) {
	l.t = t
	clear(l.ranges)
	l.ranges = l.ranges[:0]
}

// Ranges returns the list's ranges in clustering order. The slice is owned
// by l and valid until the next change.
func (l *RangeTombstoneList) Ranges() []RangeTombstone { return l.ranges }

// Len returns the number of ranges.
func (l *RangeTombstoneList) Len() int { return len(l.ranges) }

// Add inserts the deletion of [start, end].
func (l *RangeTombstoneList) Add(rt RangeTombstone) {
	n := len(l.ranges)
	if n == 0 || compareBounds(l.t, l.ranges[n-1].End, rt.Start) <= 0 {
		if !isEmptySlice(l.t, rt.Start, rt.End) {
			l.ranges = append(l.ranges, rt)
		}
		return
	}
	// The first range whose end is after start (ends are sorted).
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if compareBounds(l.t, l.ranges[mid].End, rt.Start) <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	l.insertFrom(lo, rt.Start, rt.End, rt.Deletion)
}

func (l *RangeTombstoneList) insertAt(i int, rt RangeTombstone) {
	l.ranges = append(l.ranges, RangeTombstone{})
	copy(l.ranges[i+1:], l.ranges[i:])
	l.ranges[i] = rt
}

// insertFrom merges [start, end] into the list from index i, where
// ranges[i-1].End <= start < ranges[i].End (Cassandra's insertFrom).
func (l *RangeTombstoneList) insertFrom(i int, start, end Bound, d DeletionTime) {
	t := l.t
	for i < len(l.ranges) {
		if isEmptySlice(t, start, end) {
			return
		}
		cur := l.ranges[i]
		if d.MarkedForDeleteAt > cur.Deletion.MarkedForDeleteAt {
			// The new range wins where they overlap. Keep the part of the
			// current range before start.
			if compareBounds(t, cur.Start, start) < 0 {
				newEnd := invertBound(start)
				if !isEmptySlice(t, cur.Start, newEnd) {
					l.insertAt(i, RangeTombstone{Start: cur.Start, End: newEnd, Deletion: cur.Deletion})
					i++
					l.ranges[i].Start = start
					cur = l.ranges[i]
				}
			}
			// Now start <= cur.Start.
			if compareBounds(t, end, cur.Start) < 0 {
				// Entirely before the current range.
				l.insertAt(i, RangeTombstone{Start: start, End: end, Deletion: d})
				return
			}
			if compareBounds(t, cur.End, end) <= 0 {
				// The current range is covered up to its end.
				if i == len(l.ranges)-1 || compareBounds(t, end, l.ranges[i+1].Start) <= 0 {
					l.ranges[i] = RangeTombstone{Start: start, End: end, Deletion: d}
					return
				}
				next := l.ranges[i+1].Start
				l.ranges[i] = RangeTombstone{Start: start, End: invertBound(next), Deletion: d}
				start = next
				i++
				continue
			}
			// The new range ends inside the current one.
			l.insertAt(i, RangeTombstone{Start: start, End: end, Deletion: d})
			i++
			newStart := invertBound(end)
			if !isEmptySlice(t, newStart, l.ranges[i].End) {
				l.ranges[i].Start = newStart
			}
			return
		}
		// The current range wins where they overlap.
		if compareBounds(t, start, cur.Start) < 0 {
			if compareBounds(t, end, cur.Start) <= 0 {
				l.insertAt(i, RangeTombstone{Start: start, End: end, Deletion: d})
				return
			}
			newEnd := invertBound(cur.Start)
			if !isEmptySlice(t, start, newEnd) {
				l.insertAt(i, RangeTombstone{Start: start, End: newEnd, Deletion: d})
				i++
			}
		}
		if compareBounds(t, end, l.ranges[i].End) <= 0 {
			return
		}
		start = invertBound(l.ranges[i].End)
		i++
	}
	l.ranges = append(l.ranges, RangeTombstone{Start: start, End: end, Deletion: d})
}

// AppendMarkers appends to dst the marker sequence for the list's ranges,
// as Cassandra emits it when iterating a memtable partition: a start bound
// for each range, an end bound after it, and a boundary marker instead of an
// end and a start that meet at the same position. Ranges whose deletion is
// superseded by skip (the partition deletion; pass Live to keep all) are
// left out, as the flush does.
func (l *RangeTombstoneList) AppendMarkers(dst []RangeTombstoneMarker, skip DeletionTime) []RangeTombstoneMarker {
	return AppendMarkers(l.t, dst, l.ranges, skip)
}

// AppendMarkers converts non-overlapping, sorted range tombstones into the
// marker sequence (see RangeTombstoneList.AppendMarkers).
func AppendMarkers(t *schema.Table, dst []RangeTombstoneMarker, ranges []RangeTombstone, skip DeletionTime) []RangeTombstoneMarker {
	open := -1
	for i := range ranges {
		rt := &ranges[i]
		if !skip.IsLive() && skip.Supersedes(rt.Deletion) {
			continue
		}
		if open >= 0 {
			prev := &ranges[open]
			if compareBounds(t, prev.End, rt.Start) == 0 {
				dst = append(dst, RangeTombstoneMarker{
					Kind:       BoundaryKind(prev.End.Kind),
					Clustering: prev.End.Clustering,
					Close:      prev.Deletion,
					Open:       rt.Deletion,
				})
				open = i
				continue
			}
			dst = append(dst, endMarker(prev))
		}
		dst = append(dst, RangeTombstoneMarker{Kind: rt.Start.Kind, Clustering: rt.Start.Clustering, Close: Live, Open: rt.Deletion})
		open = i
	}
	if open >= 0 {
		dst = append(dst, endMarker(&ranges[open]))
	}
	return dst
}

func endMarker(rt *RangeTombstone) RangeTombstoneMarker {
	return RangeTombstoneMarker{Kind: rt.End.Kind, Clustering: rt.End.Clustering, Close: rt.Deletion, Open: Live}
}

// AppendRangeTombstones converts a marker sequence into the ranges it
// delimits and appends them to dst. Markers must alternate: a start bound
// opens a range, an end bound closes it, a boundary does both.
func AppendRangeTombstones(dst []RangeTombstone, markers []RangeTombstoneMarker) ([]RangeTombstone, error) {
	var open *RangeTombstoneMarker
	var openBound Bound
	for i := range markers {
		m := &markers[i]
		if !m.Kind.IsMarkerKind() {
			return dst, fmt.Errorf("marker %d: kind %v is not a bound or boundary", i, m.Kind)
		}
		if m.Kind.IsEnd() {
			if open == nil {
				return dst, fmt.Errorf("marker %d (%v): closes a range that is not open", i, m.Kind)
			}
			end := Bound{Kind: m.Kind, Clustering: m.Clustering}
			if m.Kind.IsBoundary() {
				end.Kind = m.Kind.CloseBound()
			}
			dst = append(dst, RangeTombstone{Start: openBound, End: end, Deletion: open.Open})
			open = nil
		}
		if m.Kind.IsStart() {
			if open != nil {
				return dst, fmt.Errorf("marker %d (%v): opens a range while another is open", i, m.Kind)
			}
			open = m
			openBound = Bound{Kind: m.Kind, Clustering: m.Clustering}
			if m.Kind.IsBoundary() {
				openBound.Kind = m.Kind.OpenBound()
			}
		}
	}
	if open != nil {
		return dst, fmt.Errorf("the range opened by marker %v is never closed", open.Kind)
	}
	return dst, nil
}
