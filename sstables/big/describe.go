package big

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/sorted"
)

// PartitionLayout says where one partition lies in Data.db and Index.db.
type PartitionLayout struct {
	sorted.DataLayout
	// IndexOffset and IndexSize locate the Index.db entry.
	IndexOffset, IndexSize int64
	// Blocks is the promoted index (nil when the entry has none).
	Blocks []IndexBlock
}

// UnfilteredLayout says where a row or marker lies.
type UnfilteredLayout = sorted.UnfilteredLayout

// Layout calls fn for every partition with its layout, reading Data.db and
// Index.db side by side. The layout passed to fn is valid during the call
// only.
func (r *Reader) Layout(fn func(*PartitionLayout) error) error {
	it, closer, err := r.openIndex(0, true)
	if err != nil {
		return err
	}
	defer closer.Close()
	var pl PartitionLayout
	return r.s.WalkData(func(dl *sorted.DataLayout) error {
		e, err := it.next()
		if err != nil {
			if err == io.EOF {
				return sstables.Corruptf(r.desc.Path(sstables.ComponentIndex), string(sstables.ComponentIndex), -1, "no entry for the partition at Data.db offset %d", dl.Offset)
			}
			return err
		}
		pl = PartitionLayout{DataLayout: *dl, IndexOffset: e.Offset, IndexSize: it.st.Pos() - e.Offset}
		if e.Promoted != nil {
			pl.Blocks = e.Promoted.Blocks
		}
		return fn(&pl)
	})
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
