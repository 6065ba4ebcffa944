//go:build linux

package sstables

import "golang.org/x/sys/unix"

// StartWriteback implements WritebackFile with sync_file_range(2)
// SYNC_FILE_RANGE_WRITE: it queues the range's dirty pages for writing and
// returns without waiting for them.
func (f osFile) StartWriteback(off, n int64) error {
	return unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

var _ WritebackFile = osFile{}
