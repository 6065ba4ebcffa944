package la

import (
	"bytes"
	"encoding/binary"

	"github.com/castable-db/castable/schema"
)

// Cell names ("composites") of the la format.
//
// How a cell is named depends on the table's layout, derived from the
// schema (layoutOf):
//
//	CQL table (no COMPACT STORAGE)         compound, sparse:  ck1 … ckN, column name [, element key]
//	COMPACT STORAGE, ≥ 2 clustering cols   compound, dense:   ck1 … ckN (value column implied)
//	COMPACT STORAGE, 1 clustering column   simple, dense:     raw ck1 bytes
//	COMPACT STORAGE, no clustering column  simple, sparse:    raw column name bytes
//
// A compound name is a sequence of components, optionally preceded by the
// static marker:
//
//	[FF FF]                         static cells only; then N empty components
//	{ u16 length, bytes, u8 eoc }*  one triple per component
//
// The end-of-component byte eoc is 00 on every component of a cell name. On
// the last component of a range tombstone bound (and of promoted-index
// names of tombstones) it orders the bound against names sharing its prefix:
// FF (START, -1) sorts before them, 01 (END, +1) after them. Readers accept
// 00 on bounds too (written by very old versions).
//
// The CQL row marker is the cell whose column-name component is empty
// (00 00 00). Non-compound names are the raw value, with no static marker
// and no eoc.
const (
	// staticMarker starts the name of every static cell of a compound table.
	staticMarker = 0xFFFF

	eocStart byte = 0xFF // -1: the bound sorts before the names it prefixes
	eocNone  byte = 0x00
	eocEnd   byte = 0x01 // +1: the bound sorts after the names it prefixes
)

// layout says how a table's cells are named in the la format.
type layout struct {
	// compound names are composites; otherwise a name is one raw value.
	compound bool
	// dense tables (COMPACT STORAGE with clustering columns) have no
	// column-name component: the clustering is the whole name.
	dense bool
	// clustering is the number of declared clustering columns: the
	// clustering components of a name.
	clustering int
	// rowClustering is the clustering size of the table's rows
	// (len(Table.Clustering)): for a COMPACT STORAGE table without declared
	// clustering columns it is 1, Cassandra 3.x's hidden "column1" that
	// holds the names of dynamic cells.
	rowClustering int
}

// layoutOf derives the la layout of a table (la-format.md §3.3).
func layoutOf(t *schema.Table) layout {
	n := 0
	for _, c := range t.Clustering {
		if !c.Hidden {
			n++
		}
	}
	return layout{compound: t.IsCompound(), dense: t.IsDense(), clustering: n, rowClustering: len(t.Clustering)}
}

// String names the layout as Cassandra's documentation does.
func (l layout) String() string {
	switch {
	case l.compound && !l.dense:
		return "compound sparse (CQL)"
	case l.compound:
		return "compound dense (COMPACT STORAGE)"
	case l.dense:
		return "simple dense (COMPACT STORAGE)"
	default:
		return "simple sparse (COMPACT STORAGE)"
	}
}

// clusteringPrefixSize is the number of leading name components that are
// clustering values (what min/max column names keep).
func (l layout) clusteringPrefixSize() int { return l.clustering }

// appendComponent appends one composite component.
func appendComponent(dst, b []byte, eoc byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(b)))
	dst = append(dst, b...)
	return append(dst, eoc)
}

// componentSize is the encoded size of a component of n bytes.
func componentSize(n int) int { return 2 + n + 1 }

// appendStaticPrefix appends the static marker and N empty components.
func (l layout) appendStaticPrefix(dst []byte) []byte {
	dst = append(dst, 0xFF, 0xFF)
	for range l.clustering {
		dst = append(dst, 0, 0, eocNone)
	}
	return dst
}

// appendClustering appends the clustering components of a compound name.
// A nil (null) component ends the name (only compact tables have them).
func appendClustering(dst []byte, clustering [][]byte) []byte {
	for _, c := range clustering {
		if c == nil {
			break
		}
		dst = appendComponent(dst, c, eocNone)
	}
	return dst
}

// nameParser splits encoded names into components without allocating
// (the component slices alias the name).
type nameParser struct {
	comps  [][]byte
	static bool
	eoc    byte
}

