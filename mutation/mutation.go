// Package mutation is the data model every part of castable speaks: a
// partition (key, token, deletion), its static row, its clustering rows and
// its range tombstone markers, and the cells of the rows — live, expiring,
// tombstones, counters, and elements of non-frozen collections and UDTs —
// with Cassandra's reconciliation and merge rules.
//
// The model mirrors what an SSTable stores, not what a query returns: nothing
// is purged, expired data stays, and range tombstones are the de-overlapped
// marker sequence the mc format writes.
package mutation

import (
	"math"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/schema"
)

// Special values, as Cassandra defines them.
const (
	// NoTimestamp marks the absence of a timestamp (Long.MIN_VALUE).
	NoTimestamp int64 = math.MinInt64
	// NoDeletionTime is the local deletion time of live data. Cassandra
	// 3.x/4.x store it as Integer.MAX_VALUE, 5.0 (oa) as 0xFFFFFFFF; in
	// memory it is Long.MAX_VALUE, as in Cassandra 5.0.
	NoDeletionTime int64 = math.MaxInt64
	// MaxLegacyDeletionTime is the largest local deletion time the
	// versions before oa store (Integer.MAX_VALUE − 1, 2038-01-19): their
	// 32-bit field holds negative values only as the wrapped overflow of
	// CASSANDRA-14092.
	MaxLegacyDeletionTime int64 = math.MaxInt32 - 1
	// MaxDeletionTime is the largest local deletion time oa stores
	// (2^32 − 3, 2106-02-07).
	MaxDeletionTime int64 = 1<<32 - 3
	// NoTTL is the TTL of data that does not expire.
	NoTTL int32 = 0
	// ExpiredLivenessTTL is the TTL of "expired liveness" info (materialized
	// views): ttl = Integer.MAX_VALUE and the expiration time is the
	// deletion time.
	ExpiredLivenessTTL int32 = math.MaxInt32
)

// DeletionTime is a tombstone: everything written at or before
// MarkedForDeleteAt (µs) is deleted; LocalDeletionTime (s since the epoch) is
// when the deletion happened on the node, used for purging.
type DeletionTime struct {
	MarkedForDeleteAt int64
	LocalDeletionTime int64
}

// Live is the DeletionTime that deletes nothing.
var Live = DeletionTime{MarkedForDeleteAt: NoTimestamp, LocalDeletionTime: NoDeletionTime}

// IsLive reports whether d deletes nothing.
func (d DeletionTime) IsLive() bool {
	return d.MarkedForDeleteAt == NoTimestamp && d.LocalDeletionTime == NoDeletionTime
}

// LivenessInfo is a row's primary-key liveness (the "row marker" an INSERT
// writes). The zero value is not empty; use EmptyLiveness.
type LivenessInfo struct {
	// Timestamp is the write time in µs, or NoTimestamp for no liveness.
	Timestamp int64
	// TTL is the time to live in seconds, NoTTL when not expiring.
	TTL int32
	// LocalExpirationTime is when an expiring liveness expires (s since the
	// epoch); NoDeletionTime when not expiring.
	LocalExpirationTime int64
}

// EmptyLiveness is the liveness of a row without a row marker.
var EmptyLiveness = LivenessInfo{Timestamp: NoTimestamp, TTL: NoTTL, LocalExpirationTime: NoDeletionTime}

// IsEmpty reports whether l carries no liveness.
func (l LivenessInfo) IsEmpty() bool { return l.Timestamp == NoTimestamp }

// IsExpiring reports whether l has a TTL.
func (l LivenessInfo) IsExpiring() bool { return l.TTL != NoTTL }

// Cell is the value of one column in a row, or of one element of a
// non-frozen collection or UDT column (then Path is the element's key).
//
// As in Cassandra, the kind follows from TTL and LocalDeletionTime: a
// tombstone has TTL == NoTTL and LocalDeletionTime != NoDeletionTime; an
// expiring cell has TTL != NoTTL and expires at LocalDeletionTime; a live
// cell has TTL == NoTTL and LocalDeletionTime == NoDeletionTime.
type Cell struct {
	Column *schema.Column
	// Path is the element key within a complex column: the list element's
	// timeuuid, the set element, the map key, or the UDT field index as a
	// 2-byte big-endian short. Nil for simple columns.
	Path []byte
	// Value is the serialized value (empty for tombstones and set elements;
	// a counter context for counter cells).
	Value             []byte
	Timestamp         int64
	TTL               int32
	LocalDeletionTime int64
}

