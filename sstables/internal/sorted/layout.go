package sorted

import (
	"io"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables/internal/rows"
)

// DataLayout says where one partition lies in Data.db, and each of its
// rows and markers.
type DataLayout struct {
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

// WalkData calls fn for every partition of Data.db in order with its
// layout, valid during the call only.
func (r *Reader) WalkData(fn func(*DataLayout) error) error {
	sc := r.ScanFromPos(0)
	defer sc.Release()
	dec := sc.Decoder()
	var pl DataLayout
	var static UnfilteredLayout
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		pl = DataLayout{Key: p.Key, Token: p.Token, Offset: sc.Position(), Deletion: p.Deletion, Unfiltereds: pl.Unfiltereds[:0]}
		if r.HasStatic() {
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
