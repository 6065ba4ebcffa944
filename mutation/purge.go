package mutation

import (
	"fmt"

	"github.com/castable-db/castable/schema"
)

// PurgeShadowed removes from p what Cassandra 3.11 does not write when it
// flushes a memtable partition (AbstractBTreePartition's iterator with
// RowAndDeletionMergeIterator and Row.filter, plus the clean-up Rows.merge
// already did when the row was updated):
//
//   - range tombstones superseded by the partition deletion;
//   - in every row, the data its own deletion deletes: a liveness at or
//     before the row deletion, cells at or before it, complex deletions that
//     do not supersede it and collection elements at or before the greater
//     of the two; a shadowable row deletion older than the liveness;
//   - in every row covered by a deletion (the partition deletion, or the
//     open range tombstone) that supersedes the row's own deletion: the row
//     deletion itself, and the liveness, cells and complex deletions that
//     deletion deletes;
//   - rows left empty by the above (rows fully shadowed by a range
//     tombstone or the partition deletion).
//
// Nothing is purged by time: expired cells and old tombstones stay. The
// static row is filtered by the partition deletion only. Rows and markers
// must be in clustering order.
func PurgeShadowed(t *schema.Table, p *Partition) error {
	pd := p.Deletion
	purgeRow(&p.Static, pd)

	var ranges []RangeTombstone
	if len(p.Markers) > 0 {
		var err error
		ranges, err = AppendRangeTombstones(nil, p.Markers)
		if err != nil {
			return fmt.Errorf("partition %s: %w", FormatKey(t, p.Key), err)
		}
		if !pd.IsLive() {
			kept := ranges[:0]
			for _, rt := range ranges {
				if !pd.Supersedes(rt.Deletion) {
					kept = append(kept, rt)
				}
			}
			ranges = kept
		}
	}

	rows := p.Rows[:0]
	ri := 0
	for i := range p.Rows {
		r := &p.Rows[i]
		active := pd
		for ri < len(ranges) && ComparePrefix(t, ranges[ri].End.Kind, ranges[ri].End.Clustering, ClusteringKind, r.Clustering) < 0 {
			ri++
		}
		if ri < len(ranges) && ComparePrefix(t, ranges[ri].Start.Kind, ranges[ri].Start.Clustering, ClusteringKind, r.Clustering) < 0 {
			active = ranges[ri].Deletion
		}
		purgeRow(r, active)
		if !r.IsEmpty() {
			rows = append(rows, *r)
		}
	}
	clear(p.Rows[len(rows):])
	p.Rows = rows
	if len(p.Markers) > 0 {
		p.Markers = AppendMarkers(t, p.Markers[:0], ranges, Live)
	}
	return nil
}

// purgeRow applies the row's own deletions, then the covering deletion
// active (see PurgeShadowed).
func purgeRow(r *Row, active DeletionTime) {
	// The row's own deletions (Rows.merge).
	if !r.Deletion.IsLive() {
		if r.Deletion.Deletes(r.Liveness.Timestamp) {
			r.Liveness = EmptyLiveness
		} else if r.DeletionShadowable && r.Liveness.Timestamp > r.Deletion.MarkedForDeleteAt {
			r.Deletion, r.DeletionShadowable = Live, false
		}
	}
	if !r.ShadowableDeletion.IsLive() {
		if r.ShadowableDeletion.Deletes(r.Liveness.Timestamp) {
			r.Liveness = EmptyLiveness
		} else if r.Liveness.Timestamp > r.ShadowableDeletion.MarkedForDeleteAt {
			r.ShadowableDeletion = Live
		}
	}
	own := r.EffectiveDeletion()
	filterCells(r, own, false)

	// The covering deletion (Row.filter with activeDeletion).
	if active.IsLive() || !active.Supersedes(own) {
		return
	}
	if active.Deletes(r.Liveness.Timestamp) {
		r.Liveness = EmptyLiveness
	}
	r.Deletion, r.DeletionShadowable, r.ShadowableDeletion = Live, false, Live
	filterCells(r, active, true)
}

// filterCells drops the cells del deletes and the complex deletions it
// makes redundant. With covering set (Row.filter / ComplexColumnData.filter)
// a complex deletion is dropped when del supersedes it and elements are
// tested against del alone; otherwise (Rows.merge) a complex deletion is
// kept only when it supersedes del, and elements are tested against the
// greater of the two.
func filterCells(r *Row, del DeletionTime, covering bool) {
	if del.IsLive() && len(r.ComplexDeletions) == 0 {
		return
	}
	cds := r.ComplexDeletions[:0]
	for _, cd := range r.ComplexDeletions {
		keep := cd.Deletion.Supersedes(del)
		if covering {
			keep = !del.Supersedes(cd.Deletion)
		}
		if keep {
			cds = append(cds, cd)
		}
	}
	clear(r.ComplexDeletions[len(cds):])
	cells := r.Cells[:0]
	ci := 0
	for _, c := range r.Cells {
		d := del
		if !covering && c.Column.Type.IsComplex() {
			for ci < len(cds) && compareColumns(cds[ci].Column, c.Column) < 0 {
				ci++
			}
			if ci < len(cds) && compareColumns(cds[ci].Column, c.Column) == 0 {
				d = MaxDeletion(d, cds[ci].Deletion)
			}
		}
		if !d.DeletesCell(&c) {
			cells = append(cells, c)
		}
	}
	clear(r.Cells[len(cells):])
	r.Cells = cells
	if len(cds) == 0 {
		cds = nil
	}
	r.ComplexDeletions = cds
}
