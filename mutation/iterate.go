package mutation

import "github.com/castable-db/castable/schema"

// Unfiltered calls fn for every clustering row and range tombstone marker of
// p in clustering order, exactly one of r and m being non-nil per call. The
// static row is not included. Rows and markers must each be in clustering
// order already (see Validate); Unfiltered merges the two sequences. It does
// not allocate, and compares nothing when p has no markers. An error from fn
// stops the iteration and is returned.
func (p *Partition) Unfiltered(t *schema.Table, fn func(r *Row, m *RangeTombstoneMarker) error) error {
	if len(p.Markers) == 0 {
		for i := range p.Rows {
			if err := fn(&p.Rows[i], nil); err != nil {
				return err
			}
		}
		return nil
	}
	i, j := 0, 0
	for i < len(p.Rows) || j < len(p.Markers) {
		if j == len(p.Markers) || (i < len(p.Rows) &&
			ComparePrefix(t, ClusteringKind, p.Rows[i].Clustering, p.Markers[j].Kind, p.Markers[j].Clustering) < 0) {
			if err := fn(&p.Rows[i], nil); err != nil {
				return err
			}
			i++
			continue
		}
		if err := fn(nil, &p.Markers[j]); err != nil {
			return err
		}
		j++
	}
	return nil
}

// HasStatic reports whether p has static data to write (a non-empty static
// row).
func (p *Partition) HasStatic() bool { return !p.Static.IsEmpty() }
