package bti

import (
	"bytes"

	bc "github.com/castable-db/castable/internal/bytecomparable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/sorted"
)

// Verify implements sstables.Reader. Beside what every format checks
// (sorted.Reader.Verify: every component TOC.txt lists, every chunk
// checksum and the digest, Data.db decoded to its end in the partitioner's
// order, Statistics.db's bounds, the bloom filter holding exactly the keys)
// it checks, stopping at the first problem:
//   - the whole Partitions.db trie: every node reachable from the root
//     inside the trie's bytes and of a valid shape, children before their
//     parents, every payload valid, the stored key prefixes strictly
//     increasing and prefix-free, as many as the footer's key count;
//   - that every Data.db partition is found by its key through
//     Partitions.db (its hash byte, then its position in Data.db or its
//     Rows.db entry), so that no key is missing, and that there are no more
//     keys than partitions; the footer's first and last keys are Data.db's;
//   - for each Rows.db entry: its key, Data.db position and partition
//     deletion are the partition's, its trie lies between the previous
//     entry and itself and is valid, with blocks + 1 entries whose
//     separators lie between one block's last clustering and the next
//     one's first, whose offsets are where an unfiltered starts (the first
//     right after the header, the last at the end-of-partition byte) and
//     whose open deletions are the ones open in Data.db there;
//   - that Rows.db holds nothing after the last entry (but ScyllaDB's
//     trailer, for ms and mt).
func (r *Reader) Verify() error {
	return r.s.Verify(func(*sstables.VerifyReport) (sorted.IndexVerifier, error) {
		if err := r.openIndexes(); err != nil {
			return nil, err
		}
		if err := r.pi.Verify(); err != nil {
			return nil, err
		}
		v := &indexVerifier{r: r, rowsEnd: r.rowsSize}
		if r.desc.Version.Scylla() {
			b := make([]byte, len(ScyllaRowsTrailer))
			if v.rowsEnd < int64(len(b)) {
				return nil, r.rowsLocation(0).Corruptf("file of %d bytes without ScyllaDB's trailer", v.rowsEnd)
			}
			if _, err := r.rowsFile.ReadAt(b, v.rowsEnd-int64(len(b))); err != nil {
				return nil, err
			}
			if !bytes.Equal(b, ScyllaRowsTrailer[:]) {
				return nil, r.rowsLocation(v.rowsEnd-int64(len(b))).Corruptf("ScyllaDB's trailer is %x, not %x", b, ScyllaRowsTrailer)
			}
			v.rowsEnd -= int64(len(b))
		}
		return v, nil
	})
}

// indexVerifier checks Partitions.db and Rows.db against Data.db's
// partitions.
type indexVerifier struct {
	r       *Reader
	prevEnd int64 // end of the last Rows.db entry seen
	rowsEnd int64 // where Rows.db's entries must end
	blocks  rowBlocks
}

// Partition implements sorted.IndexVerifier.
func (v *indexVerifier) Partition(key []byte, pos, headerLength int64, deletion mutation.DeletionTime) (sorted.BlockVerifier, error) {
	r := v.r
	e, at, ok, err := r.rowIndexEntry(key, pos, deletion)
	if err != nil || !ok {
		return nil, err
	}
	if e.Pos < v.prevEnd {
		return nil, at.Corruptf("entry before the end (%d) of the previous partition's", v.prevEnd)
	}
	st, err := r.ri.t.Verify(e.Root, rowPayloadSize)
	if err != nil {
		return nil, corrupt(r.ri.path, ComponentRows, e.Root, err)
	}
	if st.Low < v.prevEnd {
		return nil, at.Corruptf("row index trie reaches offset %d, inside the previous partition's entry (which ends at %d)", st.Low, v.prevEnd)
	}
	if _, err := r.ri.Verify(e); err != nil {
		return nil, err
	}
	b := &v.blocks
	b.reset(v.r, at, headerLength)
	err = r.ri.Iterate(e.Root, func(sep []byte, info RowIndexInfo) error {
		b.add(sep, info)
		return nil
	})
	if err != nil {
		return nil, err
	}
	v.prevEnd = e.End
	return b, nil
}

