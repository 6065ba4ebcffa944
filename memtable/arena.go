package memtable

import (
	"sync"
	"unsafe"
)

// entryArena hands out the entries of all of a memtable's shards from
// large chunks, so that the entries — which hold small partitions whole, and
// which a flush visits in token order, at random — live in few, large
// runs of memory. Chunks grow to arenaMaxChunk, and on Linux the
// kernel is asked to back them with transparent huge pages: a flush of a
// memtable of hundreds of MiB then needs a TLB entry per 2 MiB instead of
// one per 4 KiB page (a page walk per partition otherwise).
//
// Shards take runs of entries (a few dozen at a time) under the arena's
// lock and hand them out under their own, so concurrent writers rarely
// meet on it.
type entryArena struct {
	mu        sync.Mutex
	free      []entry // the rest of the current chunk
	nextChunk int     // entries in the next chunk
}

const (
	// arenaFirstChunk and arenaMaxChunk bound the chunk sizes in entries:
	// a small memtable reserves little, a large one gets chunks of 16 MiB
	// and more, mostly covered by huge pages.
	arenaFirstChunk = 64
	arenaMaxChunk   = 16 << 20 / inlineEntrySize
)

// take returns n zeroed entries (n ≤ arenaMaxChunk) with their capacity
// clipped, and the bytes of chunk memory newly allocated for them.
func (a *entryArena) take(n int) ([]entry, int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var allocated int64
	if len(a.free) < n {
		c := max(a.nextChunk, arenaFirstChunk, n)
		a.nextChunk = min(2*c, arenaMaxChunk)
		a.free = make([]entry, c)
		allocated = int64(c) * sizeofEntry
		adviseHugePages(unsafe.Pointer(unsafe.SliceData(a.free)), uintptr(allocated))
	}
	out := a.free[:n:n]
	a.free = a.free[n:]
	return out, allocated
}
