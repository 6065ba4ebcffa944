package bti

import (
	"encoding/binary"
	"fmt"
	"github.com/castable-db/castable/internal/vint"
	"io"

	bc "github.com/castable-db/castable/internal/bytecomparable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/trie"
)

// Rows.db (Cassandra 5.0 RowIndexWriter / RowIndexReader / TrieIndexEntry):
// for every partition with at least two index blocks, its row-index trie
// (page-aware, pages on absolute Rows.db positions) followed by its entry:
//
//	key          u16 length + raw partition key (Partitions.db points here)
//	data pos     unsigned vint, partition start in Data.db
//	root delta   signed vint, root − (offset just after the key field)
//	blocks       unsigned vint, number of index blocks
//	deletion     partition-level DeletionTime, oa form (0x80 when live)
//
// Trie keys: "" for block 0; for block i ≥ 1 separatorGt(last clustering of
// block i−1, first clustering of block i) (both byte-comparable, see
// AppendClustering); then one final entry nudge(last clustering of the last
// block, length of the common prefix of that and the last separator),
// pointing at the end-of-partition byte. Payload flags n | 8 when an open
// range-tombstone deletion follows, n = the fewest bytes holding the
// offset with its sign (1…7); payload: the block's offset from the
// partition start (n bytes, big-endian), then the open deletion in oa form.
//
// ScyllaDB's ms/mt Rows.db ends with the 4 bytes 13 37 13 37, also when it
// holds no partition (RowIndexOptions.Scylla).
const flagOpenMarker = 8

// ScyllaRowsTrailer ends every Rows.db ScyllaDB writes.
var ScyllaRowsTrailer = [4]byte{0x13, 0x37, 0x13, 0x37}

// RowIndexBlock is one index block of a partition, as the partition writer
// cuts them.
type RowIndexBlock struct {
	// First and Last are the byte-comparable forms (AppendClustering) of
	// the block's first and last clustering prefixes (rows, bounds or
	// boundaries).
	First, Last []byte
	// Offset is the position of the block's first unfiltered relative to
	// the partition start in Data.db.
	Offset int64
	// Open is the range-tombstone deletion open at the block start
	// (mutation.Live when none).
	Open mutation.DeletionTime
}

// RowIndexOptions configure a RowIndexWriter; the zero value writes what
// Cassandra 5.0 writes.
type RowIndexOptions struct {
	// Scylla ends the file with ScyllaRowsTrailer on Close. Default false.
	Scylla bool
}

// RowIndexWriter writes Rows.db: for each partition Add its blocks, then
// FinishPartition. It allocates nothing per block once its buffers have
// grown.
type RowIndexWriter struct {
	tw      *trie.Writer
	opts    RowIndexOptions
	blocks  int
	prevMax []byte
	prevSep []byte
	sep     []byte
	payload []byte
	entry   []byte
	err     error
}

// NewRowIndexWriter returns a writer of a Rows.db written to w from its
// first byte.
func NewRowIndexWriter(w io.Writer, opts RowIndexOptions) *RowIndexWriter {
	return &RowIndexWriter{tw: trie.NewWriter(w, 0), opts: opts}
}

// Position returns the current Rows.db offset.
func (w *RowIndexWriter) Position() int64 { return w.tw.Position() }

func (w *RowIndexWriter) appendPayload(dst []byte, offset int64, open mutation.DeletionTime) ([]byte, uint8, error) {
	if offset < 0 {
		return dst, 0, fmt.Errorf("bti: negative block offset %d", offset)
	}
	n := sizedIntLen(offset)
	if n >= 8 {
		return dst, 0, fmt.Errorf("bti: block offset %d too large for a row index", offset)
	}
	flags := uint8(n)
	dst = appendSizedInt(dst, offset, n)
	if !open.IsLive() {
		flags |= flagOpenMarker
		dst = sstables.AppendUnsignedFixedDeletionTime(dst, open)
	}
	return dst, flags, nil
}

