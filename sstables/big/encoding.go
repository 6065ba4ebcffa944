package big

import (
	"encoding/binary"

	"github.com/castable-db/castable/mutation"
)

// EncodingStats are the minima that times inside rows and markers are
// delta-encoded against. They are stored at the start of the serialization
// header in Statistics.db, each relative to its epoch:
//
//	uvint  minTimestamp - 1442880000000000          (64-bit wrap)
//	uvint  int32(minLocalDeletionTime - 1442880000)  (32-bit wrap, sign-extended)
//	uvint  int32(minTTL - 0)                         (sign-extended)
//
// A delta is computed with the same widths: timestamps in 64 bits, local
// deletion times and TTLs in 32 bits then sign-extended, and the 64-bit
// pattern is written as an unsigned vint (a negative delta takes 9 bytes).
type EncodingStats struct {
	MinTimestamp         int64
	MinLocalDeletionTime int32
	MinTTL               int32
}

// The epochs of EncodingStats (2015-09-22T00:00:00Z in µs and s) — the
// values an sstable with no sample of a kind stores.
const (
	timestampEpoch         int64 = 1442880000000000
	localDeletionTimeEpoch int32 = 1442880000
	ttlEpoch               int32 = 0
)

// DefaultEncodingStats are the epoch values: what Cassandra writes when a
// kind of time never occurs. They are valid minima for any data (deltas may
// be negative and then take 9 bytes) but do not reproduce Cassandra's
// bytes when the data has values of that kind.
var DefaultEncodingStats = EncodingStats{
	MinTimestamp:         timestampEpoch,
	MinLocalDeletionTime: localDeletionTimeEpoch,
	MinTTL:               ttlEpoch,
}

// appendTimestamp appends ts as a delta against the minimum timestamp.
func (s *EncodingStats) appendTimestamp(dst []byte, ts int64) []byte {
	return appendUvint(dst, uint64(ts-s.MinTimestamp))
}

// appendLocalDeletionTime appends ldt as a delta (32-bit, sign-extended).
func (s *EncodingStats) appendLocalDeletionTime(dst []byte, ldt int32) []byte {
	return appendUvint(dst, uint64(int64(ldt-s.MinLocalDeletionTime)))
}

// appendTTL appends ttl as a delta (32-bit, sign-extended).
func (s *EncodingStats) appendTTL(dst []byte, ttl int32) []byte {
	return appendUvint(dst, uint64(int64(ttl-s.MinTTL)))
}

// appendDeletionTime appends a deletion time in delta form (timestamp,
// then local deletion time).
func (s *EncodingStats) appendDeletionTime(dst []byte, d mutation.DeletionTime) []byte {
	dst = s.appendTimestamp(dst, d.MarkedForDeleteAt)
	return s.appendLocalDeletionTime(dst, d.LocalDeletionTime)
}

// timestamp decodes a timestamp delta.
func (s *EncodingStats) timestamp(u uint64) int64 { return int64(u) + s.MinTimestamp }

// localDeletionTime decodes a local deletion time delta.
func (s *EncodingStats) localDeletionTime(u uint64) int32 {
	return int32(uint32(u)) + s.MinLocalDeletionTime
}

// ttl decodes a TTL delta.
func (s *EncodingStats) ttl(u uint64) int32 { return int32(uint32(u)) + s.MinTTL }

// appendHeaderStats appends the EncodingStats as the serialization header
// starts.
func (s *EncodingStats) appendHeader(dst []byte) []byte {
	dst = appendUvint(dst, uint64(s.MinTimestamp-timestampEpoch))
	dst = appendUvint(dst, uint64(int64(s.MinLocalDeletionTime-localDeletionTimeEpoch)))
	return appendUvint(dst, uint64(int64(s.MinTTL-ttlEpoch)))
}

// appendFixedDeletionTime appends d in the fixed 12-byte form used by the
// partition header and Index.db: i32 localDeletionTime, i64
// markedForDeleteAt, big-endian.
func appendFixedDeletionTime(dst []byte, d mutation.DeletionTime) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(d.LocalDeletionTime))
	return binary.BigEndian.AppendUint64(dst, uint64(d.MarkedForDeleteAt))
}

// decodeFixedDeletionTime decodes the fixed form; b must hold 12 bytes.
func decodeFixedDeletionTime(b []byte) mutation.DeletionTime {
	return mutation.DeletionTime{
		LocalDeletionTime: int32(binary.BigEndian.Uint32(b)),
		MarkedForDeleteAt: int64(binary.BigEndian.Uint64(b[4:])),
	}
}