// End implements sorted.IndexVerifier.
func (v *indexVerifier) End(first, last []byte, count int64) error {
	pi := v.r.pi
	at := v.r.partitionsLocation()
	if pi.KeyCount != count {
		return at.Corruptf("footer counts %d keys, Data.db holds %d partitions", pi.KeyCount, count)
	}
	if !bytes.Equal(pi.FirstKey, first) || !bytes.Equal(pi.LastKey, last) {
		return at.Corruptf("first/last keys %x/%x differ from Data.db's %x/%x", pi.FirstKey, pi.LastKey, first, last)
	}
	if v.prevEnd != v.rowsEnd {
		return v.r.rowsLocation(v.prevEnd).Corruptf("%d bytes after the last entry that Partitions.db leads to", v.rowsEnd-v.prevEnd)
	}
	return nil
}

// rowBlocks checks one partition's Rows.db entries against its
// unfiltereds (sorted.BlockVerifier).
type rowBlocks struct {
	r            *Reader
	at           sorted.Location
	headerLength int64
	// seps and infos are the trie's entries: the blocks, then the final
	// one (the end of the partition).
	sepBuf []byte
	sepEnd []int
	infos  []RowIndexInfo
	next   int // the block whose start comes next
	// prev is the byte-comparable form of the last unfiltered read, cur
	// of the one being checked.
	prev, cur []byte
	havePrev  bool
	open      mutation.DeletionTime
}

func (b *rowBlocks) reset(r *Reader, at sorted.Location, headerLength int64) {
	b.r, b.at, b.headerLength = r, at, headerLength
	b.sepBuf, b.sepEnd, b.infos = b.sepBuf[:0], b.sepEnd[:0], b.infos[:0]
	b.next, b.havePrev, b.open = 0, false, mutation.Live
}

func (b *rowBlocks) add(sep []byte, info RowIndexInfo) {
	b.sepBuf = append(b.sepBuf, sep...)
	b.sepEnd = append(b.sepEnd, len(b.sepBuf))
	b.infos = append(b.infos, info)
}

func (b *rowBlocks) sep(i int) []byte {
	start := 0
	if i > 0 {
		start = b.sepEnd[i-1]
	}
	return b.sepBuf[start:b.sepEnd[i]]
}

// blocks is the number of blocks (the entries but the final one).
func (b *rowBlocks) blocks() int { return len(b.infos) - 1 }

// Before implements sorted.BlockVerifier.
func (b *rowBlocks) Before(off int64) (bool, error) {
	if b.next >= b.blocks() {
		return false, nil
	}
	info := b.infos[b.next]
	switch {
	case b.next == 0 && info.Offset != b.headerLength:
		return false, b.at.Corruptf("row index block 0 at offset %d, but the partition's unfiltereds start at %d", info.Offset, b.headerLength)
	case off < info.Offset:
		return false, nil
	case off > info.Offset:
		return false, b.at.Corruptf("row index block %d starts at offset %d, inside an unfiltered", b.next, info.Offset)
	}
	if info.Open != b.open {
		return false, b.at.Corruptf("row index block %d opens with deletion %v, Data.db has %v open there", b.next, info.Open, b.open)
	}
	return true, nil
}

// Saw implements sorted.BlockVerifier.
func (b *rowBlocks) Saw(kind mutation.BoundKind, clust mutation.Clustering, starts bool, marker *mutation.RangeTombstoneMarker) error {
	b.cur = AppendClustering(b.cur[:0], b.r.types, clust, kind)
	if starts {
		i := b.next
		sep := b.sep(i)
		if bc.CompareBytes(sep, b.cur) > 0 {
			return b.at.Corruptf("row index block %d: separator %x after its first clustering %x", i, sep, b.cur)
		}
		if b.havePrev && bc.CompareBytes(b.prev, sep) >= 0 {
			return b.at.Corruptf("row index block %d: separator %x not after the previous block's last clustering %x", i, sep, b.prev)
		}
		b.next++
	}
	b.prev, b.cur = b.cur, b.prev
	b.havePrev = true
	if marker != nil {
		b.open = sorted.OpenAfter(marker)
	}
	return nil
}

// End implements sorted.BlockVerifier: every block seen, and the final
// entry at the end-of-partition byte, after the last clustering.
func (b *rowBlocks) End(size int64) error {
	if b.next != b.blocks() {
		return b.at.Corruptf("row index block %d starts at offset %d, where no unfiltered starts", b.next, b.infos[b.next].Offset)
	}
	last := len(b.infos) - 1
	if b.infos[last].Offset != size-1 {
		return b.at.Corruptf("row index ends at offset %d, the partition's end is at %d", b.infos[last].Offset, size-1)
	}
	if sep := b.sep(last); !b.havePrev || bc.CompareBytes(b.prev, sep) >= 0 {
		return b.at.Corruptf("row index's final separator %x not after the last clustering %x", sep, b.prev)
	}
	return nil
}
