package big

import (
	"errors"
	"github.com/castable-db/castable/internal/vint"
	"io"

	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
)

// indexIterator reads Index.db entries sequentially from an offset.
type indexIterator struct {
	st      *rows.Stream
	dec     *indexDecoder
	path    string
	buf     []byte
	decodeP bool
}

// newIndexIterator reads the Index.db f (of size bytes) from offset start.
// With promoted set, promoted indexes are decoded.
func newIndexIterator(f io.ReaderAt, size, start int64, path string, dec *indexDecoder, promoted bool) *indexIterator {
	src := io.NewSectionReader(f, start, size-start)
	return &indexIterator{st: rows.NewStream(src, start, size), dec: dec, path: path, decodeP: promoted}
}

// next returns the next entry (its Key aliases the iterator's buffer until
// the next call), or io.EOF after the last one.
func (it *indexIterator) next() (IndexEntry, error) {
	at := it.st.Pos()
	if it.st.Left() == 0 {
		return IndexEntry{}, io.EOF
	}
	// Gather the entry's bytes: u16 keyLen, key, uvint position, uvint
	// promotedSize, promoted index; then decode them in one piece.
	b := it.buf[:0]
	kl, err := it.st.U16()
	if err != nil {
		return IndexEntry{}, it.corrupt(at, err)
	}
	b = append(b, byte(kl>>8), byte(kl))
	if b, err = it.st.ReadInto(b, int(kl)); err != nil {
		return IndexEntry{}, it.corrupt(at, err)
	}
	pos, err := it.st.UVint()
	if err != nil {
		return IndexEntry{}, it.corrupt(at, err)
	}
	b = vint.Append(b, pos)
	size, err := it.st.Length()
	if err != nil {
		return IndexEntry{}, it.corrupt(at, err)
	}
	b = vint.Append(b, uint64(size))
	if b, err = it.st.ReadInto(b, size); err != nil {
		return IndexEntry{}, it.corrupt(at, err)
	}
	it.buf = b
	e, _, err := it.dec.decodeEntry(b, it.decodeP)
	if err != nil {
		return IndexEntry{}, sstables.Corruptf(it.path, string(sstables.ComponentIndex), at, "index entry: %v", err)
	}
	e.Offset = at
	return e, nil
}

func (it *indexIterator) corrupt(at int64, err error) error {
	if errors.Is(err, rows.ErrShort) {
		return sstables.Corruptf(it.path, string(sstables.ComponentIndex), at, "truncated index entry (Index.db ends at %d)", it.st.Limit())
	}
	var ce *sstables.CorruptionError
	if errors.As(err, &ce) {
		return err
	}
	return &sstables.CorruptionError{Path: it.path, Component: string(sstables.ComponentIndex), Offset: at, Reason: "index entry", Err: err}
}
