package la

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// partitionWriter turns partitions of the row model into 2.2 atoms and
// serializes them as Cassandra 2.2.4+ flushes them (LegacyLayout's
// fromRow for the mapping; ColumnIndex.Builder for the order and the
// index blocks):
//
//   - the row marker (row liveness) is the first cell of its row, named by
//     the clustering and an empty component; compact tables have none;
//   - a row deletion is a range tombstone from the clustering with eoc
//     START to the clustering with eoc END; a complex deletion is the same
//     on clustering plus column name;
//   - a range tombstone marker pair (or boundary) is one range tombstone;
//   - cells follow in 2.2's name order (column names as UTF-8 bytes, then
//     collection elements), not 3.x's simple-before-complex order;
//   - cells deleted by the partition deletion or by a range tombstone
//     covering them are not written (ColumnIndex.Builder.build's
//     InOrderTester) and not counted in the statistics;
//   - range tombstones are offered before the first cell they precede and
//     go through the 2.2.4+ tracker (deferred writing, repetition at block
//     starts, redundant ones dropped).
//
// Rows are converted as they arrive. While a range tombstone marker is
// open its rows are kept (their values copied) until the range closes,
// since the tombstone must be written before them and carries its end.
type partitionWriter struct {
	t *schema.Table
	l layout
	// shadowableAsRegular is WriterOptions.ShadowableAsRegular.
	shadowableAsRegular bool
	cmp                 *nameComparator
	ci                  columnIndex

	stats *collector
	out   []byte // serialized bytes not yet written

	staticComp, regularComp   [][]byte // encoded column-name components (compound sparse)
	staticOrder, regularOrder []int    // column indexes in 2.2 order; nil when canonical
	groupStart, groupEnd      []int    // scratch for reordering

	// The partition being written.
	key        []byte
	deletion   mutation.DeletionTime
	headerSize int
	segNames   []byte // names (and, while a range is open, values) of staged cells
	cells      []atom // staged cells
	simple     atom   // the atom addSimpleRow is writing
	// noSimpleRows makes every row take the general path (tests compare
	// the two).
	noSimpleRows bool
	detached     int     // staged cells whose values are copied
	pending      []atom  // range tombstones not yet offered, sorted when flushed
	rtArena      []byte  // bounds of the partition's range tombstones
	cellLDTs     []int32 // drop times of the written cells, for the statistics
	open         bool    // a range tombstone marker is open
	openStart    []byte  // its encoded start bound
	openDel      mutation.DeletionTime
	err          error
}

func newPartitionWriter(t *schema.Table, shadowableAsRegular bool) *partitionWriter {
	l := layoutOf(t)
	w := &partitionWriter{t: t, l: l, shadowableAsRegular: shadowableAsRegular, stats: newCollector(t, l)}
	w.cmp = newNameComparator(t, l, func(name []byte) *schema.Column { return columnByName(t, name) })
	w.ci.cmp = w.cmp
	w.ci.emit = func(a *atom) { w.out = appendAtom(w.out, a) }
	w.staticComp, w.staticOrder = columnComponents(t.Static)
	w.regularComp, w.regularOrder = columnComponents(t.Regular)
	n := max(len(t.Static), len(t.Regular))
	w.groupStart, w.groupEnd = make([]int, n), make([]int, n)
	return w
}

func columnByName(t *schema.Table, name []byte) *schema.Column {
	for _, c := range t.Regular {
		if c.Name == string(name) {
			return c
		}
	}
	for _, c := range t.Static {
		if c.Name == string(name) {
			return c
		}
	}
	return nil
}

