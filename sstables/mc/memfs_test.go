package mc

import (
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/castable-db/castable/sstables"
)

// memFS is an in-memory sstables.FS for tests and fuzzing.
type memFS struct {
	mu    sync.Mutex
	files map[string][]byte
}

func newMemFS() *memFS { return &memFS{files: map[string][]byte{}} }

func (m *memFS) set(name string, b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[filepath.Clean(name)] = b
}

func (m *memFS) get(name string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[filepath.Clean(name)]
	return b, ok
}

type memFile struct {
	fs   *memFS
	name string
	data []byte
	off  int64
	w    bool
}

func (m *memFS) Create(name string) (sstables.File, error) {
	m.set(name, nil)
	return &memFile{fs: m, name: filepath.Clean(name), w: true}, nil
}

func (m *memFS) Open(name string) (sstables.File, error) {
	b, ok := m.get(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{fs: m, name: filepath.Clean(name), data: b}, nil
}

func (m *memFS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[filepath.Clean(oldname)]
	if !ok {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	delete(m.files, filepath.Clean(oldname))
	m.files[filepath.Clean(newname)] = b
	return nil
}

func (m *memFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[filepath.Clean(name)]; !ok {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.files, filepath.Clean(name))
	return nil
}

func (m *memFS) SyncDir(string) error  { return nil }
func (m *memFS) MkdirAll(string) error { return nil }

func (m *memFS) ReadDir(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	for name := range m.files {
		if strings.HasPrefix(name, prefix) && !strings.Contains(name[len(prefix):], string(filepath.Separator)) {
			names = append(names, name[len(prefix):])
		}
	}
	sort.Strings(names)
	return names, nil
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
	f.data = append(f.data, p...)
	f.fs.set(f.name, f.data)
	return len(p), nil
}

func (f *memFile) Close() error         { return nil }
func (f *memFile) Sync() error          { return nil }
func (f *memFile) Size() (int64, error) { return int64(len(f.data)), nil }
