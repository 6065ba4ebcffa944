package scrub

import (
	"io"

	"github.com/castable-db/castable/sstables"
)

// padFS reads one file (a compressed Data.db cut short) as if it were
// zero-filled to size bytes, and everything else as it is. The chunked
// reader refuses to open a compressed Data.db that ends before its last
// chunk; read through padFS, the chunks before the cut decode and the rest
// fail their checksums, which scrub handles like any other damage. Writes
// go to the underlying FS untouched; the padded file is never written.
type padFS struct {
	sstables.FS
	path string
	size int64
}

func (p *padFS) Open(name string) (sstables.File, error) {
	f, err := p.FS.Open(name)
	if err != nil || name != p.path {
		return f, err
	}
	n, err := f.Size()
	if err != nil {
		f.Close()
		return nil, err
	}
	if n >= p.size {
		return f, nil
	}
	return &padFile{File: f, real: n, size: p.size}, nil
}

// padFile is a file of real bytes followed by zeros up to size.
type padFile struct {
	sstables.File
	real, size int64
	off        int64 // for Read
}

func (f *padFile) Size() (int64, error) { return f.size, nil }

func (f *padFile) ReadAt(b []byte, off int64) (int, error) {
	if off >= f.size {
		return 0, io.EOF
	}
	want := len(b)
	if int64(want) > f.size-off {
		want = int(f.size - off)
	}
	n := 0
	if off < f.real {
		m := want
		if int64(m) > f.real-off {
			m = int(f.real - off)
		}
		k, err := f.File.ReadAt(b[:m], off)
		n = k
		if k < m {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
	}
	clear(b[n:want])
	n = want
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

func (f *padFile) Read(b []byte) (int, error) {
	n, err := f.ReadAt(b, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}
