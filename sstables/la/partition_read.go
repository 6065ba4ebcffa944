package la

import (
	"bytes"
	"slices"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// fakeTTL is the TTL Cassandra 3.x gives the liveness of a row whose 2.x
// row marker was turned into a tombstone by compaction (LegacyLayout
// CellGrouper.FAKE_TTL).
const fakeTTL = 1

// partitionReader decodes the atoms of one partition and groups them into
// the static row, clustering rows and range tombstone markers, as Cassandra
// 3.x reads legacy SSTables (UnfilteredDeserializer.OldFormatDeserializer
// with LegacyLayout.CellGrouper).
//
// Returned rows and markers are valid until the next call.
type partitionReader struct {
	t       *schema.Table
	l       layout
	names   *nameDecoder
	in      *input
	reorder bool // legacy cell order differs from the canonical order

	// arena holds the bytes of the row being built followed by those of
	// the lookahead atom, which start at peekStart.
	arena     []byte
	peek      legacyAtom
	hasPeek   bool
	peekStart int
	done      bool // the end-of-partition marker was read

	tracker tombstoneTracker
	g       grouper
	row     mutation.Row
	marker  mutation.RangeTombstoneMarker
}

func newPartitionReader(t *schema.Table, l layout) *partitionReader {
	r := &partitionReader{t: t, l: l, names: newNameDecoder(t, l)}
	r.tracker.t = t
	r.reorder = needsReorder(t.Static) || needsReorder(t.Regular)
	r.g.t = t
	return r
}

// needsReorder reports whether ordering cols by name bytes (2.2's order)
// differs from their canonical order.
func needsReorder(cols []*schema.Column) bool {
	for i := 1; i < len(cols); i++ {
		if cols[i-1].Name > cols[i].Name {
			return true
		}
	}
	return false
}

// start begins a partition whose header was read; in is positioned at its
// first atom.
func (r *partitionReader) start(in *input, deletion mutation.DeletionTime) {
	r.in = in
	r.arena = r.arena[:0]
	r.names.reset()
	r.hasPeek, r.done = false, false
	r.tracker.reset(deletion)
}

// compact drops everything from the arena but the lookahead atom, which
// moves to the front. Previously returned rows become invalid.
func (r *partitionReader) compact() {
	r.names.reset()
	if !r.hasPeek {
		r.arena = r.arena[:0]
		return
	}
	n := copy(r.arena, r.arena[r.peekStart:])
	r.arena = r.arena[:n]
	r.peekStart = 0
	// Re-point the atom's slices in the order readAtom kept them.
	a := &r.peek
	off := 0
	a.name = r.arena[off : off+len(a.name) : off+len(a.name)]
	off += len(a.name)
	if a.kind == atomRangeTombstone {
		a.end = r.arena[off : off+len(a.end) : off+len(a.end)]
	} else if a.value != nil {
		a.value = r.arena[off : off+len(a.value) : off+len(a.value)]
	}
	// Decoding cannot fail: it succeeded before the move.
	_ = r.names.decode(r.in, a)
}

// peekAtom makes the next atom available in r.peek; it returns false at the
// end of the partition.
func (r *partitionReader) peekAtom() (bool, error) {
	if r.hasPeek {
		return true, nil
	}
	if r.done {
		return false, nil
	}
	r.peekStart = len(r.arena)
	ok, err := readAtom(r.in, &r.peek.atom, &r.arena)
	if err != nil {
		return false, err
	}
	if !ok {
		r.done = true
		return false, nil
	}
	if err := r.names.decode(r.in, &r.peek); err != nil {
		return false, err
	}
	r.hasPeek = true
	return true, nil
}

// consume takes the lookahead atom.
func (r *partitionReader) consume() *legacyAtom {
	r.hasPeek = false
	return &r.peek
}

// readStatic returns the static row, or nil when the partition has none.
// It must be called first.
func (r *partitionReader) readStatic() (*mutation.Row, error) {
	for {
		ok, err := r.peekAtom()
		if err != nil || !ok {
			return nil, err
		}
		a := &r.peek
		if !a.isStatic() || !a.isRowAtom(r.l.rowClustering) {
			return nil, nil
		}
		r.consume()
		if r.tracker.isShadowed(a, r.l.rowClustering) {
			r.compact()
			continue
		}
		return r.readRow(a)
	}
}

// next returns the next row or marker, or nil, nil at the end of the
// partition.
func (r *partitionReader) next() (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
	r.compact()
	for {
		ok, err := r.peekAtom()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			if r.tracker.hasOpenTombstones() {
				return nil, r.tracker.popMarker(&r.marker), nil
			}
			return nil, nil, nil
		}
		a := &r.peek
		k, p := a.position(r.l.rowClustering)
		if r.tracker.hasOpeningMarkerBefore(k, p) {
			return nil, r.tracker.popOpening(&r.marker), nil
		}
		if r.tracker.hasClosingMarkerBefore(k, p) {
			return nil, r.tracker.popClosing(&r.marker), nil
		}
		r.consume()
		if r.tracker.isShadowed(a, r.l.rowClustering) {
			r.compact()
			continue
		}
		if a.isRowAtom(r.l.rowClustering) {
			if a.isStatic() {
				return nil, nil, r.in.corrupt(a.offset, "static atom after the partition's first clustering atom")
			}
			row, err := r.readRow(a)
			return row, nil, err
		}
		r.tracker.openNew(a)
		r.compact()
	}
}

