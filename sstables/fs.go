package sstables

import (
	"errors"
	"io"
	"os"
	"time"
)

// FS is the filesystem SSTables are written and read through. The OS
// implementation is the default; tests inject faults through their own.
type FS interface {
	// Create creates or truncates a file for writing.
	Create(name string) (File, error)
	// Open opens a file for reading.
	Open(name string) (File, error)
	// Rename renames a file atomically.
	Rename(oldname, newname string) error
	// Remove removes a file.
	Remove(name string) error
	// SyncDir makes the directory entries of dir durable.
	SyncDir(dir string) error
	// ReadDir lists the names in dir.
	ReadDir(dir string) ([]string, error)
	// MkdirAll creates dir and its parents.
	MkdirAll(dir string) error
}

// File is an open file of an FS.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.Closer
	// Sync makes the file's content durable.
	Sync() error
	// Size returns the file's current size.
	Size() (int64, error)
}

// OSFS is the operating system's filesystem.
var OSFS FS = osFS{}

type osFS struct{}

type osFile struct{ *os.File }

func (f osFile) Size() (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (osFS) Create(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Open(name string) (File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }
func (osFS) Remove(name string) error             { return os.Remove(name) }
func (osFS) MkdirAll(dir string) error            { return os.MkdirAll(dir, 0o755) }

func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func (osFS) ReadDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

// ModTimeFS is an FS that reports when a file's content last changed (its
// modification time, as stat reports it). Package compaction's transaction
// log records the newest modification time of the SSTables a compaction
// obsoletes, as Cassandra's does, and checks it before deleting them. OSFS
// implements it.
type ModTimeFS interface {
	FS
	// ModTime returns the modification time of name.
	ModTime(name string) (time.Time, error)
}

// ErrNoModTime is returned by ModTime for a filesystem that does not
// implement ModTimeFS.
var ErrNoModTime = errors.New("sstables: the filesystem does not report modification times")

// ModTime returns the modification time of name on fsys (OSFS when nil), or
// an error wrapping ErrNoModTime when fsys is not a ModTimeFS.
func ModTime(fsys FS, name string) (time.Time, error) {
	if m, ok := fsOrDefault(fsys).(ModTimeFS); ok {
		return m.ModTime(name)
	}
	return time.Time{}, &os.PathError{Op: "modtime", Path: name, Err: ErrNoModTime}
}

// ModTime implements ModTimeFS.
func (osFS) ModTime(name string) (time.Time, error) {
	st, err := os.Stat(name)
	if err != nil {
		return time.Time{}, err
	}
	return st.ModTime(), nil
}

// fsOrDefault returns fs, or OSFS when fs is nil.
func fsOrDefault(fs FS) FS {
	if fs == nil {
		return OSFS
	}
	return fs
}
