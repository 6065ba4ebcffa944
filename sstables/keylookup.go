package sstables

import (
	"errors"
	"io/fs"
	"sync"
)

// KeyLookup loads, once and on first use, the two components a partition
// lookup consults before Index.db: Summary.db and Filter.db. A reader that
// only scans never reads them, so that its memory does not grow with the
// partition count of what it reads (a bloom filter costs about 1.2 bytes a
// partition, the summary one key in 128). The zero value is ready; it is
// safe for concurrent use.
type KeyLookup struct {
	once    sync.Once
	err     error
	summary *Summary
	filter  *BloomFilter
}

// Load returns desc's summary and bloom filter, reading them on the first
// call (later calls return the same values and error, whatever their
// arguments). A component that does not exist is returned as nil.
func (l *KeyLookup) Load(fsys FS, desc Descriptor, opts SummaryReadOptions) (*Summary, *BloomFilter, error) {
	l.once.Do(func() {
		s, err := ReadSummary(fsys, desc, opts)
		switch {
		case err == nil:
			l.summary = s
		case !errors.Is(err, fs.ErrNotExist):
			l.err = err
			return
		}
		f, err := ReadBloomFilter(fsys, desc)
		switch {
		case err == nil:
			l.filter = f
		case !errors.Is(err, fs.ErrNotExist):
			l.err = err
		}
	})
	return l.summary, l.filter, l.err
}
