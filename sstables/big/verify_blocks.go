package big

import (
	"bytes"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// blockChecker matches, during Verify, the promoted index blocks of a
// partition's Index.db entry against the unfiltereds read from Data.db:
// each block starts where an unfiltered starts, its first and last
// clusterings (with their kinds) are those of the first and last
// unfiltered inside it, and its open marker is the range tombstone
// deletion open after its last unfiltered. Without this, a damaged
// clustering in the promoted index went unnoticed until a slice query
// skipped to the wrong block.
type blockChecker struct {
	blocks []IndexBlock
	next   int // the block whose start comes next
	path   string
	entry  int64 // the entry's Index.db offset

	haveLast bool
	lastKind mutation.BoundKind
	last     mutation.Clustering
	lastBuf  []byte
	open     mutation.DeletionTime
}

func (c *blockChecker) reset(pi *PromotedIndex, path string, entry int64) {
	c.blocks, c.next, c.path, c.entry = nil, 0, path, entry
	if pi != nil {
		c.blocks = pi.Blocks
	}
	c.haveLast, c.open = false, mutation.Live
}

func (c *blockChecker) corrupt(format string, args ...any) error {
	return sstables.Corruptf(c.path, string(sstables.ComponentIndex), c.entry, format, args...)
}

// before is called with the partition-relative offset of the next
// unfiltered; it reports whether that unfiltered starts a block.
func (c *blockChecker) before(off int64) (bool, error) {
	if c.next >= len(c.blocks) {
		return false, nil
	}
	b := &c.blocks[c.next]
	switch {
	case off < b.Offset:
		return false, nil
	case off > b.Offset:
		return false, c.corrupt("promoted index block %d starts at %d, inside an unfiltered", c.next, b.Offset)
	}
	if c.next > 0 {
		if err := c.checkEnd(c.next - 1); err != nil {
			return false, err
		}
	}
	return true, nil
}

// saw records the unfiltered just read; starts says it begins a block.
func (c *blockChecker) saw(kind mutation.BoundKind, clust mutation.Clustering, starts bool, marker *mutation.RangeTombstoneMarker) error {
	if len(c.blocks) == 0 {
		return nil
	}
	if starts {
		b := &c.blocks[c.next]
		if b.FirstKind != kind || !sameClustering(b.First, clust) {
			return c.corrupt("promoted index block %d starts with %v %x, Data.db with %v %x", c.next, b.FirstKind, b.First, kind, clust)
		}
		c.next++
	}
	c.haveLast, c.lastKind = true, kind
	c.lastBuf = c.lastBuf[:0]
	c.last = c.last[:0]
	for _, v := range clust {
		if v == nil {
			c.last = append(c.last, nil)
			continue
		}
		n := len(c.lastBuf)
		c.lastBuf = append(c.lastBuf, v...)
		c.last = append(c.last, c.lastBuf[n:len(c.lastBuf):len(c.lastBuf)])
	}
	if marker != nil {
		c.open = mutation.Live
		if k := marker.Kind; k == mutation.InclStartBound || k == mutation.ExclStartBound || k == mutation.ExclEndInclStartBoundary || k == mutation.InclEndExclStartBoundary {
			c.open = marker.Open
		}
	}
	return nil
}

// end is called at the partition's end.
func (c *blockChecker) end() error {
	if len(c.blocks) == 0 {
		return nil
	}
	if c.next != len(c.blocks) {
		return c.corrupt("promoted index block %d starts at %d, where no unfiltered starts", c.next, c.blocks[c.next].Offset)
	}
	return c.checkEnd(len(c.blocks) - 1)
}

// checkEnd compares block i's last clustering and open marker with the
// last unfiltered read.
func (c *blockChecker) checkEnd(i int) error {
	b := &c.blocks[i]
	if !c.haveLast || b.LastKind != c.lastKind || !sameClustering(b.Last, c.last) {
		return c.corrupt("promoted index block %d ends with %v %x, Data.db with %v %x", i, b.LastKind, b.Last, c.lastKind, c.last)
	}
	open := mutation.Live
	if b.OpenMarker != nil {
		open = *b.OpenMarker
	}
	if open != c.open {
		return c.corrupt("promoted index block %d ends with open deletion %v, Data.db with %v", i, open, c.open)
	}
	return nil
}

// sameClustering compares clusterings component by component, a null
// component equal only to null.
func sameClustering(a, b mutation.Clustering) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) || !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
