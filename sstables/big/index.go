package big

import (
	"encoding/binary"
	"fmt"

	"github.com/castable-db/castable/internal/vint"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
	"github.com/castable-db/castable/sstables/version"
)

// Index.db layout (ma … oa: one serializer; only the DeletionTime form
// changes, 1 byte when live from oa, sstables/deletiontime.go). One entry
// per partition in Data.db order, no header or footer; fixed-width
// integers big-endian.
//
//	IndexEntry    := u16 keyLen, key,
//	                 uvint position          partition start in the uncompressed Data.db
//	                 uvint promotedSize      0, or the byte length of PromotedIndex
//	                 [PromotedIndex]
//	PromotedIndex := uvint headerLength      key + deletion + static row = offset of the first unfiltered
//	                 DeletionTime            partition deletion (fixed form)
//	                 uvint blockCount
//	                 IndexInfo * blockCount
//	                 u32 * blockCount        offset of each IndexInfo from the first one
//	IndexInfo     := Prefix first, Prefix last
//	                 uvint offset            block start relative to the partition start
//	                 vint  width - 65536     zigzag signed vint
//	                 u8 hasOpenMarker, [DeletionTime]   deletion still open at the block end
//	Prefix        := u8 kind, [u16 size] (unless kind is CLUSTERING), clustering values
//
// Blocks are cut as every index layout cuts them (rows.BlockCutter): after
// the unfiltered that brings a block to ColumnIndexSize bytes or more, the
// last one closed at the partition's end; the promoted index is written
// only with two blocks or more.

// indexWidthBase is subtracted from every block width (Cassandra's
// IndexInfo.WIDTH_BASE, independent of the block size setting).
const indexWidthBase = 64 * 1024

// defaultColumnIndexSize is column_index_size_in_kb 64.
const defaultColumnIndexSize = 64 * 1024

// appendSimpleIndexEntry appends the Index.db entry of a partition without
// a promoted index.
func appendSimpleIndexEntry(dst, key []byte, position int64) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(key)))
	dst = append(dst, key...)
	dst = vint.Append(dst, uint64(position))
	return append(dst, 0)
}

// appendIndexEntry appends the Index.db entry of the partition with key
// at Data.db position, whose header is headerLength bytes, with its
// promoted index of blocks (at least two) in version v's form.
func appendIndexEntry(dst, key []byte, position, headerLength int64, deletion mutation.DeletionTime, blocks []rows.Block, v version.Version) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(key)))
	dst = append(dst, key...)
	dst = vint.Append(dst, uint64(position))
	n := len(blocks)
	infos := 0
	for i := range blocks {
		infos += indexInfoSize(&blocks[i], v)
	}
	size := vint.Size(uint64(headerLength)) + sstables.FixedDeletionTimeSize(deletion, v) + vint.Size(uint64(n)) + infos + 4*n
	dst = vint.Append(dst, uint64(size))
	dst = vint.Append(dst, uint64(headerLength))
	dst = sstables.AppendFixedDeletionTime(dst, deletion, v)
	dst = vint.Append(dst, uint64(n))
	for i := range blocks {
		dst = appendIndexInfo(dst, &blocks[i], v)
	}
	off := 0
	for i := range blocks {
		dst = binary.BigEndian.AppendUint32(dst, uint32(off))
		off += indexInfoSize(&blocks[i], v)
	}
	return dst
}

