package cli

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/big"
	"github.com/castable-db/castable/sstables/bti"
	"github.com/castable-db/castable/sstables/la"
)

// LayoutOptions configure Layout.
type LayoutOptions struct {
	// SSTable names the SSTable.
	SSTable string
	// Schema and Table optionally give the table (for la key rendering).
	Schema, Table string
	// Key restricts the partition part to one partition (string form) and
	// lists the blocks of its promoted index.
	Key string
	// OpaqueUnknownTypes reads a column whose type is a marshal class
	// castable does not know (in the serialization header or a --schema
	// custom type) as opaque length-prefixed bytes, printed as hex, instead
	// of failing (sstables.ReaderOptions.OpaqueUnknownTypes).
	OpaqueUnknownTypes bool
}

// Layout prints the physical layout of an SSTable: the Data.db chunk table
// (file offset, stored size, uncompressed range, ratio, checksum), the
// partitions with their Data.db offsets and sizes and Index.db offsets (BTI:
// Rows.db offsets), and with a key, that partition's promoted index (BTI:
// row index) blocks. For BTI it then describes the tries: the nodes of
// Partitions.db and Rows.db by type and the 4 KiB pages they take, and with
// a key the Partitions.db nodes its lookup passes and the nodes of its
// row-index trie with their pages. The output depends on
// the files only (no paths, times or sizes of the machine), so it is
// stable enough for golden tests.
func Layout(env *Env, opts LayoutOptions) error {
	desc, err := resolveSSTable(opts.SSTable)
	if err != nil {
		return err
	}
	table, err := loadTableTypes(opts.Schema, opts.Table, opts.OpaqueUnknownTypes)
	if err != nil {
		return err
	}
	r, err := openSSTable(desc, table, opts.OpaqueUnknownTypes)
	if err != nil {
		return err
	}
	defer r.Close()
	table = r.Table()
	var key []byte
	if opts.Key != "" {
		if key, err = parseKey(table, opts.Key); err != nil {
			return Usagef("-k %q: %v", opts.Key, err)
		}
	}
	w := bufio.NewWriter(env.stdout())
	fmt.Fprintf(w, "SSTable %s (version %s, generation %d)\n", strings.TrimSuffix(desc.Filename(""), "-"), desc.Version, desc.Generation)
	if err := writeChunkTable(w, desc); err != nil {
		return err
	}
	if err := writePartitions(w, r, table, key, opts.Key); err != nil {
		return err
	}
	if br, ok := r.(*bti.Reader); ok {
		if err := writeTries(w, br, key); err != nil {
			return err
		}
	}
	return w.Flush()
}

// writeChunkTable prints the chunks of Data.db from CompressionInfo.db
// (compressed) or CRC.db (uncompressed), with each chunk's checksum.
func writeChunkTable(w io.Writer, desc sstables.Descriptor) error {
	dataPath := desc.Path(sstables.ComponentData)
	f, err := os.Open(dataPath)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if fileExists(desc.Path(sstables.ComponentCompressionInfo)) {
		ci, err := sstables.ReadCompressionInfo(nil, desc)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "Data.db: %d bytes on disk, %d uncompressed, %s, chunk length %d, %d chunks\n\n",
			size, ci.DataLength, ci.ClassName, ci.ChunkLength, len(ci.ChunkOffsets))
		fmt.Fprintf(w, "%6s %12s %10s %25s %7s %10s\n", "chunk", "offset", "stored", "uncompressed", "ratio", "checksum")
		var trailer [4]byte
		for i := range ci.ChunkOffsets {
			off, length := ci.ChunkSpan(i, size)
			start := int64(i) * int64(ci.ChunkLength)
			n := int64(ci.ChunkDataLength(i))
			sum := "-"
			if length >= 4 && off+length <= size {
				if _, err := f.ReadAt(trailer[:], off+length-4); err != nil {
					return sstables.Corruptf(dataPath, string(sstables.ComponentData), off+length-4, "chunk %d checksum unreadable: %v", i, err)
				}
				sum = fmt.Sprintf("0x%08x", binary.BigEndian.Uint32(trailer[:]))
			}
			fmt.Fprintf(w, "%6d %12d %10d %25s %7.3f %10s\n", i, off, length-4,
				fmt.Sprintf("[%d, %d)", start, start+n), ratio(length-4, n), sum)
		}
		fmt.Fprintln(w)
		return nil
	}
	fmt.Fprintf(w, "Data.db: %d bytes, uncompressed\n", size)
	if !fileExists(desc.Path(sstables.ComponentCRC)) {
		fmt.Fprintf(w, "(no CRC.db: chunk checksums not recorded)\n\n")
		return nil
	}
	crc, err := sstables.ReadCRC(nil, desc)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "CRC.db: %d chunks of %d bytes\n\n", len(crc.Checksums), crc.ChunkSize)
	fmt.Fprintf(w, "%6s %12s %10s %10s\n", "chunk", "offset", "length", "checksum")
	for i, sum := range crc.Checksums {
		off := int64(i) * int64(crc.ChunkSize)
		n := min(int64(crc.ChunkSize), max(size-off, 0))
		fmt.Fprintf(w, "%6d %12d %10d 0x%08x\n", i, off, n, sum)
	}
	fmt.Fprintln(w)
	return nil
}

