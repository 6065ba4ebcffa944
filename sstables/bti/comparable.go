package bti

import (
	"encoding/binary"

	"github.com/castable-db/castable/dht"
	bc "github.com/castable-db/castable/internal/bytecomparable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// AppendDecoratedKey appends the byte-comparable form of a decorated
// partition key (DecoratedKey.asComparableBytes, OSS50):
//
//	40 ‖ token ‖ 40 ‖ escaped(key) ‖ 38
//
// token is the partitioner's byte-comparable token (AppendMurmur3Token,
// AppendByteOrderedToken, ...); key is the raw serialized partition key.
func AppendDecoratedKey(dst, token, key []byte) []byte {
	dst = append(dst, bc.NextComponent)
	dst = append(dst, token...)
	dst = append(dst, bc.NextComponent)
	dst = bc.AppendEscaped(dst, key)
	return append(dst, bc.Terminator)
}

// AppendMurmur3Token appends the byte-comparable form of a
// Murmur3Partitioner token: 8 bytes big-endian of token XOR 2^63.
func AppendMurmur3Token(dst []byte, token int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(token)^1<<63)
}

// AppendByteOrderedToken appends the byte-comparable form of a
// ByteOrderedPartitioner token, which is the key itself: its escaped bytes.
func AppendByteOrderedToken(dst, key []byte) []byte {
	return bc.AppendEscaped(dst, key)
}

// AppendMurmur3Key appends the byte-comparable decorated key of key under
// the Murmur3Partitioner.
func AppendMurmur3Key(dst, key []byte) []byte {
	var tok [8]byte
	return AppendDecoratedKey(dst, AppendMurmur3Token(tok[:0], dht.Token(key)), key)
}

// AppendByteOrderedKey appends the byte-comparable decorated key of key
// under the ByteOrderedPartitioner (the key appears twice).
func AppendByteOrderedKey(dst, key []byte) []byte {
	dst = append(dst, bc.NextComponent)
	dst = bc.AppendEscaped(dst, key)
	dst = append(dst, bc.NextComponent)
	dst = bc.AppendEscaped(dst, key)
	return append(dst, bc.Terminator)
}

// HashByte is the filter hash byte Partitions.db stores with every key:
// the low byte of the second 64-bit half of Cassandra's MurmurHash3 of the
// raw key (IFilter.filterHashLowerBits), the half dht.Murmur3 returns as
// h2. The same for every partitioner.
func HashByte(key []byte) byte {
	_, h2 := dht.Murmur3(key)
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
