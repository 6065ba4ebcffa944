//go:build !amd64 || purego

package prefetch

import "unsafe"

func t0(unsafe.Pointer) {}

func lines(unsafe.Pointer, uintptr) {}
