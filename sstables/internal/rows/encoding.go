package rows

import (
	"encoding/binary"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// The serialization header and its EncodingStats live in package sstables
// (Statistics.db's one model); these names keep the row code short.
type (
	// Header is the serialization header.
	Header = sstables.SerializationHeader
	// HeaderColumn is a column of the serialization header.
	HeaderColumn = sstables.HeaderColumn
	// EncodingStats are the minima row times are delta-encoded against.
	EncodingStats = sstables.EncodingStats
)

// DefaultEncodingStats are sstables.DefaultEncodingStats.
var DefaultEncodingStats = sstables.DefaultEncodingStats

// appendFixedDeletionTime appends d in the fixed 12-byte form used by the
// partition header and Index.db: i32 localDeletionTime, i64
// markedForDeleteAt, big-endian.
func appendFixedDeletionTime(dst []byte, d mutation.DeletionTime) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(sstables.LegacyDeletionTime(d.LocalDeletionTime)))
	return binary.BigEndian.AppendUint64(dst, uint64(d.MarkedForDeleteAt))
}

// decodeFixedDeletionTime decodes the fixed form; b must hold 12 bytes.
func decodeFixedDeletionTime(b []byte) mutation.DeletionTime {
	return mutation.DeletionTime{
		LocalDeletionTime: sstables.FromLegacyDeletionTime(int32(binary.BigEndian.Uint32(b))),
		MarkedForDeleteAt: int64(binary.BigEndian.Uint64(b[4:])),
	}
}