// columnComponents returns the encoded column-name component of each
// column (by Column.Index) and, when 2.2's order (name bytes) differs from
// the canonical one, the indexes in 2.2 order.
func columnComponents(cols []*schema.Column) ([][]byte, []int) {
	comps := make([][]byte, len(cols))
	for _, c := range cols {
		comps[c.Index] = appendComponent(nil, []byte(c.Name), eocNone)
	}
	if !needsReorder(cols) {
		return comps, nil
	}
	byName := slices.Clone(cols)
	slices.SortStableFunc(byName, func(a, b *schema.Column) int { return strings.Compare(a.Name, b.Name) })
	order := make([]int, len(byName))
	for i, c := range byName {
		order[i] = c.Index
	}
	return comps, order
}

// errorf reports data the la format cannot represent, naming the
// partition.
func (w *partitionWriter) errorf(format string, args ...any) error {
	return fmt.Errorf("la: partition %s: %s", sstables.ShortHex(w.key), fmt.Sprintf(format, args...))
}

// start writes the partition header.
func (w *partitionWriter) start(p *mutation.Partition) error {
	w.key = p.Key
	if len(p.Key) == 0 {
		return w.errorf("empty partition key")
	}
	if len(p.Key) > maxShortLength {
		return w.errorf("partition key of %d bytes exceeds la's limit of %d", len(p.Key), maxShortLength)
	}
	w.deletion = p.Deletion
	w.out = appendShortBytes(w.out, p.Key)
	w.out = appendDeletionTime(w.out, p.Deletion)
	w.headerSize = 2 + len(p.Key) + deletionTimeSize
	w.ci.reset()
	w.segNames = w.segNames[:0]
	w.cells = w.cells[:0]
	w.detached = 0
	w.pending = w.pending[:0]
	w.rtArena = w.rtArena[:0]
	w.cellLDTs = w.cellLDTs[:0]
	w.open = false
	w.stats.startPartition(p.Key, p.Deletion)
	if !p.Static.IsEmpty() {
		return w.addRow(&p.Static, true)
	}
	return nil
}

// rowDeletion returns the deletion to write for r, applying the
// shadowable policy.
func (w *partitionWriter) rowDeletion(r *mutation.Row) (mutation.DeletionTime, error) {
	d := r.Deletion
	if r.DeletionShadowable || !r.ShadowableDeletion.IsLive() {
		if !w.shadowableAsRegular {
			return d, w.errorf("row %s: la cannot represent a shadowable row deletion (WriterOptions.ShadowableAsRegular writes it as a regular one)", fmtClustering(r.Clustering))
		}
		d = mutation.MaxDeletion(d, r.ShadowableDeletion)
	}
	return d, nil
}

// fmtClustering renders a row's clustering in error messages.
func fmtClustering(c mutation.Clustering) string {
	return fmt.Sprintf("%x", [][]byte(c))
}

