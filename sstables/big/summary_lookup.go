package big

import (
	"github.com/castable-db/castable/sstables"
)

// indexStart returns the Index.db range [start, end) a lookup of key scans
// — from the summary entry at or before key to the next one (end is -1
// for the end of the index) — or start -1 when the filter or the summary
// already show that key is absent. Without Summary.db the scan covers the
// whole index.
func (r *Reader) indexStart(key []byte) (start, end int64, err error) {
	summary, filter, err := r.lookup.Load(r.fsys, r.desc, sstables.SummaryReadOptions{})
	if err != nil {
		return 0, 0, err
	}
	if filter != nil && !filter.MightContain(key) {
		return -1, 0, nil
	}
	if summary == nil || summary.Len() == 0 {
		return 0, -1, nil
	}
	k := summary.Floor(r.part, key)
	if k < 0 {
		return -1, 0, nil
	}
	start, end = summary.IndexPosition(k), -1
	if k+1 < summary.Len() {
		end = summary.IndexPosition(k + 1)
	}
	if start < 0 || (end >= 0 && end < start) {
		return 0, 0, sstables.Corruptf(r.desc.Path(sstables.ComponentSummary), string(sstables.ComponentSummary), -1,
			"entry %d has the Index.db position %d, out of order", k, start)
	}
	return start, end, nil
}
