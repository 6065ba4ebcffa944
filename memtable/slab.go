package memtable

import (
	"unsafe"

	"github.com/castable-db/castable/mutation"
)

// slab hands out the memory a shard's partitions live in: structs come from
// blocks of a few hundred, bytes from 64 KiB blocks, so applying a small
// partition costs no allocation in steady state. Nothing is ever freed
// individually; the whole slab goes away with the memtable.
type slab struct {
	// arena provides the entries blocks, shared by the memtable's shards.
	arena      *entryArena
	entries    []entry
	partitions []mutation.Partition
	rows       []mutation.Row
	cells      []mutation.Cell
	markers    []mutation.RangeTombstoneMarker
	complex    []mutation.ComplexDeletion
	values     [][]byte
	bytes      []byte

	// next sizes of the struct and byte blocks: they start small and double
	// up to structBlock and byteBlock, so a memtable spread over many shards
	// does not reserve megabytes before it holds anything.
	nextStructs, nextBytes int
	// nextEntries is the size of the next run of entries from the arena.
	nextEntries int

	// allocated is the memory the slab has taken from the Go heap.
	allocated int64
}

const (
	structBlock     = 256
	byteBlock       = 64 << 10
	firstBlock      = 4
	firstBytesBlock = 512
	// largeValue is the size from which a value gets its own allocation
	// instead of a share of a byte block.
	largeValue = byteBlock / 4
)

var (
	sizeofEntry     = int64(unsafe.Sizeof(entry{}))
	sizeofPartition = int64(unsafe.Sizeof(mutation.Partition{}))
	sizeofRow       = int64(unsafe.Sizeof(mutation.Row{}))
	sizeofCell      = int64(unsafe.Sizeof(mutation.Cell{}))
	sizeofMarker    = int64(unsafe.Sizeof(mutation.RangeTombstoneMarker{}))
	sizeofComplex   = int64(unsafe.Sizeof(mutation.ComplexDeletion{}))
	sizeofSlice     = int64(unsafe.Sizeof([]byte(nil)))
)

// takeN returns n zeroed elements carved from *block, refilling it with a
// new block of at least structBlock elements when it runs out. The result has
// its capacity clipped so appends never spill into a neighbour.
func takeN[T any](s *slab, block *[]T, n int, size int64) []T {
	if n == 0 {
		return nil
	}
	if len(*block) < n {
		c := max(s.nextStructs, firstBlock)
		s.nextStructs = min(2*c, structBlock)
		c = max(c, n)
		*block = make([]T, c)
		s.allocated += int64(c) * size
	}
	out := (*block)[:n:n]
	*block = (*block)[n:]
	return out
}

// copyBytes returns a copy of b held by the slab (nil stays nil, empty
// stays empty and non-nil).
func (s *slab) copyBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	n := len(b)
	if n == 0 {
		return b[:0:0]
	}
	if n >= largeValue {
		s.allocated += int64(n)
		return append([]byte(nil), b...)
	}
	if len(s.bytes) < n {
		c := max(s.nextBytes, firstBytesBlock)
		s.nextBytes = min(2*c, byteBlock)
		c = max(c, n)
		s.bytes = make([]byte, c)
		s.allocated += int64(c)
	}
	out := s.bytes[:n:n]
	copy(out, b)
	s.bytes = s.bytes[n:]
	return out
}

func (s *slab) copyClustering(c mutation.Clustering) mutation.Clustering {
	if c == nil {
		return nil
	}
	out := takeN(s, &s.values, len(c), sizeofSlice)
	for i, v := range c {
		out[i] = s.copyBytes(v)
	}
	return out
}

func (s *slab) copyRow(dst, src *mutation.Row) {
	*dst = *src
	dst.Clustering = s.copyClustering(src.Clustering)
	dst.Cells = takeN(s, &s.cells, len(src.Cells), sizeofCell)
	for i := range src.Cells {
		c := &dst.Cells[i]
		*c = src.Cells[i]
		c.Path = s.copyBytes(c.Path)
		c.Value = s.copyBytes(c.Value)
	}
	dst.ComplexDeletions = takeN(s, &s.complex, len(src.ComplexDeletions), sizeofComplex)
	copy(dst.ComplexDeletions, src.ComplexDeletions)
}