// appendIndexInfo appends one block's IndexInfo.
func appendIndexInfo(dst []byte, b *rows.Block, v version.Version) []byte {
	dst = append(dst, b.First...)
	dst = append(dst, b.Last...)
	dst = vint.Append(dst, uint64(b.Start))
	dst = vint.AppendSigned(dst, b.End-b.Start-indexWidthBase)
	if b.Open.IsLive() {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	return sstables.AppendFixedDeletionTime(dst, b.Open, v)
}

// indexInfoSize is the length of appendIndexInfo's encoding.
func indexInfoSize(b *rows.Block, v version.Version) int {
	n := len(b.First) + len(b.Last) + vint.Size(uint64(b.Start)) + vint.Size(vint.Zigzag(b.End-b.Start-indexWidthBase)) + 1
	if !b.Open.IsLive() {
		n += sstables.FixedDeletionTimeSize(b.Open, v)
	}
	return n
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

// indexDecoder decodes Index.db entries of version v.
type indexDecoder struct {
	v      version.Version
	nClust int
	fixed  []int
}

// decodeEntry decodes the entry at the start of b. It returns the entry
// (aliasing b) and its length. With promoted false, the promoted index is
// skipped without decoding.
func (d *indexDecoder) decodeEntry(b []byte, promoted bool) (IndexEntry, int, error) {
	r := rows.SliceReader{B: b}
	var e IndexEntry
	kl := int(r.U16())
	e.Key = r.Bytes(kl)
	pos, _ := r.UVint()
	size := r.Length()
	if r.Err != nil {
		return e, r.Off, r.Err
	}
	if pos > 1<<62 {
		return e, r.Off, fmt.Errorf("partition position %d out of range", pos)
	}
	e.Position = int64(pos)
	if size > 0 {
		pb := r.Bytes(size)
		if promoted {
			pi, off, err := d.decodePromoted(pb)
			if err != nil {
				return e, r.Off - size + off, fmt.Errorf("promoted index: %w", err)
			}
			e.Promoted = pi
		}
	}
	return e, r.Off, nil
}

func (d *indexDecoder) decodePromoted(b []byte) (*PromotedIndex, int, error) {
	r := rows.SliceReader{B: b}
	hl, _ := r.UVint()
	del := d.readDeletion(&r)
	n := r.Count(1)
	if r.Err != nil {
		return nil, r.Off, r.Err
	}
	pi := &PromotedIndex{HeaderLength: int64(hl), Deletion: del}
	if n > r.Remaining()/4 {
		return nil, r.Off, fmt.Errorf("%d blocks do not fit %d bytes", n, r.Remaining())
	}
	infoStart := r.Off
	pi.Blocks = make([]IndexBlock, n)
	starts := make([]int, n) // each IndexInfo's offset from the first
	for i := range pi.Blocks {
		blk := &pi.Blocks[i]
		starts[i] = r.Off - infoStart
		blk.FirstKind, blk.First = d.readPrefix(&r)
		blk.LastKind, blk.Last = d.readPrefix(&r)
		off, _ := r.UVint()
		w := r.Vint()
		hasOpen := r.U8()
		if hasOpen > 1 {
			r.Fail(fmt.Errorf("block %d: open marker flag %d", i, hasOpen))
		}
		if hasOpen == 1 {
			dt := d.readDeletion(&r)
			if r.Err == nil {
				blk.OpenMarker = &dt
			}
		}
		if r.Err != nil {
			return nil, r.Off, fmt.Errorf("block %d: %w", i, r.Err)
		}
		blk.Offset, blk.Width = int64(off), w+indexWidthBase
		if off > 1<<62 || blk.Width < 0 {
			return nil, r.Off, fmt.Errorf("block %d: offset %d width %d out of range", i, off, blk.Width)
		}
	}
	infoLen := r.Off - infoStart
	for i := 0; i < n; i++ {
		o := r.U32()
		if r.Err == nil && int64(o) != int64(starts[i]) {
			return nil, r.Off, fmt.Errorf("block offset %d of block %d, but the block starts %d bytes into the %d bytes of blocks", o, i, starts[i], infoLen)
		}
	}
	if r.Err != nil {
		return nil, r.Off, r.Err
	}
	if r.Remaining() != 0 {
		return nil, r.Off, fmt.Errorf("%d bytes after the block offsets", r.Remaining())
	}
	return pi, r.Off, nil
}

// readDeletion reads a fixed-form deletion time of d's version.
func (d *indexDecoder) readDeletion(r *rows.SliceReader) mutation.DeletionTime {
	if r.Err != nil {
		return mutation.Live
	}
	dt, n, err := sstables.ReadFixedDeletionTime(r.B[r.Off:], d.v)
	if err != nil {
		r.Fail(err)
		return mutation.Live
	}
	r.Off += n
	return dt
}

func (d *indexDecoder) readPrefix(r *rows.SliceReader) (mutation.BoundKind, mutation.Clustering) {
	kind := mutation.BoundKind(r.U8())
	if r.Err != nil {
		return 0, nil
	}
	var n int
	switch kind {
	case mutation.ClusteringKind:
		n = d.nClust
	case mutation.StaticClustering:
		r.Fail(fmt.Errorf("static clustering in an index block"))
		return 0, nil
	default:
		if kind > mutation.ExclStartBound {
			r.Fail(fmt.Errorf("clustering prefix kind %d", kind))
			return 0, nil
		}
		n = int(r.U16())
		if n > d.nClust {
			r.Fail(fmt.Errorf("bound with %d components, the table has %d", n, d.nClust))
			return 0, nil
		}
	}
	vals := rows.ReadClusteringValues(r, nil, n, d.fixed)
	return kind, vals
}
