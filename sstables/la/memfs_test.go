package la

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/castable-db/castable/sstables"
)

// memFS is an in-memory sstables.FS for tests: files are byte slices.
type memFS struct {
	mu    sync.Mutex
	files map[string][]byte
}

func newMemFS() *memFS { return &memFS{files: map[string][]byte{}} }

type memFile struct {
	fs   *memFS
	name string
	r    *bytes.Reader
	w    *bytes.Buffer
}

func (m *memFS) Create(name string) (sstables.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[name] = nil
	return &memFile{fs: m, name: name, w: &bytes.Buffer{}}, nil
}

func (m *memFS) Open(name string) (sstables.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{fs: m, name: name, r: bytes.NewReader(b)}, nil
}

func (m *memFS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[oldname]
	if !ok {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	delete(m.files, oldname)
	m.files[newname] = b
	return nil
}

func (m *memFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[name]; !ok {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.files, name)
	return nil
}

func (m *memFS) SyncDir(string) error  { return nil }
func (m *memFS) MkdirAll(string) error { return nil }

func (m *memFS) ReadDir(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for name := range m.files {
		if filepath.Dir(name) == filepath.Clean(dir) {
			names = append(names, filepath.Base(name))
		}
	}
	sort.Strings(names)
	return names, nil
}

func (f *memFile) Read(p []byte) (int, error) {
	if f.r == nil {
		return 0, io.EOF
	}
	return f.r.Read(p)
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if f.r == nil {
		return 0, io.EOF
	}
	return f.r.ReadAt(p, off)
}

func (f *memFile) Write(p []byte) (int, error) {
	if f.w == nil {
		return 0, os.ErrPermission
	}
	return f.w.Write(p)
}

func (f *memFile) Close() error { return f.Sync() }

func (f *memFile) Sync() error {
	if f.w != nil {
		f.fs.mu.Lock()
		f.fs.files[f.name] = bytes.Clone(f.w.Bytes())
		f.fs.mu.Unlock()
	}
	return nil
}

func (f *memFile) Size() (int64, error) {
	if f.w != nil {
		return int64(f.w.Len()), nil
	}
	return f.r.Size(), nil
}

// loadFixture copies the files of a real SSTable into a memFS under dir
// "/t" and returns its descriptor there.
func loadFixture(t testing.TB, f fixture) (*memFS, sstables.Descriptor) {
	t.Helper()
	src := f.desc(t)
	m := newMemFS()
	d := sstables.Descriptor{Dir: "/t", Version: "la", Generation: f.gen}
	entries, err := os.ReadDir(src.Dir)
	if err != nil {
		t.Fatal(err)
	}
	prefix := src.Filename("")
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src.Dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m.files[filepath.Join(d.Dir, e.Name())] = b
	}
	return m, d
}
