package big

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
	"github.com/castable-db/castable/sstables/version"
)

// Reader reads one mc, md or me SSTable. It implements sstables.Reader.
// Scanners and Get may be used concurrently; each Scanner is not safe for
// concurrent use.
type Reader struct {
	desc    sstables.Descriptor
	fsys    sstables.FS
	table   *schema.Table
	part    dht.Partitioner
	stats   *sstables.Statistics
	static  []*schema.Column
	regular []*schema.Column
	data    *sstables.DataReader
	toc     *sstables.TOC // nil when the SSTable has no TOC.txt
	lookup  sstables.KeyLookup
	// indexFile is Index.db, opened by the first lookup and kept.
	indexOnce sync.Once
	indexFile sstables.File
	indexSize int64
	indexErr  error
	// lookupStreams recycles the Data.db streams of Lookup.
	lookupStreams sync.Pool
	// maxValue is sstables.ReaderOptions.MaxValueSize, defaulted.
	maxValue int64
	// readAhead is sstables.ReaderOptions.ReadAhead.
	readAhead int
}

// isBigVersion reports whether v is one of this package's versions.
func isBigVersion(v version.Version) bool {
	for _, name := range versions {
		if v.String() == name {
			return true
		}
	}
	return false
}

// open opens desc. table may be nil: the schema is then rebuilt from the
// serialization header.
func open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (*Reader, error) {
	if !isBigVersion(desc.Version) {
		return nil, fmt.Errorf("sstables: the BIG format does not read version %s", desc.Version)
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = sstables.OSFS
	}
	r := &Reader{desc: desc, fsys: fsys, maxValue: opts.EffectiveMaxValueSize(), readAhead: opts.ReadAhead}
	toc, err := sstables.ReadTOC(fsys, desc)
	switch {
	case err == nil:
		r.toc = toc
	case errors.Is(err, fs.ErrNotExist):
		// Some test corpora ship without TOC.txt; probe the files.
	default:
		return nil, err
	}
	statsPath := desc.Path(sstables.ComponentStatistics)
	b, err := readComponent(fsys, statsPath, sstables.ComponentStatistics, sstables.MaxStatisticsSize)
	if err != nil {
		return nil, err
	}
	if r.stats, err = sstables.DecodeStatistics(b, desc.Version, statsPath); err != nil {
		return nil, err
	}
	if r.part, err = sstables.FilePartitioner(r.stats.Partitioner, statsPath); err != nil {
		return nil, err
	}
	h := r.stats.Header
	if table == nil {
		if table, err = rows.TableFromHeader(h); err != nil {
			return nil, &sstables.CorruptionError{Path: statsPath, Component: string(sstables.ComponentStatistics), Offset: -1, Reason: "serialization header does not describe a valid table", Err: err}
		}
	} else if err := rows.CheckTableMatchesHeader(table, h); err != nil {
		return nil, fmt.Errorf("%s: %w", statsPath, err)
	}
	r.table = sstables.WithPartitioner(table, r.part)
	if r.static, err = rows.HeaderColumns(table, h.Static, schema.Static); err != nil {
		return nil, fmt.Errorf("%s: %w", statsPath, err)
	}
	if r.regular, err = rows.HeaderColumns(table, h.Regular, schema.Regular); err != nil {
		return nil, fmt.Errorf("%s: %w", statsPath, err)
	}
	chance := opts.CRCCheckChance
	if chance == 0 {
		chance = table.Options.CRCCheckChance
	}
	r.data, err = sstables.OpenData(fsys, desc, sstables.DataReaderOptions{CRCCheckChance: chance})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// readComponent reads a whole small component, refusing one larger than
// limit.
func readComponent(fsys sstables.FS, path string, c sstables.Component, limit int64) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return nil, err
	}
	if size > limit {
		return nil, sstables.Corruptf(path, string(c), -1, "file of %d bytes is larger than the %d accepted", size, limit)
	}
	b := make([]byte, size)
	if n, err := f.ReadAt(b, 0); n != len(b) {
		return nil, &sstables.CorruptionError{Path: path, Component: string(c), Offset: int64(n), Reason: "short read", Err: err}
	}
	return b, nil
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