// layoutEntry is one Index.db entry in version-neutral form (BTI: the
// partition's Rows.db entry, or its Partitions.db key when it has none).
type layoutEntry struct {
	// indexOffset is the entry's offset in indexComponent ("Index.db" when
	// empty); -1 for a BTI partition without a Rows.db entry.
	indexOffset    int64
	indexComponent string
	key            []byte
	position       int64
	deletion       mutation.DeletionTime
	blocks         []layoutBlock
}

type layoutBlock struct {
	offset, width int64
	first, last   string
	openMarker    string
}

// indexEntries walks the partition index of a big, la or BTI reader.
func indexEntries(r sstables.Reader, t *schema.Table, fn func(e *layoutEntry) error) error {
	var e layoutEntry
	switch r := r.(type) {
	case *big.Reader:
		return r.Index(func(ie *big.IndexEntry) error {
			e = layoutEntry{indexOffset: ie.Offset, key: ie.Key, position: ie.Position, deletion: mutation.Live, blocks: e.blocks[:0]}
			if pi := ie.Promoted; pi != nil {
				e.deletion = pi.Deletion
				for _, b := range pi.Blocks {
					lb := layoutBlock{offset: b.Offset, width: b.Width,
						first: formatBound(t, b.FirstKind, b.First), last: formatBound(t, b.LastKind, b.Last), openMarker: "-"}
					if b.OpenMarker != nil {
						lb.openMarker = formatDeletion(*b.OpenMarker)
					}
					e.blocks = append(e.blocks, lb)
				}
			}
			return fn(&e)
		})
	case *bti.Reader:
		return r.Index(func(ie *bti.IndexEntry) error {
			e = layoutEntry{indexOffset: -1, indexComponent: "Rows.db", key: ie.Key, position: ie.Position, deletion: mutation.Live, blocks: e.blocks[:0]}
			if re := ie.RowIndex; re != nil {
				e.indexOffset, e.deletion = re.Pos, re.Deletion
				for _, b := range ie.Blocks {
					lb := layoutBlock{offset: b.Offset, width: b.Width, first: separatorText(b.Separator), openMarker: "-"}
					if !b.Open.IsLive() {
						lb.openMarker = formatDeletion(b.Open)
					}
					e.blocks = append(e.blocks, lb)
				}
			}
			return fn(&e)
		})
	case *la.Reader:
		return r.Index(func(ie *la.IndexEntry) error {
			e = layoutEntry{indexOffset: ie.Offset, key: ie.Key, position: ie.Position, deletion: ie.Deletion, blocks: e.blocks[:0]}
			for _, b := range ie.Blocks {
				e.blocks = append(e.blocks, layoutBlock{offset: b.Offset, width: b.Width,
					first: shorten("0x" + hex.EncodeToString(b.FirstName)), last: shorten("0x" + hex.EncodeToString(b.LastName)), openMarker: "-"})
			}
			return fn(&e)
		})
	}
	return fmt.Errorf("no index reader for %T", r)
}

