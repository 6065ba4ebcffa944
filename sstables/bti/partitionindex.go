package bti

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	bc "github.com/castable-db/castable/internal/bytecomparable"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/trie"
)

// Partitions.db (Cassandra 5.0 PartitionIndexBuilder / PartitionIndex):
//
//	trie nodes           page-aware trie (package trie) from offset 0; each
//	                     partition is stored under the shortest prefix of
//	                     its byte-comparable decorated key that differs from
//	                     both neighbours: cut(key, max(diffPoint(prev, key),
//	                     diffPoint(key, next))), a missing neighbour
//	                     counting 0 (one partition: the empty key, so the
//	                     root carries the payload)
//	first key            u16 length + raw key bytes
//	last key             u16 length + raw key bytes (both u16 0 when empty)
//	firstKeyPos          i64, offset of the first-key field
//	keyCount             i64
//	root                 i64, position of the root node
//
// Payload of a key node, flags 8 + (n − 1) (bit 8 = hash byte present):
//
//	u8 hash     low byte of the key's MurmurHash3 second half (HashByte)
//	n bytes     pos, big-endian two's complement, n = the fewest bytes
//	            that hold it with its sign (1…8): pos ≥ 0 is the offset of
//	            the partition's entry in Rows.db, pos < 0 means the
//	            partition starts at Data.db offset ^pos (~pos)
//
// Readers also accept flags 1…7: no hash byte, flags bytes of position
// (Cassandra never writes them).
const (
	partitionFooterLen = 3 * 8
	flagHasHashByte    = 8
)

// ComponentPartitions and ComponentRows name the BTI index components in
// errors.
const (
	ComponentPartitions = "Partitions.db"
	ComponentRows       = "Rows.db"
)

// sizedIntLen is SizedInts.nonZeroSize: the bytes needed for v with its
// sign (0 needs 1).
func sizedIntLen(v int64) int {
	if v < 0 {
		v = ^v
	}
	return (bits.Len64(uint64(v)) + 1 + 7) / 8
}

func appendSizedInt(dst []byte, v int64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

func readSizedInt(b []byte) int64 {
	var v int64
	if len(b) > 0 && b[0]&0x80 != 0 {
		v = -1
	}
	for _, c := range b {
		v = v<<8 | int64(c)
	}
	return v
}

// PartitionIndexOptions configure a PartitionIndexWriter. The zero value
// writes what Cassandra 5.0 writes.
type PartitionIndexOptions struct {
	// Scylla writes a sole partition under the first byte of its key, as
	// ScyllaDB's bti_partition_index_writer does, instead of Cassandra's
	// empty key. Every other byte is the same. Default false.
	Scylla bool
}

// PartitionIndexWriter writes Partitions.db. Add the partitions in order,
// then Finish. It allocates nothing per key once its buffers have grown.
type PartitionIndexWriter struct {
	tw   *trie.Writer
	opts PartitionIndexOptions

	pending     bool // a key waits for its successor
	prevKey     []byte
	prevPayload [9]byte
	prevLen     int
	prevFlags   uint8
	lastDiff    int
	count       int64
	firstKey    []byte
	lastKey     []byte
	err         error
}

// NewPartitionIndexWriter returns a writer of a Partitions.db written to w
// from its first byte.
func NewPartitionIndexWriter(w io.Writer, opts PartitionIndexOptions) *PartitionIndexWriter {
	return &PartitionIndexWriter{tw: trie.NewWriter(w, 0), opts: opts}
}

// Add records the next partition: comparable is its byte-comparable
// decorated key (AppendDecoratedKey), rawKey its serialized key, hash its
// HashByte, pos its position (≥ 0: its Rows.db entry; < 0: ^ its Data.db
// offset). Keys must strictly increase.
func (w *PartitionIndexWriter) Add(comparable, rawKey []byte, hash byte, pos int64) error {
	if w.err != nil {
		return w.err
	}
	if w.pending {
		if bc.CompareBytes(w.prevKey, comparable) >= 0 {
			w.err = fmt.Errorf("bti: partition key %x not after %x", comparable, w.prevKey)
			return w.err
		}
		diff := bc.DiffPoint(w.prevKey, comparable)
		if err := w.tw.Add(bc.Cut(w.prevKey, max(diff, w.lastDiff)), w.prevFlags, w.prevPayload[:w.prevLen]); err != nil {
			w.err = err
			return err
		}
		w.lastDiff = diff
	} else {
		w.firstKey = append(w.firstKey[:0], rawKey...)
	}
	w.count++
	w.pending = true
	w.prevKey = append(w.prevKey[:0], comparable...)
	w.lastKey = append(w.lastKey[:0], rawKey...)
	n := sizedIntLen(pos)
	w.prevFlags = uint8(flagHasHashByte + n - 1)
	w.prevPayload[0] = hash
	appendSizedInt(w.prevPayload[1:1], pos, n)
	w.prevLen = 1 + n
	return nil
}

// Position returns the number of bytes written so far (the file's length
// after Finish).
func (w *PartitionIndexWriter) Position() int64 { return w.tw.Position() }

// Finish writes the last key, the rest of the trie and the footer, flushes,
// and returns the root position.
func (w *PartitionIndexWriter) Finish() (int64, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.pending {
		cut := w.lastDiff
		if w.count == 1 && w.opts.Scylla {
			cut = 1
		}
		if err := w.tw.Add(bc.Cut(w.prevKey, cut), w.prevFlags, w.prevPayload[:w.prevLen]); err != nil {
			w.err = err
			return 0, err
		}
	}
	root, err := w.tw.Complete()
	if err != nil {
		w.err = err
		return 0, err
	}
	firstPos := w.tw.Position()
	var b []byte
	b = binary.BigEndian.AppendUint16(b, uint16(len(w.firstKey)))
	b = append(b, w.firstKey...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(w.lastKey)))
	b = append(b, w.lastKey...)
	b = binary.BigEndian.AppendUint64(b, uint64(firstPos))
	b = binary.BigEndian.AppendUint64(b, uint64(w.count))
	b = binary.BigEndian.AppendUint64(b, uint64(root))
	w.tw.Write(b)
	if err := w.tw.Flush(); err != nil {
		w.err = err
		return 0, err
	}
	w.tw.Release() // its node pool goes to the next SSTable's writer
	return root, nil
}

