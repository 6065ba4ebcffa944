package la

import (
	"errors"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/internal/faultfs"
	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/sstables"
)

// TestInjectedFaults fails the n-th file operation of a write for every n:
// the writer must report it, leave no TOC.txt (the SSTable is not
// visible) and, after Abort, no file at all.
func TestInjectedFaults(t *testing.T) {
	table := benchTable(t)
	keys := benchKeys(200)
	value := make([]byte, 100)
	p := benchPartition(table, value)
	for n := 1; ; n++ {
		mem := memfs.New()
		fsys := faultfs.New(mem, faultfs.Create|faultfs.Write|faultfs.Sync|faultfs.Rename, n)
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
		if fsys.Count() < n {
			if err != nil {
				t.Fatalf("n=%d: error without a fault: %v", n, err)
			}
			t.Logf("%d file operations, each failed once", n-1)
			return
		}
		if !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("n=%d: fault not reported (got %v)", n, err)
		}
		if names := mem.Names(); len(names) != 0 {
			t.Fatalf("n=%d: files left after Abort: %v", n, names)
		}
	}
}
