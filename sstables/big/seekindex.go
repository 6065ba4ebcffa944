package big

import (
	"io"
	"sort"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
)

// The promoted index as the row scanner's RowIndex (rows/seek.go): to seek
// to the inclusive start bound of ck, take the first block whose last
// unfiltered sorts after that bound: everything in the blocks before it
// sorts at or before the bound, and the deletion open at the end of the
// previous block is the deletion open at the block's start.

// RowIndex implements rows.RowIndexSource: the promoted index of the
// partition at Data.db offset start, from its Index.db entry, found as
// Lookup finds it. The entry must describe the partition: same position,
// header length and deletion, blocks contiguous from the header on and
// inside Data.db. A partition the index does not hold (Filter.db or
// Summary.db say it is absent) has none.
func (r *Reader) RowIndex(key []byte, start, headerLength int64, deletion mutation.DeletionTime, dataLength int64) (rows.RowIndex, error) {
	e, found, err := r.findEntry(key)
	if err != nil || !found {
		return nil, err
	}
	return r.rowIndexFor(&e, start, headerLength, deletion, dataLength)
}

// rowIndexFor checks that Index.db entry e describes the partition and
// returns its promoted index as a rows.RowIndex (nil when it has none).
func (r *Reader) rowIndexFor(e *IndexEntry, start, headerLength int64, deletion mutation.DeletionTime, dataLength int64) (rows.RowIndex, error) {
	idx := r.desc.Path(sstables.ComponentIndex)
	bad := func(format string, args ...any) error {
		return sstables.Corruptf(idx, string(sstables.ComponentIndex), e.Offset, format, args...)
	}
	if e.Position != start {
		return nil, bad("entry of the partition at Data.db offset %d gives position %d", start, e.Position)
	}
	pi := e.Promoted
	if pi == nil {
		return nil, nil
	}
	if pi.HeaderLength != headerLength {
		return nil, bad("promoted index header length %d, but the partition's unfiltereds start %d bytes in", pi.HeaderLength, headerLength)
	}
	if pi.Deletion != deletion {
		return nil, bad("promoted index partition deletion %v, Data.db has %v", pi.Deletion, deletion)
	}
	if len(pi.Blocks) == 0 {
		return nil, nil
	}
	// Blocks are contiguous from the header on (mc-format §4.4) and end
	// within Data.db; a jump then lands where the partition's unfiltereds
	// are cut, and CheckLanding checks it found the block's first one.
	maxOff := dataLength - start
	want := pi.HeaderLength
	for i, b := range pi.Blocks {
		if b.Offset != want || b.Width <= 0 || b.Width > maxOff-b.Offset {
			return nil, bad("promoted index block %d at offset %d width %d: the blocks must follow each other from offset %d and end within the %d bytes of Data.db after the partition start", i, b.Offset, b.Width, want, maxOff)
		}
		want = b.Offset + b.Width
	}
	return &promotedSeeker{r: r, pi: pi, entry: e.Offset, start: start}, nil
}

// promotedSeeker is one partition's promoted index as a rows.RowIndex.
type promotedSeeker struct {
	r     *Reader
	pi    *PromotedIndex
	entry int64 // Index.db offset of the entry
	start int64 // Data.db offset of the partition
	// blk is the block the stream was last found in.
	blk int
}

// Seek implements rows.RowIndex.
func (p *promotedSeeker) Seek(ck mutation.Clustering, rel int64) (int64, mutation.DeletionTime, bool) {
	t := p.r.table
	blocks := p.pi.Blocks
	if p.inCurrentBlock(ck, rel) {
		return 0, mutation.Live, false
	}
	i := sort.Search(len(blocks), func(i int) bool {
		b := &blocks[i]
		return mutation.ComparePrefix(t, b.LastKind, b.Last, mutation.InclStartBound, ck) > 0
	})
	if i == len(blocks) {
		i-- // every unfiltered sorts before ck: decode the last block
	}
	if i == 0 || blocks[i].Offset <= rel {
		return 0, mutation.Live, false
	}
	open := mutation.Live
	if om := blocks[i-1].OpenMarker; om != nil {
		open = *om
	}
	return blocks[i].Offset, open, true
}

// inCurrentBlock reports whether the block the stream is in (at rel from
// the partition start) ends after the inclusive start bound of ck, so that
// no later block needs looking for.
func (p *promotedSeeker) inCurrentBlock(ck mutation.Clustering, rel int64) bool {
	blocks := p.pi.Blocks
	for p.blk+1 < len(blocks) && blocks[p.blk+1].Offset <= rel {
		p.blk++
	}
	if blocks[p.blk].Offset > rel {
		return false // before the first block: still in the header
	}
	b := &blocks[p.blk]
	return mutation.ComparePrefix(p.r.table, b.LastKind, b.Last, mutation.InclStartBound, ck) > 0
}

// CheckLanding implements rows.RowIndex: the first unfiltered decoded
// after a jump must be the one the promoted index names as the block's
// first.
func (p *promotedSeeker) CheckLanding(off int64, kind mutation.BoundKind, c mutation.Clustering) error {
	i := sort.Search(len(p.pi.Blocks), func(i int) bool { return p.pi.Blocks[i].Offset >= off })
	if i < len(p.pi.Blocks) {
		b := &p.pi.Blocks[i]
		if kind == b.FirstKind && mutation.ComparePrefix(p.r.table, kind, c, b.FirstKind, b.First) == 0 {
			return nil
		}
		return sstables.Corruptf(p.r.desc.Path(sstables.ComponentIndex), string(sstables.ComponentIndex), p.entry,
			"promoted index block %d starts at Data.db offset %d with %s %x, but %s %x is there", i, p.start+b.Offset, b.FirstKind, [][]byte(b.First), kind, [][]byte(c))
	}
	return sstables.Corruptf(p.r.desc.Path(sstables.ComponentIndex), string(sstables.ComponentIndex), p.entry, "no promoted index block at offset %d", off)
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
