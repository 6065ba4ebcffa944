package big

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// Seeking inside a partition (sstables.ClusteringSeeker).
//
// The promoted index cuts a partition's unfiltereds into blocks, each
// described by the prefixes of its first and last unfiltered, its offset
// from the partition start and the range deletion open at its end. To seek
// to the inclusive start bound of ck the scanner takes the first block whose
// last unfiltered sorts after that bound: everything in the blocks before it
// sorts at or before the bound, and the deletion open at the end of the
// previous block is the deletion open at the block's start. When that block
// starts after the current position, the Data.db stream jumps there;
// otherwise (the same block, or one already entered) the scanner decodes
// forward. Either way it then drops the unfiltereds up to the bound (rows
// skipped by their size after reading their clustering, markers decoded
// for the deletion they open or close), keeping the first one after it for
// Next. After a jump the first unfiltered found must be the one the block
// names. Nothing else of the row decoder depends on the position: a row's
// previous-unfiltered size is only recorded, never checked.

var _ sstables.ClusteringSeeker = (*scanner)(nil)

// SeekClustering implements sstables.ClusteringSeeker.
func (s *scanner) SeekClustering(ck mutation.Clustering) error {
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
	if s.r == nil {
		return errors.New("sstables: SeekClustering needs a scanner from a Reader")
	}
	t := s.r.table
	if s.hasLast && mutation.ComparePrefix(t, s.lastKind, s.lastClust, mutation.InclStartBound, ck) > 0 {
		return fmt.Errorf("sstables: SeekClustering backwards (to %x, after %s %x)", [][]byte(ck), s.lastKind, [][]byte(s.lastClust))
	}
	s.pending = false
	// Jump through the promoted index when its block starts ahead.
	if err := s.loadEntry(); err != nil {
		s.err = err
		return err
	}
	landing := -1 // the block jumped to, until its first unfiltered is checked
	if pi := s.promoted; pi != nil && !s.inCurrentBlock(ck) {
		i := sort.Search(len(pi.Blocks), func(i int) bool {
			b := &pi.Blocks[i]
			return mutation.ComparePrefix(t, b.LastKind, b.Last, mutation.InclStartBound, ck) > 0
		})
		if i == len(pi.Blocks) {
			i-- // every unfiltered sorts before ck: decode the last block
		}
		if abs := s.partStart + pi.Blocks[i].Offset; i > 0 && abs > s.dec.st.pos {
			if err := s.jump(abs); err != nil {
				s.err = err
				return err
			}
			s.held, s.heldEnd = false, false
			landing = i
			s.open = mutation.Live
			if om := pi.Blocks[i-1].OpenMarker; om != nil {
				s.open = *om
			}
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
				if err := s.checkLanding(landing, k, c); err != nil {
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
			clust = append(clust, emptyValue)
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

// inCurrentBlock reports whether the block the stream is in ends after the
// inclusive start bound of ck, so that no later block needs looking for.
func (s *scanner) inCurrentBlock(ck mutation.Clustering) bool {
	blocks := s.promoted.Blocks
	rel := s.dec.st.pos - s.partStart
	for s.blk+1 < len(blocks) && blocks[s.blk+1].Offset <= rel {
		s.blk++
	}
	if blocks[s.blk].Offset > rel {
		return false // before the first block: still in the header
	}
	b := &blocks[s.blk]
	return mutation.ComparePrefix(s.r.table, b.LastKind, b.Last, mutation.InclStartBound, ck) > 0
}

// jump moves the Data.db stream to the absolute offset abs, ahead of the
// current position: within what the stream has buffered by skipping,
// otherwise by seeking the DataStream.
func (s *scanner) jump(abs int64) error {
	st := s.dec.st
	s.jumps++
	if abs > st.limit {
		return sstables.Corruptf(s.r.desc.Path(sstables.ComponentIndex), string(sstables.ComponentIndex), s.entryOffset,
			"promoted index block at Data.db offset %d, beyond its %d bytes", abs, st.limit)
	}
	if abs-st.pos <= int64(st.w-st.r) || s.ds == nil {
		if err := st.skip(abs - st.pos); err != nil {
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

// loadEntry looks up the current partition's Index.db entry once, keeping
// its promoted index (nil for a partition without one). The entry must
// describe the partition the scan is in: same position, same header length
// and deletion, blocks inside Data.db in increasing order after the header.
// A partition the index does not hold (Filter.db or Summary.db say it is
// absent) is read without a promoted index.
func (s *scanner) loadEntry() error {
	if s.entryLoaded {
		return nil
	}
	s.entryLoaded = true
	e, found, err := s.r.findEntry(s.part.Key)
	if err != nil || !found {
		return err
	}
	return s.useEntry(&e)
}

// useEntry checks the current partition's Index.db entry e and keeps its
// promoted index.
func (s *scanner) useEntry(e *IndexEntry) error {
	s.entryOffset = e.Offset
	idx := s.r.desc.Path(sstables.ComponentIndex)
	bad := func(format string, args ...any) error {
		return sstables.Corruptf(idx, string(sstables.ComponentIndex), e.Offset, format, args...)
	}
	if e.Position != s.partStart {
		return bad("entry of the partition at Data.db offset %d gives position %d", s.partStart, e.Position)
	}
	pi := e.Promoted
	if pi == nil {
		return nil
	}
	if hl := s.headerEnd - s.partStart; pi.HeaderLength != hl {
		return bad("promoted index header length %d, but the partition's unfiltereds start %d bytes in", pi.HeaderLength, hl)
	}
	if pi.Deletion != s.part.Deletion {
		return bad("promoted index partition deletion %v, Data.db has %v", pi.Deletion, s.part.Deletion)
	}
	if len(pi.Blocks) == 0 {
		return nil
	}
	// Blocks are contiguous from the header on (mc-format §4.4) and end
	// within Data.db; a jump then lands where the partition's unfiltereds
	// are cut, and checkLanding checks it found the block's first one.
	maxOff := s.dec.st.limit - s.partStart
	want := pi.HeaderLength
	for i, b := range pi.Blocks {
		if b.Offset != want || b.Width <= 0 || b.Width > maxOff-b.Offset {
			return bad("promoted index block %d at offset %d width %d: the blocks must follow each other from offset %d and end within the %d bytes of Data.db after the partition start", i, b.Offset, b.Width, want, maxOff)
		}
		want = b.Offset + b.Width
	}
	s.promoted, s.blk = pi, 0
	return nil
}

// checkLanding checks that the first unfiltered decoded after a jump to
// block i is the one the promoted index names as the block's first.
func (s *scanner) checkLanding(i int, kind mutation.BoundKind, c mutation.Clustering) error {
	b := &s.promoted.Blocks[i]
	if kind == b.FirstKind && mutation.ComparePrefix(s.r.table, kind, c, b.FirstKind, b.First) == 0 {
		return nil
	}
	return sstables.Corruptf(s.r.desc.Path(sstables.ComponentIndex), string(sstables.ComponentIndex), s.entryOffset,
		"promoted index block %d starts at Data.db offset %d with %s %x, but %s %x is there", i, s.partStart+b.Offset, b.FirstKind, [][]byte(b.First), kind, [][]byte(c))
}

// findEntry returns key's Index.db entry with its promoted index decoded,
// found as locate finds it; found is false when the SSTable does not hold
// key.
func (r *Reader) findEntry(key []byte) (e IndexEntry, found bool, err error) {
	start, end, err := r.indexStart(key)
	if err != nil || start < 0 {
		return e, false, err
	}
	it, closer, err := r.openIndexRange(start, end, false)
	if err != nil {
		return e, false, err
	}
	defer closer.Close()
	token := r.part.Token(key)
	for {
		e, err := it.next()
		if err == io.EOF {
			return e, false, nil
		}
		if err != nil {
			return e, false, err
		}
		c := dht.ComparePartitions(r.part.Token(e.Key), e.Key, token, key)
		if c < 0 {
			continue
		}
		if c > 0 {
			return e, false, nil
		}
		at := e.Offset
		e, _, err = it.dec.decodeEntry(it.buf, true)
		if err != nil {
			return e, false, sstables.Corruptf(it.path, string(sstables.ComponentIndex), at, "index entry: %v", err)
		}
		e.Offset = at
		return e, true, nil
	}
}
