package mutation

// Capping deletion times: the versions before oa store local deletion and
// expiration times as signed 32-bit seconds, which end on 2038-01-19. When
// data with later times is written to such a version, Cassandra's
// expiration_date_overflow_policy decides: REJECT (its default), or CAP to
// the last time it can store. These helpers implement CAP on the data
// model; writers reject what does not fit.

// capTime returns t, or max when t is a time (not NoDeletionTime) past max.
func capTime(t *int64, max int64) bool {
	if *t != NoDeletionTime && *t > max {
		*t = max
		return true
	}
	return false
}

// CapDeletionTimes caps every local deletion and expiration time of r past
// max to max and reports whether any was.
func (r *Row) CapDeletionTimes(max int64) bool {
	n := capTime(&r.Liveness.LocalExpirationTime, max)
	n = capTime(&r.Deletion.LocalDeletionTime, max) || n
	n = capTime(&r.ShadowableDeletion.LocalDeletionTime, max) || n
	for i := range r.ComplexDeletions {
		n = capTime(&r.ComplexDeletions[i].Deletion.LocalDeletionTime, max) || n
	}
	for i := range r.Cells {
		n = capTime(&r.Cells[i].LocalDeletionTime, max) || n
	}
	return n
}

// CapDeletionTimes caps the deletion times of m past max to max and
// reports whether any was.
func (m *RangeTombstoneMarker) CapDeletionTimes(max int64) bool {
	n := capTime(&m.Open.LocalDeletionTime, max)
	return capTime(&m.Close.LocalDeletionTime, max) || n
}

// CapDeletionTimes caps the deletion times of the partition deletion and
// the static row (and, when all is set, of every row and marker) past max to
// max and reports whether any was.
func (p *Partition) CapDeletionTimes(max int64, all bool) bool {
	n := capTime(&p.Deletion.LocalDeletionTime, max)
	n = p.Static.CapDeletionTimes(max) || n
	if !all {
		return n
	}
	for i := range p.Rows {
		n = p.Rows[i].CapDeletionTimes(max) || n
	}
	for i := range p.Markers {
		n = p.Markers[i].CapDeletionTimes(max) || n
	}
	return n
}