// IsTombstone reports whether c is a cell tombstone.
func (c *Cell) IsTombstone() bool {
	return c.TTL == NoTTL && c.LocalDeletionTime != NoDeletionTime
}

// IsExpiring reports whether c has a TTL.
func (c *Cell) IsExpiring() bool { return c.TTL != NoTTL }

// IsLive reports whether c is neither a tombstone nor expiring.
func (c *Cell) IsLive() bool {
	return c.TTL == NoTTL && c.LocalDeletionTime == NoDeletionTime
}

// ComplexDeletion is the deletion of a whole non-frozen collection or UDT
// column within a row (what overwriting a collection writes).
//
// A ComplexDeletion whose Deletion is Live marks a complex column that an
// SSTable lists in the row with neither elements nor a deletion: Cassandra
// 5.0 writes such columns when it drops a complex deletion on the way to
// disk (BTreeRow.hasComplexDeletion looks only at the row's last complex
// column, so the deletions of the others are not written when that one has
// none). Readers keep it so that a rewrite reproduces the row; it deletes
// nothing, merges drop it, and dumps do not show it.
type ComplexDeletion struct {
	Column   *schema.Column
	Deletion DeletionTime
}

// Clustering is a clustering key or prefix: one serialized value per
// clustering column. A nil component is null (absent, only in COMPACT
// STORAGE tables); an empty non-nil component is an empty value.
type Clustering [][]byte

// Row is a static row or a clustering row.
type Row struct {
	// Clustering is the row's clustering key (nil for the static row and
	// for tables without clustering columns).
	Clustering Clustering
	// Liveness is the primary-key liveness (EmptyLiveness if none).
	Liveness LivenessInfo
	// Deletion is the row deletion (Live if none).
	Deletion DeletionTime
	// DeletionShadowable marks Deletion as shadowable, encoded as Cassandra
	// does (row extended flag 0x02).
	DeletionShadowable bool
	// ShadowableDeletion is a shadowable deletion kept apart from Deletion,
	// encoded as ScyllaDB does (row extended flag 0x80); Live if none.
	ShadowableDeletion DeletionTime
	// Cells are the row's cells ordered by column (Column.Index) and, within
	// a complex column, by path in the column type's element order.
	Cells []Cell
	// ComplexDeletions are the row's complex deletions ordered by column.
	ComplexDeletions []ComplexDeletion
}

// BoundKind is the kind of a clustering prefix, with the ordinals the mc
// format writes (ClusteringPrefix.Kind in Cassandra).
type BoundKind uint8

// The clustering prefix kinds, by on-disk ordinal.
const (
	ExclEndBound             BoundKind = 0
	InclStartBound           BoundKind = 1
	ExclEndInclStartBoundary BoundKind = 2
	StaticClustering         BoundKind = 3
	ClusteringKind           BoundKind = 4
	InclEndExclStartBoundary BoundKind = 5
	InclEndBound             BoundKind = 6
	ExclStartBound           BoundKind = 7
)

// RangeTombstoneMarker opens a deleted range, closes one, or (a boundary)
// does both at the same clustering position.
type RangeTombstoneMarker struct {
	Kind BoundKind
	// Clustering is the bound's prefix (possibly shorter than the
	// clustering key; empty for the start or end of the partition).
	Clustering Clustering
	// Close is the deletion of the range this marker ends (end bounds and
	// boundaries; Live otherwise).
	Close DeletionTime
	// Open is the deletion of the range this marker starts (start bounds
	// and boundaries; Live otherwise).
	Open DeletionTime
}

// Partition is everything an SSTable holds for one partition key.
type Partition struct {
	// Key is the serialized partition key (CompositeType encoding for
	// multi-column keys).
	Key []byte
	// Token is the key's token under the table's partitioner (see package
	// dht). A key-ordered partitioner's token refers to Key's bytes: a copy
	// of the partition computes it again from its copy of the key.
	Token dht.Token
	// Deletion is the partition deletion (Live if none).
	Deletion DeletionTime
	// Static is the static row; it has no clustering and is empty when the
	// partition has no static data.
	Static Row
	// Rows are the clustering rows in clustering order.
	Rows []Row
	// Markers are the range tombstone markers in clustering order; rows and
	// markers interleave in the table's clustering order (see Unfiltered).
	Markers []RangeTombstoneMarker
}
