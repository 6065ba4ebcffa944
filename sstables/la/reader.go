package la

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// Reader reads one la SSTable; it implements sstables.Reader.
type Reader struct {
	desc     sstables.Descriptor
	fsys     sstables.FS
	table    *schema.Table
	part     dht.Partitioner
	inferred bool
	toc      *sstables.TOC
	l        layout
	stats    *sstables.Statistics
	data     *sstables.DataReader
	// lookup holds Summary.db and Filter.db, read by the first Get.
	lookup sstables.KeyLookup

	// maxValue is sstables.ReaderOptions.MaxValueSize, defaulted.
	maxValue int64
	// readAhead is sstables.ReaderOptions.ReadAhead.
	readAhead int
	// warn is sstables.ReaderOptions.Warn.
	warn sstables.WarnFunc

	// getMu guards the scanner Get reuses (a decompression stream is
	// costly to set up).
	getMu  sync.Mutex
	getter *scanner
}

// readableVersion reports whether the la reader accepts files of version
// v: la, Cassandra 2.1's identical ka (renamed), and 2.2.7+'s lb, whose
// Statistics.db only adds a commit log lower bound.
func readableVersion(v version.Version) bool { return v.LegacyCells() }

// Open opens the SSTable desc. table names and types the columns; when it
// is nil the reader infers a table from the SSTable itself (see
// InferTable): blob-typed columns named after the cell names found in
// Data.db, which takes one extra pass over the file.
func Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (*Reader, error) {
	if !readableVersion(desc.Version) {
		return nil, fmt.Errorf("la: cannot read SSTable version %s", desc.Version)
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = sstables.OSFS
	}
	r := &Reader{desc: desc, fsys: fsys, table: table, maxValue: opts.EffectiveMaxValueSize(), readAhead: opts.ReadAhead, warn: opts.Warn}
	toc, err := sstables.OpenTOC(fsys, desc, opts.Warn)
	if err != nil {
		return nil, err
	}
	r.toc = toc
	statsPath := desc.Path(sstables.ComponentStatistics)
	if r.stats, err = sstables.ReadStatistics(fsys, desc, opts); err != nil {
		return nil, err
	}
	if r.part, err = sstables.FilePartitioner(r.stats.Partitioner, statsPath); err != nil {
		return nil, err
	}
	chance := opts.CRCCheckChance
	if chance == 0 && table != nil {
		chance = table.Options.CRCCheckChance
	}
	if r.data, err = sstables.OpenData(fsys, desc, sstables.DataReaderOptions{CRCCheckChance: chance, Warn: opts.Warn, WarnCRCMismatch: opts.WarnUncompressedCRC}); err != nil {
		return nil, err
	}
	if table == nil {
		if r.table, err = inferTable(r); err != nil {
			r.data.Close()
			return nil, err
		}
		r.inferred = true
	}
	r.table = sstables.WithPartitioner(r.table, r.part)
	r.l = layoutOf(r.table)
	return r, nil
}

// loadLookup returns Summary.db and Filter.db (nil when absent), read
// once, on the first lookup: a scan does not need them.
func (r *Reader) loadLookup() (*sstables.Summary, *sstables.BloomFilter, error) {
	return r.lookup.LoadOrRebuild(r.fsys, r.desc, sstables.SummaryReadOptions{DataCompressed: r.data.CompressionInfo() != nil},
		sstables.LookupRebuild{Index: r, FPChance: r.stats.BloomFilterFPChance, Warn: r.warn})
}

// Descriptor implements sstables.Reader.
func (r *Reader) Descriptor() sstables.Descriptor { return r.desc }

// Table implements sstables.Reader: the table given to Open, or the
// inferred one.
func (r *Reader) Table() *schema.Table { return r.table }

// Inferred reports whether Table was inferred from the SSTable.
func (r *Reader) Inferred() bool { return r.inferred }

// Statistics returns the parsed Statistics.db.
func (r *Reader) Statistics() *sstables.Statistics { return r.stats }

// TOC returns the TOC.txt the reader opened (nil without one).
func (r *Reader) TOC() *sstables.TOC { return r.toc }

// MayContain implements sstables.KeyFilter.
func (r *Reader) MayContain(key []byte) (bool, error) {
	_, filter, err := r.loadLookup()
	if err != nil {
		return true, err
	}
	return filter == nil || filter.MightContain(key), nil
}

// DataFile returns the Data.db reader.
func (r *Reader) DataFile() *sstables.DataReader { return r.data }

// Partitioner implements sstables.Reader: the partitioner Statistics.db
// names.
func (r *Reader) Partitioner() dht.Partitioner { return r.part }