// inlineParts is the room an entry has for its partition's first row, cell
// and bytes. A partition with one clustering row is stored in its entry as
// far as it fits: the row, its cell when it has one, its clustering slice
// when it has one component, and the key, clustering, path and value bytes
// while they fit; the rest comes from the slab's blocks as usual. The size
// makes an entry exactly inlineEntrySize bytes.
type inlineParts struct {
	row   [1]mutation.Row
	cell  [1]mutation.Cell
	clust [1][]byte
	bytes [inlineBytes]byte
}

const (
	// inlineEntrySize is the size of an entry: a whole number of cache
	// lines (entries blocks are page-aligned large allocations, so entries
	// start on line boundaries).
	inlineEntrySize = 640
	inlineBytes     = inlineEntrySize - int(unsafe.Sizeof(entryHead{})) - int(unsafe.Sizeof([1]mutation.Row{})) -
		int(unsafe.Sizeof([1]mutation.Cell{})) - int(unsafe.Sizeof([1][]byte{}))
)

// entryHead is entry without its inline parts (for the size computation).
type entryHead struct {
	p         mutation.Partition
	size      int64
	deletions bool
	whole     bool
}

// Compile-time check that an entry is inlineEntrySize bytes.
var _ [inlineEntrySize - unsafe.Sizeof(entry{})]struct{}
var _ [unsafe.Sizeof(entry{}) - inlineEntrySize]struct{}

// inlineAlloc hands out the inline bytes of an entry, then the slab's.
type inlineAlloc struct {
	s    *slab
	free []byte
}

// copyBytes is slab.copyBytes from the entry's room while it lasts.
func (a *inlineAlloc) copyBytes(b []byte) []byte {
	n := len(b)
	if b == nil || n == 0 || n > len(a.free) {
		return a.s.copyBytes(b)
	}
	out := a.free[:n:n]
	copy(out, b)
	a.free = a.free[n:]
	return out
}

// copyNewEntry deep-copies p into the new entry e, using e's inline room
// for what fits (see inlineParts) and the slab for the rest.
func (s *slab) copyNewEntry(e *entry, p *mutation.Partition) {
	in := &e.inline
	a := inlineAlloc{s: s, free: in.bytes[:]}
	out := &e.p
	out.Key = a.copyBytes(p.Key)
	out.Token = p.Token
	out.Deletion = p.Deletion
	s.copyRow(&out.Static, &p.Static)
	if len(p.Rows) == 1 {
		src := &p.Rows[0]
		dst := &in.row[0]
		*dst = *src
		switch {
		case src.Clustering == nil:
		case len(src.Clustering) == 1:
			in.clust[0] = a.copyBytes(src.Clustering[0])
			dst.Clustering = in.clust[:1:1]
		default:
			dst.Clustering = s.copyClustering(src.Clustering)
		}
		if len(src.Cells) == 1 {
			dst.Cells = in.cell[:1:1]
		} else {
			dst.Cells = takeN(s, &s.cells, len(src.Cells), sizeofCell)
		}
		for i := range src.Cells {
			c := &dst.Cells[i]
			*c = src.Cells[i]
			c.Path = a.copyBytes(c.Path)
			c.Value = a.copyBytes(c.Value)
		}
		dst.ComplexDeletions = takeN(s, &s.complex, len(src.ComplexDeletions), sizeofComplex)
		copy(dst.ComplexDeletions, src.ComplexDeletions)
		out.Rows = in.row[:1:1]
	} else {
		out.Rows = takeN(s, &s.rows, len(p.Rows), sizeofRow)
		for i := range p.Rows {
			s.copyRow(&out.Rows[i], &p.Rows[i])
		}
	}
	out.Markers = takeN(s, &s.markers, len(p.Markers), sizeofMarker)
	for i := range p.Markers {
		m := &out.Markers[i]
		*m = p.Markers[i]
		m.Clustering = s.copyClustering(m.Clustering)
	}
	e.whole = e.holdsWhole()
}

