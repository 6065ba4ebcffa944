package la

import (
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// nameDecoder turns encoded cell names and bounds into clusterings,
// columns and element keys, as Cassandra 3.x's LegacyLayout.decodeCellName
// and decodeBound do. Decoded component slices alias the name; the
// clustering slices come from a reusable pool.
type nameDecoder struct {
	t       *schema.Table
	l       layout
	byName  map[string]*schema.Column
	compact *schema.Column // the value column of a dense table (may be nil)
	p       nameParser
	pool    [][]byte // clustering components handed out since reset
}

func newNameDecoder(t *schema.Table, l layout) *nameDecoder {
	d := &nameDecoder{t: t, l: l, byName: map[string]*schema.Column{}}
	for _, c := range t.Static {
		d.byName[c.Name] = c
	}
	for _, c := range t.Regular {
		d.byName[c.Name] = c
	}
	if (l.dense || !l.compound) && len(t.Regular) == 1 {
		d.compact = t.Regular[0]
	}
	return d
}

// column finds a static or regular column by its name bytes.
func (d *nameDecoder) column(name []byte) *schema.Column { return d.byName[string(name)] }

// reset forgets the clustering components handed out.
func (d *nameDecoder) reset() { d.pool = d.pool[:0] }

// clustering returns a slice of n components from the pool.
func (d *nameDecoder) clustering(comps [][]byte, n int) mutation.Clustering {
	start := len(d.pool)
	for i := range n {
		if i < len(comps) {
			d.pool = append(d.pool, comps[i])
		} else {
			d.pool = append(d.pool, nil)
		}
	}
	return mutation.Clustering(d.pool[start:len(d.pool):len(d.pool)])
}

// decode fills the table-level fields of a (whose raw atom is set). It
// reports names that do not fit the table as corruption at the atom's
// offset.
func (d *nameDecoder) decode(in *input, a *legacyAtom) error {
	a.static = false
	a.clustering, a.column, a.path = nil, nil, nil
	a.start, a.stop = legacyBound{}, legacyBound{}
	if a.kind == atomRangeTombstone {
		if err := d.decodeBound(in, a, a.name, true, &a.start); err != nil {
			return err
		}
		if err := d.decodeBound(in, a, a.end, false, &a.stop); err != nil {
			return err
		}
		// A tombstone with a collection on one side only, or on two
		// different collections, deletes whole rows (LegacyRangeTombstone).
		if a.start.collection != a.stop.collection {
			a.start.collection, a.stop.collection = nil, nil
		}
		// The start of the partition is written as an inclusive start at
		// one empty component (an empty atom name would end the
		// partition); it reads back as the start of the partition. Nothing
		// but static data sorts before it, so the two are the same range.
		if st := &a.start; d.l.compound && !st.static && st.collection == nil && st.kind == mutation.InclStartBound &&
			len(st.prefix) == 1 && len(st.prefix[0]) == 0 && !a.isRowDeletion(d.l.rowClustering) {
			st.prefix = mutation.Clustering{}
		}
		return nil
	}
	return d.decodeCellName(in, a)
}

func (d *nameDecoder) decodeCellName(in *input, a *legacyAtom) error {
	name := a.name
	n := d.l.clustering
	if !d.l.compound {
		if d.l.dense {
			if err := d.validate(in, a, 0, name); err != nil {
				return err
			}
			a.clustering = d.clustering([][]byte{name}, 1)
			return d.setCompactValue(in, a)
		}
		// A declared column (static in Cassandra 3.x's model), or else a
		// dynamic cell: its name is the hidden clustering value.
		if col := d.column(name); col != nil && col.Kind == schema.Static {
			a.column, a.static = col, true
			return nil
		}
		if d.l.rowClustering != 1 || d.compact == nil {
			return in.corrupt(a.offset, "cell for unknown column %q", name)
		}
		if err := d.validate(in, a, 0, name); err != nil {
			return err
		}
		a.clustering = d.clustering([][]byte{name}, 1)
		a.column = d.compact
		return nil
	}
	if !d.p.parse(name) {
		return in.corrupt(a.offset, "malformed composite cell name %x", name)
	}
	comps := d.p.comps
	if d.p.eoc != eocNone {
		return in.corrupt(a.offset, "cell name %x ends with end-of-component 0x%02x", name, d.p.eoc)
	}
	a.static = d.p.static
	if a.static {
		if len(comps) < n {
			return in.corrupt(a.offset, "static cell name %x has %d components, want at least %d", name, len(comps), n)
		}
		for i := range n {
			if len(comps[i]) != 0 {
				return in.corrupt(a.offset, "static cell name %x has a non-empty clustering component", name)
			}
		}
	} else {
		for i := 0; i < n && i < len(comps); i++ {
			if err := d.validate(in, a, i, comps[i]); err != nil {
				return err
			}
		}
		a.clustering = d.clustering(comps, n)
	}
	if d.l.dense {
		if len(comps) > n {
			return in.corrupt(a.offset, "dense cell name %x has %d components, want at most %d", name, len(comps), n)
		}
		return d.setCompactValue(in, a)
	}
	if len(comps) <= n {
		if len(d.t.Static) == 0 && len(d.t.Regular) == 0 {
			return nil // a table with only key columns: a row marker
		}
		return in.corrupt(a.offset, "cell name %x has no column name component", name)
	}
	if len(comps) > n+2 {
		return in.corrupt(a.offset, "cell name %x has %d components, want at most %d", name, len(comps), n+2)
	}
	colName := comps[n]
	if len(colName) == 0 {
		if len(comps) != n+1 || a.static {
			return in.corrupt(a.offset, "malformed row marker name %x", name)
		}
		return nil // row marker
	}
	col := d.column(colName)
	if col == nil {
		if isKeyColumn(d.t, colName) {
			// Cassandra 2.1 side-loaded files may carry cells named
			// after a key column; 3.x keeps only their liveness.
			a.column = nil
			a.invalidKeyCell = true
			return nil
		}
		return in.corrupt(a.offset, "cell for unknown column %q", colName)
	}
	a.column = col
	switch {
	case col.Kind == schema.Static && !a.static:
		return in.corrupt(a.offset, "non-static cell for static column %q", colName)
	case col.Kind != schema.Static && a.static:
		return in.corrupt(a.offset, "static cell for non-static column %q (mismatch between static cell and column definition)", colName)
	}
	if len(comps) == n+2 {
		if !col.Type.IsComplex() {
			return in.corrupt(a.offset, "collection element cell for non-collection column %q", colName)
		}
		a.path = comps[n+1]
		if a.path == nil {
			a.path = []byte{}
		}
	} else if col.Type.IsComplex() {
		return in.corrupt(a.offset, "cell for collection column %q lacks the element key", colName)
	}
	return nil
}

// setCompactValue makes a the value cell of a dense table.
func (d *nameDecoder) setCompactValue(in *input, a *legacyAtom) error {
	if d.compact == nil {
		if len(a.value) != 0 {
			return in.corrupt(a.offset, "dense table without a value column has a cell with a %d-byte value", len(a.value))
		}
		a.compactMarker = true
		return nil
	}
	a.column = d.compact
	return nil
}

// validate checks a clustering component of a fixed-length type.
func (d *nameDecoder) validate(in *input, a *legacyAtom, i int, v []byte) error {
	if i >= len(d.t.Clustering) || len(v) == 0 {
		return nil
	}
	if fl := d.t.Clustering[i].Type.FixedLength(); fl > 0 && len(v) != fl {
		return in.corrupt(a.offset, "clustering column %q: %d-byte value, want %d", d.t.Clustering[i].Name, len(v), fl)
	}
	return nil
}

// decodeBound decodes one bound of a range tombstone (decodeBound in
// LegacyLayout). An empty bound is the start or end of the partition.
func (d *nameDecoder) decodeBound(in *input, a *legacyAtom, b []byte, isStart bool, out *legacyBound) error {
	if len(b) == 0 {
		out.prefix = mutation.Clustering{}
		if isStart {
			out.kind = mutation.InclStartBound
		} else {
			out.kind = mutation.InclEndBound
		}
		return nil
	}
	n := d.l.clustering
	if !d.l.compound {
		if d.l.rowClustering != 1 {
			return in.corrupt(a.offset, "range tombstone in a table without clustering columns")
		}
		if err := d.validate(in, a, 0, b); err != nil {
			return err
		}
		out.prefix = d.clustering([][]byte{b}, 1)
		out.kind = boundKind(isStart, true)
		return nil
	}
	if !d.p.parse(b) {
		return in.corrupt(a.offset, "malformed range tombstone bound %x", b)
	}
	comps := d.p.comps
	out.static = d.p.static
	if out.static {
		if len(comps) < n {
			return in.corrupt(a.offset, "static bound %x has fewer than %d components", b, n)
		}
		for i := range n {
			if len(comps[i]) != 0 {
				return in.corrupt(a.offset, "static bound %x has a non-empty clustering component", b)
			}
		}
	}
	for i := 0; i < n && i < len(comps); i++ {
		if err := d.validate(in, a, i, comps[i]); err != nil {
			return err
		}
	}
	size := len(comps)
	if size > n {
		if d.l.dense || size > n+1 {
			return in.corrupt(a.offset, "range tombstone bound %x has %d components, want at most %d", b, size, n+1)
		}
		col := d.column(comps[n])
		if col == nil || !col.Type.IsComplex() {
			return in.corrupt(a.offset, "range tombstone bound %x names %q, which is not a collection column", b, comps[n])
		}
		out.collection = col
		size = n
	}
	eoc := int8(d.p.eoc)
	inclusive := eoc >= 0
	if isStart {
		inclusive = eoc <= 0
	}
	extra := 0
	if !isStart && eoc == 0 && size < n {
		// An end bound of a prefix with eoc 0 matches the prefix only
		// (CASSANDRA-12423): an empty component is appended, exclusive.
		extra = 1
		inclusive = false
	}
	pfx := d.clustering(comps[:size], size+extra)
	if extra == 1 {
		pfx[size] = []byte{}
	}
	out.prefix = pfx
	out.kind = boundKind(isStart, inclusive)
	return nil
}

func boundKind(isStart, inclusive bool) mutation.BoundKind {
	switch {
	case isStart && inclusive:
		return mutation.InclStartBound
	case isStart:
		return mutation.ExclStartBound
	case inclusive:
		return mutation.InclEndBound
	}
	return mutation.ExclEndBound
}

func isKeyColumn(t *schema.Table, name []byte) bool {
	for _, c := range t.PartitionKey {
		if c.Name == string(name) {
			return true
		}
	}
	for _, c := range t.Clustering {
		if c.Name == string(name) {
			return true
		}
	}
	return false
}
