package big

import (
	"encoding/binary"
	"github.com/castable-db/castable/internal/vint"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
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
//
// MinLocalDeletionTime is the 32-bit value as stored. Local deletion times
// are int64 in memory (mutation.NoDeletionTime for none); a delta is taken
// between 32-bit values: before oa the signed form, where "none" is
// Integer.MAX_VALUE (sstables.LegacyDeletionTime); from oa
// (UnsignedDeletionTimes) the low 32 bits of the int64, where "none" is
// Long.MAX_VALUE, so that a live complex deletion's delta is
// (int)(Long.MAX_VALUE − min), as Cassandra 5.0 computes it.
type EncodingStats struct {
	MinTimestamp         int64
	MinLocalDeletionTime int32
	MinTTL               int32
	// UnsignedDeletionTimes says local deletion times are oa's unsigned
	// 32-bit values (version.UIntDeletionTime).
	UnsignedDeletionTimes bool
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
	return vint.Append(dst, uint64(ts-s.MinTimestamp))
}

// ldt32 is ldt's 32-bit value for delta encoding.
func (s *EncodingStats) ldt32(ldt int64) int32 {
	if s.UnsignedDeletionTimes {
		return int32(ldt)
	}
	return sstables.LegacyDeletionTime(ldt)
}

// appendLocalDeletionTime appends ldt as a delta (32-bit, sign-extended).
func (s *EncodingStats) appendLocalDeletionTime(dst []byte, ldt int64) []byte {
	return vint.Append(dst, uint64(int64(s.ldt32(ldt)-s.MinLocalDeletionTime)))
}

// appendTTL appends ttl as a delta (32-bit, sign-extended).
func (s *EncodingStats) appendTTL(dst []byte, ttl int32) []byte {
	return vint.Append(dst, uint64(int64(ttl-s.MinTTL)))
}

// appendDeletionTime appends a deletion time in delta form (timestamp,
// then local deletion time).
func (s *EncodingStats) appendDeletionTime(dst []byte, d mutation.DeletionTime) []byte {
	dst = s.appendTimestamp(dst, d.MarkedForDeleteAt)
	return s.appendLocalDeletionTime(dst, d.LocalDeletionTime)
}

// timestamp decodes a timestamp delta.
func (s *EncodingStats) timestamp(u uint64) int64 { return int64(u) + s.MinTimestamp }

// LocalDeletionTime returns the local deletion time of a delta u (0 gives
// the minimum itself, in memory form).
func (s *EncodingStats) LocalDeletionTime(u uint64) int64 { return s.localDeletionTime(u) }

// localDeletionTime decodes a local deletion time delta.
func (s *EncodingStats) localDeletionTime(u uint64) int64 {
	v := int32(uint32(u)) + s.MinLocalDeletionTime
	if s.UnsignedDeletionTimes {
		return sstables.FromUnsignedDeletionTime(uint32(v))
	}
	return sstables.FromLegacyDeletionTime(v)
}

// ttl decodes a TTL delta.
func (s *EncodingStats) ttl(u uint64) int32 { return int32(uint32(u)) + s.MinTTL }

// appendHeaderStats appends the EncodingStats as the serialization header
// starts.
func (s *EncodingStats) appendHeader(dst []byte) []byte {
	dst = vint.Append(dst, uint64(s.MinTimestamp-timestampEpoch))
	dst = vint.Append(dst, uint64(int64(s.MinLocalDeletionTime-localDeletionTimeEpoch)))
	return vint.Append(dst, uint64(int64(s.MinTTL-ttlEpoch)))
}

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
