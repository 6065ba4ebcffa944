package la

import (
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// legacyBound is a decoded range tombstone bound: a clustering prefix with
// its bound kind, and for collection tombstones the collection's column.
type legacyBound struct {
	kind       mutation.BoundKind
	prefix     mutation.Clustering
	static     bool
	collection *schema.Column
}

// legacyAtom is an atom decoded against the table: a cell with its
// clustering, column and element key, or a range tombstone with its bounds.
type legacyAtom struct {
	atom
	static bool
	// Cells: the clustering (nil padded to the clustering size; empty for
	// the static row), the column (nil for the row marker) and the element
	// key of a collection cell.
	clustering mutation.Clustering
	column     *schema.Column
	path       []byte
	// invalidKeyCell marks a cell named after a primary key column (only
	// side-loaded 2.1 files have them); 3.x keeps only its liveness.
	invalidKeyCell bool
	// compactMarker marks a value-less cell of a dense table without a
	// value column; it carries the row's liveness.
	compactMarker bool
	// Range tombstones.
	start, stop legacyBound
}

// position returns the position of a for ordering against markers: the
// row of a cell, of a row deletion and of a collection tombstone; the start
// bound of any other tombstone. (Cassandra 3.x uses the start bound of
// every tombstone, which lets a row deletion come out before the end of a
// range that stops just before it, as 2.2's split tombstones do.)
func (a *legacyAtom) position(clusteringSize int) (mutation.BoundKind, mutation.Clustering) {
	switch {
	case a.isStatic():
		return mutation.StaticClustering, nil
	case a.kind != atomRangeTombstone:
		return mutation.ClusteringKind, a.clustering
	case a.isRowAtom(clusteringSize):
		return mutation.ClusteringKind, a.start.prefix
	}
	return a.start.kind, a.start.prefix
}

// isStatic reports whether a belongs to the static row.
func (a *legacyAtom) isStatic() bool {
	if a.kind == atomRangeTombstone {
		return a.start.static || a.stop.static
	}
	return a.static
}

// isCollectionTombstone reports whether a deletes one collection of a row.
func (a *legacyAtom) isCollectionTombstone() bool {
	return a.kind == atomRangeTombstone && a.start.collection != nil
}

// isRowDeletion reports whether a is a range tombstone covering exactly one
// full clustering (LegacyRangeTombstone.isRowDeletion).
func (a *legacyAtom) isRowDeletion(clusteringSize int) bool {
	if a.kind != atomRangeTombstone || a.start.collection != nil || a.stop.collection != nil ||
		len(a.start.prefix) != clusteringSize || len(a.stop.prefix) != clusteringSize {
		return false
	}
	for i := range a.start.prefix {
		if !bytesEqualNil(a.start.prefix[i], a.stop.prefix[i]) {
			return false
		}
	}
	return true
}

// isRowAtom reports whether a is grouped into a row (cells, row deletions
// and collection tombstones) rather than turned into markers.
func (a *legacyAtom) isRowAtom(clusteringSize int) bool {
	return a.kind != atomRangeTombstone || a.isCollectionTombstone() || a.isRowDeletion(clusteringSize)
}

// timestamp is what shadowing compares: a cell's timestamp or a
// tombstone's markedForDeleteAt.
func (a *legacyAtom) deletionTimestamp() int64 {
	if a.kind == atomRangeTombstone {
		return a.deletion.MarkedForDeleteAt
	}
	return a.timestamp
}

func bytesEqualNil(a, b []byte) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return string(a) == string(b)
}