// DataLength returns the uncompressed length of Data.db.
func (r *Reader) DataLength() int64 { return r.data.Length() }

// Close implements sstables.Reader.
func (r *Reader) Close() error { return r.data.Close() }

// Scan implements sstables.Reader.
func (r *Reader) Scan() (sstables.Scanner, error) {
	return r.newScanner(r.data.NewReadAheadStream(0, r.readAhead), 0), nil
}

func (r *Reader) scanFrom(pos int64) *scanner { return r.newScanner(r.data.NewStream(pos), pos) }

func (r *Reader) newScanner(stream *sstables.DataStream, pos int64) *scanner {
	s := &scanner{
		tokens: r.part,
		stream: stream,
		in:     newInput(stream, pos, r.data.Length(), r.desc.Path(sstables.ComponentData), sstables.ComponentData),
		pr:     newPartitionReader(r.table, r.l),
	}
	s.in.maxValue = r.maxValue
	return s
}

// seek repositions s at pos (the start of a partition).
func (s *scanner) seek(pos int64) error {
	if _, err := s.stream.Seek(pos, io.SeekStart); err != nil {
		return err
	}
	s.in.reset(s.stream, pos, s.in.length)
	s.inPart, s.err = false, nil
	return nil
}

// scanner implements sstables.Scanner over the Data.db stream.
type scanner struct {
	tokens    dht.Partitioner
	stream    *sstables.DataStream
	in        *input
	pr        *partitionReader
	part      mutation.Partition
	key       []byte
	static    []byte // arena of the copied static row
	partStart int64
	inPart    bool
	err       error
}

// NextPartition implements sstables.Scanner.
func (s *scanner) NextPartition() (*mutation.Partition, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.inPart {
		if err := s.pr.skip(); err != nil {
			s.err = err
			return nil, err
		}
		s.inPart = false
	}
	if s.in.remaining() == 0 {
		return nil, io.EOF
	}
	s.partStart = s.in.offset()
	key, err := s.in.shortBytes()
	if err != nil {
		s.err = err
		return nil, err
	}
	if len(key) == 0 {
		s.err = s.in.corrupt(s.partStart, "empty partition key")
		return nil, s.err
	}
	s.key = append(s.key[:0], key...)
	dt, err := s.in.next(deletionTimeSize)
	if err != nil {
		s.err = err
		return nil, err
	}
	deletion := decodeDeletionTime(dt)
	s.pr.start(s.in, deletion)
	static, err := s.pr.readStatic()
	if err != nil {
		s.err = err
		return nil, err
	}
	s.part.Key = s.key
	s.part.Token = s.tokens.Token(s.key)
	s.part.Deletion = deletion
	s.part.Rows = s.part.Rows[:0]
	s.part.Markers = s.part.Markers[:0]
	s.part.Static.Reset()
	if static != nil {
		s.static = copyRow(&s.part.Static, static, s.static[:0])
	}
	s.inPart = true
	return &s.part, nil
}

// copyRow copies src into dst, reusing dst's slices; the bytes go to
// arena, which is returned.
func copyRow(dst, src *mutation.Row, arena []byte) []byte {
	cells := dst.Cells[:0]
	deletions := dst.ComplexDeletions[:0]
	*dst = *src
	dst.Clustering = nil
	for _, c := range src.Cells {
		if c.Path != nil {
			n := len(arena)
			arena = append(arena, c.Path...)
			c.Path = arena[n:len(arena):len(arena)]
		}
		if c.Value != nil {
			n := len(arena)
			arena = append(arena, c.Value...)
			c.Value = arena[n:len(arena):len(arena)]
		}
		cells = append(cells, c)
	}
	dst.Cells = cells
	dst.ComplexDeletions = append(deletions, src.ComplexDeletions...)
	return arena
}

// Next implements sstables.Scanner.
func (s *scanner) Next() (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
	if s.err != nil {
		return nil, nil, s.err
	}
	if !s.inPart {
		return nil, nil, nil
	}
	row, m, err := s.pr.next()
	if err != nil {
		s.err = err
		return nil, nil, err
	}
	if row == nil && m == nil {
		s.inPart = false
	}
	return row, m, nil
}

// Position implements sstables.Scanner.
func (s *scanner) Position() int64 { return s.partStart }

// Close implements sstables.Scanner.
func (s *scanner) Close() error { return s.stream.Close() }