// Add adds the next index block of the current partition.
func (w *RowIndexWriter) Add(b RowIndexBlock) error {
	if w.err != nil {
		return w.err
	}
	var flags uint8
	var err error
	w.payload, flags, err = w.appendPayload(w.payload[:0], b.Offset, b.Open)
	if err != nil {
		w.err = err
		return err
	}
	w.sep = w.sep[:0]
	if w.blocks > 0 {
		w.sep = bc.AppendSeparatorGt(w.sep, w.prevMax, b.First)
	}
	if err := w.tw.Add(w.sep, flags, w.payload); err != nil {
		w.err = err
		return err
	}
	w.prevSep = append(w.prevSep[:0], w.sep...)
	w.prevMax = append(w.prevMax[:0], b.Last...)
	w.blocks++
	return nil
}

// Blocks returns the number of blocks added to the current partition.
func (w *RowIndexWriter) Blocks() int { return w.blocks }

// FinishPartition ends the current partition. With fewer than two blocks
// nothing is written and it returns -1 (the partition gets no row index:
// Partitions.db points at Data.db). Otherwise it completes the trie with
// the final entry pointing at endOffset (the end-of-partition byte,
// relative to the partition start), writes the entry for key (raw),
// dataPos (the partition start in Data.db) and the partition deletion,
// and returns the entry's offset, which is the Partitions.db payload.
func (w *RowIndexWriter) FinishPartition(key []byte, dataPos, endOffset int64, deletion mutation.DeletionTime) (int64, error) {
	if w.err != nil {
		return 0, w.err
	}
	defer func() {
		w.blocks = 0
		w.tw.Reset()
	}()
	if w.blocks < 2 {
		return -1, nil
	}
	at := bc.CommonPrefix(w.prevMax, w.prevSep)
	if at >= len(w.prevMax) {
		w.err = fmt.Errorf("bti: last clustering %x is not after the last separator %x", w.prevMax, w.prevSep)
		return 0, w.err
	}
	w.sep = bc.AppendNudge(w.sep[:0], w.prevMax, at)
	var flags uint8
	var err error
	w.payload, flags, err = w.appendPayload(w.payload[:0], endOffset, mutation.Live)
	if err == nil {
		err = w.tw.Add(w.sep, flags, w.payload)
	}
	if err != nil {
		w.err = err
		return 0, err
	}
	root, err := w.tw.Complete()
	if err != nil {
		w.err = err
		return 0, err
	}
	entryPos := w.tw.Position()
	e := binary.BigEndian.AppendUint16(w.entry[:0], uint16(len(key)))
	e = append(e, key...)
	base := entryPos + int64(len(e))
	e = vint.Append(e, uint64(dataPos))
	e = vint.AppendSigned(e, root-base)
	e = vint.Append(e, uint64(w.blocks))
	e = sstables.AppendUnsignedFixedDeletionTime(e, deletion)
	w.entry = e
	if _, err := w.tw.Write(e); err != nil {
		w.err = err
		return 0, err
	}
	return entryPos, nil
}

// Close writes the ScyllaDB trailer if configured and flushes.
func (w *RowIndexWriter) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.opts.Scylla {
		w.tw.Write(ScyllaRowsTrailer[:])
	}
	if err := w.tw.Flush(); err != nil {
		return err
	}
	w.tw.Release()
	return nil
}

// RowIndex reads the row indexes of a Rows.db, held in memory or read page
// by page from its file. It is immutable and safe for concurrent use.
type RowIndex struct {
	t    *trie.Trie
	path string
	src  *trie.PagedSource // nil in memory
}

// OpenRowIndex returns a reader over Rows.db content; path names the file
// in errors.
func OpenRowIndex(data []byte, path string) *RowIndex {
	return &RowIndex{t: trie.New(data), path: path}
}

// OpenRowIndexFile returns a reader of a Rows.db of size bytes read
// through r page by page, keeping cacheBytes of pages (0:
// trie.DefaultCacheBytes); path names the file in errors.
func OpenRowIndexFile(r io.ReaderAt, size int64, path string, cacheBytes int) *RowIndex {
	src := trie.NewPagedSource(r, trie.PagedSourceOptions{End: size, CacheBytes: cacheBytes})
	return &RowIndex{t: trie.NewFromSource(src), path: path, src: src}
}

