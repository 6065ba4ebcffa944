package sstables

// Reset empties the histogram, keeping its bin limit and its storage, so
// that a writer can build one histogram per partition without allocating.
func (h *StreamingHistogram) Reset() {
	h.points = h.points[:0]
	h.counts = h.counts[:0]
}
