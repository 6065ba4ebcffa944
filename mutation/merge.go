package mutation

import (
	"fmt"

	"github.com/castable-db/castable/schema"
)

// Merge applies src to dst as a Cassandra 3.11 memtable applies an update
// to the partition it holds (AtomicBTreePartition.addAllWithSizeDelta):
//
//   - partition deletion: src's replaces dst's when it supersedes it;
//   - static row and rows with the same clustering merge with MergeRows;
//     rows only in src are inserted in clustering order;
//   - range tombstones of src are added to dst's with RangeTombstoneList
//     (newer deletion wins where ranges overlap; dst wins on equal
//     timestamps) and the result is stored as the marker sequence.
//
// Merge keeps everything else: data shadowed by a partition deletion or a
// range tombstone stays until PurgeShadowed, as in a memtable. dst and src
// must be the same partition (same key); dst may share memory with src
// afterwards (values are not copied). nowInSec is the merge time used by
// Reconcile.
func Merge(t *schema.Table, dst, src *Partition, nowInSec int64) error {
	if src.Deletion.Supersedes(dst.Deletion) {
		dst.Deletion = src.Deletion
	}
	if !src.Static.IsEmpty() {
		if dst.Static.IsEmpty() {
			dst.Static = src.Static
		} else if err := MergeRows(&dst.Static, &src.Static, nowInSec); err != nil {
			return fmt.Errorf("static row: %w", err)
		}
	}
	if err := mergeRowSlices(t, dst, src.Rows, nowInSec); err != nil {
		return err
	}
	if len(src.Markers) > 0 {
		if len(dst.Markers) == 0 {
			dst.Markers = append(dst.Markers[:0:0], src.Markers...)
			return nil
		}
		l := NewRangeTombstoneList(t)
		var err error
		if l.ranges, err = AppendRangeTombstones(l.ranges, dst.Markers); err != nil {
			return fmt.Errorf("existing markers: %w", err)
		}
		add, err := AppendRangeTombstones(nil, src.Markers)
		if err != nil {
			return fmt.Errorf("update markers: %w", err)
		}
		for _, rt := range add {
			l.Add(rt)
		}
		dst.Markers = l.AppendMarkers(dst.Markers[:0:0], Live)
	}
	return nil
}

func mergeRowSlices(t *schema.Table, dst *Partition, src []Row, nowInSec int64) error {
	if len(src) == 0 {
		return nil
	}
	if len(dst.Rows) == 0 {
		dst.Rows = append(dst.Rows[:0:0], src...)
		return nil
	}
	// Fast path: src sorts entirely after dst (appending in order).
	if CompareClusterings(t, dst.Rows[len(dst.Rows)-1].Clustering, src[0].Clustering) < 0 {
		dst.Rows = append(dst.Rows, src...)
		return nil
	}
	// Count inserts to see whether the merge can happen in place.
	inserts := 0
	for i, j := 0, 0; j < len(src); {
		if i == len(dst.Rows) {
			inserts += len(src) - j
			break
		}
		switch c := CompareClusterings(t, dst.Rows[i].Clustering, src[j].Clustering); {
		case c < 0:
			i++
		case c > 0:
			inserts++
			j++
		default:
			i++
			j++
		}
	}
	if inserts == 0 {
		for i, j := 0, 0; j < len(src); i++ {
			if CompareClusterings(t, dst.Rows[i].Clustering, src[j].Clustering) == 0 {
				if err := MergeRows(&dst.Rows[i], &src[j], nowInSec); err != nil {
					return rowError(t, &src[j], err)
				}
				j++
			}
		}
		return nil
	}
	out := make([]Row, 0, len(dst.Rows)+inserts)
	i, j := 0, 0
	for i < len(dst.Rows) || j < len(src) {
		switch {
		case j == len(src):
			out = append(out, dst.Rows[i:]...)
			i = len(dst.Rows)
			continue
		case i == len(dst.Rows):
			out = append(out, src[j:]...)
			j = len(src)
			continue
		}
		switch c := CompareClusterings(t, dst.Rows[i].Clustering, src[j].Clustering); {
		case c < 0:
			out = append(out, dst.Rows[i])
			i++
		case c > 0:
			out = append(out, src[j])
			j++
		default:
			r := dst.Rows[i]
			if err := MergeRows(&r, &src[j], nowInSec); err != nil {
				return rowError(t, &src[j], err)
			}
			out = append(out, r)
			i++
			j++
		}
	}
	dst.Rows = out
	return nil
}

func rowError(t *schema.Table, r *Row, err error) error {
	return fmt.Errorf("row %s: %w", FormatClustering(t, r.Clustering), err)
}