// PartitionIndex reads a Partitions.db, held in memory or read page by page
// from its file. It is immutable and safe for concurrent use.
type PartitionIndex struct {
	t *trie.Trie
	// Root is the position of the trie root.
	Root int64
	// FirstKeyPos is the offset of the footer's first-key field.
	FirstKeyPos int64
	// KeyCount is the number of partitions.
	KeyCount int64
	// FirstKey and LastKey are the raw keys of the first and last
	// partitions (empty for an empty sstable).
	FirstKey, LastKey []byte
	path              string
	src               *trie.PagedSource // nil in memory
}

func corrupt(path, component string, off int64, err error) error {
	if err == nil {
		return nil
	}
	var ce *sstables.CorruptionError
	if errors.As(err, &ce) {
		return err
	}
	var te *trie.Error
	if errors.As(err, &te) {
		return &sstables.CorruptionError{Path: path, Component: component, Offset: te.Offset, Reason: te.Reason}
	}
	return &sstables.CorruptionError{Path: path, Component: component, Offset: off, Reason: err.Error()}
}

// OpenPartitionIndex parses the footer of a Partitions.db held in memory.
// path only names the file in errors (*sstables.CorruptionError with the
// offset).
func OpenPartitionIndex(data []byte, path string) (*PartitionIndex, error) {
	p, err := openPartitionFooter(bytes.NewReader(data), int64(len(data)), path)
	if err != nil {
		return nil, err
	}
	// The trie must end before the keys.
	p.t = &trie.Trie{Data: data[:p.FirstKeyPos]}
	return p, nil
}

// OpenPartitionIndexFile opens a Partitions.db of size bytes read through
// r: it reads the footer now and the trie's pages as lookups need them,
// keeping cacheBytes of them (0: trie.DefaultCacheBytes). path names the
// file in errors.
func OpenPartitionIndexFile(r io.ReaderAt, size int64, path string, cacheBytes int) (*PartitionIndex, error) {
	p, err := openPartitionFooter(r, size, path)
	if err != nil {
		return nil, err
	}
	p.src = trie.NewPagedSource(r, trie.PagedSourceOptions{End: p.FirstKeyPos, CacheBytes: cacheBytes})
	p.t = trie.NewFromSource(p.src)
	return p, nil
}

// maxFooterKeys bounds the two keys before the footer: u16 lengths.
const maxFooterKeys = 2 * (2 + 0xFFFF)