// holdsWhole reports whether every part of the entry's partition lies in
// the entry.
func (e *entry) holdsWhole() bool {
	p := &e.p
	in := func(b []byte) bool { return len(b) == 0 || e.holds(unsafe.Pointer(unsafe.SliceData(b))) }
	if !in(p.Key) || len(p.Markers) > 0 || len(p.Static.Cells) > 0 || len(p.Static.ComplexDeletions) > 0 ||
		len(p.Static.Clustering) > 0 || len(p.Rows) > 1 {
		return false
	}
	for i := range p.Rows {
		r := &p.Rows[i]
		if !e.holds(unsafe.Pointer(r)) || len(r.ComplexDeletions) > 0 {
			return false
		}
		if len(r.Clustering) > 0 && !e.holds(unsafe.Pointer(unsafe.SliceData(r.Clustering))) {
			return false
		}
		for _, v := range r.Clustering {
			if !in(v) {
				return false
			}
		}
		for j := range r.Cells {
			c := &r.Cells[j]
			if !e.holds(unsafe.Pointer(c)) || !in(c.Path) || !in(c.Value) {
				return false
			}
		}
	}
	return true
}

// entryRun is how many entries a shard takes from the arena at a time.
const entryRun = 64

// newEntry returns a zeroed entry held by the slab.
func (s *slab) newEntry() *entry {
	if s.arena == nil {
		return &takeN(s, &s.entries, 1, sizeofEntry)[0]
	}
	if len(s.entries) == 0 {
		// Small shards first take small runs (a memtable spread over many
		// shards should not reserve much before it holds anything).
		n := max(s.nextEntries, firstBlock)
		s.nextEntries = min(2*n, entryRun)
		var allocated int64
		s.entries, allocated = s.arena.take(n)
		s.allocated += allocated
	}
	e := &s.entries[0]
	s.entries = s.entries[1:]
	return e
}

// copyPartition returns a deep copy of p whose memory belongs to the slab.
func (s *slab) copyPartition(p *mutation.Partition) *mutation.Partition {
	out := &takeN(s, &s.partitions, 1, sizeofPartition)[0]
	s.copyPartitionTo(out, p)
	return out
}

// copyPartitionTo deep-copies p into out with memory from the slab.
func (s *slab) copyPartitionTo(out, p *mutation.Partition) {
	out.Key = s.copyBytes(p.Key)
	out.Token = p.Token
	out.Deletion = p.Deletion
	s.copyRow(&out.Static, &p.Static)
	out.Rows = takeN(s, &s.rows, len(p.Rows), sizeofRow)
	for i := range p.Rows {
		s.copyRow(&out.Rows[i], &p.Rows[i])
	}
	out.Markers = takeN(s, &s.markers, len(p.Markers), sizeofMarker)
	for i := range p.Markers {
		m := &out.Markers[i]
		*m = p.Markers[i]
		m.Clustering = s.copyClustering(m.Clustering)
	}
}

// dataSize is the number of bytes of keys, values, paths and clustering
// values p holds: the logical size the byte accounting reports.
func dataSize(p *mutation.Partition) int64 {
	n := int64(len(p.Key)) + rowDataSize(&p.Static) + markersDataSize(p.Markers)
	for i := range p.Rows {
		n += rowDataSize(&p.Rows[i])
	}
	return n
}

func markersDataSize(markers []mutation.RangeTombstoneMarker) int64 {
	var n int64
	for i := range markers {
		for _, v := range markers[i].Clustering {
			n += int64(len(v))
		}
	}
	return n
}

func rowDataSize(r *mutation.Row) int64 {
	var n int64
	for _, v := range r.Clustering {
		n += int64(len(v))
	}
	for i := range r.Cells {
		n += int64(len(r.Cells[i].Path) + len(r.Cells[i].Value))
	}
	return n
}
