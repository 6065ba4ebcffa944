package sstables

import (
	"errors"
	"io"
)

// readWholeFile reads a small component into memory, refusing files larger
// than limit bytes.
func readWholeFile(fsys FS, path string, c Component, limit int64) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return nil, err
	}
	if size > limit {
		return nil, Corruptf(path, string(c), -1, "file of %d bytes is larger than the %d accepted", size, limit)
	}
	b := make([]byte, size)
	if err := readFullAt(f, b, 0); err != nil {
		return nil, &CorruptionError{Path: path, Component: string(c), Offset: 0, Reason: "short read", Err: err}
	}
	return b, nil
}

// readFullAt fills b from r at off. A ReaderAt may return io.EOF together
// with a full buffer; that is success.
func readFullAt(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}
