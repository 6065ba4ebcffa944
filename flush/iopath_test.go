package flush

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/sstables"
)

// plainFS is the OS filesystem behind a wrapper that hides what the OS
// files can do (writeback hints, direct I/O, background writing): the
// writers take their plain buffered path through it.
type plainFS struct{ sstables.FS }

type plainFile struct{ sstables.File }

func (p plainFS) Create(name string) (sstables.File, error) {
	f, err := p.FS.Create(name)
	if err != nil {
		return nil, err
	}
	return plainFile{f}, nil
}

// TestFlushIOPathsDoNotChangeBytes flushes the same memtable (Data.db of
// several MiB: many background pieces and a partial last one) with direct
// I/O, through the page cache, and through a filesystem the writers write
// synchronously, inline and with compression workers, and requires the same
// files every time.
func TestFlushIOPathsDoNotChangeBytes(t *testing.T) {
	tbl := testTable(t)
	frozen := fill(t, tbl, 30000, 3)
	type path struct {
		name     string
		fs       sstables.FS
		buffered bool
	}
	paths := []path{{"direct", nil, false}, {"buffered", nil, true}, {"plain-fs", plainFS{sstables.OSFS}, false}}
	for _, f := range formats {
		for _, codec := range codecs {
			var ref map[string][]byte
			var refName string
			for _, p := range paths {
				for _, jobs := range []int{1, 2} {
					name := fmt.Sprintf("%s/%s/%s/jobs=%d", f.Version(), codec, p.name, jobs)
					dir := t.TempDir()
					res, err := Flush(context.Background(), frozen, Options{
						Format: f,
						WriterOptions: sstables.WriterOptions{
							Dir:         dir,
							Generation:  1,
							Jobs:        jobs,
							FS:          p.fs,
							BufferedIO:  p.buffered,
							Compression: &compress.Params{Codec: codec},
						},
					})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if codec == compress.None && res.DataFileSize < 2<<20 {
						t.Fatalf("%s: Data.db of %d bytes is too small for the test", name, res.DataFileSize)
					}
					files := readDir(t, dir)
					if ref == nil {
						ref, refName = files, name
						continue
					}
					if len(files) != len(ref) {
						t.Fatalf("%s: %d files, %s wrote %d", name, len(files), refName, len(ref))
					}
					for file, b := range ref {
						if !bytes.Equal(files[file], b) {
							t.Fatalf("%s: %s differs from %s's", name, file, refName)
						}
					}
				}
			}
		}
	}
}