// BytesRead returns the bytes (and reads) a RowIndex opened with
// OpenRowIndexFile has read so far; 0 for one in memory.
func (r *RowIndex) BytesRead() (bytes, reads int64) {
	if r.src == nil {
		return 0, 0
	}
	return r.src.BytesRead()
}

// maxEntryTail is the most an entry holds after its key: three vints and
// a fixed-form deletion time.
const maxEntryTail = 3*vint.MaxLen + 12

// RowIndexEntry is the Rows.db entry of a partition.
type RowIndexEntry struct {
	// Pos is the entry's offset (its key length field), End the offset
	// just after it.
	Pos, End int64
	// Key is the raw partition key (aliases the data).
	Key []byte
	// DataPos is the partition start in Data.db.
	DataPos int64
	// Root is the position of the row-index trie root.
	Root int64
	// Blocks is the number of index blocks.
	Blocks int
	// Deletion is the partition-level deletion.
	Deletion mutation.DeletionTime
}

func (r *RowIndex) bad(off int64, format string, args ...any) error {
	return sstables.Corruptf(r.path, ComponentRows, off, format, args...)
}

// Entry parses the entry at offset pos (a Partitions.db payload).
func (r *RowIndex) Entry(pos int64) (RowIndexEntry, error) {
	e := RowIndexEntry{Pos: pos}
	end := r.t.End()
	if pos < 0 || pos+2 > end {
		return e, r.bad(pos, "entry position outside the file (%d bytes)", end)
	}
	d, err := r.t.Bytes(pos, 2)
	if err != nil {
		return e, corrupt(r.path, ComponentRows, pos, err)
	}
	n := int64(binary.BigEndian.Uint16(d))
	if pos+2+n > end {
		return e, r.bad(pos, "key of %d bytes runs past the end of the file", n)
	}
	if d, err = r.t.Bytes(pos, int(2+n)+maxEntryTail); err != nil {
		return e, corrupt(r.path, ComponentRows, pos, err)
	}
	e.Key = d[2 : 2+n]
	off := 2 + n
	base := pos + off
	v, k := vint.Decode(d[off:])
	if k <= 0 || v > 1<<62 {
		return e, r.bad(pos+off, "bad data position")
	}
	e.DataPos = int64(v)
	off += int64(k)
	delta, k := vint.DecodeSigned(d[off:])
	if k <= 0 {
		return e, r.bad(pos+off, "bad root delta")
	}
	e.Root = base + delta
	if e.Root < 0 || e.Root >= pos {
		return e, r.bad(pos+off, "root %d (delta %d) not before the entry at %d", e.Root, delta, pos)
	}
	off += int64(k)
	v, k = vint.Decode(d[off:])
	if k <= 0 || v < 2 || v > uint64(end) {
		return e, r.bad(pos+off, "block count %d (a row index has ≥ 2 blocks)", v)
	}
	e.Blocks = int(v)
	off += int64(k)
	dt, k, err := sstables.ReadUnsignedFixedDeletionTime(d[off:])
	if err != nil {
		return e, r.bad(pos+off, "partition deletion: %v", err)
	}
	e.Deletion = dt
	e.End = pos + off + int64(k)
	return e, nil
}

// RowIndexInfo is a row-index payload: where a block starts and what
// deletion is open there.
type RowIndexInfo struct {
	// Offset is relative to the partition start in Data.db.
	Offset int64
	// Open is the open range-tombstone deletion (mutation.Live if none).
	Open mutation.DeletionTime
}

func decodeRowPayload(flags uint8, b []byte) (RowIndexInfo, int, error) {
	info := RowIndexInfo{Open: mutation.Live}
	n := int(flags &^ flagOpenMarker)
	if n == 0 {
		return info, 0, fmt.Errorf("row payload flags %#x without offset bytes", flags)
	}
	if len(b) < n {
		return info, 0, fmt.Errorf("row payload of %d offset bytes truncated", n)
	}
	info.Offset = readSizedInt(b[:n])
	size := n
	if flags&flagOpenMarker != 0 {
		dt, k, err := sstables.ReadUnsignedFixedDeletionTime(b[n:])
		if err != nil {
			return info, 0, fmt.Errorf("open marker: %v", err)
		}
		if dt.IsLive() {
			return info, 0, fmt.Errorf("open marker flag with a live deletion")
		}
		info.Open = dt
		size += k
	}
	return info, size, nil
}

