package bti

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
	"github.com/castable-db/castable/sstables/internal/sorted"
)

// Reader reads one trie-indexed SSTable (da, ms, mt). It implements
// sstables.Reader; the whole-file part (TOC.txt, Statistics.db, Data.db,
// scans and lookups) is the one every format shares
// (sstables/internal/sorted), this package adds Partitions.db and Rows.db,
// read page by page as lookups and seeks need them (ReaderOptions
// .IndexCacheBytes of each kept). Scanners and Get may be used
// concurrently; each Scanner is not safe for concurrent use.
//
// A lookup reads the bloom filter (once), then the Partitions.db pages on
// the key's path from the root, then for a partition with a row index its
// Rows.db entry, then the partition from Data.db; a seek inside a large
// partition (sstables.ClusteringSeeker) follows the partition's Rows.db
// trie to the index block that holds the clustering and jumps there.
type Reader struct {
	s     *sorted.Reader
	desc  sstables.Descriptor
	fsys  sstables.FS
	table *schema.Table
	part  dht.Partitioner
	stats *sstables.Statistics
	data  *sstables.DataReader
	// types are the clustering types, for byte-comparable clusterings.
	types      []*schema.Type
	cacheBytes int

	lookup sstables.KeyLookup // Filter.db

	indexOnce sync.Once
	indexErr  error
	partFile  sstables.File
	rowsFile  sstables.File
	pi        *PartitionIndex
	ri        *RowIndex
	rowsSize  int64

	keys sync.Pool // *[]byte buffers for byte-comparable keys
}