// addRow converts a row (the static row when static) into atoms.
func (w *partitionWriter) addRow(r *mutation.Row, static bool) error {
	if !static {
		if done, err := w.addSimpleRow(r); done {
			return err
		}
	}
	deletion, err := w.rowDeletion(r)
	if err != nil {
		return err
	}
	if static && !deletion.IsLive() {
		return w.errorf("the static row has a row deletion, which la cannot represent")
	}
	if static && !r.Liveness.IsEmpty() {
		return w.errorf("the static row has liveness info, which la cannot represent")
	}
	compact := w.l.dense || !w.l.compound
	if compact && !r.Liveness.IsEmpty() {
		return w.errorf("row %s: COMPACT STORAGE rows have no row marker, so la cannot store their liveness", fmtClustering(r.Clustering))
	}
	if static && w.l.dense {
		return w.errorf("static row in a dense COMPACT STORAGE table")
	}

	// The clustering prefix shared by the row's names.
	pStart := len(w.segNames)
	switch {
	case w.l.compound && static:
		w.segNames = w.l.appendStaticPrefix(w.segNames)
	case w.l.compound:
		if err := w.checkClustering(r.Clustering); err != nil {
			return err
		}
		w.segNames = appendClustering(w.segNames, r.Clustering)
	case !static:
		// Non-compound tables name a row's only cell by its one
		// clustering value (the hidden "column1" of a table without
		// declared clustering columns).
		if len(r.Clustering) != 1 || r.Clustering[0] == nil {
			return w.errorf("row %s: want exactly one clustering value", fmtClustering(r.Clustering))
		}
		if len(r.Clustering[0]) > maxShortLength {
			return w.errorf("row %s: clustering value of %d bytes", fmtClustering(r.Clustering), len(r.Clustering[0]))
		}
	}
	prefix := w.segNames[pStart:len(w.segNames):len(w.segNames)]

	if !deletion.IsLive() {
		if err := w.addRowDeletion(r, prefix, deletion); err != nil {
			return err
		}
	}
	if !r.Liveness.IsEmpty() {
		w.cells = append(w.cells, w.markerAtom(r, prefix))
	}
	for i := range r.ComplexDeletions {
		if r.ComplexDeletions[i].Deletion.IsLive() {
			continue // a present empty column: 2.x cells have no such thing
		}
		if err := w.addComplexDeletion(r, static, prefix, &r.ComplexDeletions[i]); err != nil {
			return err
		}
	}
	comps, order := w.regularComp, w.regularOrder
	if static {
		comps, order = w.staticComp, w.staticOrder
	}
	if order == nil {
		for i := range r.Cells {
			if err := w.addCell(r, static, prefix, comps, &r.Cells[i]); err != nil {
				return err
			}
		}
	} else if err := w.addCellsReordered(r, static, prefix, comps, order); err != nil {
		return err
	}
	if !w.open {
		return w.flush()
	}
	w.detach()
	return nil
}

// addSimpleRow writes a clustering row of a CQL table (compound, not
// dense) straight to the column index, without staging its atoms, when
// nothing can come between its atoms or shadow them: the row has no
// deletion of any kind, the partition is not deleted, no range tombstone is
// open or pending, and the columns are written in their canonical order.
// The atoms then go through exactly what flush does to them. It returns done
// false, having done nothing, for any other row.
func (w *partitionWriter) addSimpleRow(r *mutation.Row) (done bool, err error) {
	if w.noSimpleRows || !w.l.compound || w.l.dense || w.open || len(w.pending) != 0 || len(w.cells) != 0 ||
		!w.deletion.IsLive() || w.regularOrder != nil || len(r.ComplexDeletions) != 0 ||
		r.DeletionShadowable || !r.Deletion.IsLive() || !r.ShadowableDeletion.IsLive() {
		return false, nil
	}
	if err := w.checkClustering(r.Clustering); err != nil {
		return true, err
	}
	pStart := len(w.segNames)
	w.segNames = appendClustering(w.segNames, r.Clustering)
	prefix := w.segNames[pStart:len(w.segNames):len(w.segNames)]
	a := &w.simple
	if !r.Liveness.IsEmpty() {
		*a = w.markerAtom(r, prefix)
		w.emitCell(a)
	}
	for i := range r.Cells {
		if err := w.cellAtom(a, r, false, prefix, w.regularComp, &r.Cells[i]); err != nil {
			return true, err
		}
		w.emitCell(a)
	}
	w.segNames = w.segNames[:0]
	return true, nil
}

// emitCell is flush's handling of a cell no range tombstone precedes: it
// drops the cell when the partition deletion shadows it, else records it in
// the statistics and hands it to the column index.
func (w *partitionWriter) emitCell(c *atom) {
	if w.isDeleted(c, nil) {
		return
	}
	w.stats.cell(c)
	if c.kind == atomTombstoneCell || c.kind == atomExpiringCell {
		w.cellLDTs = append(w.cellLDTs, c.ldt)
	}
	w.ci.add(c)
}

