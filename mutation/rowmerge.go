package mutation

import (
	"fmt"

	"github.com/castable-db/castable/schema"
)

// RowMerger merges the versions of one row that several sources hold (the
// SSTables of a table, a memtable) as Cassandra's read and compaction merge
// does (Row.Merger, under the active deletion of the partition or of the
// range tombstone covering the row):
//
//   - one version and no active deletion: the version as it is (but for
//     the present-but-empty complex columns a reader keeps, which Cassandra
//     does not see: see ComplexDeletion);
//   - otherwise the liveness and the row deletion that supersede the
//     others; a shadowable deletion the liveness is newer than is dropped;
//     the row deletion is kept only when it supersedes the active
//     deletion, and then becomes it; a liveness the active deletion
//     deletes is dropped;
//   - per simple column, the versions the active deletion does not delete,
//     reconciled (Rules.Reconcile); per complex column, the greatest
//     complex deletion, kept only when it supersedes the active deletion,
//     and the elements neither deletes, reconciled path by path;
//   - a row left with nothing is empty (Merge returns false).
//
// ScyllaDB's separate shadowable deletion (Row.ShadowableDeletion) merges
// like the row deletion. A RowMerger reuses its buffers: the merged row's
// slices are valid until the next Merge, its values alias the versions'.
type RowMerger struct {
	t     *schema.Table
	rules Rules
	now   int64

	vs []*Row // Merge's versions without the nil ones
	// twoWay lets MergeVersions merge two versions by mergeTwoSimple
	// (tests turn it off).
	twoWay bool
	cells  []Cell
	cds    []ComplexDeletion
	pos    []int // per version: index of its next cell
	cdPos  []int // per version: index of its next complex deletion
}

// NewRowMerger returns a merger for the rows of t under rules, nowInSec
// being the merge time (Rules3 decide with it whether an expiring cell is
// still live).
func NewRowMerger(t *schema.Table, rules Rules, nowInSec int64) *RowMerger {
	return &RowMerger{t: t, rules: rules, now: nowInSec, twoWay: true}
}

// Merge merges versions (nil entries are skipped; at least one is not)
// under active into dst and reports whether dst holds anything.
func (m *RowMerger) Merge(dst *Row, versions []*Row, active DeletionTime) (bool, error) {
	m.vs = m.vs[:0]
	for _, v := range versions {
		if v != nil {
			m.vs = append(m.vs, v)
		}
	}
	return m.MergeVersions(dst, m.vs, active)
}

// MergeVersions is Merge of versions without nil entries, in the order
// Merge would see them (the version written last last). versions must not
// be m's own slice of a previous call.
func (m *RowMerger) MergeVersions(dst *Row, versions []*Row, active DeletionTime) (bool, error) {
	if len(versions) == 0 {
		return false, nil
	}
	last := versions[len(versions)-1]
	if len(versions) == 1 && active.IsLive() {
		v := last
		*dst = *v
		if !PassesAlone(v, active) {
			m.cds = m.cds[:0]
			for _, cd := range v.ComplexDeletions {
				if !cd.Deletion.IsLive() {
					m.cds = append(m.cds, cd)
				}
			}
			dst.ComplexDeletions = m.cds
		}
		return !dst.IsEmpty(), nil
	}

	liveness := EmptyLiveness
	del, shadowable := Live, false
	scylla := Live
	for _, v := range versions {
		if v.Liveness.Supersedes(liveness) {
			liveness = v.Liveness
		}
		if v.Deletion.Supersedes(del) {
			del, shadowable = v.Deletion, v.DeletionShadowable
		}
		scylla = MaxDeletion(scylla, v.ShadowableDeletion)
	}
	if shadowable && !liveness.IsEmpty() && liveness.Timestamp > del.MarkedForDeleteAt {
		del, shadowable = Live, false
	}
	if !scylla.IsLive() && !liveness.IsEmpty() && liveness.Timestamp > scylla.MarkedForDeleteAt {
		scylla = Live
	}
	rowDel := MaxDeletion(del, scylla)
	if rowDel.Supersedes(active) {
		active = rowDel
	} else {
		del, shadowable, scylla = Live, false, Live
	}
	if active.Deletes(liveness.Timestamp) {
		liveness = EmptyLiveness
	}

	m.cells, m.cds = m.cells[:0], m.cds[:0]
	done := false
	if len(versions) == 2 && m.twoWay {
		var err error
		if done, err = m.mergeTwoSimple(versions[0], versions[1], active); err != nil {
			return false, err
		}
	}
	m.pos = resizeInts(m.pos, len(versions))
	m.cdPos = resizeInts(m.cdPos, len(versions))
	for !done {
		col := m.nextColumn(versions)
		if col == nil {
			break
		}
		var err error
		if col.Type.IsComplex() {
			err = m.mergeComplex(versions, col, active)
		} else {
			err = m.mergeSimple(versions, col, active)
		}
		if err != nil {
			return false, err
		}
	}
	// Field by field: a Row literal is built aside and copied, which
	// costs more than the merge of a small row.
	dst.Clustering, dst.Liveness = last.Clustering, liveness
	dst.Deletion, dst.DeletionShadowable, dst.ShadowableDeletion = del, shadowable && !del.IsLive(), scylla
	dst.Cells, dst.ComplexDeletions = m.cells, m.cds
	if len(dst.ComplexDeletions) == 0 {
		dst.ComplexDeletions = nil
	}
	return !dst.IsEmpty(), nil
}