// Open opens a trie-indexed SSTable of any of this package's versions;
// table may be nil (the schema is then rebuilt from the serialization
// header).
func Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (*Reader, error) {
	if err := checkVersion(desc.Version, "read"); err != nil {
		return nil, err
	}
	r := &Reader{cacheBytes: opts.IndexCacheBytes}
	_, err := sorted.Open(desc, table, opts, func(s *sorted.Reader) (sorted.Index, error) {
		r.s, r.desc, r.fsys, r.table, r.part, r.stats, r.data = s, s.Descriptor(), s.FS(), s.Table(), s.Partitioner(), s.Statistics(), s.Data()
		r.types = s.Header().ClusteringTypes
		return readerIndex{r}, nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// readerIndex is the Reader's index layout for the shared reader.
type readerIndex struct{ *Reader }

// Close implements sorted.Index: it closes Partitions.db and Rows.db.
func (x readerIndex) Close() error {
	var err error
	for _, f := range []*sstables.File{&x.partFile, &x.rowsFile} {
		if *f != nil {
			if cerr := (*f).Close(); err == nil {
				err = cerr
			}
			*f = nil
		}
	}
	return err
}

// Descriptor implements sstables.Reader.
func (r *Reader) Descriptor() sstables.Descriptor { return r.desc }

// Table implements sstables.Reader.
func (r *Reader) Table() *schema.Table { return r.table }

// Partitioner implements sstables.Reader: the partitioner Statistics.db
// names.
func (r *Reader) Partitioner() dht.Partitioner { return r.part }

// Statistics implements sstables.Reader.
func (r *Reader) Statistics() *sstables.Statistics { return r.stats }

// TOC returns the TOC.txt the reader opened (nil without one).
func (r *Reader) TOC() *sstables.TOC { return r.s.TOC() }

// MayContain implements sstables.KeyFilter.
func (r *Reader) MayContain(key []byte) (bool, error) {
	_, filter, err := r.lookup.Load(r.fsys, r.desc, sstables.SummaryReadOptions{})
	if err != nil {
		return true, err
	}
	return filter == nil || filter.MightContain(key), nil
}

// DataFile returns the Data.db reader.
func (r *Reader) DataFile() *sstables.DataReader { return r.s.Data() }

// Header returns the serialization header.
func (r *Reader) Header() *sstables.SerializationHeader { return r.stats.Header }

// DataLength returns the uncompressed length of Data.db.
func (r *Reader) DataLength() int64 { return r.data.Length() }

// Scan implements sstables.Reader; the scanner seeks inside partitions
// through Rows.db (sstables.ClusteringSeeker).
func (r *Reader) Scan() (sstables.Scanner, error) { return r.s.Scan() }

// Get implements sstables.Reader: Filter.db, Partitions.db (and Rows.db
// for a partition with a row index), then the partition from Data.db.
func (r *Reader) Get(key []byte) (*mutation.Partition, error) { return r.s.Get(key) }

// Lookup implements sstables.Reader: Get, and the partition's position.
func (r *Reader) Lookup(key []byte) (*mutation.Partition, int64, error) { return r.s.Lookup(key) }

// ScanFrom implements sstables.Reader: a scan that starts at key's
// partition, found as Lookup finds it.
func (r *Reader) ScanFrom(key []byte) (sstables.Scanner, error) { return r.s.ScanFrom(key) }

// Close implements sstables.Reader.
func (r *Reader) Close() error { return r.s.Close() }

// IndexBytesRead returns what lookups and seeks have read of Partitions.db
// and Rows.db so far: bytes and reads.
func (r *Reader) IndexBytesRead() (bytes, reads int64) {
	if r.openIndexes() != nil {
		return 0, 0
	}
	b1, n1 := r.pi.BytesRead()
	b2, n2 := r.ri.BytesRead()
	return b1 + b2, n1 + n2
}

// openIndexes opens Partitions.db and Rows.db on first use: their footer
// and entries are read then, their trie pages as lookups go.
func (r *Reader) openIndexes() error {
	r.indexOnce.Do(func() {
		open := func(c sstables.Component) (sstables.File, int64, error) {
			f, err := r.fsys.Open(r.desc.Path(c))
			if err != nil {
				return nil, 0, err
			}
			size, err := f.Size()
			if err != nil {
				f.Close()
				return nil, 0, err
			}
			return f, size, nil
		}
		var size int64
		if r.partFile, size, r.indexErr = open(sstables.ComponentPartitions); r.indexErr != nil {
			return
		}
		if r.pi, r.indexErr = OpenPartitionIndexFile(r.partFile, size, r.desc.Path(sstables.ComponentPartitions), r.cacheBytes); r.indexErr != nil {
			return
		}
		if r.rowsFile, r.rowsSize, r.indexErr = open(sstables.ComponentRows); r.indexErr != nil {
			return
		}
		r.ri = OpenRowIndexFile(r.rowsFile, r.rowsSize, r.desc.Path(sstables.ComponentRows), r.cacheBytes)
	})
	return r.indexErr
}

// candidate returns what Partitions.db says of key: ok false when the key
// is certainly absent.
func (r *Reader) candidate(key []byte) (PartitionCandidate, bool, error) {
	if err := r.openIndexes(); err != nil {
		return PartitionCandidate{}, false, err
	}
	bp, _ := r.keys.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	*bp = AppendDecoratedKey((*bp)[:0], r.part, key)
	c, ok, err := r.pi.Lookup(*bp, HashByte(key))
	r.keys.Put(bp)
	return c, ok, err
}

func (r *Reader) partitionsLocation() sorted.Location {
	return sorted.Location{Path: r.desc.Path(sstables.ComponentPartitions), Component: ComponentPartitions, Offset: -1}
}

func (r *Reader) rowsLocation(off int64) sorted.Location {
	return sorted.Location{Path: r.desc.Path(sstables.ComponentRows), Component: ComponentRows, Offset: off}
}

// Locate implements sorted.Index.
func (x readerIndex) Locate(key []byte) (int64, sorted.Location, error) {
	r := x.Reader
	_, filter, err := r.lookup.Load(r.fsys, r.desc, sstables.SummaryReadOptions{})
	if err != nil {
		return -1, sorted.Location{}, err
	}
	if filter != nil && !filter.MightContain(key) {
		return -1, sorted.Location{}, nil
	}
	c, ok, err := r.candidate(key)
	if err != nil || !ok {
		return -1, r.partitionsLocation(), err
	}
	if !c.InRowIndex() {
		at := r.partitionsLocation()
		at.MayDiffer = true // a shared prefix: Data.db's key decides
		return c.DataPos(), at, nil
	}
	e, err := r.ri.Entry(c.Pos)
	if err != nil {
		return -1, r.rowsLocation(c.Pos), err
	}
	if !bytes.Equal(e.Key, key) {
		return -1, r.rowsLocation(c.Pos), nil // another key with the prefix
	}
	return e.DataPos, r.rowsLocation(c.Pos), nil
}

// RowIndex implements rows.RowIndexSource: the Rows.db trie of the
// partition with key at Data.db offset start, found through Partitions.db;
// nil for a partition without one. The entry must describe the partition
// (key, position, deletion).
func (x readerIndex) RowIndex(key []byte, start, headerLength int64, deletion mutation.DeletionTime, dataLength int64) (rows.RowIndex, error) {
	r := x.Reader
	e, at, ok, err := r.rowIndexEntry(key, start, deletion)
	if err != nil || !ok {
		return nil, err
	}
	return &rowSeeker{r: r, e: e, at: at, start: start, headerLength: headerLength, maxOff: dataLength - start}, nil
}

// rowIndexEntry finds, through Partitions.db, the Rows.db entry of the
// partition with key at Data.db offset pos, checking that it describes that
// partition (key, position, deletion); ok is false for a partition Rows.db
// does not index. Lookups and Verify share it.
func (r *Reader) rowIndexEntry(key []byte, pos int64, deletion mutation.DeletionTime) (e RowIndexEntry, at sorted.Location, ok bool, err error) {
	c, found, err := r.candidate(key)
	if err != nil {
		return e, at, false, err
	}
	if !found {
		return e, at, false, r.partitionsLocation().Corruptf("no entry for the partition at Data.db offset %d (key %x)", pos, key)
	}
	if !c.InRowIndex() {
		if c.DataPos() != pos {
			return e, at, false, r.partitionsLocation().Corruptf("the partition at Data.db offset %d (key %x) is indexed at Data.db offset %d", pos, key, c.DataPos())
		}
		return e, at, false, nil
	}
	if e, err = r.ri.Entry(c.Pos); err != nil {
		return e, at, false, err
	}
	at = r.rowsLocation(c.Pos)
	switch {
	case !bytes.Equal(e.Key, key):
		return e, at, false, at.Corruptf("entry of key %x, where Partitions.db leads the key %x of the partition at Data.db offset %d", e.Key, key, pos)
	case e.DataPos != pos:
		return e, at, false, at.Corruptf("entry of the partition at Data.db offset %d gives position %d", pos, e.DataPos)
	case e.Deletion != deletion:
		return e, at, false, at.Corruptf("partition deletion %v, Data.db has %v", e.Deletion, deletion)
	}
	return e, at, true, nil
}

// rowSeeker is one partition's Rows.db trie as a rows.RowIndex.
type rowSeeker struct {
	r                   *Reader
	e                   RowIndexEntry
	at                  sorted.Location
	start, headerLength int64
	maxOff              int64 // Data.db bytes from the partition start on
	buf                 []byte
}

// Seek implements rows.RowIndex: the block whose separator is the
// greatest at or below the inclusive start bound of ck holds everything
// from that bound on (separators lie between one block's last clustering
// and the next one's first).
func (s *rowSeeker) Seek(ck mutation.Clustering, rel int64) (int64, mutation.DeletionTime, bool, error) {
	s.buf = AppendClustering(s.buf[:0], s.r.types, ck, mutation.InclStartBound)
	info, err := s.r.ri.Floor(s.e.Root, s.buf)
	if err != nil {
		return 0, mutation.Live, false, err
	}
	if info.Offset <= rel {
		return 0, mutation.Live, false, nil
	}
	if info.Offset < s.headerLength || info.Offset >= s.maxOff {
		return 0, mutation.Live, false, s.at.Corruptf("row index block at offset %d, outside the partition's unfiltereds (%d…%d)", info.Offset, s.headerLength, s.maxOff)
	}
	return info.Offset, info.Open, true, nil
}

// CheckLanding implements rows.RowIndex: the unfiltered found at a block's
// offset must be one the trie puts in that block (the end of the partition
// at the final entry's offset).
func (s *rowSeeker) CheckLanding(off int64, kind mutation.BoundKind, c mutation.Clustering) error {
	var info RowIndexInfo
	var err error
	if kind == mutation.StaticClustering {
		info, err = s.r.ri.Last(s.e.Root)
	} else {
		s.buf = AppendClustering(s.buf[:0], s.r.types, c, kind)
		info, err = s.r.ri.Floor(s.e.Root, s.buf)
	}
	if err != nil {
		return err
	}
	if info.Offset != off {
		what := "the partition's end"
		if kind != mutation.StaticClustering {
			what = fmt.Sprintf("%s %x", kind, [][]byte(c))
		}
		return s.at.Corruptf("row index block at offset %d, but %s there belongs to the block at %d", off, what, info.Offset)
	}
	return nil
}

var _ sstables.Reader = (*Reader)(nil)

// EstimatedKeys implements sstables.KeyEstimator: BtiTableReader.
// estimatedKeys(), the key count in Partitions.db's footer.
func (r *Reader) EstimatedKeys() (int64, error) {
	if err := r.openIndexes(); err != nil {
		return 0, err
	}
	return r.pi.KeyCount, nil
}
