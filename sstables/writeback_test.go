package sstables

import (
	"bytes"
	"github.com/castable-db/castable/sstables/version"
	"testing"
)

// writebackFS hands out files that record their StartWriteback calls.
type writebackFS struct {
	FS
	files map[string]*writebackRecorder
}

type writebackRecorder struct {
	File
	ranges [][2]int64
	fail   bool
}

func (f *writebackRecorder) StartWriteback(off, n int64) error {
	f.ranges = append(f.ranges, [2]int64{off, n})
	if f.fail {
		return errInjected
	}
	return nil
}

func (w *writebackFS) Create(name string) (File, error) {
	f, err := w.FS.Create(name)
	if err != nil {
		return nil, err
	}
	r := &writebackRecorder{File: f}
	w.files[name] = r
	return r, nil
}

// TestFileSetWriteback checks that a component written through a FileSet
// starts the writeback of consecutive WritebackInterval-sized ranges (never
// past what was written), that the content is unaffected, and that a failing
// hint is dropped without failing the write.
func TestFileSetWriteback(t *testing.T) {
	for _, fail := range []bool{false, true} {
		wfs := &writebackFS{FS: OSFS, files: map[string]*writebackRecorder{}}
		desc := Descriptor{Dir: t.TempDir(), Version: version.MustParse("mc"), Generation: 1}
		set, err := NewFileSet(wfs, desc)
		if err != nil {
			t.Fatal(err)
		}
		f, err := set.Create(ComponentData)
		if err != nil {
			t.Fatal(err)
		}
		rec := wfs.files[desc.TempPath(ComponentData)]
		rec.fail = fail
		var want bytes.Buffer
		piece := make([]byte, 300_001) // not a divisor of the interval
		for i := 0; want.Len() < 3*WritebackInterval+5; i++ {
			for j := range piece {
				piece[j] = byte(i + j)
			}
			if _, err := f.Write(piece); err != nil {
				t.Fatal(err)
			}
			want.Write(piece)
		}
		if _, err := set.Commit(); err != nil {
			t.Fatal(err)
		}
		if fail {
			if len(rec.ranges) != 1 {
				t.Fatalf("failing hint: %d calls, want 1 (then disabled)", len(rec.ranges))
			}
		} else {
			if len(rec.ranges) != 3 {
				t.Fatalf("%d writeback calls, want 3: %v", len(rec.ranges), rec.ranges)
			}
			var next int64
			for _, r := range rec.ranges {
				if r[0] != next || r[1] < WritebackInterval || r[1] >= WritebackInterval+int64(len(piece)) {
					t.Fatalf("writeback ranges %v: not consecutive intervals", rec.ranges)
				}
				next += r[1]
			}
			if next > int64(want.Len()) {
				t.Fatalf("writeback up to %d beyond the %d bytes written", next, want.Len())
			}
		}
		got, err := readWholeFile(OSFS, desc.Path(ComponentData), ComponentData, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatal("content differs")
		}
	}
}

// TestOSFileWriteback checks that OS files start writeback without error.
func TestOSFileWriteback(t *testing.T) {
	f, err := OSFS.Create(t.TempDir() + "/x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wb, ok := f.(WritebackFile)
	if !ok {
		t.Skip("no writeback on this platform")
	}
	if _, err := f.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := wb.StartWriteback(0, 1<<20); err != nil {
		t.Fatal(err)
	}
}