// MergeRows merges the update src into the existing row dst as Cassandra
// 3.11's Rows.merge does:
//
//   - liveness: the one that supersedes (LivenessInfo.Supersedes), src on a
//     tie;
//   - row deletion: the one that supersedes, src on a tie; a liveness it
//     deletes becomes empty, and a shadowable deletion older than the
//     liveness is dropped;
//   - cells: per column (and path), cells deleted by the row deletion are
//     dropped from each side, then the rest reconcile (Reconcile);
//   - complex deletions: the greater of the two is kept only if it
//     supersedes the row deletion; it then also deletes older elements.
//
// The ScyllaDB-style ShadowableDeletion merges the same way (the greater
// wins) and is dropped once the liveness is newer; it deletes older data
// like a regular deletion. dst's cell slices are replaced, not modified in
// place, when both rows have cells.
func MergeRows(dst, src *Row, nowInSec int64) error {
	liveness := src.Liveness
	if dst.Liveness.Supersedes(src.Liveness) {
		liveness = dst.Liveness
	}
	del, shadowable := src.Deletion, src.DeletionShadowable
	if dst.Deletion.Supersedes(src.Deletion) {
		del, shadowable = dst.Deletion, dst.DeletionShadowable
	}
	if del.Deletes(liveness.Timestamp) {
		liveness = EmptyLiveness
	} else if shadowable && liveness.Timestamp > del.MarkedForDeleteAt {
		del, shadowable = Live, false
	}
	scylla := MaxDeletion(dst.ShadowableDeletion, src.ShadowableDeletion)
	if scylla.Deletes(liveness.Timestamp) {
		liveness = EmptyLiveness
	} else if !scylla.IsLive() && liveness.Timestamp > scylla.MarkedForDeleteAt {
		scylla = Live
	}
	if del.IsLive() {
		shadowable = false
	}
	dst.Liveness, dst.Deletion, dst.DeletionShadowable, dst.ShadowableDeletion = liveness, del, shadowable, scylla
	effective := MaxDeletion(del, scylla)

	if len(src.Cells) == 0 && len(src.ComplexDeletions) == 0 && effective.IsLive() {
		return nil
	}
	cells := make([]Cell, 0, len(dst.Cells)+len(src.Cells))
	var cds []ComplexDeletion
	a, b := dst.Cells, src.Cells
	acd, bcd := dst.ComplexDeletions, src.ComplexDeletions
	for len(a) > 0 || len(b) > 0 || len(acd) > 0 || len(bcd) > 0 {
		col := nextColumn(a, b, acd, bcd)
		aj := columnSpan(a, col)
		bj := columnSpan(b, col)
		colDel := effective
		if col.Type.IsComplex() {
			cd := Live
			if len(acd) > 0 && compareColumns(acd[0].Column, col) == 0 {
				cd = acd[0].Deletion
				acd = acd[1:]
			}
			if len(bcd) > 0 && compareColumns(bcd[0].Column, col) == 0 {
				cd = MaxDeletion(cd, bcd[0].Deletion)
				bcd = bcd[1:]
			}
			if cd.Supersedes(effective) {
				cds = append(cds, ComplexDeletion{Column: col, Deletion: cd})
				colDel = cd
			}
		} else if aj == 0 && bj == 0 {
			// Only possible when the heads are out of canonical order.
			return fmt.Errorf("column %s: cells or complex deletions not in canonical order", col.Name)
		}
		var err error
		if cells, err = mergeCellRuns(cells, a[:aj], b[:bj], colDel, nowInSec, col); err != nil {
			return err
		}
		a, b = a[aj:], b[bj:]
	}
	dst.Cells, dst.ComplexDeletions = cells, cds
	return nil
}

// nextColumn returns the smallest column among the heads of the four
// canonical-order sequences.
func nextColumn(a, b []Cell, acd, bcd []ComplexDeletion) *schema.Column {
	var col *schema.Column
	pick := func(c *schema.Column) {
		if col == nil || compareColumns(c, col) < 0 {
			col = c
		}
	}
	if len(a) > 0 {
		pick(a[0].Column)
	}
	if len(b) > 0 {
		pick(b[0].Column)
	}
	if len(acd) > 0 {
		pick(acd[0].Column)
	}
	if len(bcd) > 0 {
		pick(bcd[0].Column)
	}
	return col
}

// columnSpan returns the length of the run of cells of col at the head of
// cells.
func columnSpan(cells []Cell, col *schema.Column) int {
	j := 0
	for j < len(cells) && compareColumns(cells[j].Column, col) == 0 {
		j++
	}
	return j
}

// mergeCellRuns merges two path-ordered runs of cells of one column,
// dropping cells deleted by del before reconciling (Cells.reconcile).
func mergeCellRuns(dst, a, b []Cell, del DeletionTime, nowInSec int64, col *schema.Column) ([]Cell, error) {
	for len(a) > 0 || len(b) > 0 {
		var c int
		switch {
		case len(a) == 0:
			c = 1
		case len(b) == 0:
			c = -1
		default:
			c = comparePaths(col, a[0].Path, b[0].Path)
		}
		var x, y *Cell
		if c <= 0 {
			x, a = &a[0], a[1:]
		}
		if c >= 0 {
			y, b = &b[0], b[1:]
		}
		if x != nil && del.DeletesCell(x) {
			x = nil
		}
		if y != nil && del.DeletesCell(y) {
			y = nil
		}
		switch {
		case x == nil && y == nil:
		case x == nil:
			dst = append(dst, *y)
		case y == nil:
			dst = append(dst, *x)
		default:
			r, err := Reconcile(x, y, nowInSec)
			if err != nil {
				return dst, fmt.Errorf("column %s: %w", col.Name, err)
			}
			dst = append(dst, r)
		}
	}
	return dst, nil
}
