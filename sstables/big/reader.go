package big

import (
	"fmt"
	"io"
	"sync"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
	"github.com/castable-db/castable/sstables/internal/sorted"
	"github.com/castable-db/castable/sstables/version"
)

// Reader reads one BIG SSTable of any version ma … oa. It implements
// sstables.Reader; the whole-file part (TOC.txt, Statistics.db, Data.db,
// scans and lookups) is the one every format shares
// (sstables/internal/sorted), this package adds Index.db and Summary.db.
// Scanners and Get may be used concurrently; each Scanner is not safe for
// concurrent use.
type Reader struct {
	s     *sorted.Reader
	desc  sstables.Descriptor
	fsys  sstables.FS
	table *schema.Table
	part  dht.Partitioner
	stats *sstables.Statistics
	data  *sstables.DataReader

	lookup sstables.KeyLookup
	// indexFile is Index.db, opened by the first lookup and kept.
	indexOnce sync.Once
	indexFile sstables.File
	indexSize int64
	indexErr  error
}

// isBigVersion reports whether v is one of this package's versions.
func isBigVersion(v version.Version) bool { return v.Family() == version.Big }

// open opens desc. table may be nil: the schema is then rebuilt from the
// serialization header.
func open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (*Reader, error) {
	if !isBigVersion(desc.Version) {
		return nil, fmt.Errorf("sstables: the BIG format does not read version %s", desc.Version)
	}
	r := &Reader{}
	_, err := sorted.Open(desc, table, opts, func(s *sorted.Reader) (sorted.Index, error) {
		r.s, r.desc, r.fsys, r.table, r.part, r.stats, r.data = s, s.Descriptor(), s.FS(), s.Table(), s.Partitioner(), s.Statistics(), s.Data()
		return readerIndex{r}, nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// readerIndex is the Reader's index layout for the shared reader.
type readerIndex struct{ *Reader }

// Locate implements sorted.Index.
func (x readerIndex) Locate(key []byte) (int64, sorted.Location, error) {
	pos, entry, err := x.locate(key)
	return pos, sorted.Location{Path: x.desc.Path(sstables.ComponentIndex), Component: string(sstables.ComponentIndex), Offset: entry}, err
}

// Close implements sorted.Index: it closes Index.db.
func (x readerIndex) Close() error {
	if x.indexFile == nil {
		return nil
	}
	err := x.indexFile.Close()
	x.indexFile = nil
	return err
}

// Descriptor implements sstables.Reader.
func (r *Reader) Descriptor() sstables.Descriptor { return r.desc }

// Table implements sstables.Reader.
func (r *Reader) Table() *schema.Table { return r.table }

// Partitioner implements sstables.Reader: the partitioner Statistics.db
// names.
func (r *Reader) Partitioner() dht.Partitioner { return r.part }

// Statistics returns the decoded Statistics.db.
func (r *Reader) Statistics() *sstables.Statistics { return r.stats }

// TOC returns the TOC.txt the reader opened (nil without one).
func (r *Reader) TOC() *sstables.TOC { return r.s.TOC() }

// MayContain implements sstables.KeyFilter.
func (r *Reader) MayContain(key []byte) (bool, error) {
	_, filter, err := r.lookup.LoadOrRebuild(r.fsys, r.desc, sstables.SummaryReadOptions{},
		sstables.LookupRebuild{Index: r, FPChance: r.stats.BloomFilterFPChance, Warn: r.s.Warn()})
	if err != nil {
		return true, err
	}
	return filter == nil || filter.MightContain(key), nil
}

// DataFile returns the Data.db reader.
func (r *Reader) DataFile() *sstables.DataReader { return r.s.Data() }

// Header returns the serialization header.
func (r *Reader) Header() *Header { return r.stats.Header }

// DataLength returns the uncompressed length of Data.db.
func (r *Reader) DataLength() int64 { return r.data.Length() }

// Scan implements sstables.Reader.
func (r *Reader) Scan() (sstables.Scanner, error) { return r.s.Scan() }

// Get implements sstables.Reader: Summary.db gives the Index.db offset to
// start from (the whole index is scanned when it is missing), Index.db the
// Data.db position.
func (r *Reader) Get(key []byte) (*mutation.Partition, error) { return r.s.Get(key) }

// Lookup implements sstables.Reader: Get, and the partition's position.
func (r *Reader) Lookup(key []byte) (*mutation.Partition, int64, error) { return r.s.Lookup(key) }

// ScanFrom implements sstables.Reader: a scan that starts at key's
// partition, found as Lookup finds it.
func (r *Reader) ScanFrom(key []byte) (sstables.Scanner, error) { return r.s.ScanFrom(key) }

// Close implements sstables.Reader.
func (r *Reader) Close() error { return r.s.Close() }

func (r *Reader) scanFrom(pos int64) *rows.Scanner { return r.s.ScanFromPos(pos) }

func (r *Reader) indexDecoder() *indexDecoder {
	return &indexDecoder{v: r.desc.Version, nClust: len(r.stats.Header.ClusteringTypes), fixed: rows.ClusteringFixed(r.stats.Header.ClusteringTypes)}
}

// openIndex opens Index.db for sequential reading from offset start (0, or
// a position taken from Summary.db) to the end of the file.
func (r *Reader) openIndex(start int64, promoted bool) (*indexIterator, io.Closer, error) {
	return r.openIndexRange(start, -1, promoted)
}

// openIndexRange is openIndex up to offset end (-1: the end of the file).
// Lookups read Index.db through one file handle the Reader keeps, and only
// the range between two summary entries.
func (r *Reader) openIndexRange(start, end int64, promoted bool) (*indexIterator, io.Closer, error) {
	path := r.desc.Path(sstables.ComponentIndex)
	r.indexOnce.Do(func() {
		if r.indexFile, r.indexErr = r.fsys.Open(path); r.indexErr == nil {
			if r.indexSize, r.indexErr = r.indexFile.Size(); r.indexErr != nil {
				r.indexFile.Close()
				r.indexFile = nil
			}
		}
	})
	if r.indexErr != nil {
		return nil, nil, r.indexErr
	}
	size := r.indexSize
	if start > size || end > size {
		// Only Summary.db gives a start other than 0.
		return nil, nil, sstables.Corruptf(r.desc.Path(sstables.ComponentSummary), string(sstables.ComponentSummary), -1,
			"entry points to Index.db offset %d, beyond its %d bytes", max(start, end), size)
	}
	if end < 0 {
		end = size
	}
	return newIndexIterator(r.indexFile, end, start, path, r.indexDecoder(), promoted), nopCloser{}, nil
}

// nopCloser is the closer of an iterator over the Reader's own Index.db
// handle, which Close releases.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// Index calls fn for every Index.db entry in order (the entry's slices are
// valid during the call only).
func (r *Reader) Index(fn func(e *IndexEntry) error) error {
	it, closer, err := r.openIndex(0, true)
	if err != nil {
		return err
	}
	defer closer.Close()
	for {
		e, err := it.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
}

// locate returns the Data.db position of key's partition and the Index.db
// offset of its entry, from Filter.db, Summary.db and Index.db; the
// position is -1 when the SSTable does not hold key.
func (r *Reader) locate(key []byte) (pos, entry int64, err error) {
	start, end, err := r.indexStart(key)
	if err != nil || start < 0 {
		return -1, -1, err
	}
	it, closer, err := r.openIndexRange(start, end, false)
	if err != nil {
		return -1, -1, err
	}
	defer closer.Close()
	defer it.st.Release() // only positions leave this function
	token := r.part.Token(key)
	for {
		e, err := it.next()
		if err == io.EOF {
			return -1, -1, nil
		}
		if err != nil {
			return -1, -1, err
		}
		c := dht.ComparePartitions(r.part.Token(e.Key), e.Key, token, key)
		if c < 0 {
			continue
		}
		if c > 0 {
			return -1, -1, nil
		}
		if e.Position < 0 || e.Position >= r.data.Length() {
			return -1, -1, sstables.Corruptf(it.path, string(sstables.ComponentIndex), e.Offset, "partition position %d beyond Data.db's %d bytes", e.Position, r.data.Length())
		}
		return e.Position, e.Offset, nil
	}
}

var _ sstables.Reader = (*Reader)(nil)

// EstimatedKeys implements sstables.KeyEstimator: IndexSummary.
// getEstimatedKeyCount() of Summary.db (rebuilt from Index.db when
// missing, as Cassandra does at open).
func (r *Reader) EstimatedKeys() (int64, error) {
	sum, _, err := r.lookup.LoadOrRebuild(r.fsys, r.desc, sstables.SummaryReadOptions{},
		sstables.LookupRebuild{Index: r, FPChance: r.stats.BloomFilterFPChance, Warn: r.s.Warn()})
	if err != nil || sum == nil {
		return 0, err
	}
	return sum.EstimatedKeys(), nil
}
