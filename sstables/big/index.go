package big

import (
	"encoding/binary"
	"fmt"
	"github.com/castable-db/castable/internal/vint"

	"github.com/castable-db/castable/mutation"
)

// Index.db layout (mc). One entry per partition in Data.db order, no header
// or footer; fixed-width integers big-endian.
//
//	IndexEntry    := u16 keyLen, key,
//	                 uvint position          partition start in the uncompressed Data.db
//	                 uvint promotedSize      0, or the byte length of PromotedIndex
//	                 [PromotedIndex]
//	PromotedIndex := uvint headerLength      key + deletion + static row = offset of the first unfiltered
//	                 i32 ldt, i64 ts         partition deletion (fixed DeletionTime)
//	                 uvint blockCount
//	                 IndexInfo * blockCount
//	                 u32 * blockCount        offset of each IndexInfo from the first one
//	IndexInfo     := Prefix first, Prefix last
//	                 uvint offset            block start relative to the partition start
//	                 vint  width - 65536     zigzag signed vint
//	                 u8 hasOpenMarker, [i32 ldt, i64 ts]   deletion still open at the block end
//	Prefix        := u8 kind, [u16 size] (unless kind is CLUSTERING), clustering values
//
// A block is cut after the unfiltered (row or marker, not the static row)
// that brings it to ColumnIndexSize bytes or more; a block still open at the
// end of the partition is closed there and its width includes the
// end-of-partition byte. The promoted index is written only with two blocks
// or more.

// indexWidthBase is subtracted from every block width (Cassandra's
// IndexInfo.WIDTH_BASE, independent of the block size setting).
const indexWidthBase = 64 * 1024

// defaultColumnIndexSize is column_index_size_in_kb 64.
const defaultColumnIndexSize = 64 * 1024

// indexBuilder collects the promoted index blocks of one partition.
type indexBuilder struct {
	blockSize  int64
	inBlock    bool
	first      []byte // serialized Prefix of the block's first unfiltered
	last       []byte // serialized Prefix of the last unfiltered
	blockStart int64
	open       mutation.DeletionTime
	infos      []byte
	offsets    []uint32
}

func (ib *indexBuilder) reset() {
	ib.inBlock = false
	ib.open = mutation.Live
	ib.infos = ib.infos[:0]
	ib.offsets = ib.offsets[:0]
}

func appendPrefix(dst []byte, kind byte, rest []byte) []byte {
	dst = append(dst, kind)
	return append(dst, rest...)
}

// add records an unfiltered written at [start, end) relative to the
// partition start. rest is its serialized prefix after the kind byte (for a
// row the clustering values, for a marker the u16 size and values). For a
// marker, open is the deletion it leaves open (Live for an end bound).
func (ib *indexBuilder) add(start, end int64, kind byte, rest []byte, isMarker bool, open mutation.DeletionTime) {
	if !ib.inBlock {
		ib.inBlock = true
		ib.blockStart = start
		ib.first = appendPrefix(ib.first[:0], kind, rest)
	}
	ib.last = appendPrefix(ib.last[:0], kind, rest)
	if isMarker {
		ib.open = open
	}
	if end-ib.blockStart >= ib.blockSize {
		ib.addBlock(end)
	}
}

func (ib *indexBuilder) addBlock(end int64) {
	ib.offsets = append(ib.offsets, uint32(len(ib.infos)))
	b := ib.infos
	b = append(b, ib.first...)
	b = append(b, ib.last...)
	b = vint.Append(b, uint64(ib.blockStart))
	b = vint.AppendSigned(b, end-ib.blockStart-indexWidthBase)
	if ib.open.IsLive() {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = appendFixedDeletionTime(b, ib.open)
	}
	ib.infos = b
	ib.inBlock = false
}

// finish closes the block still open at the end of a partition of the
// given size (which includes the end-of-partition byte). A partition of one
// block has no promoted index, so its block is not encoded.
func (ib *indexBuilder) finish(size int64) {
	if ib.inBlock && len(ib.offsets) > 0 {
		ib.addBlock(size)
	}
}

// promoted reports whether the partition's entry has a promoted index (two
// blocks or more).
func (ib *indexBuilder) promoted() bool { return len(ib.offsets) >= 2 }

// appendSimpleIndexEntry appends the Index.db entry of a partition without
// a promoted index.
func appendSimpleIndexEntry(dst, key []byte, position int64) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(key)))
	dst = append(dst, key...)
	dst = vint.Append(dst, uint64(position))
	return append(dst, 0)
}

// appendEntry appends the partition's Index.db entry.
func (ib *indexBuilder) appendEntry(dst, key []byte, position, headerLength int64, deletion mutation.DeletionTime) []byte {
	if !ib.promoted() {
		return appendSimpleIndexEntry(dst, key, position)
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(key)))
	dst = append(dst, key...)
	dst = vint.Append(dst, uint64(position))
	n := len(ib.offsets)
	size := vint.Size(uint64(headerLength)) + fixedDeletionTimeSize + vint.Size(uint64(n)) + len(ib.infos) + 4*n
	dst = vint.Append(dst, uint64(size))
	dst = vint.Append(dst, uint64(headerLength))
	dst = appendFixedDeletionTime(dst, deletion)
	dst = vint.Append(dst, uint64(n))
	dst = append(dst, ib.infos...)
	for _, o := range ib.offsets {
		dst = binary.BigEndian.AppendUint32(dst, o)
	}
	return dst
}

