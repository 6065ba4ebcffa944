package mutation

import (
	"bytes"
	"slices"

	"github.com/castable-db/castable/schema"
)

// CompareCells orders two cells of one row: by column (Column.Index, which
// is the canonical order: simple columns, then complex ones, each by name),
// then, within a complex column, by path with the column type's path
// comparator.
func CompareCells(a, b *Cell) int {
	if a.Column != b.Column {
		if c := compareColumns(a.Column, b.Column); c != 0 {
			return c
		}
	}
	return comparePaths(a.Column, a.Path, b.Path)
}

// compareColumns orders columns of one row kind by canonical index; static
// columns sort before regular ones so a mixed slice still has one order.
func compareColumns(a, b *schema.Column) int {
	if a.Kind != b.Kind {
		if a.Kind < b.Kind {
			return -1
		}
		return 1
	}
	switch {
	case a.Index < b.Index:
		return -1
	case a.Index > b.Index:
		return 1
	}
	return 0
}

func comparePaths(col *schema.Column, a, b []byte) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		default:
			return 1
		}
	}
	if col.Type.IsComplex() {
		return col.Type.PathType().Compare(a, b)
	}
	return bytes.Compare(a, b)
}

// SortCells puts r's cells and complex deletions in canonical order (see
// CompareCells). The sort is stable, so duplicates keep their order; use
// Validate to reject them.
func SortCells(r *Row) {
	if !slices.IsSortedFunc(r.Cells, cellOrder) {
		slices.SortStableFunc(r.Cells, cellOrder)
	}
	if !slices.IsSortedFunc(r.ComplexDeletions, complexDeletionOrder) {
		slices.SortStableFunc(r.ComplexDeletions, complexDeletionOrder)
	}
}

func cellOrder(a, b Cell) int { return CompareCells(&a, &b) }

func complexDeletionOrder(a, b ComplexDeletion) int { return compareColumns(a.Column, b.Column) }

// ComplexDeletionOf returns the complex deletion of col in r, or Live.
func (r *Row) ComplexDeletionOf(col *schema.Column) DeletionTime {
	for i := range r.ComplexDeletions {
		if r.ComplexDeletions[i].Column == col {
			return r.ComplexDeletions[i].Deletion
		}
	}
	return Live
}

// IsEmpty reports whether r holds nothing: no liveness, no deletion of
// either kind, no cells and no complex deletions. An empty static row is not
// written by sstabledump. The zero Row also counts as empty, so a
// Partition whose Static was never set has no static data.
func (r *Row) IsEmpty() bool {
	if len(r.Cells) != 0 || len(r.ComplexDeletions) != 0 {
		return false
	}
	if r.Liveness == (LivenessInfo{}) && r.Deletion == (DeletionTime{}) && r.ShadowableDeletion == (DeletionTime{}) && !r.DeletionShadowable {
		return true
	}
	return r.Liveness.IsEmpty() && r.Deletion.IsLive() && r.ShadowableDeletion.IsLive()
}

// ColumnRange returns the index range [i, j) of r.Cells that belong to col,
// searching from start (cells must be in canonical order).
func (r *Row) ColumnRange(start int, col *schema.Column) (i, j int) {
	i = start
	for i < len(r.Cells) && compareColumns(r.Cells[i].Column, col) < 0 {
		i++
	}
	j = i
	for j < len(r.Cells) && compareColumns(r.Cells[j].Column, col) == 0 {
		j++
	}
	return i, j
}

// Reset empties r for reuse, keeping its slices' capacity.
func (r *Row) Reset() {
	*r = Row{
		Clustering:         r.Clustering[:0],
		Liveness:           EmptyLiveness,
		Deletion:           Live,
		ShadowableDeletion: Live,
		Cells:              r.Cells[:0],
		ComplexDeletions:   r.ComplexDeletions[:0],
	}
}

// NewRow returns an empty row with the given clustering: no liveness, no
// deletions.
func NewRow(clustering Clustering) Row {
	return Row{Clustering: clustering, Liveness: EmptyLiveness, Deletion: Live, ShadowableDeletion: Live}
}

// EffectiveDeletion is the deletion that shadows r's own data: the greater
// of its regular and ScyllaDB-style shadowable deletions.
func (r *Row) EffectiveDeletion() DeletionTime {
	return MaxDeletion(r.Deletion, r.ShadowableDeletion)
}