// skip discards the rest of the partition.
func (r *partitionReader) skip() error {
	r.hasPeek = false
	for !r.done {
		r.arena = r.arena[:0]
		ok, err := readAtom(r.in, &r.peek.atom, &r.arena)
		if err != nil {
			return err
		}
		r.done = !ok
	}
	return nil
}

// readRow groups first and the atoms of the same row that follow.
func (r *partitionReader) readRow(first *legacyAtom) (*mutation.Row, error) {
	r.row.Reset()
	r.g.start(&r.row, first.isStatic())
	r.g.add(first)
	for {
		ok, err := r.peekAtom()
		if err != nil {
			return nil, err
		}
		if !ok || !r.g.add(&r.peek) {
			break
		}
		r.consume()
	}
	r.g.finish()
	if r.reorder {
		if !slices.IsSortedFunc(r.row.Cells, canonicalCellOrder) {
			slices.SortStableFunc(r.row.Cells, canonicalCellOrder)
		}
		if !slices.IsSortedFunc(r.row.ComplexDeletions, canonicalDeletionOrder) {
			slices.SortStableFunc(r.row.ComplexDeletions, canonicalDeletionOrder)
		}
	}
	return &r.row, nil
}

func canonicalCellOrder(a, b mutation.Cell) int { return a.Column.Index - b.Column.Index }

func canonicalDeletionOrder(a, b mutation.ComplexDeletion) int {
	return a.Column.Index - b.Column.Index
}

// grouper collects the atoms of one row (LegacyLayout.CellGrouper).
type grouper struct {
	t       *schema.Table
	row     *mutation.Row
	static  bool
	started bool

	hasRowDeletion  bool
	rowDeletion     mutation.DeletionTime
	collection      *schema.Column
	collectionDel   mutation.DeletionTime
	hasValidCells   bool
	invalidLiveness mutation.LivenessInfo
	hasInvalid      bool
}

func (g *grouper) start(row *mutation.Row, static bool) {
	g.row, g.static, g.started = row, static, false
	g.hasRowDeletion, g.collection = false, nil
	g.hasValidCells, g.hasInvalid = false, false
}

// begin opens the row at the atom's clustering.
func (g *grouper) begin(c mutation.Clustering) {
	g.started = true
	if g.static {
		g.row.Clustering = nil
	} else {
		g.row.Clustering = c
	}
}

// sameRow reports whether clustering c (static or not) is the row's.
func (g *grouper) sameRow(static bool, c mutation.Clustering) bool {
	if static != g.static {
		return false
	}
	if static {
		return true
	}
	if len(c) != len(g.row.Clustering) {
		return false
	}
	for i := range c {
		if !bytesEqualNil(c[i], g.row.Clustering[i]) {
			return false
		}
	}
	return true
}

// add offers an atom; it returns false when the atom belongs to another
// row (and must not be consumed).
func (g *grouper) add(a *legacyAtom) bool {
	if a.kind != atomRangeTombstone {
		return g.addCell(a)
	}
	switch {
	case a.isRowDeletion(len(g.t.Clustering)):
		return g.addRowDeletion(a)
	case a.isCollectionTombstone():
		return g.addCollectionTombstone(a)
	}
	// A tombstone that starts before the row is a copy repeated at an
	// index block start; it stays part of this row. Any other ends the row.
	return g.started && !g.static &&
		mutation.ComparePrefix(g.t, mutation.ClusteringKind, g.row.Clustering, a.start.kind, a.start.prefix) > 0
}

