//go:build amd64 && !purego

package prefetch

import "unsafe"

// t0 issues PREFETCHT0 for p.
//
//go:noescape
func t0(p unsafe.Pointer)

// lines issues PREFETCHT0 for n consecutive cache lines from the one
// holding p.
//
//go:noescape
func lines(p unsafe.Pointer, n uintptr)
