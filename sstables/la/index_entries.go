package la

import (
	"io"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// IndexEntry is one decoded Index.db entry, as tools (castable layout)
// show it.
type IndexEntry struct {
	// Offset is the entry's offset in Index.db.
	Offset int64
	Key    []byte
	// Position is the partition start in the uncompressed Data.db.
	Position int64
	// Deletion is the partition deletion the promoted index records (Live
	// when the entry has no promoted index).
	Deletion mutation.DeletionTime
	// Blocks are the promoted index blocks (none for a partition of one
	// block).
	Blocks []IndexBlock
}

// IndexBlock is one promoted index block: the names (composite cell
// names or range tombstone bounds) of its first and last atoms and its
// span relative to the partition start.
type IndexBlock struct {
	FirstName, LastName []byte
	Offset, Width       int64
}

// Index calls fn for every Index.db entry in order; the entry and its
// slices are valid during the call only.
func (r *Reader) Index(fn func(e *IndexEntry) error) error {
	path := r.desc.Path(sstables.ComponentIndex)
	f, err := r.fsys.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return err
	}
	in := newInput(io.NewSectionReader(f, 0, size), 0, size, path, sstables.ComponentIndex)
	var e indexEntry
	var out IndexEntry
	var arena []byte
	for {
		arena = arena[:0]
		ok, err := readIndexEntry(in, &e, &arena)
		if err != nil || !ok {
			return err
		}
		out = IndexEntry{Offset: e.offset, Key: e.key, Position: e.position, Deletion: e.deletion, Blocks: out.Blocks[:0]}
		for _, b := range e.blocks {
			out.Blocks = append(out.Blocks, IndexBlock{FirstName: b.first, LastName: b.last, Offset: b.offset, Width: b.width})
		}
		if err := fn(&out); err != nil {
			return err
		}
	}
}
