package big

import (
	"io"

	"github.com/castable-db/castable/sstables"
)

// WalkIndex implements sstables.IndexWalker: every Index.db entry in
// order, for rebuilding Summary.db and Filter.db and for scrub's resync.
func (r *Reader) WalkIndex(fn func(e sstables.IndexEntryInfo) error) error {
	it, closer, err := r.openIndex(0, false)
	if err != nil {
		return err
	}
	defer closer.Close()
	defer it.st.Release()
	for {
		e, err := it.next()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if err := fn(sstables.IndexEntryInfo{Key: e.Key, Position: e.Position, IndexOffset: e.Offset}); err != nil {
			return err
		}
	}
}

// ScanAt implements sstables.PositionScanner: a scan from the partition
// that starts at uncompressed Data.db offset pos (scrub resyncs there after
// damage). Nothing checks that a partition starts there: what does not
// decode is a CorruptionError of the scan.
func (r *Reader) ScanAt(pos int64) (sstables.Scanner, error) {
	if pos < 0 || pos > r.data.Length() {
		return nil, sstables.Corruptf(r.desc.Path(sstables.ComponentData), string(sstables.ComponentData), pos, "no partition can start at offset %d of %d bytes", pos, r.data.Length())
	}
	return r.scanFrom(pos), nil
}
