// Package prefetch asks the CPU to start loading memory that will be read
// soon, without waiting for it. The flush walks a memtable's partitions in
// token order, which is random with respect to where they live in memory;
// touching the next partitions' memory a few steps ahead overlaps those cache
// misses instead of paying for them one after another.
//
// Prefetching is only a hint: it never faults, and on platforms without the
// instruction (or with the purego tag) the functions do nothing.
package prefetch

import "unsafe"

// Bytes prefetches the first two cache lines of b.
func Bytes(b []byte) {
	if len(b) == 0 {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	t0(p)
	if len(b) > 64 {
		t0(unsafe.Add(p, 64))
	}
}

// Pointer prefetches the cache line holding p (any non-nil pointer).
func Pointer(p unsafe.Pointer) {
	if p != nil {
		t0(p)
	}
}

// lineSize is the cache line size assumed by Range.
const lineSize = 64

// Range prefetches every cache line of the size bytes at p (p must point
// into live memory of at least size bytes, or size be 0).
func Range(p unsafe.Pointer, size uintptr) {
	if p == nil || size == 0 {
		return
	}
	start := uintptr(p)
	n := (start+size-1)/lineSize - start/lineSize + 1
	lines(p, n)
}
