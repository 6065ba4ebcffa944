// Package memfs is an in-memory sstables.FS for tests and sweeps: files are
// byte slices in a map, so a damaged copy of one component costs no copy of
// the others.
package memfs

import (
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/castable-db/castable/sstables"
)

// FS is a read-mostly in-memory sstables.FS: Set replaces a file's content
// without copying it, so that many damaged variants of an SSTable share its
// untouched components. It also accepts writes (a created file's content is
// visible as it is written) so writers can run over it. It is safe for
// concurrent use. It is an sstables.ModTimeFS: a file's modification time
// is the clock's time (SetClock; time.Now by default) of its last Set,
// Create or Write, and Rename keeps it.
type FS struct {
	mu     sync.Mutex
	files  map[string][]byte
	mtimes map[string]time.Time
	clock  func() time.Time
}

// New returns an empty FS.
func New() *FS { return &FS{files: map[string][]byte{}, mtimes: map[string]time.Time{}} }

// SetClock sets the clock modification times are read from (nil:
// time.Now).
func (m *FS) SetClock(clock func() time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clock = clock
}

// now returns the clock's time; m.mu must be held.
func (m *FS) now() time.Time {
	if m.clock != nil {
		return m.clock()
	}
	return time.Now()
}

// Set stores b as the content of name (b is not copied).
func (m *FS) Set(name string, b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[filepath.Clean(name)] = b
	m.mtimes[filepath.Clean(name)] = m.now()
}

// ModTime implements sstables.ModTimeFS.
func (m *FS) ModTime(name string) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.mtimes[filepath.Clean(name)]
	if !ok {
		return time.Time{}, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return t, nil
}

// Get returns the content of name.
func (m *FS) Get(name string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[filepath.Clean(name)]
	return b, ok
}

// Names returns every file name, sorted.
func (m *FS) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.files))
	for n := range m.files {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Create implements sstables.FS.
func (m *FS) Create(name string) (sstables.File, error) {
	m.Set(name, []byte{})
	return &memFile{fs: m, name: filepath.Clean(name), writable: true}, nil
}

// Open implements sstables.FS.
func (m *FS) Open(name string) (sstables.File, error) {
	b, ok := m.Get(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{fs: m, name: filepath.Clean(name), data: b}, nil
}

// Rename implements sstables.FS.
func (m *FS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[filepath.Clean(oldname)]
	if !ok {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	t := m.mtimes[filepath.Clean(oldname)]
	delete(m.files, filepath.Clean(oldname))
	delete(m.mtimes, filepath.Clean(oldname))
	m.files[filepath.Clean(newname)] = b
	m.mtimes[filepath.Clean(newname)] = t
	return nil
}

// Remove implements sstables.FS.
func (m *FS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[filepath.Clean(name)]; !ok {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.files, filepath.Clean(name))
	delete(m.mtimes, filepath.Clean(name))
	return nil
}

// SyncDir implements sstables.FS.
func (m *FS) SyncDir(string) error { return nil }

// MkdirAll implements sstables.FS.
func (m *FS) MkdirAll(string) error { return nil }

// ReadDir implements sstables.FS.
func (m *FS) ReadDir(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	var names []string
	for name := range m.files {
		if rest, ok := strings.CutPrefix(name, prefix); ok && !strings.Contains(rest, string(filepath.Separator)) {
			names = append(names, rest)
		}
	}
	slices.Sort(names)
	return names, nil
}

type memFile struct {
	fs       *FS
	name     string
	data     []byte
	off      int64
	writable bool
}

func (f *memFile) Read(p []byte) (int, error) {
	if f.off >= int64(len(f.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.data[f.off:])
	f.off += int64(n)
	return n, nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fs.ErrInvalid
	}
	if off >= int64(len(f.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	if !f.writable {
		return 0, fs.ErrPermission
	}
	f.data = append(f.data, p...)
	f.fs.Set(f.name, f.data)
	return len(p), nil
}

func (f *memFile) Close() error         { return nil }
func (f *memFile) Sync() error          { return nil }
func (f *memFile) Size() (int64, error) { return int64(len(f.data)), nil }
