package mc

import (
	"errors"
	"io/fs"
	"sync"

	"github.com/castable-db/castable/sstables"
)

// lookup holds what Get consults before Index.db: the bloom filter and
// the summary, loaded once.
type lookup struct {
	once    sync.Once
	err     error
	summary *sstables.Summary     // nil when absent
	filter  *sstables.BloomFilter // nil when absent
}

func (r *Reader) loadLookup() (*lookup, error) {
	l := &r.lookup
	l.once.Do(func() {
		s, err := sstables.ReadSummary(r.fsys, r.desc, sstables.SummaryReadOptions{})
		switch {
		case err == nil:
			l.summary = s
		case !errors.Is(err, fs.ErrNotExist):
			l.err = err
			return
		}
		f, err := sstables.ReadBloomFilter(r.fsys, r.desc, false)
		switch {
		case err == nil:
			l.filter = f
		case !errors.Is(err, fs.ErrNotExist):
			l.err = err
		}
	})
	return l, l.err
}

// indexStart returns the Index.db offset from which a lookup of key scans,
// or -1 when the filter or the summary already show that key is absent.
// Without Summary.db the scan starts at the beginning of the index.
func (r *Reader) indexStart(key []byte) (int64, error) {
	l, err := r.loadLookup()
	if err != nil {
		return 0, err
	}
	if l.filter != nil && !l.filter.MightContain(key) {
		return -1, nil
	}
	if l.summary == nil || l.summary.Len() == 0 {
		return 0, nil
	}
	k := l.summary.Floor(key)
	if k < 0 {
		return -1, nil
	}
	pos := l.summary.IndexPosition(k)
	if pos < 0 {
		return 0, sstables.Corruptf(r.desc.Path(sstables.ComponentSummary), string(sstables.ComponentSummary), -1,
			"entry %d has the negative Index.db position %d", k, pos)
	}
	return pos, nil
}
