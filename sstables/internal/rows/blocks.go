package rows

import (
	"github.com/castable-db/castable/mutation"
)

// Row-index blocks. Every index layout of the 3.x+ row format cuts a
// partition's unfiltereds the same way (Cassandra's ColumnIndex, and 5.0's
// SortedTablePartitionWriter for both BIG and BTI): a block starts with the
// first unfiltered after the partition header (the static row is never in
// one) and is closed after the unfiltered that brings it to the block size
// (column_index_size) or more; a block still open at the end of the
// partition is closed there, its end including the end-of-partition byte.
// A partition that fits one block has no row index; the layouts store one
// only from two blocks on (Index.db's promoted index, BTI's Rows.db).

// Block is one row-index block of a partition.
type Block struct {
	// Start and End are the block's extent relative to the partition
	// start (End − Start is the width).
	Start, End int64
	// First and Last are the clustering prefixes of the block's first and
	// last unfiltered as Index.db's IndexInfo stores them: the kind byte,
	// then for a bound or boundary its u16 size, then the block-encoded
	// clustering values. They alias the cutter's buffers.
	First, Last []byte
	// Open is the range deletion still open at the block's end (Live when
	// none).
	Open mutation.DeletionTime
}

// BlockCutter cuts one partition at a time into Blocks.
type BlockCutter struct {
	// Size is the block size: a block closes once it holds this many
	// bytes or more. 0 closes one after every unfiltered.
	Size int64

	inBlock    bool
	blockStart int64
	first      []byte // prefix of the open block's first unfiltered
	last       []byte // prefix of the last unfiltered
	open       mutation.DeletionTime
	arena      []byte // the prefixes of the closed blocks
	spans      []blockSpan
	blocks     []Block
}

// blockSpan is a closed block with its prefixes as arena offsets (the
// arena may move while a partition grows).
type blockSpan struct {
	start, end        int64
	first, last, stop int
	open              mutation.DeletionTime
}

// Reset starts a partition.
func (c *BlockCutter) Reset() {
	c.inBlock = false
	c.open = mutation.Live
	c.arena = c.arena[:0]
	c.spans = c.spans[:0]
}

func appendPrefix(dst []byte, kind byte, rest []byte) []byte {
	dst = append(dst, kind)
	return append(dst, rest...)
}

// Add records an unfiltered written at [start, end) relative to the
// partition start. rest is its serialized prefix after the kind byte (for a
// row the clustering values, for a marker the u16 size and values). For a
// marker, open is the deletion it leaves open (Live for an end bound).
func (c *BlockCutter) Add(start, end int64, kind byte, rest []byte, isMarker bool, open mutation.DeletionTime) {
	if !c.inBlock {
		c.inBlock = true
		c.blockStart = start
		c.first = appendPrefix(c.first[:0], kind, rest)
	}
	c.last = appendPrefix(c.last[:0], kind, rest)
	if isMarker {
		c.open = open
	}
	if end-c.blockStart >= c.Size {
		c.closeBlock(end)
	}
}

func (c *BlockCutter) closeBlock(end int64) {
	s := blockSpan{start: c.blockStart, end: end, first: len(c.arena), open: c.open}
	c.arena = append(c.arena, c.first...)
	s.last = len(c.arena)
	c.arena = append(c.arena, c.last...)
	s.stop = len(c.arena)
	c.spans = append(c.spans, s)
	c.inBlock = false
}

// Finish closes the block still open at the end of a partition of the
// given size (which includes the end-of-partition byte) and returns the
// partition's blocks, valid until the next Reset. A partition of one block
// has none: its block is not recorded.
func (c *BlockCutter) Finish(size int64) []Block {
	if c.inBlock && len(c.spans) > 0 {
		c.closeBlock(size)
	}
	c.blocks = c.blocks[:0]
	if len(c.spans) < 2 {
		return c.blocks
	}
	for _, s := range c.spans {
		c.blocks = append(c.blocks, Block{
			Start: s.start, End: s.end,
			First: c.arena[s.first:s.last:s.last],
			Last:  c.arena[s.last:s.stop:s.stop],
			Open:  s.open,
		})
	}
	return c.blocks
}
