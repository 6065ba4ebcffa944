package bti

import (
	"encoding/binary"
	"io"
	"slices"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/sorted"
	"github.com/castable-db/castable/sstables/internal/trie"
)

// IndexEntry is one partition as Partitions.db and Rows.db index it, for
// describing the layout.
type IndexEntry struct {
	// Key is the partition key (read from Rows.db or Data.db); Position
	// its Data.db offset.
	Key      []byte
	Position int64
	// Prefix is the byte-comparable key prefix Partitions.db stores, Hash
	// the payload's hash byte.
	Prefix []byte
	Hash   byte
	// RowIndex is the partition's Rows.db entry, nil when it has none;
	// Blocks are then its index blocks.
	RowIndex *RowIndexEntry
	Blocks   []BlockLayout
}

// BlockLayout is one Rows.db index block.
type BlockLayout struct {
	// Separator is the byte-comparable key the trie stores for the block:
	// every clustering of the block sorts at or after it and before the
	// next block's.
	Separator []byte
	// Offset and Width locate the block from the partition start in
	// Data.db.
	Offset, Width int64
	// Open is the range deletion open at the block's start.
	Open mutation.DeletionTime
}

// Index calls fn for every partition in order with its index entry (valid
// during the call only), walking Partitions.db and, for a partition whose
// key only Data.db holds, reading the key there.
func (r *Reader) Index(fn func(e *IndexEntry) error) error {
	if err := r.openIndexes(); err != nil {
		return err
	}
	ds := r.data.NewStream(0)
	defer ds.Close()
	var e IndexEntry
	var keyBuf []byte
	return r.pi.Iterate(func(pe PartitionEntry) error {
		e = IndexEntry{Prefix: pe.Prefix, Hash: pe.Hash, Blocks: e.Blocks[:0]}
		if pe.InRowIndex() {
			re, err := r.ri.Entry(pe.Pos)
			if err != nil {
				return err
			}
			e.Key, e.Position, e.RowIndex = re.Key, re.DataPos, &re
			var infos []RowIndexInfo
			var seps [][]byte
			err = r.ri.Iterate(re.Root, func(sep []byte, info RowIndexInfo) error {
				seps = append(seps, slices.Clone(sep))
				infos = append(infos, info)
				return nil
			})
			if err != nil {
				return err
			}
			for i := 0; i+1 < len(infos); i++ {
				e.Blocks = append(e.Blocks, BlockLayout{Separator: seps[i], Offset: infos[i].Offset, Width: infos[i+1].Offset - infos[i].Offset, Open: infos[i].Open})
			}
		} else {
			e.Position = pe.DataPos()
			if _, err := ds.Seek(e.Position, io.SeekStart); err != nil {
				return err
			}
			var l [2]byte
			if _, err := io.ReadFull(ds, l[:]); err != nil {
				return sstables.Corruptf(r.desc.Path(sstables.ComponentPartitions), ComponentPartitions, -1, "entry points to Data.db offset %d, too near its end: %v", e.Position, err)
			}
			keyBuf = slices.Grow(keyBuf[:0], int(binary.BigEndian.Uint16(l[:])))[:binary.BigEndian.Uint16(l[:])]
			if _, err := io.ReadFull(ds, keyBuf); err != nil {
				return sstables.Corruptf(r.desc.Path(sstables.ComponentPartitions), ComponentPartitions, -1, "entry points to Data.db offset %d, too near its end: %v", e.Position, err)
			}
			e.Key = keyBuf
		}
		return fn(&e)
	})
}

// NodeLayout describes one trie node.
type NodeLayout struct {
	// Pos is the node's offset in its file (its page is Pos / 4096).
	Pos int64
	// Type is the node type's name (Cassandra's TrieNode types:
	// PAYLOAD_ONLY, SPARSE_8, DENSE_12, …).
	Type string
	// Children is the number of child slots, Payload whether the node
	// carries one.
	Children int
	Payload  bool
}

// TrieLayout summarizes one trie.
type TrieLayout struct {
	// Root is the root node's offset.
	Root int64
	// Nodes and Payloads count the nodes and those with a payload; Pages
	// the 4 KiB pages holding a node.
	Nodes, Payloads, Pages int
	// Low and High bound the bytes the trie occupies.
	Low, High int64
	// Types counts the nodes by type name.
	Types map[string]int
}

