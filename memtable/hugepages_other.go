//go:build !linux

package memtable

import "unsafe"

// adviseHugePages does nothing where transparent huge pages are unknown.
func adviseHugePages(unsafe.Pointer, uintptr) {}