// mergeTwoSimple is the column loop of MergeVersions for two versions of
// simple columns only and without complex deletions: one pass over both
// cell lists, taking the smaller column's cell, or both cells of a column
// reconciled (a's first, as mergeSimple takes them), each unless active
// deletes it. It reports false, with m.cells emptied again, when a version
// has a complex deletion or a cell of a complex column: the general loop
// then merges them.
func (m *RowMerger) mergeTwoSimple(a, b *Row, active DeletionTime) (bool, error) {
	if len(a.ComplexDeletions) != 0 || len(b.ComplexDeletions) != 0 {
		return false, nil
	}
	i, j := 0, 0
	for i < len(a.Cells) || j < len(b.Cells) {
		var ca, cb *Cell
		switch {
		case j == len(b.Cells):
			ca = &a.Cells[i]
		case i == len(a.Cells):
			cb = &b.Cells[j]
		default:
			ca, cb = &a.Cells[i], &b.Cells[j]
			switch c := compareColumns(ca.Column, cb.Column); {
			case c < 0:
				cb = nil
			case c > 0:
				ca = nil
			}
		}
		if ca != nil {
			if ca.Column.Type.IsComplex() {
				m.cells = m.cells[:0]
				return false, nil
			}
			i++
			if active.DeletesCell(ca) {
				ca = nil
			}
		}
		if cb != nil {
			if cb.Column.Type.IsComplex() {
				m.cells = m.cells[:0]
				return false, nil
			}
			j++
			if active.DeletesCell(cb) {
				cb = nil
			}
		}
		switch {
		case ca != nil && cb != nil:
			r, err := m.rules.Reconcile(ca, cb, m.now)
			if err != nil {
				return false, fmt.Errorf("column %s: %w", ca.Column.Name, err)
			}
			m.cells = append(m.cells, r)
		case ca != nil:
			m.cells = append(m.cells, *ca)
		case cb != nil:
			m.cells = append(m.cells, *cb)
		}
	}
	return true, nil
}

