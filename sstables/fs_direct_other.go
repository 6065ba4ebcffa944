//go:build !linux

package sstables

import "os"

// setDirectIO reports that direct I/O is not available on this platform.
func setDirectIO(*os.File, bool) error { return errDirectUnsupported }
