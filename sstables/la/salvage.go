package la

import (
	"github.com/castable-db/castable/sstables"
)

// WalkIndex implements sstables.IndexWalker: every Index.db entry in
// order, for rebuilding Summary.db and Filter.db and for scrub's resync.
func (r *Reader) WalkIndex(fn func(e sstables.IndexEntryInfo) error) error {
	return r.Index(func(e *IndexEntry) error {
		return fn(sstables.IndexEntryInfo{Key: e.Key, Position: e.Position, IndexOffset: e.Offset})
	})
}

// ScanAt implements sstables.PositionScanner: a scan from the partition
// that starts at uncompressed Data.db offset pos (scrub resyncs there after
// damage). What does not decode there is a CorruptionError of the scan.
func (r *Reader) ScanAt(pos int64) (sstables.Scanner, error) {
	if pos < 0 || pos > r.data.Length() {
		return nil, sstables.Corruptf(r.desc.Path(sstables.ComponentData), string(sstables.ComponentData), pos, "no partition can start at offset %d of %d bytes", pos, r.data.Length())
	}
	return r.scanFrom(pos), nil
}
