package memfs

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"testing"
)

// TestFS: what is written reads back through Open, ReadAt and Read;
// Rename, Remove and ReadDir see the same files; absent files are
// fs.ErrNotExist; Set replaces a file without copying it.
func TestFS(t *testing.T) {
	m := New()
	f, err := m.Create("/d/a.tmp")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"hello, ", "world"} {
		if _, err := f.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Rename("/d/a.tmp", "/d/a"); err != nil {
		t.Fatal(err)
	}
	m.Set("/d/sub/b", []byte("x"))
	if names, _ := m.ReadDir("/d"); !slices.Equal(names, []string{"a"}) {
		t.Errorf("ReadDir(/d) = %v, want [a]", names)
	}
	g, err := m.Open("/d/a")
	if err != nil {
		t.Fatal(err)
	}
	if size, _ := g.Size(); size != 12 {
		t.Errorf("Size = %d, want 12", size)
	}
	buf := make([]byte, 8)
	if n, err := g.ReadAt(buf, 7); n != 5 || err != io.EOF || string(buf[:n]) != "world" {
		t.Errorf("ReadAt(7) = %d %q %v", n, buf[:n], err)
	}
	if all, err := io.ReadAll(g); err != nil || string(all) != "hello, world" {
		t.Errorf("Read = %q, %v", all, err)
	}
	if _, err := g.Write([]byte("no")); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Write to an opened file: %v, want fs.ErrPermission", err)
	}
	shared := []byte("abc")
	m.Set("/d/a", shared)
	shared[0] = 'z'
	if b, _ := m.Get("/d/a"); string(b) != "zbc" {
		t.Errorf("Set copied its bytes: %q", b)
	}
	if err := m.Remove("/d/a"); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		func() error { _, err := m.Open("/d/a"); return err }(),
		m.Remove("/d/a"),
		m.Rename("/d/a", "/d/c"),
	} {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("operation on a removed file: %v, want fs.ErrNotExist", err)
		}
	}
	if names := m.Names(); !slices.Equal(names, []string{"/d/sub/b"}) {
		t.Errorf("Names = %v", names)
	}
}
