package la

import "slices"

// columnIndex writes the atoms of one partition the way Cassandra 2.2.4+
// does (db/ColumnIndex.java with RangeTombstone.Tracker; la-format.md §4.2)
// and collects the promoted-index blocks.
//
// Range tombstones are not written when offered: they are tracked and
// written just before the next cell, or at the end of the partition. A
// tombstone made redundant by a tracked one with a later or equal end and a
// newer or equal deletion is never written. When a block starts, every
// tracked tombstone still open is written again ("repeated"), without
// counting towards the block size. A block closes after the atom that brings
// its size to the column index size.
//
// Positions are relative to the first atom (just after the partition
// header).
type columnIndex struct {
	cmp       *nameComparator
	blockSize int64 // column_index_size in bytes
	emit      func(a *atom)

	inBlock    bool
	startPos   int64
	endPos     int64
	size       int64 // bytes counted towards the open block
	first      []byte
	last       []byte
	lastClosed bool // the last atom closed a block
	atoms      int

	tombstones []atom // every tombstone offered (stable storage)
	open       []int  // tracked tombstones, ordered by end bound
	unwritten  []int  // tracked tombstones not yet written, in arrival order

	blocks     []indexInfo
	blockNames []byte
}

// reset starts a new partition.
func (c *columnIndex) reset() {
	c.inBlock, c.lastClosed = false, false
	c.startPos, c.endPos, c.size = 0, 0, 0
	c.first, c.last = c.first[:0], nil
	c.atoms = 0
	c.tombstones = c.tombstones[:0]
	c.open = c.open[:0]
	c.unwritten = c.unwritten[:0]
	c.blocks = c.blocks[:0]
	c.blockNames = c.blockNames[:0]
}

// add offers the next atom in comparator order. Range tombstones must stay
// valid until the partition ends.
func (c *columnIndex) add(a *atom) {
	c.atoms++
	if !c.inBlock {
		c.inBlock = true
		c.first = append(c.first[:0], a.name...)
		c.startPos = c.endPos
		// Repeat the open tombstones that reach this atom; they do not
		// count towards the block size.
		for _, i := range c.open {
			t := &c.tombstones[i]
			if c.cmp.compareEnd(t.end, a.name) >= 0 {
				c.emit(t)
				c.endPos += int64(t.encodedSize())
			}
		}
		c.size = 0
	}
	// Forget the tombstones that end before this atom.
	if len(c.open) > 0 {
		c.open = slices.DeleteFunc(c.open, func(i int) bool {
			return c.cmp.compareEnd(c.tombstones[i].end, a.name) < 0
		})
	}
	if a.kind == atomRangeTombstone {
		c.track(a)
	} else {
		for _, i := range c.unwritten {
			t := &c.tombstones[i]
			c.emit(t)
			n := int64(t.encodedSize())
			c.endPos += n
			c.size += n
		}
		c.unwritten = c.unwritten[:0]
		c.emit(a)
		n := int64(a.encodedSize())
		c.endPos += n
		c.size += n
	}
	// The last name is only referenced: names stay valid until the
	// partition ends or, for staged cells, until the next flush, and a
	// block copies its names when it closes.
	c.last = a.name
	c.lastClosed = false
	if c.size >= c.blockSize {
		c.closeBlock()
		c.lastClosed = true
	}
}

// track records a range tombstone unless a tracked one makes it redundant.
func (c *columnIndex) track(a *atom) {
	c.tombstones = append(c.tombstones, *a)
	r := len(c.tombstones) - 1
	rt := &c.tombstones[r]
	pos := -1
	for j := 0; j < len(c.open); j++ {
		t := &c.tombstones[c.open[j]]
		if c.cmp.compareEnds(t.end, rt.end) < 0 {
			if t.deletion.MarkedForDeleteAt <= rt.deletion.MarkedForDeleteAt {
				c.dropTracked(j, rt)
				j--
			}
			continue
		}
		if rt.deletion.MarkedForDeleteAt <= t.deletion.MarkedForDeleteAt {
			return // redundant: neither tracked nor written
		}
		pos = j
		if c.cmp.compareEnds(t.end, rt.end) == 0 {
			c.dropTracked(j, rt)
		}
		break
	}
	if pos < 0 {
		pos = len(c.open)
	}
	c.open = slices.Insert(c.open, pos, r)
	c.unwritten = append(c.unwritten, r)
}

// dropTracked forgets open[j]; when it starts where rt starts it is also
// never written.
func (c *columnIndex) dropTracked(j int, rt *atom) {
	i := c.open[j]
	c.open = slices.Delete(c.open, j, j+1)
	if c.cmp.compare(c.tombstones[i].name, rt.name) == 0 {
		if k := slices.Index(c.unwritten, i); k >= 0 {
			c.unwritten = slices.Delete(c.unwritten, k, k+1)
		}
	}
}

func (c *columnIndex) closeBlock() {
	n := len(c.blockNames)
	c.blockNames = append(c.blockNames, c.first...)
	c.blockNames = append(c.blockNames, c.last...)
	first := c.blockNames[n : n+len(c.first) : n+len(c.first)]
	last := c.blockNames[n+len(c.first) : len(c.blockNames) : len(c.blockNames)]
	c.blocks = append(c.blocks, indexInfo{first: first, last: last, offset: c.startPos, width: c.endPos - c.startPos})
	c.inBlock = false
}

// finish writes the tombstones still unwritten and closes the last block.
// It returns the blocks with offsets relative to the first atom, or nil
// when the partition fits one block.
func (c *columnIndex) finish() []indexInfo {
	for _, i := range c.unwritten {
		t := &c.tombstones[i]
		c.emit(t)
		n := int64(t.encodedSize())
		c.endPos += n
		c.size += n
	}
	c.unwritten = c.unwritten[:0]
	if c.atoms == 0 || len(c.blocks) == 0 {
		// At most one block: Cassandra writes no promoted index for it.
		return nil
	}
	if !c.lastClosed {
		c.closeBlock()
	}
	// blockNames may have moved while growing: re-slice every block.
	off := 0
	for i := range c.blocks {
		b := &c.blocks[i]
		nf, nl := len(b.first), len(b.last)
		b.first = c.blockNames[off : off+nf : off+nf]
		b.last = c.blockNames[off+nf : off+nf+nl : off+nf+nl]
		off += nf + nl
	}
	return c.blocks
}
