package sstables

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestBackgroundWriter writes pieces of many sizes through a backgroundWriter
// to an OS file, with and without direct I/O, and requires the file to hold
// exactly the bytes written: whole 1 MiB pieces, a last partial one, and
// lengths on and off the direct I/O alignment.
func TestBackgroundWriter(t *testing.T) {
	r := newTestRand(21)
	for _, direct := range []bool{true, false} {
		for _, total := range []int{0, 1, directAlignment, backgroundBufferSize, backgroundBufferSize + 1, 3*backgroundBufferSize + directAlignment + 17, 9*backgroundBufferSize - 1} {
			path := filepath.Join(t.TempDir(), "Data.db")
			f, err := OSFS.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			b := newBackgroundWriter(f, f.(osFile).File, direct)
			if direct && !b.direct && total == 0 {
				t.Logf("%s: no direct I/O on this filesystem", filepath.Dir(path))
			}
			want := make([]byte, total)
			for i := range want {
				want[i] = byte(r.IntN(256))
			}
			for p := want; len(p) > 0; {
				k := min(len(p), 1+r.IntN(300_000))
				if n, err := b.Write(p[:k]); err != nil || n != k {
					t.Fatalf("Write: %d, %v", n, err)
				}
				p = p[k:]
			}
			if err := b.Flush(); err != nil {
				t.Fatal(err)
			}
			b.Stop() // after Flush: nothing to do
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("direct=%v total=%d: file of %d bytes differs from the %d written", direct, total, len(got), len(want))
			}
		}
	}
}

// TestBackgroundWriterErrors checks that a failing file write reaches the
// caller through a later Write or Flush, and that Stop ends the goroutine
// without writing.
func TestBackgroundWriterErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Data.db")
	f, err := OSFS.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	of := f.(osFile).File
	b := newBackgroundWriter(f, of, true)
	f.Close() // every write of the goroutine now fails
	piece := make([]byte, backgroundBufferSize)
	var got error
	for i := 0; i < 2*backgroundBuffers && got == nil; i++ {
		_, got = b.Write(piece)
	}
	if got == nil {
		got = b.Flush()
	}
	if !errors.Is(got, os.ErrClosed) {
		t.Fatalf("error %v, want the closed file's", got)
	}
	b.Stop()

	f, err = OSFS.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b = newBackgroundWriter(f, f.(osFile).File, false)
	if _, err := b.Write([]byte("pending")); err != nil {
		t.Fatal(err)
	}
	b.Stop()
	if _, err := b.Write([]byte("x")); err == nil {
		t.Error("Write after Stop succeeded")
	}
	if err := b.Flush(); err == nil {
		t.Error("Flush after Stop succeeded")
	}
	if st, _ := os.Stat(path); st.Size() != 0 {
		t.Errorf("Stop wrote %d bytes", st.Size())
	}
}