// writePartitions prints every partition (or the one with key) with its
// offsets, size and promoted index.
func writePartitions(w io.Writer, r sstables.Reader, t *schema.Table, key []byte, keyText string) error {
	dataLen := int64(-1)
	if dl, ok := r.(interface{ DataLength() int64 }); ok {
		dataLen = dl.DataLength()
	}
	// A partition's size is the distance to the next one's position, so
	// the table lags one entry behind the index walk.
	var prev *layoutEntry
	found := false
	n := 0
	emit := func(e *layoutEntry, end int64) {
		if key != nil {
			if !bytes.Equal(e.key, key) {
				return
			}
			found = true
			writePromoted(w, t, r.Partitioner(), e, end)
			return
		}
		if n == 0 {
			fmt.Fprintf(w, "%9s %12s %10s %12s %7s  %s\n", "partition", "data offset", "size", "index offset", "blocks", "key (token)")
		}
		fmt.Fprintf(w, "%9d %12d %10s %12s %7d  %s (%s)\n", n, e.position, sizeText(e.position, end), indexOffsetText(e), len(e.blocks),
			mutation.FormatKey(t, e.key), tokenText(r.Partitioner(), e.key))
		n++
	}
	err := indexEntries(r, t, func(e *layoutEntry) error {
		if prev != nil {
			emit(prev, e.position)
		}
		cp := *e
		cp.key = append([]byte(nil), e.key...)
		cp.blocks = append([]layoutBlock(nil), e.blocks...)
		prev = &cp
		return nil
	})
	if err != nil {
		return err
	}
	if prev != nil {
		emit(prev, dataLen)
	}
	if key != nil && !found {
		return fmt.Errorf("key %q: no such partition in the SSTable", keyText)
	}
	if key == nil {
		fmt.Fprintf(w, "\n%d partitions\n", n)
	}
	return nil
}

// separatorText renders a row-index separator (hex; block 0's is empty).
func separatorText(sep []byte) string {
	if len(sep) == 0 {
		return "(empty)"
	}
	return shorten(hex.EncodeToString(sep))
}

// indexOffsetText is the entry's index offset, "-" for none.
func indexOffsetText(e *layoutEntry) string {
	if e.indexOffset < 0 {
		return "-"
	}
	return fmt.Sprint(e.indexOffset)
}

func sizeText(start, end int64) string {
	if end < 0 {
		return "?"
	}
	return fmt.Sprint(end - start)
}

// tokenText is the token of key in the partitioner's own form.
func tokenText(p dht.Partitioner, key []byte) string { return p.String(p.Token(key)) }

// writePromoted prints one partition's entry and its promoted index
// blocks.
func writePromoted(w io.Writer, t *schema.Table, part dht.Partitioner, e *layoutEntry, end int64) {
	fmt.Fprintf(w, "Partition %s (token %s)\n", mutation.FormatKey(t, e.key), tokenText(part, e.key))
	comp := e.indexComponent
	if comp == "" {
		comp = "Index.db"
	}
	fmt.Fprintf(w, "  Data.db offset %d, size %s; %s offset %s\n", e.position, sizeText(e.position, end), comp, indexOffsetText(e))
	fmt.Fprintf(w, "  partition deletion: %s\n", formatDeletion(e.deletion))
	index := "promoted index"
	if e.indexComponent == "Rows.db" {
		index = "row index"
	}
	if len(e.blocks) == 0 {
		fmt.Fprintf(w, "  no %s (the partition fits one index block)\n", index)
		return
	}
	fmt.Fprintf(w, "  %s: %d blocks\n", index, len(e.blocks))
	if e.indexComponent == "Rows.db" {
		// The trie stores a separator per block (byte-comparable, hex): at
		// or before the block's first clustering, after the previous
		// block's last.
		fmt.Fprintf(w, "%7s %10s %10s  %s\n", "block", "offset", "width", "separator [open marker]")
		for i, b := range e.blocks {
			fmt.Fprintf(w, "%7d %10d %10d  %s [%s]\n", i, b.offset, b.width, b.first, b.openMarker)
		}
		return
	}
	fmt.Fprintf(w, "%7s %10s %10s  %s\n", "block", "offset", "width", "first .. last [open marker]")
	for i, b := range e.blocks {
		fmt.Fprintf(w, "%7d %10d %10d  %s .. %s [%s]\n", i, b.offset, b.width, b.first, b.last, b.openMarker)
	}
}

