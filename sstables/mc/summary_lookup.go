package mc

import (
	"github.com/castable-db/castable/sstables"
)

// indexStart returns the Index.db offset from which a lookup of key scans,
// or -1 when the filter or the summary already show that key is absent.
// Without Summary.db the scan starts at the beginning of the index.
func (r *Reader) indexStart(key []byte) (int64, error) {
	summary, filter, err := r.lookup.Load(r.fsys, r.desc, sstables.SummaryReadOptions{}, false)
	if err != nil {
		return 0, err
	}
	if filter != nil && !filter.MightContain(key) {
		return -1, nil
	}
	if summary == nil || summary.Len() == 0 {
		return 0, nil
	}
	k := summary.Floor(key)
	if k < 0 {
		return -1, nil
	}
	pos := summary.IndexPosition(k)
	if pos < 0 {
		return 0, sstables.Corruptf(r.desc.Path(sstables.ComponentSummary), string(sstables.ComponentSummary), -1,
			"entry %d has the negative Index.db position %d", k, pos)
	}
	return pos, nil
}