// openPartitionFooter reads and checks the footer and the first and last
// keys.
func openPartitionFooter(r io.ReaderAt, size int64, path string) (*PartitionIndex, error) {
	bad := func(off int64, format string, args ...any) error {
		return sstables.Corruptf(path, ComponentPartitions, off, format, args...)
	}
	if size < partitionFooterLen+4 {
		return nil, bad(0, "file of %d bytes is shorter than the footer", size)
	}
	f := size - partitionFooterLen
	var foot [partitionFooterLen]byte
	if n, err := r.ReadAt(foot[:], f); n != len(foot) {
		return nil, &sstables.CorruptionError{Path: path, Component: ComponentPartitions, Offset: f + int64(n), Reason: "short read of the footer", Err: err}
	}
	p := &PartitionIndex{path: path}
	p.FirstKeyPos = int64(binary.BigEndian.Uint64(foot[:]))
	p.KeyCount = int64(binary.BigEndian.Uint64(foot[8:]))
	p.Root = int64(binary.BigEndian.Uint64(foot[16:]))
	if p.FirstKeyPos < 0 || p.FirstKeyPos > f-4 || f-p.FirstKeyPos > maxFooterKeys {
		return nil, bad(f, "first-key position %d outside the file or too far from its end", p.FirstKeyPos)
	}
	if p.KeyCount < 0 || p.KeyCount > f {
		return nil, bad(f+8, "key count %d impossible for a %d-byte file", p.KeyCount, size)
	}
	if p.Root < 0 || p.Root >= p.FirstKeyPos {
		return nil, bad(f+16, "root position %d not inside the trie (which ends at %d)", p.Root, p.FirstKeyPos)
	}
	keys := make([]byte, f-p.FirstKeyPos)
	if n, err := r.ReadAt(keys, p.FirstKeyPos); n != len(keys) {
		return nil, &sstables.CorruptionError{Path: path, Component: ComponentPartitions, Offset: p.FirstKeyPos + int64(n), Reason: "short read of the first and last keys", Err: err}
	}
	off := int64(0)
	for i := 0; i < 2; i++ {
		at := p.FirstKeyPos + off
		if off+2 > int64(len(keys)) {
			return nil, bad(at, "key length runs into the footer")
		}
		n := int64(binary.BigEndian.Uint16(keys[off:]))
		if off+2+n > int64(len(keys)) {
			return nil, bad(at, "key of %d bytes runs into the footer", n)
		}
		k := keys[off+2 : off+2+n]
		if i == 0 {
			p.FirstKey = k
		} else {
			p.LastKey = k
		}
		off += 2 + n
	}
	if off != int64(len(keys)) {
		return nil, bad(p.FirstKeyPos+off, "%d bytes between the last key and the footer", int64(len(keys))-off)
	}
	return p, nil
}

// BytesRead returns the bytes (and reads) a PartitionIndex opened with
// OpenPartitionIndexFile has read of the trie so far; 0 for one in memory.
func (p *PartitionIndex) BytesRead() (bytes, reads int64) {
	if p.src == nil {
		return 0, 0
	}
	return p.src.BytesRead()
}

// PartitionCandidate is what Partitions.db says of a key: where to look.
type PartitionCandidate struct {
	// Pos is the payload position: ≥ 0 the offset of the partition's entry
	// in Rows.db, < 0 the partition's Data.db offset bit-inverted.
	Pos int64
	// Hash is the stored hash byte; HasHash is false for payloads without
	// one.
	Hash    byte
	HasHash bool
}

// InRowIndex reports whether the candidate points at a Rows.db entry.
func (c PartitionCandidate) InRowIndex() bool { return c.Pos >= 0 }

// DataPos returns the Data.db offset of a candidate that points there.
func (c PartitionCandidate) DataPos() int64 { return ^c.Pos }

// decodePartitionPayload decodes the payload of a node with flags at b.
func decodePartitionPayload(flags uint8, b []byte) (PartitionCandidate, int, error) {
	var c PartitionCandidate
	n := int(flags)
	if flags >= flagHasHashByte {
		if len(b) < 1 {
			return c, 0, fmt.Errorf("payload truncated")
		}
		c.Hash, c.HasHash = b[0], true
		b = b[1:]
		n = int(flags) - flagHasHashByte + 1
	}
	if len(b) < n {
		return c, 0, fmt.Errorf("payload of %d position bytes truncated", n)
	}
	c.Pos = readSizedInt(b[:n])
	size := n
	if c.HasHash {
		size++
	}
	return c, size, nil
}

func partitionPayloadSize(flags uint8, b []byte) (int, error) {
	_, n, err := decodePartitionPayload(flags, b)
	return n, err
}