func trieLayout(root int64, st trie.VerifyStats) TrieLayout {
	tl := TrieLayout{Root: root, Nodes: st.Nodes, Payloads: st.Payloads, Pages: st.Pages, Low: st.Low, High: st.High, Types: map[string]int{}}
	for ty, c := range st.Types {
		if c > 0 {
			tl.Types[trie.NodeType(ty).String()] = c
		}
	}
	return tl
}

// PartitionsTrie verifies and summarizes the Partitions.db trie.
func (r *Reader) PartitionsTrie() (TrieLayout, error) {
	if err := r.openIndexes(); err != nil {
		return TrieLayout{}, err
	}
	st, err := r.pi.t.Verify(r.pi.Root, partitionPayloadSize)
	if err != nil {
		return TrieLayout{}, corrupt(r.pi.path, ComponentPartitions, r.pi.Root, err)
	}
	return trieLayout(r.pi.Root, st), nil
}

// RowTrie verifies and summarizes the row-index trie of a Rows.db entry.
func (r *Reader) RowTrie(e *RowIndexEntry) (TrieLayout, error) {
	if err := r.openIndexes(); err != nil {
		return TrieLayout{}, err
	}
	st, err := r.ri.t.Verify(e.Root, rowPayloadSize)
	if err != nil {
		return TrieLayout{}, corrupt(r.ri.path, ComponentRows, e.Root, err)
	}
	return trieLayout(e.Root, st), nil
}

func nodeLayout(n *trie.Node) NodeLayout {
	return NodeLayout{Pos: n.Pos, Type: n.Type.String(), Children: n.Slots(), Payload: n.Flags != 0}
}

// PartitionPath returns the Partitions.db nodes a lookup of key passes,
// from the root.
func (r *Reader) PartitionPath(key []byte) ([]NodeLayout, error) {
	if err := r.openIndexes(); err != nil {
		return nil, err
	}
	path, err := r.pi.t.Path(r.pi.Root, AppendDecoratedKey(nil, r.part, key))
	if err != nil {
		return nil, corrupt(r.pi.path, ComponentPartitions, r.pi.Root, err)
	}
	out := make([]NodeLayout, len(path))
	for i := range path {
		out[i] = nodeLayout(&path[i])
	}
	return out, nil
}

// RowTrieNodes returns every node of a Rows.db entry's trie in file order.
func (r *Reader) RowTrieNodes(e *RowIndexEntry) ([]NodeLayout, error) {
	if err := r.openIndexes(); err != nil {
		return nil, err
	}
	var out []NodeLayout
	err := r.ri.t.Nodes(e.Root, func(n *trie.Node) error {
		out = append(out, nodeLayout(n))
		return nil
	})
	if err != nil {
		return nil, corrupt(r.ri.path, ComponentRows, e.Root, err)
	}
	slices.SortFunc(out, func(a, b NodeLayout) int { return int(a.Pos - b.Pos) })
	return out, nil
}

// IndexSizes returns the sizes of Partitions.db and Rows.db.
func (r *Reader) IndexSizes() (partitions, rows int64, err error) {
	if err := r.openIndexes(); err != nil {
		return 0, 0, err
	}
	size, err := r.partFile.Size()
	return size, r.rowsSize, err
}

// InferColumnIndexSize returns the column index size in bytes that the
// writer of r used, as far as its partitions and Rows.db blocks tell
// (sorted.ColumnIndexSizeBounds: a row index's last block always ends at
// the end-of-partition byte, so it bounds the size from below only),
// preferring def (the target's default) when it is consistent with them.
// ok is false when no KiB multiple fits; size is then def. It reads the
// whole of Data.db, Partitions.db and Rows.db.
func (r *Reader) InferColumnIndexSize(def int) (size int, ok bool, err error) {
	blocks := map[int64][]sorted.BlockSpan{}
	err = r.Index(func(e *IndexEntry) error {
		if len(e.Blocks) == 0 {
			return nil
		}
		spans := make([]sorted.BlockSpan, len(e.Blocks))
		for i, b := range e.Blocks {
			spans[i] = sorted.BlockSpan{Offset: b.Offset, Width: b.Width}
		}
		blocks[e.Position] = spans
		return nil
	})
	if err != nil {
		return def, false, err
	}
	b := sorted.NewColumnIndexSizeBounds()
	err = r.s.WalkData(func(dl *sorted.DataLayout) error {
		b.Add(dl, blocks[dl.Offset], true)
		return nil
	})
	if err != nil {
		return def, false, err
	}
	size, ok = b.Size(def)
	return size, ok, nil
}
