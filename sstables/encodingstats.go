package sstables

import (
	"github.com/castable-db/castable/internal/vint"
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
//
// MinLocalDeletionTime is the 32-bit value as stored. Local deletion times
// are int64 in memory (mutation.NoDeletionTime for none); a delta is taken
// between 32-bit values: before oa the signed form, where "none" is
// Integer.MAX_VALUE (LegacyDeletionTime); from oa
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

// AppendTimestamp appends ts as a delta against the minimum timestamp.
func (s *EncodingStats) AppendTimestamp(dst []byte, ts int64) []byte {
	return vint.Append(dst, uint64(ts-s.MinTimestamp))
}

// ldt32 is ldt's 32-bit value for delta encoding.
func (s *EncodingStats) ldt32(ldt int64) int32 {
	if s.UnsignedDeletionTimes {
		return int32(ldt)
	}
	return LegacyDeletionTime(ldt)
}

// SetMinLocalDeletionTime sets the minimum from an in-memory local
// deletion time (set UnsignedDeletionTimes first).
func (s *EncodingStats) SetMinLocalDeletionTime(ldt int64) { s.MinLocalDeletionTime = s.ldt32(ldt) }

// AppendLocalDeletionTime appends ldt as a delta (32-bit, sign-extended).
func (s *EncodingStats) AppendLocalDeletionTime(dst []byte, ldt int64) []byte {
	return vint.Append(dst, uint64(int64(s.ldt32(ldt)-s.MinLocalDeletionTime)))
}

// AppendTTL appends ttl as a delta (32-bit, sign-extended).
func (s *EncodingStats) AppendTTL(dst []byte, ttl int32) []byte {
	return vint.Append(dst, uint64(int64(ttl-s.MinTTL)))
}

// AppendDeletionTime appends a deletion time in delta form (timestamp,
// then local deletion time).
func (s *EncodingStats) AppendDeletionTime(dst []byte, d mutation.DeletionTime) []byte {
	dst = s.AppendTimestamp(dst, d.MarkedForDeleteAt)
	return s.AppendLocalDeletionTime(dst, d.LocalDeletionTime)
}

// Timestamp decodes a timestamp delta.
func (s *EncodingStats) Timestamp(u uint64) int64 { return int64(u) + s.MinTimestamp }

// LocalDeletionTime decodes a local deletion time delta (0 gives the
// minimum itself, in memory form).
func (s *EncodingStats) LocalDeletionTime(u uint64) int64 {
	v := int32(uint32(u)) + s.MinLocalDeletionTime
	if s.UnsignedDeletionTimes {
		return FromUnsignedDeletionTime(uint32(v))
	}
	return FromLegacyDeletionTime(v)
}

// TTL decodes a TTL delta.
func (s *EncodingStats) TTL(u uint64) int32 { return int32(uint32(u)) + s.MinTTL }

// appendHeaderStats appends the EncodingStats as the serialization header
// starts.
func (s *EncodingStats) appendHeader(dst []byte) []byte {
	dst = vint.Append(dst, uint64(s.MinTimestamp-timestampEpoch))
	dst = vint.Append(dst, uint64(int64(s.MinLocalDeletionTime-localDeletionTimeEpoch)))
	return vint.Append(dst, uint64(int64(s.MinTTL-ttlEpoch)))
}
