package mutation

import (
	"fmt"

	"github.com/castable-db/castable/schema"
)

// ValidationError reports a partition that breaks the model's invariants.
// It names the partition (key in string form), the row (clustering in JSON
// form, "static", or a marker) and the column where that applies.
type ValidationError struct {
	Partition string
	// Row is the clustering of the row or marker at fault ("" for the
	// partition itself, "static" for the static row).
	Row string
	// Column is the column at fault, if any.
	Column string
	Reason string
}

// Error implements error.
func (e *ValidationError) Error() string {
	msg := "partition " + e.Partition
	if e.Row != "" {
		msg += " row " + e.Row
	}
	if e.Column != "" {
		msg += " column " + e.Column
	}
	return msg + ": " + e.Reason
}

type validator struct {
	t   *schema.Table
	p   *Partition
	row string
}

func (v *validator) fail(col *schema.Column, format string, args ...any) error {
	e := &ValidationError{Partition: FormatKey(v.t, v.p.Key), Row: v.row, Reason: fmt.Sprintf(format, args...)}
	if col != nil {
		e.Column = col.Name
	}
	return e
}

// Validate checks that p is well formed for table t:
//
//   - the key is present and at most 65535 bytes;
//   - the static row has no clustering and only static cells; clustering
//     rows have one component per clustering column, only regular cells,
//     and strictly increasing clusterings;
//   - cells are in canonical order without duplicates, complex columns'
//     cells have a path and simple ones none, values of fixed-length types
//     have their length; cell and liveness times are consistent (a TTL
//     needs an expiration time, negative TTLs are invalid);
//   - complex deletions name complex columns of the right kind, in order,
//     once each;
//   - markers are bounds or boundaries with at most as many components as
//     clustering columns, in strictly increasing order, alternating open
//     and close (a boundary does both), with the deletion a range opened
//     with closing it, and non-live deletions where they open or close.
func (p *Partition) Validate(t *schema.Table) error {
	v := &validator{t: t, p: p}
	if len(p.Key) == 0 {
		return v.fail(nil, "empty partition key")
	}
	if len(p.Key) > 0xFFFF {
		return v.fail(nil, "partition key of %d bytes exceeds 65535", len(p.Key))
	}
	v.row = "static"
	if len(p.Static.Clustering) != 0 {
		return v.fail(nil, "static row has a clustering")
	}
	if err := v.row1(&p.Static, schema.Static); err != nil {
		return err
	}
	for i := range p.Rows {
		r := &p.Rows[i]
		v.row = FormatClustering(t, r.Clustering)
		if len(r.Clustering) != len(t.Clustering) {
			return v.fail(nil, "clustering has %d components, table has %d clustering columns", len(r.Clustering), len(t.Clustering))
		}
		if i > 0 && CompareClusterings(t, p.Rows[i-1].Clustering, r.Clustering) >= 0 {
			return v.fail(nil, "rows out of order: after %s", FormatClustering(t, p.Rows[i-1].Clustering))
		}
		if err := v.row1(r, schema.Regular); err != nil {
			return err
		}
	}
	return v.markers()
}

