package big

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
)

// PartitionLayout says where one partition lies in Data.db and Index.db.
type PartitionLayout struct {
	// Key is the serialized partition key; Token its token.
	Key   []byte
	Token dht.Token
	// Offset and Size locate the partition in the uncompressed Data.db
	// (Size includes the end-of-partition byte); HeaderSize is the key,
	// the deletion and the static row.
	Offset, Size, HeaderSize int64
	Deletion                 mutation.DeletionTime
	// Static is the static row (nil when the header has no static column).
	Static *UnfilteredLayout
	// Unfiltereds are the rows and markers in file order.
	Unfiltereds []UnfilteredLayout
	// IndexOffset and IndexSize locate the Index.db entry.
	IndexOffset, IndexSize int64
	// Blocks is the promoted index (nil when the entry has none).
	Blocks []IndexBlock
}

// UnfilteredLayout says where a row or marker lies.
type UnfilteredLayout struct {
	// Marker tells a range tombstone marker from a row; Static marks the
	// static row.
	Marker, Static bool
	// Kind is the clustering prefix kind (ClusteringKind for rows).
	Kind mutation.BoundKind
	// Offset and Size locate it in the uncompressed Data.db.
	Offset, Size int64
	// PrevSize is its stored previous-unfiltered size.
	PrevSize uint64
	// Clustering is a copy of its clustering (prefix).
	Clustering mutation.Clustering
}

// Layout calls fn for every partition with its layout, reading Data.db and
// Index.db side by side. The layout passed to fn is valid during the call
// only.
func (r *Reader) Layout(fn func(*PartitionLayout) error) error {
	it, closer, err := r.openIndex(0, true)
	if err != nil {
		return err
	}
	defer closer.Close()
	sc := r.scanFrom(0)
	dec := sc.Decoder()
	var pl PartitionLayout
	var static UnfilteredLayout
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		e, err := it.next()
		if err != nil {
			if err == io.EOF {
				return sstables.Corruptf(r.desc.Path(sstables.ComponentIndex), string(sstables.ComponentIndex), -1, "no entry for the partition at Data.db offset %d", sc.Position())
			}
			return err
		}
		pl = PartitionLayout{
			Key: p.Key, Token: p.Token, Offset: sc.Position(), Deletion: p.Deletion,
			IndexOffset: e.Offset, IndexSize: it.st.Pos() - e.Offset, Unfiltereds: pl.Unfiltereds[:0],
		}
		if e.Promoted != nil {
			pl.Blocks = e.Promoted.Blocks
		}
		if len(r.static) > 0 {
			static = UnfilteredLayout{Static: true, Kind: mutation.StaticClustering}
			static.Offset, static.Size, static.PrevSize = dec.StaticSpan()
			pl.Static = &static
		}
		pl.HeaderSize = sc.Pos() - pl.Offset
		for {
			row, m, err := sc.Next()
			if err != nil {
				return err
			}
			if row == nil && m == nil {
				break
			}
			u := UnfilteredLayout{Kind: mutation.ClusteringKind}
			u.Offset, u.Size, u.PrevSize = dec.LastSpan()
			if m != nil {
				u.Marker, u.Kind, u.Clustering = true, m.Kind, rows.CloneClustering(m.Clustering)
			} else {
				u.Clustering = rows.CloneClustering(row.Clustering)
			}
			pl.Unfiltereds = append(pl.Unfiltereds, u)
		}
		pl.Size = sc.Pos() - pl.Offset
		if err := fn(&pl); err != nil {
			return err
		}
	}
}

// WriteLayout writes a text description of the SSTable's layout to w: per
// partition its key, token, Data.db range and Index.db entry, then each
// row and marker with its offset, size and previous-unfiltered size, and
// the promoted index blocks. The format is line-oriented and stable, for
// the CLI and golden tests:
//
//	partition 0 key=00000005 token=-7509452495886106294 data=0+36 header=18 index=0+7
//	  row offset=18 size=17 prev=18 clustering=(105)
//	  marker offset=… size=… prev=… kind=EXCL_START_BOUND clustering=(101)
//	  end offset=35
//	  block 0 offset=28 width=66549 first=CLUSTERING(0) last=CLUSTERING(63) open=-
func WriteLayout(w io.Writer, r *Reader) error {
	bw := bufio.NewWriter(w)
	types := r.stats.Header.ClusteringTypes
	n := 0
	err := r.Layout(func(pl *PartitionLayout) error {
		fmt.Fprintf(bw, "partition %d key=%s token=%s data=%d+%d header=%d index=%d+%d",
			n, hex.EncodeToString(pl.Key), r.part.String(pl.Token), pl.Offset, pl.Size, pl.HeaderSize, pl.IndexOffset, pl.IndexSize)
		if !pl.Deletion.IsLive() {
			fmt.Fprintf(bw, " deletion=%d@%d", pl.Deletion.MarkedForDeleteAt, pl.Deletion.LocalDeletionTime)
		}
		bw.WriteByte('\n')
		if s := pl.Static; s != nil {
			fmt.Fprintf(bw, "  static offset=%d size=%d prev=%d\n", s.Offset, s.Size, s.PrevSize)
		}
		for _, u := range pl.Unfiltereds {
			if u.Marker {
				fmt.Fprintf(bw, "  marker offset=%d size=%d prev=%d kind=%s clustering=%s\n", u.Offset, u.Size, u.PrevSize, u.Kind, formatClustering(types, u.Clustering))
			} else {
				fmt.Fprintf(bw, "  row offset=%d size=%d prev=%d clustering=%s\n", u.Offset, u.Size, u.PrevSize, formatClustering(types, u.Clustering))
			}
		}
		fmt.Fprintf(bw, "  end offset=%d\n", pl.Offset+pl.Size-1)
		for i, b := range pl.Blocks {
			open := "-"
			if b.OpenMarker != nil {
				open = fmt.Sprintf("%d@%d", b.OpenMarker.MarkedForDeleteAt, b.OpenMarker.LocalDeletionTime)
			}
			fmt.Fprintf(bw, "  block %d offset=%d width=%d first=%s%s last=%s%s open=%s\n", i, b.Offset, b.Width,
				b.FirstKind, formatClustering(types, b.First), b.LastKind, formatClustering(types, b.Last), open)
		}
		n++
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// formatClustering renders clustering values with their types' string
// forms (hex when a type cannot render a value), null as "null".
func formatClustering(types []*schema.Type, c mutation.Clustering) string {
	b := []byte{'('}
	for i, v := range c {
		if i > 0 {
			b = append(b, ", "...)
		}
		switch {
		case v == nil:
			b = append(b, "null"...)
		case i < len(types):
			s, err := types[i].AppendString(nil, v)
			if err != nil {
				s = append([]byte("0x"), hex.EncodeToString(v)...)
			}
			b = append(b, s...)
		default:
			b = append(b, "0x"+hex.EncodeToString(v)...)
		}
	}
	return string(append(b, ')'))
}
