package rows

import (
	"errors"
	"io"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// Scanner walks the partitions of a Data.db stream row by row. It
// implements sstables.Scanner (and sstables.ClusteringSeeker when it reads
// through a DataStream with a RowIndexSource). The partition it returns,
// and the rows and markers, alias its buffers (see the interface's
// validity rules).
type Scanner struct {
	dec  *Decoder
	path string // Data.db path, for errors
	// tokens computes the partitions' tokens.
	tokens dht.Partitioner

	part      mutation.Partition
	keyBuf    []byte
	row       mutation.Row
	marker    mutation.RangeTombstoneMarker
	inPart    bool
	partStart int64
	err       error
	closer    io.Closer

	// Seeking (seek.go). index, table and ds are set by SetSeeking (nil
	// for a scanner over a plain io.Reader, which then decodes and drops).
	index RowIndexSource
	table *schema.Table
	ds    *sstables.DataStream
	// started: NextPartition has returned a partition.
	started bool
	// headerEnd is the absolute offset of the partition's first unfiltered.
	headerEnd int64
	// open is the range deletion open after every unfiltered consumed
	// (returned or dropped) in this partition.
	open mutation.DeletionTime
	// held is an unfiltered decoded by a seek and not yet returned (in
	// row or marker); heldEnd: the held item is the partition's end.
	held, heldEnd bool
	heldKind      unfilteredKind
	// pending is the synthesized open marker Next returns first after a
	// seek; pendingBuf keeps its clustering.
	pending    bool
	pendMarker mutation.RangeTombstoneMarker
	pendingBuf []byte
	seekClust  mutation.Clustering
	// last is the position of the last unfiltered returned, for refusing
	// backward seeks.
	hasLast   bool
	lastKind  mutation.BoundKind
	lastClust mutation.Clustering
	// The partition's row index, looked up on the first seek.
	entryLoaded bool
	rowIndex    RowIndex
	// jumps counts the seeks that moved the stream forward through the
	// row index (for tests).
	jumps int
}

// NewScanner returns a scanner of the Data.db stream src, which starts at
// offset start and ends at limit; path names Data.db in errors, tokens
// computes the partitions' tokens, closer (may be nil) is closed by Close.
func NewScanner(dec *Decoder, path string, tokens dht.Partitioner, src io.Reader, start, limit int64, closer io.Closer) *Scanner {
	dec.st = NewStream(src, start, limit)
	return &Scanner{dec: dec, path: path, tokens: tokens, closer: closer}
}

// SetSeeking lets SeekClustering jump through the row indexes index gives,
// moving ds (the stream the scanner reads) for table's partitions.
func (s *Scanner) SetSeeking(index RowIndexSource, table *schema.Table, ds *sstables.DataStream) {
	s.index, s.table, s.ds = index, table, ds
}

// SetRowIndexSource replaces the source of row indexes SetSeeking gave.
func (s *Scanner) SetRowIndexSource(index RowIndexSource) { s.index = index }

// Decoder returns the scanner's decoder.
func (s *Scanner) Decoder() *Decoder { return s.dec }

// Jumps returns the number of seeks that moved the stream forward through
// a row index.
func (s *Scanner) Jumps() int { return s.jumps }

// HeaderEnd returns the Data.db offset of the current partition's first
// unfiltered.
func (s *Scanner) HeaderEnd() int64 { return s.headerEnd }

// Pos returns the Data.db offset of the next byte the scanner decodes.
func (s *Scanner) Pos() int64 { return s.dec.st.pos }

// Release gives back the stream's buffer (the scanner must not be used
// after).
func (s *Scanner) Release() { s.dec.st.Release() }

// corrupt turns a decoding failure into a CorruptionError naming Data.db.
func (s *Scanner) corrupt(err error) error {
	var de *decodeError
	var ce *sstables.CorruptionError
	switch {
	case errors.As(err, &ce):
		return err
	case errors.As(err, &de):
		if errors.Is(de.err, ErrShort) {
			return sstables.Corruptf(s.path, string(sstables.ComponentData), de.offset, "truncated unfiltered or partition (Data.db ends at %d)", s.dec.st.limit)
		}
		// A read error of the chunk reader is passed on as it is (it
		// names the chunk).
		if errors.As(de.err, &ce) {
			return de.err
		}
		if errors.Is(de.err, sstables.ErrValueTooLarge) {
			return &sstables.CorruptionError{Path: s.path, Component: string(sstables.ComponentData), Offset: de.offset, Reason: "refused", Err: de.err}
		}
		return &sstables.CorruptionError{Path: s.path, Component: string(sstables.ComponentData), Offset: de.offset, Reason: de.err.Error()}
	}
	return &sstables.CorruptionError{Path: s.path, Component: string(sstables.ComponentData), Offset: s.dec.st.pos, Reason: "read failed", Err: err}
}

// NextPartition implements sstables.Scanner.
func (s *Scanner) NextPartition() (*mutation.Partition, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.inPart && !s.heldEnd {
		if err := s.dec.skipToPartitionEnd(); err != nil {
			s.err = s.corrupt(err)
			return nil, s.err
		}
		s.inPart = false
	}
	if s.dec.st.Left() == 0 {
		return nil, io.EOF
	}
	s.partStart = s.dec.st.pos
	key, del, err := s.dec.readPartitionHeader(s.keyBuf, &s.part.Static)
	if err != nil {
		s.err = s.corrupt(err)
		return nil, s.err
	}
	s.keyBuf = key
	s.part.Key = key
	s.part.Token = s.tokens.Token(key)
	s.part.Deletion = del
	s.part.Rows = s.part.Rows[:0]
	s.part.Markers = s.part.Markers[:0]
	s.inPart, s.started = true, true
	s.headerEnd = s.dec.st.pos
	s.open = mutation.Live
	s.held, s.heldEnd, s.pending, s.hasLast = false, false, false, false
	s.entryLoaded, s.rowIndex = false, nil
	return &s.part, nil
}

// Next implements sstables.Scanner.
func (s *Scanner) Next() (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
	if s.err != nil {
		return nil, nil, s.err
	}
	if !s.inPart {
		return nil, nil, nil
	}
	if s.pending {
		s.pending = false
		s.hasLast, s.lastKind, s.lastClust = true, s.pendMarker.Kind, s.pendMarker.Clustering
		return nil, &s.pendMarker, nil
	}
	var kind unfilteredKind
	if s.held {
		kind = s.heldKind
		s.held, s.heldEnd = false, false
	} else {
		var err error
		if kind, err = s.dec.readUnfiltered(&s.row, &s.marker); err != nil {
			s.err = s.corrupt(err)
			return nil, nil, s.err
		}
	}
	switch kind {
	case gotRow:
		s.hasLast, s.lastKind, s.lastClust = true, mutation.ClusteringKind, s.row.Clustering
		return &s.row, nil, nil
	case gotMarker:
		s.consumeMarker(&s.marker)
		s.hasLast, s.lastKind, s.lastClust = true, s.marker.Kind, s.marker.Clustering
		return nil, &s.marker, nil
	}
	s.inPart = false
	return nil, nil, nil
}

// consumeMarker updates the open range deletion past marker m.
func (s *Scanner) consumeMarker(m *mutation.RangeTombstoneMarker) {
	switch {
	case m.Kind.IsStart():
		s.open = m.Open
	case m.Kind.IsEnd():
		s.open = mutation.Live
	}
}

// Position implements sstables.Scanner.
func (s *Scanner) Position() int64 { return s.partStart }

// Close implements sstables.Scanner.
func (s *Scanner) Close() error {
	if s.closer != nil {
		err := s.closer.Close()
		s.closer = nil
		return err
	}
	return nil
}

// ReadWholePartition reads the rest of the current partition p into a
// deep copy.
func ReadWholePartition(s *Scanner, p *mutation.Partition) (*mutation.Partition, error) {
	out := &mutation.Partition{
		Key:      append([]byte(nil), p.Key...),
		Deletion: p.Deletion,
		Static:   CloneRow(&p.Static),
	}
	out.Token = s.tokens.Token(out.Key) // a key-ordered token refers to its key
	for {
		r, m, err := s.Next()
		if err != nil {
			return nil, err
		}
		switch {
		case r != nil:
			out.Rows = append(out.Rows, CloneRow(r))
		case m != nil:
			out.Markers = append(out.Markers, CloneMarker(m))
		default:
			return out, nil
		}
	}
}

func CloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

func CloneClustering(c mutation.Clustering) mutation.Clustering {
	if c == nil {
		return nil
	}
	out := make(mutation.Clustering, len(c))
	for i, v := range c {
		out[i] = CloneBytes(v)
	}
	return out
}

func CloneRow(r *mutation.Row) mutation.Row {
	out := *r
	if len(r.Clustering) == 0 {
		out.Clustering = nil
	} else {
		out.Clustering = CloneClustering(r.Clustering)
	}
	out.Cells = nil
	if len(r.Cells) > 0 {
		out.Cells = make([]mutation.Cell, len(r.Cells))
		for i, c := range r.Cells {
			c.Path = CloneBytes(c.Path)
			c.Value = CloneBytes(c.Value)
			out.Cells[i] = c
		}
	}
	out.ComplexDeletions = nil
	if len(r.ComplexDeletions) > 0 {
		out.ComplexDeletions = append([]mutation.ComplexDeletion(nil), r.ComplexDeletions...)
	}
	return out
}

func CloneMarker(m *mutation.RangeTombstoneMarker) mutation.RangeTombstoneMarker {
	out := *m
	out.Clustering = CloneClustering(m.Clustering)
	if out.Clustering == nil {
		out.Clustering = mutation.Clustering{}
	}
	return out
}
