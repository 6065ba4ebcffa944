package mutation

import (
	"strconv"

	"github.com/castable-db/castable/schema"
)

// Ordering of clustering prefixes (Cassandra's ClusteringPrefix.Kind).
//
// Every kind carries two small integers:
//
//	kind                          ordinal  comparison  comparedToClustering
//	EXCL_END_BOUND                      0           0                    -1
//	INCL_START_BOUND                    1           0                    -1
//	EXCL_END_INCL_START_BOUNDARY        2           0                    -1
//	STATIC_CLUSTERING                   3           1                    -1
//	CLUSTERING                          4           2                     0
//	INCL_END_EXCL_START_BOUNDARY        5           3                     1
//	INCL_END_BOUND                      6           3                     1
//	EXCL_START_BOUND                    7           3                     1
//
// Two prefixes compare component by component over their common length.
// When that is equal and the lengths are equal, the kinds' comparison values
// decide; when the lengths differ, the shorter prefix's comparedToClustering
// decides (a shorter INCL_START sorts before every longer prefix extending
// it, a shorter INCL_END after).
var (
	kindComparison           = [8]int8{0, 0, 0, 1, 2, 3, 3, 3}
	kindComparedToClustering = [8]int8{-1, -1, -1, -1, 0, 1, 1, 1}
)

// String returns the Cassandra name of k.
func (k BoundKind) String() string {
	switch k {
	case ExclEndBound:
		return "EXCL_END_BOUND"
	case InclStartBound:
		return "INCL_START_BOUND"
	case ExclEndInclStartBoundary:
		return "EXCL_END_INCL_START_BOUNDARY"
	case StaticClustering:
		return "STATIC_CLUSTERING"
	case ClusteringKind:
		return "CLUSTERING"
	case InclEndExclStartBoundary:
		return "INCL_END_EXCL_START_BOUNDARY"
	case InclEndBound:
		return "INCL_END_BOUND"
	case ExclStartBound:
		return "EXCL_START_BOUND"
	}
	return "BoundKind(" + strconv.Itoa(int(k)) + ")"
}

// Valid reports whether k is one of the eight kinds.
func (k BoundKind) Valid() bool { return k <= ExclStartBound }

// IsMarkerKind reports whether k is a kind a range tombstone marker can
// have (a bound or a boundary).
func (k BoundKind) IsMarkerKind() bool { return k.IsBound() || k.IsBoundary() }

// IsBound reports whether k is a start or end bound.
func (k BoundKind) IsBound() bool {
	switch k {
	case InclStartBound, InclEndBound, ExclStartBound, ExclEndBound:
		return true
	}
	return false
}

// IsBoundary reports whether k is a boundary (closes one range and opens
// the next).
func (k BoundKind) IsBoundary() bool {
	return k == ExclEndInclStartBoundary || k == InclEndExclStartBoundary
}

// IsStart reports whether k opens a range (start bounds and boundaries).
func (k BoundKind) IsStart() bool {
	switch k {
	case InclStartBound, ExclStartBound, ExclEndInclStartBoundary, InclEndExclStartBoundary:
		return true
	}
	return false
}

// IsEnd reports whether k closes a range (end bounds and boundaries).
func (k BoundKind) IsEnd() bool {
	switch k {
	case InclEndBound, ExclEndBound, ExclEndInclStartBoundary, InclEndExclStartBoundary:
		return true
	}
	return false
}

// BeforeClustering reports whether a prefix of kind k sorts before the rows
// it is a prefix of (Cassandra's comparedToClustering < 0: the end-exclusive
// and start-inclusive bounds and their boundary) rather than after them.
func (k BoundKind) BeforeClustering() bool { return kindComparedToClustering[k&7] < 0 }

// IsInclusive reports whether a bound kind includes the rows equal to its
// prefix.
func (k BoundKind) IsInclusive() bool { return k == InclStartBound || k == InclEndBound }

// Invert turns a start into an end and inclusive into exclusive (and back):
// the bound that meets k exactly, as Cassandra's Kind.invert.
func (k BoundKind) Invert() BoundKind {
	switch k {
	case ExclStartBound:
		return InclEndBound
	case InclStartBound:
		return ExclEndBound
	case ExclEndBound:
		return InclStartBound
	case InclEndBound:
		return ExclStartBound
	case ExclEndInclStartBoundary:
		return InclEndExclStartBoundary
	case InclEndExclStartBoundary:
		return ExclEndInclStartBoundary
	}
	return k
}

// CloseBound is the end bound a boundary kind closes with.
func (k BoundKind) CloseBound() BoundKind {
	if k == InclEndExclStartBoundary {
		return InclEndBound
	}
	return ExclEndBound
}

// OpenBound is the start bound a boundary kind opens with.
func (k BoundKind) OpenBound() BoundKind {
	if k == InclEndExclStartBoundary {
		return ExclStartBound
	}
	return InclStartBound
}

// BoundaryKind is the boundary that closes a range with the end bound kind
// end and opens the next at the same position.
func BoundaryKind(end BoundKind) BoundKind {
	if end == InclEndBound {
		return InclEndExclStartBoundary
	}
	return ExclEndInclStartBoundary
}

// ComparePrefix orders two clustering prefixes of the given kinds exactly as
// Cassandra's ClusteringComparator does: values component by component over
// the common length with the clustering columns' comparators, then the kinds
// (see the table above). Rows use ClusteringKind, the static row
// StaticClustering with an empty prefix.
func ComparePrefix(t *schema.Table, ka BoundKind, a Clustering, kb BoundKind, b Clustering) int {
	if len(a) > 0 && len(b) > 0 {
		if c := t.CompareClustering(a, b); c != 0 {
			return c
		}
	}
	switch {
	case len(a) == len(b):
		return cmpInt8(kindComparison[ka&7], kindComparison[kb&7])
	case len(a) < len(b):
		return int(kindComparedToClustering[ka&7])
	default:
		return -int(kindComparedToClustering[kb&7])
	}
}

// CompareClusterings orders two row clusterings (ClusteringKind).
func CompareClusterings(t *schema.Table, a, b Clustering) int {
	return ComparePrefix(t, ClusteringKind, a, ClusteringKind, b)
}

func cmpInt8(a, b int8) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