func (v *validator) row1(r *Row, kind schema.ColumnKind) error {
	if r.Liveness.IsEmpty() {
		if r.Liveness.TTL != NoTTL {
			return v.fail(nil, "liveness without timestamp has a ttl")
		}
	} else if r.Liveness.TTL < 0 {
		return v.fail(nil, "negative liveness ttl %d", r.Liveness.TTL)
	} else if r.Liveness.IsExpiring() && r.Liveness.LocalExpirationTime == NoDeletionTime {
		return v.fail(nil, "expiring liveness without expiration time")
	}
	if r.DeletionShadowable && r.Deletion.IsLive() {
		return v.fail(nil, "shadowable flag on a live row deletion")
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		col := c.Column
		if col == nil || col.Type == nil {
			return v.fail(nil, "cell %d has no column", i)
		}
		if col.Kind != kind {
			if kind == schema.Static {
				return v.fail(col, "non-static column in the static row")
			}
			return v.fail(col, "static column in a clustering row")
		}
		complex := col.Type.IsComplex()
		if complex && c.Path == nil {
			return v.fail(col, "element of a complex column has no path")
		}
		if !complex && c.Path != nil {
			return v.fail(col, "cell of a simple column has a path")
		}
		if i > 0 && CompareCells(&r.Cells[i-1], c) >= 0 {
			return v.fail(col, "cells out of order or duplicated")
		}
		if c.TTL < 0 {
			return v.fail(col, "negative ttl %d", c.TTL)
		}
		if c.TTL != NoTTL && c.LocalDeletionTime == NoDeletionTime {
			return v.fail(col, "expiring cell without expiration time")
		}
		if c.IsTombstone() {
			continue
		}
		if !complex && len(c.Value) > 0 {
			if n := col.Type.FixedLength(); n > 0 && len(c.Value) != n {
				return v.fail(col, "value of %d bytes, type %s needs %d", len(c.Value), col.Type, n)
			}
		}
		if col.Type.Kind == schema.KindCounter {
			if err := ValidateCounterContext(c.Value); err != nil {
				return v.fail(col, "%v", err)
			}
		}
	}
	for i := range r.ComplexDeletions {
		cd := &r.ComplexDeletions[i]
		if cd.Column == nil || cd.Column.Type == nil {
			return v.fail(nil, "complex deletion %d has no column", i)
		}
		if !cd.Column.Type.IsComplex() {
			return v.fail(cd.Column, "complex deletion on a simple column")
		}
		if cd.Column.Kind != kind {
			return v.fail(cd.Column, "complex deletion of a column of the wrong kind")
		}
		if cd.Deletion.IsLive() && r.hasCellsOf(cd.Column) {
			return v.fail(cd.Column, "live complex deletion of a column with elements")
		}
		if i > 0 && compareColumns(r.ComplexDeletions[i-1].Column, cd.Column) >= 0 {
			return v.fail(cd.Column, "complex deletions out of order or duplicated")
		}
	}
	return nil
}

func (v *validator) markers() error {
	t, p := v.t, v.p
	var open *RangeTombstoneMarker
	for i := range p.Markers {
		m := &p.Markers[i]
		v.row = m.Kind.String() + FormatClustering(t, m.Clustering)
		if !m.Kind.IsMarkerKind() {
			return v.fail(nil, "marker kind is not a bound or boundary")
		}
		if len(m.Clustering) > len(t.Clustering) {
			return v.fail(nil, "marker has %d components, table has %d clustering columns", len(m.Clustering), len(t.Clustering))
		}
		if m.Kind.IsBoundary() && len(m.Clustering) == 0 {
			return v.fail(nil, "boundary with an empty clustering")
		}
		if i > 0 {
			prev := &p.Markers[i-1]
			if ComparePrefix(t, prev.Kind, prev.Clustering, m.Kind, m.Clustering) >= 0 {
				return v.fail(nil, "markers out of order: after %v%s", prev.Kind, FormatClustering(t, prev.Clustering))
			}
		}
		if m.Kind.IsEnd() {
			if open == nil {
				return v.fail(nil, "closes a range that is not open")
			}
			if m.Close != open.Open {
				return v.fail(nil, "closing deletion %+v differs from the opening one %+v", m.Close, open.Open)
			}
			open = nil
		} else if !m.Close.IsLive() {
			return v.fail(nil, "start bound with a closing deletion")
		}
		if m.Kind.IsStart() {
			if open != nil {
				return v.fail(nil, "opens a range while another is open")
			}
			if m.Open.IsLive() {
				return v.fail(nil, "opens a range with a live deletion")
			}
			open = m
		} else if !m.Open.IsLive() {
			return v.fail(nil, "end bound with an opening deletion")
		}
	}
	if open != nil {
		v.row = open.Kind.String() + FormatClustering(t, open.Clustering)
		return v.fail(nil, "range is never closed")
	}
	return nil
}

// hasCellsOf reports whether r has a cell of col.
func (r *Row) hasCellsOf(col *schema.Column) bool {
	for i := range r.Cells {
		if compareColumns(r.Cells[i].Column, col) == 0 {
			return true
		}
	}
	return false
}
