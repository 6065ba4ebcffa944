package la

import (
	"errors"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/sstables"
)

// faultFS fails the n-th mutating operation (create, write, sync, close,
// rename, remove) of an underlying memFS.
type faultFS struct {
	*memFS
	n, ops int
}

var errInjected = errors.New("injected fault")

func (f *faultFS) tick() error {
	f.ops++
	if f.ops == f.n {
		return errInjected
	}
	return nil
}

type faultFile struct {
	sstables.File
	fs *faultFS
}

func (f *faultFS) Create(name string) (sstables.File, error) {
	if err := f.tick(); err != nil {
		return nil, err
	}
	file, err := f.memFS.Create(name)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f}, nil
}

func (f *faultFS) Rename(a, b string) error {
	if err := f.tick(); err != nil {
		return err
	}
	return f.memFS.Rename(a, b)
}

func (f *faultFile) Write(p []byte) (int, error) {
	if err := f.fs.tick(); err != nil {
		return 0, err
	}
	return f.File.Write(p)
}

func (f *faultFile) Sync() error {
	if err := f.fs.tick(); err != nil {
		return err
	}
	return f.File.Sync()
}

// TestInjectedFaults fails the n-th file operation of a write for every n:
// the writer must report it, leave no TOC.txt (the SSTable is not
// visible) and, after Abort, no file at all.
func TestInjectedFaults(t *testing.T) {
	table := benchTable(t)
	keys := benchKeys(200)
	value := make([]byte, 100)
	p := benchPartition(table, value)
	for n := 1; ; n++ {
		fsys := &faultFS{memFS: newMemFS(), n: n}
		w, err := NewWriter(table, sstables.WriterOptions{Dir: "/w", Generation: 1, FS: fsys,
			Compression: &compress.Params{Codec: compress.LZ4, ChunkLength: 4096}, Jobs: 2}, Options{})
		if err == nil {
			for _, k := range keys {
				p.Key = k
				if err = w.Append(p); err != nil {
					break
				}
			}
			if err == nil {
				_, err = w.Finish()
			}
			if err != nil {
				if aerr := w.Abort(); aerr != nil {
					t.Fatalf("n=%d: abort: %v", n, aerr)
				}
			}
		}
		if fsys.ops < n {
			if err != nil {
				t.Fatalf("n=%d: error without a fault: %v", n, err)
			}
			t.Logf("%d file operations, each failed once", n-1)
			return
		}
		if !errors.Is(err, errInjected) {
			t.Fatalf("n=%d: fault not reported (got %v)", n, err)
		}
		if len(fsys.files) != 0 {
			var names []string
			for name := range fsys.files {
				names = append(names, name)
			}
			t.Fatalf("n=%d: files left after Abort: %v", n, names)
		}
	}
}