// maxShownValue is the length from which layout shortens a rendered
// clustering or name, keeping its start and end.
const maxShownValue = 80

// shorten elides the middle of a long rendering: "abc…(700 chars)…xyz".
func shorten(s string) string {
	if len(s) <= maxShownValue {
		return s
	}
	return fmt.Sprintf("%s…(%d chars)…%s", s[:maxShownValue/2], len(s), s[len(s)-maxShownValue/4:])
}

// formatBound renders a clustering prefix with its kind.
func formatBound(t *schema.Table, k mutation.BoundKind, c mutation.Clustering) string {
	s := shorten(mutation.FormatClustering(t, c))
	if k == mutation.ClusteringKind {
		return s
	}
	return k.String() + s
}

func formatDeletion(d mutation.DeletionTime) string {
	if d.IsLive() {
		return "live"
	}
	return fmt.Sprintf("deleted at %d (local %d)", d.MarkedForDeleteAt, d.LocalDeletionTime)
}

// writeTries prints the BTI tries: Partitions.db's and the row indexes'
// nodes by type and the pages they take; with a key, the Partitions.db
// nodes its lookup passes and the nodes of its row index.
func writeTries(w io.Writer, r *bti.Reader, key []byte) error {
	pSize, rSize, err := r.IndexSizes()
	if err != nil {
		return err
	}
	pt, err := r.PartitionsTrie()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nPartitions.db: %d bytes, trie of %d nodes (%d keys) on %d pages, root at %d (page %d)\n",
		pSize, pt.Nodes, pt.Payloads, pt.Pages, pt.Root, pt.Root/4096)
	fmt.Fprintf(w, "  node types: %s\n", typeCounts(pt.Types))
	var entries []*bti.RowIndexEntry
	var match *bti.RowIndexEntry
	err = r.Index(func(e *bti.IndexEntry) error {
		if e.RowIndex != nil {
			re := *e.RowIndex
			re.Key = bytes.Clone(re.Key)
			entries = append(entries, &re)
			if key != nil && bytes.Equal(e.Key, key) {
				match = &re
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	rowTypes := map[string]int{}
	nodes, pages := 0, 0
	lastPage := int64(-1)
	for _, e := range entries {
		rt, err := r.RowTrie(e)
		if err != nil {
			return err
		}
		nodes += rt.Nodes
		for p := max(rt.Low/4096, lastPage+1); p <= (rt.High-1)/4096; p++ {
			pages++ // the pages the tries span, each once (they follow each other)
			lastPage = p
		}
		for t, c := range rt.Types {
			rowTypes[t] += c
		}
	}
	fmt.Fprintf(w, "Rows.db: %d bytes, %d row indexes of %d nodes in all, spanning %d pages\n", rSize, len(entries), nodes, pages)
	if len(entries) > 0 {
		fmt.Fprintf(w, "  node types: %s\n", typeCounts(rowTypes))
	}
	if key == nil {
		return nil
	}
	path, err := r.PartitionPath(key)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nPartitions.db lookup path (%d nodes):\n", len(path))
	writeNodes(w, path)
	if match != nil {
		rt, err := r.RowTrie(match)
		if err != nil {
			return err
		}
		ns, err := r.RowTrieNodes(match)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "Rows.db trie of the partition: %d nodes on %d pages, root at %d, entry at %d+%d\n", rt.Nodes, rt.Pages, rt.Root, match.Pos, match.End-match.Pos)
		writeNodes(w, ns)
	}
	return nil
}

func writeNodes(w io.Writer, ns []bti.NodeLayout) {
	fmt.Fprintf(w, "%12s %6s  %-20s %8s %7s\n", "offset", "page", "type", "children", "payload")
	for _, n := range ns {
		pl := "-"
		if n.Payload {
			pl = "yes"
		}
		fmt.Fprintf(w, "%12d %6d  %-20s %8d %7s\n", n.Pos, n.Pos/4096, n.Type, n.Children, pl)
	}
}

// typeCounts renders node counts by type in a stable order.
func typeCounts(m map[string]int) string {
	names := make([]string, 0, len(m))
	for t := range m {
		names = append(names, t)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, t := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", t, m[t])
	}
	return b.String()
}