// markerAtom returns the row marker atom of a row with liveness.
func (w *partitionWriter) markerAtom(r *mutation.Row, prefix []byte) atom {
	name := w.name(prefix, emptyComponent, nil, false)
	a := atom{name: name, timestamp: r.Liveness.Timestamp, ttl: mutation.NoTTL, ldt: math.MaxInt32}
	a.kind = atomCell
	if r.Liveness.IsExpiring() {
		a.kind, a.ttl, a.ldt = atomExpiringCell, r.Liveness.TTL, sstables.LegacyDeletionTime(r.Liveness.LocalExpirationTime)
	}
	return a
}

// emptyComponent is the column-name component of the row marker.
var emptyComponent = []byte{0, 0, eocNone}

// checkClustering validates a row clustering of a compound table.
func (w *partitionWriter) checkClustering(c mutation.Clustering) error {
	if len(c) != w.l.clustering {
		return w.errorf("row %s: %d clustering values, the table has %d", fmtClustering(c), len(c), w.l.clustering)
	}
	for i, v := range c {
		if v == nil {
			if !w.l.dense {
				return w.errorf("row %s: null clustering value", fmtClustering(c))
			}
			for _, rest := range c[i:] {
				if rest != nil {
					return w.errorf("row %s: a null clustering value before a non-null one", fmtClustering(c))
				}
			}
			break
		}
		if len(v) > maxShortLength {
			return w.errorf("row %s: clustering value of %d bytes", fmtClustering(c), len(v))
		}
	}
	return nil
}

// name builds a cell name from the row prefix, the column component and
// an optional element key, in the staging arena.
func (w *partitionWriter) name(prefix, colComp, path []byte, hasPath bool) []byte {
	start := len(w.segNames)
	w.segNames = append(w.segNames, prefix...)
	w.segNames = append(w.segNames, colComp...)
	if hasPath {
		w.segNames = appendComponent(w.segNames, path, eocNone)
	}
	return w.segNames[start:len(w.segNames):len(w.segNames)]
}

// bound copies an encoded prefix into the tombstone arena with its last
// end-of-component byte set to eoc.
func (w *partitionWriter) bound(prefix []byte, eoc byte) []byte {
	start := len(w.rtArena)
	w.rtArena = append(w.rtArena, prefix...)
	if w.l.compound && len(w.rtArena) > start {
		w.rtArena[len(w.rtArena)-1] = eoc
	}
	return w.rtArena[start:len(w.rtArena):len(w.rtArena)]
}

func (w *partitionWriter) addRowDeletion(r *mutation.Row, prefix []byte, d mutation.DeletionTime) error {
	var start, end []byte
	switch {
	case w.l.compound:
		if len(prefix) == 0 {
			return w.errorf("a row deletion in a table without clustering columns cannot be written in la (it would be a partition deletion)")
		}
		start, end = w.bound(prefix, eocStart), w.bound(prefix, eocEnd)
	case len(r.Clustering) == 1:
		v := r.Clustering[0]
		start, end = w.bound(v, eocNone), w.bound(v, eocNone)
	default:
		return w.errorf("a row deletion in a table without clustering columns cannot be written in la (it would be a partition deletion)")
	}
	w.addTombstone(start, end, d)
	return nil
}

func (w *partitionWriter) addComplexDeletion(r *mutation.Row, static bool, prefix []byte, cd *mutation.ComplexDeletion) error {
	col := cd.Column
	if !w.l.compound || w.l.dense {
		return w.errorf("row %s: complex deletion of %q in a COMPACT STORAGE table", fmtClustering(r.Clustering), col.Name)
	}
	if err := w.checkColumn(r, static, col); err != nil {
		return err
	}
	comps := w.regularComp
	if static {
		comps = w.staticComp
	}
	n := len(w.segNames)
	w.segNames = append(w.segNames, prefix...)
	w.segNames = append(w.segNames, comps[col.Index]...)
	name := w.segNames[n:]
	w.addTombstone(w.bound(name, eocStart), w.bound(name, eocEnd), cd.Deletion)
	w.segNames = w.segNames[:n]
	return nil
}