// Header returns the serialization header.
func (r *Reader) Header() *Header { return r.stats.Header }

// DataLength returns the uncompressed length of Data.db.
func (r *Reader) DataLength() int64 { return r.data.Length() }

func (r *Reader) newDecoder() *rows.Decoder {
	return rows.NewDecoder(r.desc.Version, r.stats.Header, r.static, r.regular, len(r.table.Static), len(r.table.Regular), r.maxValue)
}

// newScanner returns a scanner of Data.db from offset start.
func (r *Reader) newScanner(src io.Reader, start int64, closer io.Closer) *rows.Scanner {
	return rows.NewScanner(r.newDecoder(), r.desc.Path(sstables.ComponentData), r.part, src, start, r.data.Length(), closer)
}

// Scan implements sstables.Reader.
func (r *Reader) Scan() (sstables.Scanner, error) {
	stream := r.data.NewReadAheadStream(0, r.readAhead)
	s := r.newScanner(stream, 0, stream)
	s.SetSeeking(r, r.table, stream)
	return s, nil
}

func (r *Reader) scanFrom(pos int64) *rows.Scanner {
	return r.newScanner(r.data.NewStream(pos), pos, nil)
}

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

// Get implements sstables.Reader: Summary.db gives the Index.db offset to
// start from (the whole index is scanned when it is missing), Index.db the
// Data.db position.
func (r *Reader) Get(key []byte) (*mutation.Partition, error) {
	p, _, err := r.Lookup(key)
	return p, err
}

// Lookup implements sstables.Reader: Get, and the partition's position.
func (r *Reader) Lookup(key []byte) (*mutation.Partition, int64, error) {
	pos, entry, err := r.locate(key)
	if err != nil || pos < 0 {
		return nil, -1, err
	}
	// A lookup borrows a Data.db stream (its decompressor and chunk
	// buffers) and a stream buffer, and gives both back: the partition is
	// copied out before.
	ds, _ := r.lookupStreams.Get().(*sstables.DataStream)
	if ds == nil {
		ds = r.data.NewStream(pos)
	} else if _, err := ds.Seek(pos, io.SeekStart); err != nil {
		return nil, -1, err
	}
	defer r.lookupStreams.Put(ds)
	sc := r.newScanner(ds, pos, nil)
	defer sc.Release()
	p, err := sc.NextPartition()
	if err != nil {
		return nil, -1, err
	}
	if !bytes.Equal(p.Key, key) {
		return nil, -1, sstables.Corruptf(r.desc.Path(sstables.ComponentIndex), string(sstables.ComponentIndex), entry, "entry points to Data.db offset %d, which holds another partition", pos)
	}
	p, err = rows.ReadWholePartition(sc, p)
	if err != nil {
		return nil, -1, err
	}
	return p, pos, nil
}

// ScanFrom implements sstables.Reader: a scan that starts at key's
// partition, found as Lookup finds it.
func (r *Reader) ScanFrom(key []byte) (sstables.Scanner, error) {
	pos, entry, err := r.locate(key)
	if err != nil || pos < 0 {
		return nil, err
	}
	if err := sstables.CheckPartitionKeyAt(r.data, pos, key, r.desc.Path(sstables.ComponentIndex), entry); err != nil {
		return nil, err
	}
	stream := r.data.NewReadAheadStream(pos, r.readAhead)
	s := r.newScanner(stream, pos, stream)
	s.SetSeeking(r, r.table, stream)
	return s, nil
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

// Close implements sstables.Reader.
func (r *Reader) Close() error {
	if r.data == nil {
		return nil
	}
	err := r.data.Close()
	r.data = nil
	if r.indexFile != nil {
		if cerr := r.indexFile.Close(); err == nil {
			err = cerr
		}
		r.indexFile = nil
	}
	return err
}

var _ sstables.Reader = (*Reader)(nil)
