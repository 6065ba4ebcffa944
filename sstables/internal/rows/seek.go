package rows

import (
	"errors"
	"fmt"
	"io"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// Seeking inside a partition (sstables.ClusteringSeeker).
//
// A format's row index (Index.db's promoted index, BTI's Rows.db) cuts a
// partition's unfiltereds into blocks (blocks.go). To seek to the inclusive
// start bound of ck the scanner asks the partition's RowIndex for the block
// where unfiltereds at or after the bound can start and the range deletion
// open there. When that block starts after the current position the
// Data.db stream jumps there; otherwise (the same block, or one already
// entered) the scanner decodes forward. Either way it then drops the
// unfiltereds up to the bound (rows skipped by their size after reading
// their clustering, markers decoded for the deletion they open or close),
// keeping the first one after it for Next. After a jump the RowIndex checks
// the first unfiltered found. Nothing else of the row decoder depends on
// the position: a row's previous-unfiltered size is only recorded, never
// checked.

// RowIndex is one partition's row index, for seeking.
type RowIndex interface {
	// Seek returns the offset from the partition start of the block where
	// unfiltereds at or after the inclusive start bound of ck begin, and
	// the range deletion open at that offset; ok is false when the index
	// has no block starting after rel, the stream's current offset from
	// the partition start (decoding forward is then as fast).
	Seek(ck mutation.Clustering, rel int64) (off int64, open mutation.DeletionTime, ok bool)
	// CheckLanding checks the first unfiltered decoded after a jump to
	// off (kind StaticClustering for the partition's end).
	CheckLanding(off int64, kind mutation.BoundKind, c mutation.Clustering) error
}

// RowIndexSource finds the row index of a partition.
type RowIndexSource interface {
	// RowIndex returns the row index of the partition with key at Data.db
	// offset start, whose header (key, deletion, static row) is
	// headerLength bytes, or nil when the partition has none. It checks
	// that the index describes this partition (deletion, header length,
	// blocks within dataLength).
	RowIndex(key []byte, start, headerLength int64, deletion mutation.DeletionTime, dataLength int64) (RowIndex, error)
}

var _ sstables.ClusteringSeeker = (*Scanner)(nil)

// SeekClustering implements sstables.ClusteringSeeker.
func (s *Scanner) SeekClustering(ck mutation.Clustering) error {
	if s.err != nil {
		return s.err
	}
	if !s.started {
		return errors.New("sstables: SeekClustering before NextPartition")
	}
	if !s.inPart {
		return nil
	}
	if len(ck) > s.dec.nClust {
		return fmt.Errorf("sstables: seek to a clustering prefix of %d components, the table has %d", len(ck), s.dec.nClust)
	}
	if s.index == nil {
		return errors.New("sstables: SeekClustering needs a scanner from a Reader")
	}
	t := s.table
	if s.hasLast && mutation.ComparePrefix(t, s.lastKind, s.lastClust, mutation.InclStartBound, ck) > 0 {
		return fmt.Errorf("sstables: SeekClustering backwards (to %x, after %s %x)", [][]byte(ck), s.lastKind, [][]byte(s.lastClust))
	}
	s.pending = false
	// Jump through the row index when its block starts ahead.
	if err := s.loadEntry(); err != nil {
		s.err = err
		return err
	}
	landing := int64(-1) // the block jumped to, until its first unfiltered is checked
	if ri := s.rowIndex; ri != nil {
		if off, open, ok := ri.Seek(ck, s.dec.st.pos-s.partStart); ok && s.partStart+off > s.dec.st.pos {
			if err := s.jump(s.partStart + off); err != nil {
				s.err = err
				return err
			}
			s.held, s.heldEnd = false, false
			landing = off
			s.open = open
		}
	}
	// Decode and drop up to the bound (rows before it are skipped by their
	// size, not decoded); keep the first unfiltered after it.
	for {
		if !s.held {
			kind, skipped, err := s.dec.readUnfilteredSkipping(&s.row, &s.marker, t, ck)
			if err != nil {
				s.err = s.corrupt(err)
				return s.err
			}
			if landing >= 0 {
				k, c := mutation.ClusteringKind, s.row.Clustering
				switch kind {
				case gotMarker:
					k, c = s.marker.Kind, s.marker.Clustering
				case endOfPartition:
					k, c = mutation.StaticClustering, nil // matches no block
				}
				if err := s.rowIndex.CheckLanding(landing, k, c); err != nil {
					s.err = err
					return err
				}
				landing = -1
			}
			if skipped {
				continue
			}
			s.held, s.heldKind, s.heldEnd = true, kind, kind == endOfPartition
		}
		var c int
		switch s.heldKind {
		case gotRow:
			c = mutation.ComparePrefix(t, mutation.ClusteringKind, s.row.Clustering, mutation.InclStartBound, ck)
		case gotMarker:
			c = mutation.ComparePrefix(t, s.marker.Kind, s.marker.Clustering, mutation.InclStartBound, ck)
		default:
			c = 1
		}
		if c > 0 {
			break
		}
		if s.heldKind == gotMarker {
			s.consumeMarker(&s.marker)
		}
		s.held = false
	}
	// The bound itself, copied: kept for the backward check and the open
	// marker.
	s.pendingBuf = s.pendingBuf[:0]
	for _, v := range ck {
		s.pendingBuf = append(s.pendingBuf, v...)
	}
	clust := s.seekClust[:0]
	off := 0
	for _, v := range ck {
		switch {
		case v == nil:
			clust = append(clust, nil)
		case len(v) == 0:
			clust = append(clust, EmptyValue)
		default:
			clust = append(clust, s.pendingBuf[off:off+len(v):off+len(v)])
			off += len(v)
		}
	}
	s.seekClust = clust
	s.pendMarker = mutation.RangeTombstoneMarker{Kind: mutation.InclStartBound, Clustering: clust, Close: mutation.Live, Open: s.open}
	s.pending = !s.open.IsLive()
	s.hasLast, s.lastKind, s.lastClust = true, mutation.InclStartBound, clust
	return nil
}

// jump moves the Data.db stream to the absolute offset abs, ahead of the
// current position: within what the stream has buffered by skipping,
// otherwise by seeking the DataStream.
func (s *Scanner) jump(abs int64) error {
	st := s.dec.st
	s.jumps++
	if abs > st.limit {
		return sstables.Corruptf(s.path, string(sstables.ComponentData), st.pos,
			"row index block at Data.db offset %d, beyond its %d bytes", abs, st.limit)
	}
	if abs-st.pos <= int64(st.w-st.r) || s.ds == nil {
		if err := st.Skip(abs - st.pos); err != nil {
			return s.corrupt(&decodeError{offset: st.pos, err: err})
		}
		return nil
	}
	if _, err := s.ds.Seek(abs, io.SeekStart); err != nil {
		return err
	}
	st.reset(s.ds, abs)
	return nil
}

// loadEntry looks up the current partition's row index once (nil for a
// partition without one).
func (s *Scanner) loadEntry() error {
	if s.entryLoaded {
		return nil
	}
	s.entryLoaded = true
	ri, err := s.index.RowIndex(s.part.Key, s.partStart, s.headerEnd-s.partStart, s.part.Deletion, s.dec.st.limit)
	if err != nil {
		return err
	}
	s.rowIndex = ri
	return nil
}
