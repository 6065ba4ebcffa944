package big

import (
	"errors"
	"io"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// scanner walks the partitions of a Data.db stream row by row. It
// implements sstables.Scanner. The partition it returns, and the rows and
// markers, alias its buffers (see the interface's validity rules).
type scanner struct {
	dec  *dataDecoder
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

	// Seeking (seek.go). r and ds are set by the Reader's scans (nil for
	// a scanner over a plain io.Reader, which then decodes and drops).
	r  *Reader
	ds *sstables.DataStream
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
	// The partition's promoted index, looked up on the first seek.
	entryLoaded bool
	promoted    *PromotedIndex
	entryOffset int64
	// blk is the promoted index block the stream was last found in.
	blk int
	// jumps counts the seeks that moved the stream forward through the
	// promoted index (for tests).
	jumps int
}

func newScanner(dec *dataDecoder, path string, tokens dht.Partitioner, src io.Reader, start, limit int64, closer io.Closer) *scanner {
	dec.st = newStream(src, start, limit)
	return &scanner{dec: dec, path: path, tokens: tokens, closer: closer}
}

// corrupt turns a decoding failure into a CorruptionError naming Data.db.
func (s *scanner) corrupt(err error) error {
	var de *decodeError
	var ce *sstables.CorruptionError
	switch {
	case errors.As(err, &ce):
		return err
	case errors.As(err, &de):
		if errors.Is(de.err, errShort) {
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
func (s *scanner) NextPartition() (*mutation.Partition, error) {
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
	if s.dec.st.left() == 0 {
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
	s.entryLoaded, s.promoted = false, nil
	return &s.part, nil
}

// Next implements sstables.Scanner.
func (s *scanner) Next() (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
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
func (s *scanner) consumeMarker(m *mutation.RangeTombstoneMarker) {
	switch {
	case m.Kind.IsStart():
		s.open = m.Open
	case m.Kind.IsEnd():
		s.open = mutation.Live
	}
}

// Position implements sstables.Scanner.
func (s *scanner) Position() int64 { return s.partStart }

// Close implements sstables.Scanner.
func (s *scanner) Close() error {
	if s.closer != nil {
		err := s.closer.Close()
		s.closer = nil
		return err
	}
	return nil
}

// readWholePartition reads the rest of the current partition into a
// deep copy.
func readWholePartition(s *scanner, p *mutation.Partition) (*mutation.Partition, error) {
	out := &mutation.Partition{
		Key:      append([]byte(nil), p.Key...),
		Deletion: p.Deletion,
		Static:   cloneRow(&p.Static),
	}
	out.Token = s.tokens.Token(out.Key) // a key-ordered token refers to its key
	for {
		r, m, err := s.Next()
		if err != nil {
			return nil, err
		}
		switch {
		case r != nil:
			out.Rows = append(out.Rows, cloneRow(r))
		case m != nil:
			out.Markers = append(out.Markers, cloneMarker(m))
		default:
			return out, nil
		}
	}
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

func cloneClustering(c mutation.Clustering) mutation.Clustering {
	if c == nil {
		return nil
	}
	out := make(mutation.Clustering, len(c))
	for i, v := range c {
		out[i] = cloneBytes(v)
	}
	return out
}

func cloneRow(r *mutation.Row) mutation.Row {
	out := *r
	if len(r.Clustering) == 0 {
		out.Clustering = nil
	} else {
		out.Clustering = cloneClustering(r.Clustering)
	}
	out.Cells = nil
	if len(r.Cells) > 0 {
		out.Cells = make([]mutation.Cell, len(r.Cells))
		for i, c := range r.Cells {
			c.Path = cloneBytes(c.Path)
			c.Value = cloneBytes(c.Value)
			out.Cells[i] = c
		}
	}
	out.ComplexDeletions = nil
	if len(r.ComplexDeletions) > 0 {
		out.ComplexDeletions = append([]mutation.ComplexDeletion(nil), r.ComplexDeletions...)
	}
	return out
}

func cloneMarker(m *mutation.RangeTombstoneMarker) mutation.RangeTombstoneMarker {
	out := *m
	out.Clustering = cloneClustering(m.Clustering)
	if out.Clustering == nil {
		out.Clustering = mutation.Clustering{}
	}
	return out
}