func resizeInts(s []int, n int) []int {
	if cap(s) < n {
		s = make([]int, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// nextColumn returns the smallest column at the heads of the versions'
// cells and complex deletions.
func (m *RowMerger) nextColumn(versions []*Row) *schema.Column {
	var col *schema.Column
	pick := func(c *schema.Column) {
		if col == nil || compareColumns(c, col) < 0 {
			col = c
		}
	}
	for i, v := range versions {
		if m.pos[i] < len(v.Cells) {
			pick(v.Cells[m.pos[i]].Column)
		}
		if m.cdPos[i] < len(v.ComplexDeletions) {
			pick(v.ComplexDeletions[m.cdPos[i]].Column)
		}
	}
	return col
}

func (m *RowMerger) mergeSimple(versions []*Row, col *schema.Column, active DeletionTime) error {
	var merged Cell
	have := false
	for i, v := range versions {
		if m.pos[i] >= len(v.Cells) || compareColumns(v.Cells[m.pos[i]].Column, col) != 0 {
			continue
		}
		c := &v.Cells[m.pos[i]]
		m.pos[i]++
		if active.DeletesCell(c) {
			continue
		}
		if !have {
			merged, have = *c, true
			continue
		}
		r, err := m.rules.Reconcile(&merged, c, m.now)
		if err != nil {
			return fmt.Errorf("column %s: %w", col.Name, err)
		}
		merged = r
	}
	if have {
		m.cells = append(m.cells, merged)
	}
	return nil
}

func (m *RowMerger) mergeComplex(versions []*Row, col *schema.Column, active DeletionTime) error {
	cd := Live
	for i, v := range versions {
		if m.cdPos[i] >= len(v.ComplexDeletions) || compareColumns(v.ComplexDeletions[m.cdPos[i]].Column, col) != 0 {
			continue
		}
		cd = MaxDeletion(cd, v.ComplexDeletions[m.cdPos[i]].Deletion)
		m.cdPos[i]++
	}
	cellDel := active
	if cd.Supersedes(active) {
		cellDel = cd
		m.cds = append(m.cds, ComplexDeletion{Column: col, Deletion: cd})
	}
	// The elements, path by path: a k-way merge of the versions' runs.
	for {
		var path []byte
		found := false
		for i, v := range versions {
			if m.pos[i] >= len(v.Cells) || compareColumns(v.Cells[m.pos[i]].Column, col) != 0 {
				continue
			}
			p := v.Cells[m.pos[i]].Path
			if !found || comparePaths(col, p, path) < 0 {
				path, found = p, true
			}
		}
		if !found {
			return nil
		}
		var merged Cell
		have := false
		for i, v := range versions {
			if m.pos[i] >= len(v.Cells) {
				continue
			}
			c := &v.Cells[m.pos[i]]
			if compareColumns(c.Column, col) != 0 || comparePaths(col, c.Path, path) != 0 {
				continue
			}
			m.pos[i]++
			if cellDel.DeletesCell(c) {
				continue
			}
			if !have {
				merged, have = *c, true
				continue
			}
			r, err := m.rules.Reconcile(&merged, c, m.now)
			if err != nil {
				return fmt.Errorf("column %s: %w", col.Name, err)
			}
			merged = r
		}
		if have {
			m.cells = append(m.cells, merged)
		}
	}
}

// PassesAlone reports that MergeVersions of v alone under active would
// give v itself, unchanged: active is live (Cassandra's merge then returns
// the one version as it is) and v has none of the live complex deletions
// a reader keeps for present-but-empty complex columns, which the merge
// drops. A caller may then take v for the merged row without the copy.
func PassesAlone(v *Row, active DeletionTime) bool {
	return active.IsLive() && !hasLiveComplexDeletion(v.ComplexDeletions)
}

func hasLiveComplexDeletion(cds []ComplexDeletion) bool {
	for i := range cds {
		if cds[i].Deletion.IsLive() {
			return true
		}
	}
	return false
}

// FilterRow removes from r what the covering deletion active deletes, as
// Cassandra's Row.filter with an active deletion does: the row's own
// deletion when active supersedes it, a liveness, cells and complex
// deletions active deletes or supersedes. It reports whether r keeps
// anything.
func FilterRow(r *Row, active DeletionTime) bool {
	if active.IsLive() {
		return !r.IsEmpty()
	}
	own := r.EffectiveDeletion()
	if !active.Supersedes(own) {
		return !r.IsEmpty()
	}
	if active.Deletes(r.Liveness.Timestamp) {
		r.Liveness = EmptyLiveness
	}
	r.Deletion, r.DeletionShadowable, r.ShadowableDeletion = Live, false, Live
	filterCells(r, active, true)
	return !r.IsEmpty()
}
