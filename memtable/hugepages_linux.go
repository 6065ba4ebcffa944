//go:build linux

package memtable

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on the platforms Go runs
// Linux on (x86-64, arm64 with 4 KiB pages).
const hugePage = 2 << 20

// adviseHugePages asks the kernel to back the 2 MiB-aligned part of the
// size bytes at p with transparent huge pages (madvise MADV_HUGEPAGE), which
// takes effect as the memory is first touched. It is only a hint: a kernel
// without THP, or that refuses, leaves ordinary pages.
func adviseHugePages(p unsafe.Pointer, size uintptr) {
	start := (uintptr(p) + hugePage - 1) &^ (hugePage - 1)
	end := (uintptr(p) + size) &^ (hugePage - 1)
	if end <= start {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}
