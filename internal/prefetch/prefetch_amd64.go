//go:build amd64 && !purego

package prefetch

import "unsafe"

// t0 issues PREFETCHT0 for p.
//
//go:noescape
func t0(p unsafe.Pointer)
