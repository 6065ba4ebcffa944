//go:build linux

package sstables

import (
	"os"

	"golang.org/x/sys/unix"
)

// setDirectIO switches O_DIRECT on or off for later reads and writes of f
// (fcntl F_SETFL). Filesystems without direct I/O (tmpfs) refuse it.
func setDirectIO(f *os.File, on bool) error {
	fd := int(f.Fd())
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	if on {
		flags |= unix.O_DIRECT
	} else {
		flags &^= unix.O_DIRECT
	}
	_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags)
	return err
}