func (p *PartitionIndex) payload(n *trie.Node) (PartitionCandidate, error) {
	c, _, err := decodePartitionPayload(n.Flags, n.Payload())
	if err != nil {
		return c, sstables.Corruptf(p.path, ComponentPartitions, n.Pos, "%v", err)
	}
	return c, nil
}

// Lookup finds the candidate for a byte-comparable decorated key: the
// partition whose stored prefix the key follows to a leaf (or ends at), if
// its hash byte equals hash. ok false means the key is certainly absent;
// ok true still needs the caller to compare the key stored at the
// candidate's target (Rows.db entry or Data.db partition).
func (p *PartitionIndex) Lookup(comparable []byte, hash byte) (PartitionCandidate, bool, error) {
	n, used, err := p.t.Follow(p.Root, comparable)
	if err != nil {
		return PartitionCandidate{}, false, corrupt(p.path, ComponentPartitions, p.Root, err)
	}
	if used < len(comparable) && n.HasChildren() || n.Flags == 0 {
		return PartitionCandidate{}, false, nil
	}
	c, err := p.payload(&n)
	if err != nil {
		return c, false, err
	}
	if c.HasHash && c.Hash != hash {
		return c, false, nil
	}
	return c, true, nil
}

// Ceiling returns the first partition whose stored prefix is ≥ the
// byte-comparable key (a prefix of the key counts as equal: the partition
// it stands for may be the key or the next one).
func (p *PartitionIndex) Ceiling(comparable []byte) (PartitionCandidate, bool, error) {
	n, used, err := p.t.Follow(p.Root, comparable)
	if err != nil {
		return PartitionCandidate{}, false, corrupt(p.path, ComponentPartitions, p.Root, err)
	}
	if (used == len(comparable) || !n.HasChildren()) && n.Flags != 0 {
		c, err := p.payload(&n)
		return c, err == nil, err
	}
	n, ok, err := p.t.Ceiling(p.Root, comparable)
	if err != nil {
		return PartitionCandidate{}, false, corrupt(p.path, ComponentPartitions, p.Root, err)
	}
	if !ok {
		return PartitionCandidate{}, false, nil
	}
	c, err := p.payload(&n)
	return c, err == nil, err
}

// PartitionEntry is one partition of the index in key order.
type PartitionEntry struct {
	// Prefix is the stored (shortest unique) prefix of the key's
	// byte-comparable form; it is reused between calls.
	Prefix []byte
	PartitionCandidate
}

// Iterate calls fn for every partition in order.
func (p *PartitionIndex) Iterate(fn func(e PartitionEntry) error) error {
	err := p.t.Walk(p.Root, func(key []byte, n *trie.Node) error {
		c, err := p.payload(n)
		if err != nil {
			return err
		}
		return fn(PartitionEntry{Prefix: key, PartitionCandidate: c})
	})
	if err != nil {
		var ce *sstables.CorruptionError
		if errors.As(err, &ce) {
			return err
		}
		var te *trie.Error
		if errors.As(err, &te) {
			return corrupt(p.path, ComponentPartitions, p.Root, err)
		}
	}
	return err
}

// Verify checks the whole trie (see trie.Trie.Verify), every payload, that
// the stored prefixes are strictly increasing and prefix-free (only leaves
// carry payloads, except a sole partition at the root) and that there are
// KeyCount of them.
func (p *PartitionIndex) Verify() error {
	st, err := p.t.Verify(p.Root, partitionPayloadSize)
	if err != nil {
		return corrupt(p.path, ComponentPartitions, p.Root, err)
	}
	if st.High > p.FirstKeyPos {
		return sstables.Corruptf(p.path, ComponentPartitions, st.High, "trie runs past the first key at %d", p.FirstKeyPos)
	}
	var count int64
	var prev []byte
	err = p.t.Walk(p.Root, func(key []byte, n *trie.Node) error {
		if n.HasChildren() {
			return sstables.Corruptf(p.path, ComponentPartitions, n.Pos, "partition prefix %x is a prefix of another", key)
		}
		if count > 0 && bc.CompareBytes(prev, key) >= 0 {
			return sstables.Corruptf(p.path, ComponentPartitions, n.Pos, "partition prefix %x not after %x", key, prev)
		}
		prev = append(prev[:0], key...)
		count++
		return nil
	})
	if err != nil {
		return corrupt(p.path, ComponentPartitions, p.Root, err)
	}
	if count != p.KeyCount {
		return sstables.Corruptf(p.path, ComponentPartitions, p.FirstKeyPos, "footer says %d keys, the trie holds %d", p.KeyCount, count)
	}
	return nil
}