// IndexEntry is a decoded Index.db entry.
type IndexEntry struct {
	// Offset is the entry's offset in Index.db.
	Offset int64
	Key    []byte
	// Position is the partition start in the uncompressed Data.db.
	Position int64
	// Promoted is the decoded promoted index, nil when there is none.
	Promoted *PromotedIndex
}

// PromotedIndex is the per-partition block index stored in Index.db.
type PromotedIndex struct {
	HeaderLength int64
	Deletion     mutation.DeletionTime
	Blocks       []IndexBlock
}

// IndexBlock describes one block of a partition's unfiltereds.
type IndexBlock struct {
	FirstKind, LastKind mutation.BoundKind
	First, Last         mutation.Clustering
	// Offset is the block start relative to the partition start; Width its
	// length in bytes.
	Offset, Width int64
	// OpenMarker is the range tombstone deletion open at the block's end
	// (nil when none).
	OpenMarker *mutation.DeletionTime
}

// indexDecoder decodes Index.db entries.
type indexDecoder struct {
	nClust int
	fixed  []int
}

// decodeEntry decodes the entry at the start of b. It returns the entry
// (aliasing b) and its length. With promoted false, the promoted index is
// skipped without decoding.
func (d *indexDecoder) decodeEntry(b []byte, promoted bool) (IndexEntry, int, error) {
	r := sliceReader{b: b}
	var e IndexEntry
	kl := int(r.u16())
	e.Key = r.bytes(kl)
	pos, _ := r.uvint()
	size := r.length()
	if r.err != nil {
		return e, r.off, r.err
	}
	if pos > 1<<62 {
		return e, r.off, fmt.Errorf("partition position %d out of range", pos)
	}
	e.Position = int64(pos)
	if size > 0 {
		pb := r.bytes(size)
		if promoted {
			pi, off, err := d.decodePromoted(pb)
			if err != nil {
				return e, r.off - size + off, fmt.Errorf("promoted index: %w", err)
			}
			e.Promoted = pi
		}
	}
	return e, r.off, nil
}

func (d *indexDecoder) decodePromoted(b []byte) (*PromotedIndex, int, error) {
	r := sliceReader{b: b}
	hl, _ := r.uvint()
	del := r.bytes(fixedDeletionTimeSize)
	n := r.count(1)
	if r.err != nil {
		return nil, r.off, r.err
	}
	pi := &PromotedIndex{HeaderLength: int64(hl), Deletion: decodeFixedDeletionTime(del)}
	if n > r.remaining()/4 {
		return nil, r.off, fmt.Errorf("%d blocks do not fit %d bytes", n, r.remaining())
	}
	infoStart := r.off
	pi.Blocks = make([]IndexBlock, n)
	starts := make([]int, n) // each IndexInfo's offset from the first
	for i := range pi.Blocks {
		blk := &pi.Blocks[i]
		starts[i] = r.off - infoStart
		blk.FirstKind, blk.First = d.readPrefix(&r)
		blk.LastKind, blk.Last = d.readPrefix(&r)
		off, _ := r.uvint()
		w := r.vint()
		hasOpen := r.u8()
		if hasOpen > 1 {
			r.fail(fmt.Errorf("block %d: open marker flag %d", i, hasOpen))
		}
		if hasOpen == 1 {
			if ob := r.bytes(fixedDeletionTimeSize); ob != nil {
				dt := decodeFixedDeletionTime(ob)
				blk.OpenMarker = &dt
			}
		}
		if r.err != nil {
			return nil, r.off, fmt.Errorf("block %d: %w", i, r.err)
		}
		blk.Offset, blk.Width = int64(off), w+indexWidthBase
		if off > 1<<62 || blk.Width < 0 {
			return nil, r.off, fmt.Errorf("block %d: offset %d width %d out of range", i, off, blk.Width)
		}
	}
	infoLen := r.off - infoStart
	for i := 0; i < n; i++ {
		o := r.u32()
		if r.err == nil && int64(o) != int64(starts[i]) {
			return nil, r.off, fmt.Errorf("block offset %d of block %d, but the block starts %d bytes into the %d bytes of blocks", o, i, starts[i], infoLen)
		}
	}
	if r.err != nil {
		return nil, r.off, r.err
	}
	if r.remaining() != 0 {
		return nil, r.off, fmt.Errorf("%d bytes after the block offsets", r.remaining())
	}
	return pi, r.off, nil
}

func (d *indexDecoder) readPrefix(r *sliceReader) (mutation.BoundKind, mutation.Clustering) {
	kind := mutation.BoundKind(r.u8())
	if r.err != nil {
		return 0, nil
	}
	var n int
	switch kind {
	case mutation.ClusteringKind:
		n = d.nClust
	case mutation.StaticClustering:
		r.fail(fmt.Errorf("static clustering in an index block"))
		return 0, nil
	default:
		if kind > mutation.ExclStartBound {
			r.fail(fmt.Errorf("clustering prefix kind %d", kind))
			return 0, nil
		}
		n = int(r.u16())
		if n > d.nClust {
			r.fail(fmt.Errorf("bound with %d components, the table has %d", n, d.nClust))
			return 0, nil
		}
	}
	vals := readClusteringValues(r, nil, n, d.fixed)
	return kind, vals
}