func (g *grouper) addCell(a *legacyAtom) bool {
	if !g.started {
		g.begin(a.clustering)
	} else if !g.sameRow(a.static, a.clustering) {
		return false
	}
	if g.hasRowDeletion && g.rowDeletion.Deletes(a.timestamp) {
		return true
	}
	switch {
	case a.invalidKeyCell:
		l := livenessOf(a)
		if !g.hasInvalid || l.Supersedes(g.invalidLiveness) {
			g.invalidLiveness, g.hasInvalid = l, true
		}
		return true
	case a.column == nil: // row marker
		g.row.Liveness = livenessOf(a)
		g.hasValidCells = true
		return true
	}
	if g.collection == a.column && g.collectionDel.Deletes(a.timestamp) {
		return true
	}
	g.hasValidCells = true
	c := mutation.Cell{Column: a.column, Path: a.path, Value: a.value, Timestamp: a.timestamp,
		TTL: a.ttl, LocalDeletionTime: sstables.FromLegacyDeletionTime(a.ldt)}
	if a.kind == atomTombstoneCell {
		c.Value = nil
	}
	g.row.Cells = append(g.row.Cells, c)
	return true
}

// livenessOf is the liveness a row marker cell stands for; a deleted marker
// becomes an expired liveness with TTL 1 (CASSANDRA-13320).
func livenessOf(a *legacyAtom) mutation.LivenessInfo {
	switch a.kind {
	case atomTombstoneCell:
		return mutation.LivenessInfo{Timestamp: a.timestamp, TTL: fakeTTL, LocalExpirationTime: sstables.FromLegacyDeletionTime(a.ldt)}
	case atomExpiringCell:
		return mutation.LivenessInfo{Timestamp: a.timestamp, TTL: a.ttl, LocalExpirationTime: sstables.FromLegacyDeletionTime(a.ldt)}
	}
	return mutation.LivenessInfo{Timestamp: a.timestamp, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
}

func (g *grouper) addRowDeletion(a *legacyAtom) bool {
	if g.started {
		if g.hasRowDeletion && g.sameRow(a.start.static, a.start.prefix) {
			if a.deletion.Supersedes(g.rowDeletion) {
				g.rowDeletion = a.deletion
				g.row.Deletion = a.deletion
				g.hasValidCells = true
			}
			return true
		}
		return false
	}
	if a.start.static != g.static {
		return false
	}
	g.begin(a.start.prefix)
	g.row.Deletion = a.deletion
	g.rowDeletion, g.hasRowDeletion = a.deletion, true
	g.hasValidCells = true
	return true
}

func (g *grouper) addCollectionTombstone(a *legacyAtom) bool {
	static := a.start.static
	if !g.started {
		if static != g.static {
			return false
		}
		g.begin(a.start.prefix)
	} else if !g.sameRow(static, a.start.prefix) {
		return false
	}
	col := a.start.collection
	found := false
	for i := range g.row.ComplexDeletions {
		cd := &g.row.ComplexDeletions[i]
		if cd.Column == col {
			cd.Deletion = mutation.MaxDeletion(cd.Deletion, a.deletion)
			found = true
		}
	}
	if !found {
		g.row.ComplexDeletions = append(g.row.ComplexDeletions, mutation.ComplexDeletion{Column: col, Deletion: a.deletion})
	}
	if !g.hasRowDeletion || a.deletion.Supersedes(g.rowDeletion) {
		g.collection, g.collectionDel = col, a.deletion
	}
	g.hasValidCells = true
	return true
}

func (g *grouper) finish() {
	if !g.hasValidCells && g.hasInvalid {
		g.row.Liveness = g.invalidLiveness
	}
}

// cloneRow deep-copies r (values, paths and clustering) into fresh memory.
func cloneRow(r *mutation.Row) mutation.Row {
	size := 0
	for _, c := range r.Clustering {
		size += len(c)
	}
	for i := range r.Cells {
		size += len(r.Cells[i].Path) + len(r.Cells[i].Value)
	}
	buf := make([]byte, 0, size)
	cp := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		n := len(buf)
		buf = append(buf, b...)
		return buf[n:len(buf):len(buf)]
	}
	out := *r
	if r.Clustering != nil {
		out.Clustering = make(mutation.Clustering, len(r.Clustering))
		for i, c := range r.Clustering {
			out.Clustering[i] = cp(c)
		}
	}
	out.Cells = make([]mutation.Cell, len(r.Cells))
	for i, c := range r.Cells {
		c.Path = cp(c.Path)
		c.Value = cp(c.Value)
		out.Cells[i] = c
	}
	out.ComplexDeletions = slices.Clone(r.ComplexDeletions)
	return out
}

// cloneMarker deep-copies m.
func cloneMarker(m *mutation.RangeTombstoneMarker) mutation.RangeTombstoneMarker {
	out := *m
	if m.Clustering != nil {
		out.Clustering = make(mutation.Clustering, len(m.Clustering))
		for i, c := range m.Clustering {
			if c != nil {
				out.Clustering[i] = bytes.Clone(c)
			}
		}
	}
	return out
}
