package la

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// PartitionLayout says where one partition lies in Data.db and Index.db
// and lists its atoms as stored (range tombstones repeated at index block
// starts included).
type PartitionLayout struct {
	// Key is the serialized partition key; Token its token.
	Key   []byte
	Token dht.Token
	// Offset and Size locate the partition in the uncompressed Data.db
	// (Size includes the 2-byte end marker); HeaderSize is the key and the
	// deletion.
	Offset, Size, HeaderSize int64
	Deletion                 mutation.DeletionTime
	// Atoms are the cells and range tombstones in file order.
	Atoms []AtomLayout
	// IndexOffset and IndexSize locate the Index.db entry.
	IndexOffset, IndexSize int64
	// Blocks is the promoted index (nil when the entry has none).
	Blocks []IndexBlock
}

// AtomLayout says where one atom lies and what it is.
type AtomLayout struct {
	// Kind is "cell", "tombstone", "expiring", "counter" or
	// "range-tombstone".
	Kind string
	// Offset and Size locate the atom in the uncompressed Data.db.
	Offset, Size int64
	// Name is the cell name or the tombstone's start bound; End is the
	// tombstone's end bound (copies).
	Name, End []byte
	// Timestamp is the cell's timestamp or the tombstone's
	// markedForDeleteAt.
	Timestamp int64
}

var atomKindNames = [...]string{atomCell: "cell", atomTombstoneCell: "tombstone", atomExpiringCell: "expiring",
	atomCounterCell: "counter", atomRangeTombstone: "range-tombstone"}

// Layout calls fn for every partition with its layout, reading Data.db and
// Index.db side by side. The layout passed to fn is valid during the call
// only.
func (r *Reader) Layout(fn func(*PartitionLayout) error) error {
	indexPath := r.desc.Path(sstables.ComponentIndex)
	f, err := r.fsys.Open(indexPath)
	if err != nil {
		return err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return err
	}
	idx := newInput(f, 0, size, indexPath, sstables.ComponentIndex)
	in := newInput(r.data.NewStream(0), 0, r.data.Length(), r.desc.Path(sstables.ComponentData), sstables.ComponentData)
	var (
		pl         PartitionLayout
		e          indexEntry
		a          atom
		arena      []byte
		indexArena []byte
	)
	for in.remaining() > 0 {
		arena = arena[:0]
		start := in.offset()
		key, err := in.shortBytes()
		if err != nil {
			return err
		}
		key = keep(&arena, key)
		dt, err := in.next(deletionTimeSize)
		if err != nil {
			return err
		}
		pl = PartitionLayout{Key: key, Token: r.part.Token(key), Offset: start, HeaderSize: in.offset() - start,
			Deletion: decodeDeletionTime(dt), Atoms: pl.Atoms[:0], Blocks: pl.Blocks[:0]}
		for {
			ok, err := readAtom(in, &a, &arena)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			pl.Atoms = append(pl.Atoms, AtomLayout{Kind: atomKindNames[a.kind], Offset: a.offset, Size: in.offset() - a.offset,
				Name: a.name, End: a.end, Timestamp: a.deletionTimestampOrCell()})
		}
		pl.Size = in.offset() - start
		indexArena = indexArena[:0]
		ok, err := readIndexEntry(idx, &e, &indexArena)
		if err != nil {
			return err
		}
		if !ok {
			return idx.corrupt(idx.offset(), "no entry for the partition at Data.db offset %d", start)
		}
		pl.IndexOffset, pl.IndexSize = e.offset, e.size
		for _, b := range e.blocks {
			pl.Blocks = append(pl.Blocks, IndexBlock{FirstName: b.first, LastName: b.last, Offset: b.offset, Width: b.width})
		}
		if err := fn(&pl); err != nil {
			return err
		}
	}
	return nil
}

// deletionTimestampOrCell is a cell's timestamp or a tombstone's
// markedForDeleteAt.
func (a *atom) deletionTimestampOrCell() int64 {
	if a.kind == atomRangeTombstone {
		return a.deletion.MarkedForDeleteAt
	}
	return a.timestamp
}

