package la

import (
	"github.com/castable-db/castable/mutation"
)

// Index.db of the la format (la-format.md §4.1): one entry per partition,
// in Data.db order, no header and no footer. Big-endian.
//
//	sbytes  key
//	i64     position            offset of the partition (its key length) in the
//	                            uncompressed Data.db stream
//	i32     promotedIndexSize   0, or the size of everything below
//	-- only when promotedIndexSize > 0 (the partition spans ≥ 2 blocks):
//	DeletionTime                the partition deletion (12 bytes, ldt first)
//	i32     blockCount          ≥ 2
//	blockCount × IndexInfo:
//	    sbytes firstName        name of the first atom of the block (a cell name,
//	                            or a range tombstone's start bound with its eoc)
//	    sbytes lastName         name of the last atom of the block
//	    i64    offset           block start relative to the partition start
//	    i64    width            block length; the 2-byte end-of-partition marker
//	                            belongs to no block
const (
	indexEntryFixed    = 2 + 8 + 4
	promotedIndexFixed = deletionTimeSize + 4
	indexInfoFixed     = 2 + 2 + 8 + 8
)

// indexInfo describes one promoted-index block.
type indexInfo struct {
	first, last   []byte
	offset, width int64
}

// indexEntry is one decoded Index.db entry.
type indexEntry struct {
	key      []byte
	position int64
	// deletion and blocks are set only when the entry has a promoted
	// index.
	deletion mutation.DeletionTime
	blocks   []indexInfo
	// offset is the entry's offset in Index.db.
	offset int64
	// size is the entry's encoded size.
	size int64
}

// promotedIndexSize is the size of the promoted index of blocks (0 when
// fewer than two blocks: Cassandra writes none then).
func promotedIndexSize(blocks []indexInfo) int {
	if len(blocks) < 2 {
		return 0
	}
	n := promotedIndexFixed
	for i := range blocks {
		n += indexInfoFixed + len(blocks[i].first) + len(blocks[i].last)
	}
	return n
}

// appendSimpleIndexEntry appends the Index.db entry of a partition without
// a promoted index.
func appendSimpleIndexEntry(dst, key []byte, position int64) []byte {
	dst = appendShortBytes(dst, key)
	dst = appendI64(dst, position)
	return appendI32(dst, 0)
}

// appendIndexEntry appends the Index.db entry of a partition. A single
// block is not written (promoted index size 0).
func appendIndexEntry(dst, key []byte, position int64, deletion mutation.DeletionTime, blocks []indexInfo) []byte {
	size := promotedIndexSize(blocks)
	if size == 0 {
		return appendSimpleIndexEntry(dst, key, position)
	}
	dst = appendShortBytes(dst, key)
	dst = appendI64(dst, position)
	dst = appendI32(dst, int32(size))
	dst = appendDeletionTime(dst, deletion)
	dst = appendI32(dst, int32(len(blocks)))
	for i := range blocks {
		b := &blocks[i]
		dst = appendShortBytes(dst, b.first)
		dst = appendShortBytes(dst, b.last)
		dst = appendI64(dst, b.offset)
		dst = appendI64(dst, b.width)
	}
	return dst
}

// readIndexEntry decodes the next Index.db entry into e; the key and block
// names are copied to *arena. It returns false at the end of the file.
func readIndexEntry(in *input, e *indexEntry, arena *[]byte) (bool, error) {
	if in.remaining() == 0 {
		return false, nil
	}
	e.offset = in.offset()
	key, err := in.shortBytes()
	if err != nil {
		return false, err
	}
	e.key = keep(arena, key)
	posOff := in.offset()
	if e.position, err = in.i64(); err != nil {
		return false, err
	}
	if e.position < 0 {
		return false, in.corrupt(posOff, "negative Data.db position %d", e.position)
	}
	sizeOff := in.offset()
	size, err := in.i32()
	if err != nil {
		return false, err
	}
	e.deletion = mutation.Live
	e.blocks = e.blocks[:0]
	if size == 0 {
		e.size = in.offset() - e.offset
		return true, nil
	}
	if size < promotedIndexFixed || int64(size) > in.remaining() {
		return false, in.corrupt(sizeOff, "promoted index size %d out of range (%d bytes left)", size, in.remaining())
	}
	end := in.offset() + int64(size)
	b, err := in.next(deletionTimeSize)
	if err != nil {
		return false, err
	}
	e.deletion = decodeDeletionTime(b)
	countOff := in.offset()
	count, err := in.i32()
	if err != nil {
		return false, err
	}
	if count < 2 || int64(count)*indexInfoFixed > end-in.offset() {
		// Cassandra writes a promoted index only for two blocks or more.
		return false, in.corrupt(countOff, "promoted index block count %d: want at least 2 that fit its %d bytes", count, size)
	}
	var prevEnd int64
	for i := range int(count) {
		var info indexInfo
		first, err := in.shortBytes()
		if err != nil {
			return false, err
		}
		info.first = keep(arena, first)
		last, err := in.shortBytes()
		if err != nil {
			return false, err
		}
		info.last = keep(arena, last)
		off := in.offset()
		if info.offset, err = in.i64(); err != nil {
			return false, err
		}
		if info.width, err = in.i64(); err != nil {
			return false, err
		}
		if info.offset < 0 || info.width < 0 || (i > 0 && info.offset < prevEnd) {
			return false, in.corrupt(off, "promoted index block %d: offset %d width %d overlaps or is negative", i, info.offset, info.width)
		}
		prevEnd = info.offset + info.width
		e.blocks = append(e.blocks, info)
	}
	if in.offset() != end {
		return false, in.corrupt(in.offset(), "promoted index ends at %d, its size says %d", in.offset(), end)
	}
	e.size = in.offset() - e.offset
	return true, nil
}
