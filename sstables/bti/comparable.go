package bti

import (
	"github.com/castable-db/castable/dht"
	bc "github.com/castable-db/castable/internal/bytecomparable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// AppendDecoratedKey appends the byte-comparable form of a decorated
// partition key (DecoratedKey.asComparableBytes, OSS50) under partitioner
// p:
//
//	40 ‖ token ‖ 40 ‖ escaped(key) ‖ 38
//
// token is p's byte-comparable token (dht.Partitioner.AppendComparable);
// key is the raw serialized partition key. Under ByteOrdered the key thus
// appears twice.
func AppendDecoratedKey(dst []byte, p dht.Partitioner, key []byte) []byte {
	dst = append(dst, bc.NextComponent)
	dst = p.AppendComparable(dst, p.Token(key))
	dst = append(dst, bc.NextComponent)
	dst = bc.AppendEscaped(dst, key)
	return append(dst, bc.Terminator)
}

// HashByte is the filter hash byte Partitions.db stores with every key:
// the low byte of the second 64-bit half of Cassandra's MurmurHash3 of the
// raw key (IFilter.filterHashLowerBits), the half dht.Murmur3Hash returns
// as h2. The same for every partitioner.
func HashByte(key []byte) byte {
	_, h2 := dht.Murmur3Hash(key)
	return byte(h2)
}

// KindTerminator returns the byte that ends the byte-comparable form of a
// clustering prefix of the given kind (ClusteringPrefix.Kind, OSS50):
// 38 for a row, 18 for the static row, 20 for the bounds that sort before
// the clusterings they prefix (inclusive start, exclusive end and the
// boundary ending exclusively), 60 for those that sort after.
func KindTerminator(k mutation.BoundKind) byte {
	switch k {
	case mutation.ClusteringKind:
		return bc.Terminator
	case mutation.StaticClustering:
		return bc.Excluded
	case mutation.ExclEndBound, mutation.InclStartBound, mutation.ExclEndInclStartBoundary:
		return bc.LtNextComponent
	}
	return bc.GtNextComponent
}

// AppendClustering appends the byte-comparable form of a clustering prefix
// (ClusteringComparator.asByteComparable): for each value, 40 and its
// type's form (see schema.Type.AppendComparable), 3E for a null value (nil
// in values; an empty non-nil slice is an empty value), 3F (41 for a
// reversed type) for an empty value of a type without an empty form; then
// the kind's terminator. types are the clustering column types (with their
// Reversed flag); values may be shorter (a bound prefix).
func AppendClustering(dst []byte, types []*schema.Type, values [][]byte, kind mutation.BoundKind) []byte {
	for i, v := range values {
		if v == nil {
			dst = append(dst, bc.NextComponentNull)
			continue
		}
		t := schema.Blob
		if i < len(types) {
			t = types[i]
		}
		dst = t.AppendComparableComponent(dst, v)
	}
	return append(dst, KindTerminator(kind))
}