// WriteLayout writes a text description of the SSTable's layout to w: per
// partition its key, token, Data.db range and Index.db entry, then each
// atom with its offset, size, kind, decoded name and timestamp, and the
// promoted index blocks with their decoded first and last names. The
// format is line-oriented and stable, for the CLI and golden tests:
//
//	partition 0 key=00000000 token=-3485513579396041028 data=0+313 header=18 index=0+288
//	  range-tombstone offset=18 size=31 name=(0)/start end=(0)/end ts=1468923292708929
//	  cell offset=80 size=32 name=(0, 0):<marker> ts=1468923308379491
//	  end offset=311
//	  block 0 offset=18 width=0 first=(0)/start last=(0)/start
func WriteLayout(w io.Writer, r *Reader) error {
	bw := bufio.NewWriter(w)
	n := 0
	err := r.Layout(func(pl *PartitionLayout) error {
		fmt.Fprintf(bw, "partition %d key=%s token=%s data=%d+%d header=%d index=%d+%d",
			n, hex.EncodeToString(pl.Key), r.part.String(pl.Token), pl.Offset, pl.Size, pl.HeaderSize, pl.IndexOffset, pl.IndexSize)
		if !pl.Deletion.IsLive() {
			fmt.Fprintf(bw, " deletion=%d@%d", pl.Deletion.MarkedForDeleteAt, pl.Deletion.LocalDeletionTime)
		}
		bw.WriteByte('\n')
		for _, a := range pl.Atoms {
			fmt.Fprintf(bw, "  %s offset=%d size=%d name=%s", a.Kind, a.Offset, a.Size, r.FormatName(a.Name))
			if a.Kind == "range-tombstone" {
				fmt.Fprintf(bw, " end=%s", r.FormatName(a.End))
			}
			fmt.Fprintf(bw, " ts=%d\n", a.Timestamp)
		}
		fmt.Fprintf(bw, "  end offset=%d\n", pl.Offset+pl.Size-endOfPartitionSize)
		for i, b := range pl.Blocks {
			fmt.Fprintf(bw, "  block %d offset=%d width=%d first=%s last=%s\n", i, b.Offset, b.Width,
				r.FormatName(b.FirstName), r.FormatName(b.LastName))
		}
		n++
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// FormatName renders an encoded cell name or bound of the SSTable's table:
// clustering values in their types' string forms in parentheses, then (CQL
// tables) ":column" — "<marker>" for the row marker — and "[element]" in
// hex for a collection element; "static" prefixes static names, and
// "/start" or "/end" marks a bound's end-of-component. The empty bound is
// "<end of partition>"; names that do not decode are shown in hex.
func (r *Reader) FormatName(name []byte) string {
	if len(name) == 0 {
		return "<end of partition>"
	}
	var b strings.Builder
	value := func(i int, v []byte) {
		if i < len(r.table.Clustering) {
			if s, err := r.table.Clustering[i].Type.AppendString(nil, v); err == nil {
				b.Write(s)
				return
			}
		}
		b.WriteString("0x" + hex.EncodeToString(v))
	}
	if !r.l.compound {
		if col := columnByName(r.table, name); col != nil && !r.l.dense {
			b.WriteString(":" + col.Name)
			return b.String()
		}
		b.WriteByte('(')
		value(0, name)
		b.WriteByte(')')
		return b.String()
	}
	var p nameParser
	if !p.parse(name) {
		return "0x" + hex.EncodeToString(name)
	}
	if p.static {
		b.WriteString("static ")
	}
	n := r.l.clustering
	b.WriteByte('(')
	for i := 0; i < len(p.comps) && i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if p.static {
			continue
		}
		value(i, p.comps[i])
	}
	b.WriteByte(')')
	if !r.l.dense && len(p.comps) > n {
		if len(p.comps[n]) == 0 {
			b.WriteString(":<marker>")
		} else {
			b.WriteString(":" + string(p.comps[n]))
		}
		if len(p.comps) > n+1 {
			b.WriteString("[" + hex.EncodeToString(p.comps[n+1]) + "]")
		}
	}
	switch p.eoc {
	case eocStart:
		b.WriteString("/start")
	case eocEnd:
		b.WriteString("/end")
	}
	return b.String()
}
