package rows

import (
	"github.com/castable-db/castable/schema"
)

// colInfo is what the row codec needs to know about a header column,
// computed once per SSTable so the row loops never ask the type again.
type colInfo struct {
	col *schema.Column
	// fixed is the length of every simple cell value written without a
	// length prefix, or 0.
	fixed   int
	complex bool
}

// columnList is the static or regular column list of a serialization
// header in canonical order.
type columnList struct {
	cols []colInfo
	// byIndex maps a table column's Column.Index (of this kind) to its
	// position in cols, or -1 when the header does not list it.
	byIndex []int
	// hasComplex reports whether any column is complex.
	hasComplex bool
}

func newColumnList(cols []*schema.Column, tableCount int) columnList {
	l := columnList{byIndex: make([]int, tableCount)}
	for i := range l.byIndex {
		l.byIndex[i] = -1
	}
	for i, c := range cols {
		ci := colInfo{col: c, complex: c.Type.IsComplex()}
		if !ci.complex {
			ci.fixed = c.Type.FixedLength()
		}
		if ci.complex {
			l.hasComplex = true
		}
		l.cols = append(l.cols, ci)
		if c.Index >= 0 && c.Index < tableCount {
			l.byIndex[c.Index] = i
		}
	}
	return l
}

// position returns the header position of table column c, or -1.
func (l *columnList) position(c *schema.Column) int {
	if c == nil || c.Index < 0 || c.Index >= len(l.byIndex) {
		return -1
	}
	p := l.byIndex[c.Index]
	if p < 0 || l.cols[p].col != c {
		// A column of another table or kind with the same index.
		if p >= 0 && l.cols[p].col.Name == c.Name && l.cols[p].col.Kind == c.Kind {
			return p
		}
		return -1
	}
	return p
}

// ClusteringFixed returns the fixed value lengths of the clustering types.
func ClusteringFixed(types []*schema.Type) []int {
	f := make([]int, len(types))
	for i, t := range types {
		f[i] = t.FixedLength()
	}
	return f
}