func rowPayloadSize(flags uint8, b []byte) (int, error) {
	_, n, err := decodeRowPayload(flags, b)
	return n, err
}

func (r *RowIndex) payload(n *trie.Node) (RowIndexInfo, error) {
	info, _, err := decodeRowPayload(n.Flags, n.Payload())
	if err != nil {
		return info, r.bad(n.Pos, "%v", err)
	}
	return info, nil
}

// Floor returns the block in which a clustering (its byte-comparable form,
// AppendClustering) would be: the entry with the greatest separator ≤ it.
// Block 0's separator is empty, so a valid trie always has one.
func (r *RowIndex) Floor(root int64, clustering []byte) (RowIndexInfo, error) {
	n, ok, err := r.t.Floor(root, clustering)
	if err != nil {
		return RowIndexInfo{}, corrupt(r.path, ComponentRows, root, err)
	}
	if !ok {
		return RowIndexInfo{}, r.bad(root, "row index without an entry for block 0")
	}
	return r.payload(&n)
}

// Iterate calls fn for every entry of the row index below root in order:
// the blocks, then the final entry (the end-of-partition offset). sep is
// the stored separator, reused between calls.
func (r *RowIndex) Iterate(root int64, fn func(sep []byte, info RowIndexInfo) error) error {
	err := r.t.Walk(root, func(key []byte, n *trie.Node) error {
		info, err := r.payload(n)
		if err != nil {
			return err
		}
		return fn(key, info)
	})
	if _, ok := err.(*trie.Error); ok {
		return corrupt(r.path, ComponentRows, root, err)
	}
	return err
}

// Verify checks the entry's trie (see trie.Trie.Verify) and payloads: it
// lies before the entry, holds Blocks + 1 entries with strictly increasing
// separators, the first one empty, and block offsets that strictly
// increase. It returns the offsets (the last is the end-of-partition
// offset).
func (r *RowIndex) Verify(e RowIndexEntry) ([]int64, error) {
	st, err := r.t.Verify(e.Root, rowPayloadSize)
	if err != nil {
		return nil, corrupt(r.path, ComponentRows, e.Root, err)
	}
	if st.High > e.Pos {
		return nil, r.bad(st.High, "row index trie of the entry at %d runs into it", e.Pos)
	}
	offsets := make([]int64, 0, e.Blocks+1)
	var prev []byte
	err = r.Iterate(e.Root, func(sep []byte, info RowIndexInfo) error {
		i := len(offsets)
		if i == 0 && len(sep) != 0 {
			return r.bad(e.Root, "first separator %x is not empty", sep)
		}
		if i > 0 && (bc.CompareBytes(prev, sep) >= 0 || info.Offset <= offsets[i-1]) {
			return r.bad(e.Root, "entry %d (separator %x, offset %d) not after entry %d", i, sep, info.Offset, i-1)
		}
		if i >= e.Blocks+1 {
			return r.bad(e.Root, "more than %d entries for %d blocks", e.Blocks+1, e.Blocks)
		}
		prev = append(prev[:0], sep...)
		offsets = append(offsets, info.Offset)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(offsets) != e.Blocks+1 {
		return nil, r.bad(e.Pos, "%d entries for %d blocks (want blocks + 1)", len(offsets), e.Blocks)
	}
	return offsets, nil
}

// Last returns the row index's final entry (the end-of-partition offset).
func (r *RowIndex) Last(root int64) (RowIndexInfo, error) {
	n, err := r.t.Last(root)
	if err != nil {
		return RowIndexInfo{}, corrupt(r.path, ComponentRows, root, err)
	}
	return r.payload(&n)
}
