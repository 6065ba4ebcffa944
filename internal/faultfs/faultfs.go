// Package faultfs wraps an sstables.FS to inject failures: the N-th
// operation of chosen kinds fails, or a write runs out of space halfway. The
// writer, flush and reliability tests sweep N over every operation a write
// performs and check that nothing half-done is left visible.
package faultfs

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/castable-db/castable/sstables"
)

// Op is a kind of filesystem operation.
type Op uint16

// The operations that can fail.
const (
	Create Op = 1 << iota
	Write
	Sync
	Close
	Rename
	Remove
	SyncDir
	// All selects every operation above.
	All = Create | Write | Sync | Close | Rename | Remove | SyncDir
)

func (o Op) String() string {
	names := []string{"create", "write", "sync", "close", "rename", "remove", "syncdir"}
	for i, n := range names {
		if o == 1<<i {
			return n
		}
	}
	return fmt.Sprintf("ops(%#x)", uint16(o))
}

// ErrInjected is the error of an injected failure (ENOSPC ones excepted).
var ErrInjected = errors.New("faultfs: injected failure")

// FS is an sstables.FS that fails the N-th operation among those selected
// by Ops (counting from 1; 0 never fails). With NoSpace, the failing
// operation, if it is a write, first writes half of its bytes and then
// returns ENOSPC, like a full disk. Once an operation has failed, the
// following ones succeed (a transient fault), unless Sticky is set.
type FS struct {
	Base    sstables.FS
	Ops     Op
	FailAt  int
	NoSpace bool
	Sticky  bool

	mu     sync.Mutex
	count  int
	failed bool
	// Log lists the operations performed, for debugging a failing case.
	Log []string
}

// New returns a FS over base (sstables.OSFS when nil) failing the n-th
// operation of ops.
func New(base sstables.FS, ops Op, n int) *FS {
	if base == nil {
		base = sstables.OSFS
	}
	return &FS{Base: base, Ops: ops, FailAt: n}
}

// Count returns how many selected operations have been performed.
func (f *FS) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count
}

// Failed reports whether a failure was injected.
func (f *FS) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// step counts an operation and says whether it must fail.
func (f *FS) step(op Op, name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Log = append(f.Log, op.String()+" "+name)
	if f.Ops&op == 0 {
		return false
	}
	f.count++
	if f.failed && f.Sticky {
		return true
	}
	if f.FailAt > 0 && f.count == f.FailAt {
		f.failed = true
		return true
	}
	return false
}

func injected(op Op, name string) error {
	return fmt.Errorf("%s %s: %w", op, name, ErrInjected)
}

// Create implements sstables.FS.
func (f *FS) Create(name string) (sstables.File, error) {
	if f.step(Create, name) {
		return nil, injected(Create, name)
	}
	file, err := f.Base.Create(name)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f, name: name}, nil
}

// Open implements sstables.FS (reads never fail).
func (f *FS) Open(name string) (sstables.File, error) { return f.Base.Open(name) }

// Rename implements sstables.FS.
func (f *FS) Rename(oldname, newname string) error {
	if f.step(Rename, newname) {
		return injected(Rename, newname)
	}
	return f.Base.Rename(oldname, newname)
}

// Remove implements sstables.FS.
func (f *FS) Remove(name string) error {
	if f.step(Remove, name) {
		return injected(Remove, name)
	}
	return f.Base.Remove(name)
}

// SyncDir implements sstables.FS.
func (f *FS) SyncDir(dir string) error {
	if f.step(SyncDir, dir) {
		return injected(SyncDir, dir)
	}
	return f.Base.SyncDir(dir)
}

// ReadDir implements sstables.FS.
func (f *FS) ReadDir(dir string) ([]string, error) { return f.Base.ReadDir(dir) }

// MkdirAll implements sstables.FS.
func (f *FS) MkdirAll(dir string) error { return f.Base.MkdirAll(dir) }

// ModTime implements sstables.ModTimeFS when Base does (it never fails by
// injection).
func (f *FS) ModTime(name string) (time.Time, error) { return sstables.ModTime(f.Base, name) }

type faultFile struct {
	sstables.File
	fs   *FS
	name string
}

func (f *faultFile) Write(p []byte) (int, error) {
	if f.fs.step(Write, f.name) {
		if f.fs.NoSpace {
			n, _ := f.File.Write(p[:len(p)/2])
			return n, fmt.Errorf("write %s: %w", f.name, syscall.ENOSPC)
		}
		return 0, injected(Write, f.name)
	}
	return f.File.Write(p)
}

func (f *faultFile) Sync() error {
	if f.fs.step(Sync, f.name) {
		return injected(Sync, f.name)
	}
	return f.File.Sync()
}

func (f *faultFile) Close() error {
	if f.fs.step(Close, f.name) {
		f.File.Close() // the descriptor is gone either way
		return injected(Close, f.name)
	}
	return f.File.Close()
}