// readWholePartition reads the partition the scanner is on into a fresh
// Partition.
func readWholePartition(s *scanner, p *mutation.Partition) (*mutation.Partition, error) {
	out := &mutation.Partition{Key: bytes.Clone(p.Key), Deletion: p.Deletion}
	out.Token = s.tokens.Token(out.Key) // a key-ordered token refers to its key
	out.Static = cloneRow(&p.Static)
	if p.Static.IsEmpty() {
		out.Static = mutation.NewRow(nil)
	}
	for {
		row, m, err := s.Next()
		if err != nil {
			return nil, err
		}
		switch {
		case row != nil:
			out.Rows = append(out.Rows, cloneRow(row))
		case m != nil:
			out.Markers = append(out.Markers, cloneMarker(m))
		default:
			return out, nil
		}
	}
}

// Get implements sstables.Reader: Filter.db, then Summary.db, then
// Index.db locate the partition in Data.db.
func (r *Reader) Get(key []byte) (*mutation.Partition, error) {
	p, _, err := r.Lookup(key)
	return p, err
}

// Lookup implements sstables.Reader: Get, and the partition's position.
func (r *Reader) Lookup(key []byte) (*mutation.Partition, int64, error) {
	summary, filter, err := r.loadLookup()
	if err != nil {
		return nil, -1, err
	}
	if filter != nil && !filter.MightContain(key) {
		return nil, -1, nil
	}
	pos, found, err := r.findIndexEntry(key, summary)
	if err != nil || !found {
		return nil, -1, err
	}
	r.getMu.Lock()
	defer r.getMu.Unlock()
	if r.getter == nil {
		r.getter = r.scanFrom(pos)
	} else if err := r.getter.seek(pos); err != nil {
		return nil, -1, err
	}
	s := r.getter
	p, err := s.NextPartition()
	if err != nil {
		if err == io.EOF {
			err = s.in.corrupt(pos, "Index.db points past the end of Data.db")
		}
		return nil, -1, err
	}
	if !bytes.Equal(p.Key, key) {
		return nil, -1, s.in.corrupt(pos, "Index.db points to partition %x, want %x", p.Key, key)
	}
	if p, err = readWholePartition(s, p); err != nil {
		return nil, -1, err
	}
	return p, pos, nil
}

// ScanFrom implements sstables.Reader: a scan that starts at key's
// partition, found as Lookup finds it.
func (r *Reader) ScanFrom(key []byte) (sstables.Scanner, error) {
	summary, filter, err := r.loadLookup()
	if err != nil {
		return nil, err
	}
	if filter != nil && !filter.MightContain(key) {
		return nil, nil
	}
	pos, found, err := r.findIndexEntry(key, summary)
	if err != nil || !found {
		return nil, err
	}
	if err := sstables.CheckPartitionKeyAt(r.data, pos, key, r.desc.Path(sstables.ComponentIndex), -1); err != nil {
		return nil, err
	}
	return r.newScanner(r.data.NewReadAheadStream(pos, r.readAhead), pos), nil
}

// findIndexEntry returns the Data.db position of key from Index.db,
// starting at the Summary.db sample at or before it.
func (r *Reader) findIndexEntry(key []byte, summary *sstables.Summary) (int64, bool, error) {
	path := r.desc.Path(sstables.ComponentIndex)
	f, err := r.fsys.Open(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return 0, false, err
	}
	var start int64
	limit := -1
	if summary != nil {
		k := summary.Floor(r.part, key)
		if k < 0 {
			return 0, false, nil
		}
		start = summary.IndexPosition(k)
		limit = summary.MinIndexInterval
		if start < 0 || start > size {
			return 0, false, sstables.Corruptf(r.desc.Path(sstables.ComponentSummary), string(sstables.ComponentSummary), -1,
				"entry %d points to Index.db offset %d beyond its %d bytes", k, start, size)
		}
	}
	in := newInput(io.NewSectionReader(f, start, size-start), start, size, path, sstables.ComponentIndex)
	token := r.part.Token(key)
	var e indexEntry
	var arena []byte
	for i := 0; limit < 0 || i < limit; i++ {
		arena = arena[:0]
		ok, err := readIndexEntry(in, &e, &arena)
		if err != nil || !ok {
			return 0, false, err
		}
		switch c := dht.ComparePartitions(r.part.Token(e.key), e.key, token, key); {
		case c == 0:
			return e.position, true, nil
		case c > 0:
			return 0, false, nil
		}
	}
	return 0, false, nil
}

var _ sstables.Reader = (*Reader)(nil)

// EstimatedKeys implements sstables.KeyEstimator: IndexSummary.
// getEstimatedKeyCount() of Summary.db.
func (r *Reader) EstimatedKeys() (int64, error) {
	sum, _, err := r.loadLookup()
	if err != nil || sum == nil {
		return 0, err
	}
	return sum.EstimatedKeys(), nil
}