// addTombstone stages a range tombstone (bounds in rtArena).
func (w *partitionWriter) addTombstone(start, end []byte, d mutation.DeletionTime) {
	w.pending = append(w.pending, atom{kind: atomRangeTombstone, name: start, end: end, deletion: d})
	w.stats.rangeTombstone(start, end, d)
}

func (w *partitionWriter) checkColumn(r *mutation.Row, static bool, col *schema.Column) error {
	switch {
	case col == nil:
		return w.errorf("row %s: cell without a column", fmtClustering(r.Clustering))
	case static && col.Kind != schema.Static:
		return w.errorf("static row: column %q is not static", col.Name)
	case !static && col.Kind != schema.Regular:
		return w.errorf("row %s: column %q is not a regular column", fmtClustering(r.Clustering), col.Name)
	case col.Type.Kind == schema.KindUDT && !col.Type.Frozen:
		return w.errorf("row %s: column %q is a non-frozen user-defined type, which Cassandra 2.2 does not have", fmtClustering(r.Clustering), col.Name)
	}
	return nil
}

// addCellsReordered adds r's cells grouped by column in 2.2's order.
func (w *partitionWriter) addCellsReordered(r *mutation.Row, static bool, prefix []byte, comps [][]byte, order []int) error {
	for _, idx := range order {
		w.groupStart[idx], w.groupEnd[idx] = 0, 0
	}
	for i := 0; i < len(r.Cells); {
		c := r.Cells[i].Column
		if err := w.checkColumn(r, static, c); err != nil {
			return err
		}
		j := i + 1
		for j < len(r.Cells) && r.Cells[j].Column == c {
			j++
		}
		if c.Index >= len(w.groupStart) || w.groupEnd[c.Index] != 0 {
			return w.errorf("row %s: cells of column %q are not contiguous", fmtClustering(r.Clustering), c.Name)
		}
		w.groupStart[c.Index], w.groupEnd[c.Index] = i, j
		i = j
	}
	for _, idx := range order {
		for i := w.groupStart[idx]; i < w.groupEnd[idx]; i++ {
			if err := w.addCell(r, static, prefix, comps, &r.Cells[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *partitionWriter) addCell(r *mutation.Row, static bool, prefix []byte, comps [][]byte, c *mutation.Cell) error {
	w.cells = append(w.cells, atom{})
	if err := w.cellAtom(&w.cells[len(w.cells)-1], r, static, prefix, comps, c); err != nil {
		w.cells = w.cells[:len(w.cells)-1]
		return err
	}
	return nil
}

// cellAtom checks cell c of row r and sets *a to its atom, named in the
// staging arena.
func (w *partitionWriter) cellAtom(a *atom, r *mutation.Row, static bool, prefix []byte, comps [][]byte, c *mutation.Cell) error {
	col := c.Column
	if err := w.checkColumn(r, static, col); err != nil {
		return err
	}
	complex := col.Type.IsComplex()
	if complex != (c.Path != nil) {
		return w.errorf("row %s: column %q: element key present %v for a %s column", fmtClustering(r.Clustering), col.Name, c.Path != nil, col.Type)
	}
	var name []byte
	switch {
	case w.l.compound && !w.l.dense:
		if col.Index >= len(comps) {
			return w.errorf("column %q is not part of the table", col.Name)
		}
		name = w.name(prefix, comps[col.Index], c.Path, complex)
	case w.l.compound:
		name = w.name(prefix, nil, nil, false)
	case !static:
		name = w.name(r.Clustering[0], nil, nil, false)
	default:
		name = w.name([]byte(col.Name), nil, nil, false)
	}
	if len(name) == 0 {
		return w.errorf("row %s: column %q: empty cell name", fmtClustering(r.Clustering), col.Name)
	}
	if len(name) > maxShortLength {
		return w.errorf("row %s: column %q: cell name of %d bytes exceeds la's limit of %d", fmtClustering(r.Clustering), col.Name, len(name), maxShortLength)
	}
	if c.IsExpiring() && c.TTL < 0 {
		return w.errorf("row %s: column %q: negative TTL %d", fmtClustering(r.Clustering), col.Name, c.TTL)
	}
	*a = atom{}
	a.setCell(name, c, col.Type.Kind == schema.KindCounter)
	return nil
}

// detach copies the values of the staged cells, which belong to the
// caller, into the staging arena.
func (w *partitionWriter) detach() {
	for i := w.detached; i < len(w.cells); i++ {
		a := &w.cells[i]
		if a.value != nil {
			a.value = keep(&w.segNames, a.value)
		}
	}
	w.detached = len(w.cells)
}

// addMarker stages a range tombstone marker.
func (w *partitionWriter) addMarker(m *mutation.RangeTombstoneMarker) error {
	switch {
	case m.Kind.IsBoundary():
		if err := w.closeRange(m.Kind.CloseBound(), m.Clustering, m.Close); err != nil {
			return err
		}
		return w.openRange(m.Kind.OpenBound(), m.Clustering, m.Open)
	case m.Kind.IsStart():
		return w.openRange(m.Kind, m.Clustering, m.Open)
	case m.Kind.IsEnd():
		if err := w.closeRange(m.Kind, m.Clustering, m.Close); err != nil {
			return err
		}
		return w.flush()
	}
	return w.errorf("marker of kind %v", m.Kind)
}

func (w *partitionWriter) openRange(kind mutation.BoundKind, c mutation.Clustering, d mutation.DeletionTime) error {
	if w.open {
		return w.errorf("range tombstone marker %v %s opens a range while another is open", kind, fmtClustering(c))
	}
	start := len(w.rtArena)
	var err error
	if w.rtArena, err = w.appendBound(w.rtArena, kind, c, true); err != nil {
		return err
	}
	w.openStart = w.rtArena[start:len(w.rtArena):len(w.rtArena)]
	w.openDel, w.open = d, true
	return nil
}

func (w *partitionWriter) closeRange(kind mutation.BoundKind, c mutation.Clustering, d mutation.DeletionTime) error {
	if !w.open {
		return w.errorf("range tombstone marker %v %s closes no open range", kind, fmtClustering(c))
	}
	if d != w.openDel {
		return w.errorf("range tombstone marker %v %s closes with deletion %v, the range opened with %v", kind, fmtClustering(c), d, w.openDel)
	}
	start := len(w.rtArena)
	var err error
	if w.rtArena, err = w.appendBound(w.rtArena, kind, c, false); err != nil {
		return err
	}
	w.addTombstone(w.openStart, w.rtArena[start:len(w.rtArena):len(w.rtArena)], d)
	w.open = false
	return nil
}

// appendBound encodes a range tombstone bound. The start of the partition
// (an empty start prefix) is written as an inclusive start at an empty first
// component, which sorts before every non-static name: an empty atom name
// would end the partition. The end of the partition is the empty bound.
func (w *partitionWriter) appendBound(dst []byte, kind mutation.BoundKind, c mutation.Clustering, isStart bool) ([]byte, error) {
	if !w.l.compound {
		if !w.l.dense {
			return dst, w.errorf("range tombstone in a table without clustering columns")
		}
		if len(c) != 1 || c[0] == nil {
			return dst, w.errorf("range tombstone bound %s: COMPACT STORAGE tables with one clustering column need exactly one value", fmtClustering(c))
		}
		if !kind.IsInclusive() {
			return dst, w.errorf("range tombstone bound %v %s: la cannot write exclusive bounds in COMPACT STORAGE tables with one clustering column", kind, fmtClustering(c))
		}
		return append(dst, c[0]...), nil
	}
	if len(c) == 0 {
		if isStart {
			if kind != mutation.InclStartBound {
				return dst, w.errorf("range tombstone starts at %v of the partition", kind)
			}
			return append(dst, 0, 0, eocStart), nil
		}
		if kind != mutation.InclEndBound {
			return dst, w.errorf("range tombstone ends at %v of the partition", kind)
		}
		return dst, nil
	}
	if len(c) > w.l.clustering {
		return dst, w.errorf("range tombstone bound %s longer than the clustering", fmtClustering(c))
	}
	eoc := eocEnd
	if kind.IsInclusive() == isStart {
		eoc = eocStart
	}
	start := len(dst)
	for i, v := range c {
		if v == nil {
			return dst, w.errorf("range tombstone bound %s with a null value", fmtClustering(c))
		}
		e := eocNone
		if i == len(c)-1 {
			e = eoc
		}
		dst = appendComponent(dst, v, e)
	}
	if len(dst)-start > maxShortLength {
		return dst, w.errorf("range tombstone bound %s longer than %d bytes", fmtClustering(c), maxShortLength)
	}
	return dst, nil
}

// flush offers the staged cells and the tombstones that precede them to
// the column index, dropping cells deleted by a tombstone.
func (w *partitionWriter) flush() error {
	if len(w.pending) > 1 {
		slices.SortStableFunc(w.pending, func(a, b atom) int {
			if c := w.cmp.compare(a.name, b.name); c != 0 {
				return c
			}
			return w.cmp.compareEnds(a.end, b.end)
		})
	}
	j := 0
	for i := range w.cells {
		c := &w.cells[i]
		for j < len(w.pending) && w.cmp.compare(c.name, w.pending[j].name) >= 0 {
			rt := &w.pending[j]
			if !w.deletion.Deletes(rt.deletion.MarkedForDeleteAt) {
				w.ci.add(rt)
			}
			j++
		}
		if w.isDeleted(c, w.pending[:j]) {
			continue
		}
		w.stats.cell(c)
		if c.kind == atomTombstoneCell || c.kind == atomExpiringCell {
			w.cellLDTs = append(w.cellLDTs, c.ldt)
		}
		w.ci.add(c)
	}
	if j > 0 {
		w.pending = append(w.pending[:0], w.pending[j:]...)
	}
	w.cells = w.cells[:0]
	w.segNames = w.segNames[:0]
	w.detached = 0
	return nil
}

// isDeleted reports whether cell c is shadowed by the partition deletion
// or one of the tombstones rts (which all start at or before c). Counter
// cells lose to any covering tombstone (CASSANDRA-7346).
func (w *partitionWriter) isDeleted(c *atom, rts []atom) bool {
	counter := c.kind == atomCounterCell
	if w.deletion.Deletes(c.timestamp) || (counter && !w.deletion.IsLive()) {
		return true
	}
	for i := range rts {
		rt := &rts[i]
		if w.cmp.compareEnd(rt.end, c.name) >= 0 && (rt.deletion.MarkedForDeleteAt >= c.timestamp || counter) {
			return true
		}
	}
	return false
}

// finish ends the partition: remaining tombstones, the end marker, the
// statistics. It returns the index blocks (offsets relative to the
// partition start) and the partition's size.
func (w *partitionWriter) finish() ([]indexInfo, int64, error) {
	if w.open {
		return nil, 0, w.errorf("a range tombstone marker is still open at the end of the partition")
	}
	if err := w.flush(); err != nil {
		return nil, 0, err
	}
	for i := range w.pending {
		w.ci.add(&w.pending[i])
	}
	w.pending = w.pending[:0]
	blocks := w.ci.finish()
	for i := range blocks {
		blocks[i].offset += int64(w.headerSize)
	}
	w.out = append(w.out, 0, 0)
	size := int64(w.headerSize) + w.ci.endPos + endOfPartitionSize
	for _, ldt := range w.cellLDTs {
		w.stats.tombstone(ldt)
	}
	w.stats.endPartition()
	return blocks, size, nil
}