// parse splits a compound name. It returns false when name is not a
// well-formed composite.
func (p *nameParser) parse(name []byte) bool {
	p.comps = p.comps[:0]
	p.static = false
	p.eoc = eocNone
	if len(name) >= 2 && binary.BigEndian.Uint16(name) == staticMarker {
		p.static = true
		name = name[2:]
	}
	for len(name) > 0 {
		if len(name) < 3 {
			return false
		}
		n := int(binary.BigEndian.Uint16(name))
		if len(name) < 3+n {
			return false
		}
		p.comps = append(p.comps, name[2:2+n:2+n])
		p.eoc = name[2+n]
		name = name[3+n:]
		if len(name) > 0 && p.eoc != eocNone {
			// Only the last component may carry an end-of-component byte.
			return false
		}
	}
	return true
}

// eocOrder maps an eoc byte to its order: START -1, NONE 0, END +1.
func eocOrder(b byte) int {
	switch b {
	case eocStart:
		return -1
	case eocNone:
		return 0
	}
	return 1
}

// nameComparator orders encoded cell names and bounds of one table as
// Cassandra 2.2's comparator does (AbstractCType.compare):
//
//  1. static names sort first;
//  2. components compare one by one with their types (clustering column
//     types, then the column name as UTF-8 bytes, then the collection
//     element with the collection's element comparator);
//  3. when one name is a prefix of the other, the shorter sorts first unless
//     its eoc is END; names of equal length compare their eoc
//     (START < NONE < END).
type nameComparator struct {
	l     layout
	types []*schema.Type // clustering component types
	// columns finds a complex column's element comparator by name.
	columns func(name []byte) *schema.Column
	a, b    nameParser
}

func newNameComparator(t *schema.Table, l layout, columns func(name []byte) *schema.Column) *nameComparator {
	c := &nameComparator{l: l, columns: columns}
	for _, col := range t.Clustering {
		c.types = append(c.types, col.Type)
	}
	return c
}

// compareValues compares two component values with typ (nil: unsigned
// bytes). Empty values sort first for every type.
func compareValues(typ *schema.Type, a, b []byte) int {
	if typ == nil || len(a) == 0 || len(b) == 0 {
		if len(a) == 0 || len(b) == 0 {
			return boolCompare(len(a) != 0, len(b) != 0)
		}
		return bytes.Compare(a, b)
	}
	return typ.Compare(a, b)
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// compare orders two encoded names (cell names or bounds).
func (c *nameComparator) compare(x, y []byte) int {
	if !c.l.compound {
		var typ *schema.Type
		if len(c.types) > 0 {
			typ = c.types[0]
		}
		return compareValues(typ, x, y)
	}
	if !c.a.parse(x) || !c.b.parse(y) {
		// Malformed names only come from corrupt input, which the
		// decoder rejects before comparing; keep the order total.
		return bytes.Compare(x, y)
	}
	return c.compareParsed(&c.a, &c.b)
}

func (c *nameComparator) compareParsed(a, b *nameParser) int {
	if a.static != b.static {
		if a.static {
			return -1
		}
		return 1
	}
	n := min(len(a.comps), len(b.comps))
	for i := range n {
		if r := compareValues(c.componentType(a, i), a.comps[i], b.comps[i]); r != 0 {
			return r
		}
	}
	switch {
	case len(a.comps) == len(b.comps):
		return eocOrder(a.eoc) - eocOrder(b.eoc)
	case len(a.comps) < len(b.comps):
		if a.eoc == eocEnd {
			return 1
		}
		return -1
	default:
		if b.eoc == eocEnd {
			return -1
		}
		return 1
	}
}

// componentType is the comparator of component i of name p.
func (c *nameComparator) componentType(p *nameParser, i int) *schema.Type {
	switch {
	case i < len(c.types):
		return c.types[i]
	case c.l.dense || i == c.l.clustering:
		return nil // column name: UTF-8 bytes
	}
	// Collection element: the comparator of the column named by the
	// previous component.
	if c.columns != nil && i-1 < len(p.comps) {
		if col := c.columns(p.comps[i-1]); col != nil && col.Type.IsComplex() {
			return col.Type.PathType()
		}
	}
	return nil
}

// compareEnd orders a range tombstone end bound against a name or another
// end bound. An empty end bound is the end of the partition (TOP) and sorts
// after everything.
func (c *nameComparator) compareEnd(end, y []byte) int {
	switch {
	case len(end) == 0 && len(y) == 0:
		return 0
	case len(end) == 0:
		return 1
	}
	return c.compare(end, y)
}

// compareEnds orders two end bounds (empty = TOP).
func (c *nameComparator) compareEnds(x, y []byte) int {
	if len(y) == 0 {
		if len(x) == 0 {
			return 0
		}
		return -1
	}
	return c.compareEnd(x, y)
}
