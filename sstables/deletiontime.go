package sstables

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables/version"
)

// Local deletion times on disk. In memory they are int64 seconds with
// mutation.NoDeletionTime (Long.MAX_VALUE) for "no deletion", as in
// Cassandra 5.0. Two 32-bit encodings exist:
//
//	before oa  signed: Integer.MAX_VALUE is "no deletion"; valid times end at
//	           MaxLegacyDeletionTime (2038-01-19); negative values are the
//	           wrapped overflow of CASSANDRA-14092 that 3.x wrote, kept as
//	           they are (scrub repairs them)
//	oa on      unsigned: 0xFFFFFFFF is "no deletion"; valid times end at
//	           MaxDeletionTime (2106-02-07)

// LegacyDeletionTime returns ldt in the signed 32-bit form of the versions
// before oa. A time past 2038 does not fit: see LegacyDeletionTimeFits.
func LegacyDeletionTime(ldt int64) int32 {
	if ldt == mutation.NoDeletionTime {
		return math.MaxInt32
	}
	return int32(ldt)
}

// LegacyDeletionTimeFits reports whether ldt is "no deletion" or a time the
// signed 32-bit form holds (a negative overflowed one included).
func LegacyDeletionTimeFits(ldt int64) bool {
	return ldt == mutation.NoDeletionTime || (ldt >= math.MinInt32 && ldt <= mutation.MaxLegacyDeletionTime)
}

// FromLegacyDeletionTime decodes the signed 32-bit form.
func FromLegacyDeletionTime(v int32) int64 {
	if v == math.MaxInt32 {
		return mutation.NoDeletionTime
	}
	return int64(v)
}

// UnsignedDeletionTime returns ldt in oa's unsigned 32-bit form. A
// negative (overflowed legacy) time does not fit: see
// UnsignedDeletionTimeFits.
func UnsignedDeletionTime(ldt int64) uint32 {
	if ldt == mutation.NoDeletionTime {
		return math.MaxUint32
	}
	return uint32(ldt)
}

// UnsignedDeletionTimeFits reports whether ldt is "no deletion" or a time
// oa's unsigned form holds.
func UnsignedDeletionTimeFits(ldt int64) bool {
	return ldt == mutation.NoDeletionTime || (ldt >= 0 && ldt <= mutation.MaxDeletionTime)
}

// FromUnsignedDeletionTime decodes oa's unsigned form.
func FromUnsignedDeletionTime(v uint32) int64 {
	if v == math.MaxUint32 {
		return mutation.NoDeletionTime
	}
	return int64(v)
}

// The fixed-form DeletionTime before oa (db/DeletionTime.LegacySerializer):
// i32 localDeletionTime (signed form), i64 markedForDeleteAt, big-endian,
// 12 bytes; "live" is Integer.MAX_VALUE and Long.MIN_VALUE.
const legacyFixedDeletionTimeSize = 12

// FixedDeletionTimeSize returns the size of d in version v's fixed form.
func FixedDeletionTimeSize(d mutation.DeletionTime, v version.Version) int {
	if v.UIntDeletionTime() {
		return UnsignedFixedDeletionTimeSize(d)
	}
	return legacyFixedDeletionTimeSize
}

// AppendFixedDeletionTime appends d in version v's fixed form.
func AppendFixedDeletionTime(dst []byte, d mutation.DeletionTime, v version.Version) []byte {
	if v.UIntDeletionTime() {
		return AppendUnsignedFixedDeletionTime(dst, d)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(LegacyDeletionTime(d.LocalDeletionTime)))
	return binary.BigEndian.AppendUint64(dst, uint64(d.MarkedForDeleteAt))
}

// ReadFixedDeletionTime decodes version v's fixed form at the start of b
// and returns it with its size.
func ReadFixedDeletionTime(b []byte, v version.Version) (mutation.DeletionTime, int, error) {
	if v.UIntDeletionTime() {
		return ReadUnsignedFixedDeletionTime(b)
	}
	if len(b) < legacyFixedDeletionTimeSize {
		return mutation.DeletionTime{}, 0, fmt.Errorf("deletion time truncated (%d of 12 bytes)", len(b))
	}
	return mutation.DeletionTime{
		LocalDeletionTime: FromLegacyDeletionTime(int32(binary.BigEndian.Uint32(b))),
		MarkedForDeleteAt: int64(binary.BigEndian.Uint64(b[4:])),
	}, legacyFixedDeletionTimeSize, nil
}

// The fixed-form DeletionTime of the oa and da formats (Cassandra 5.0
// db/DeletionTime.Serializer), used by Rows.db entries and row-index
// payloads (and by oa/da Data.db partition headers):
//
//	live      1 byte 0x80
//	non-live  i64 markedForDeleteAt (≥ 0: its sign bit is the live flag),
//	          u32 localDeletionTime, big-endian (12 bytes)
//
// ScyllaDB extends it for negative timestamps: 0xC0, then the i64 and the
// u32 (13 bytes). It is read here; Cassandra cannot represent it.
const (
	deletionLiveByte       = 0x80
	deletionScyllaNegative = 0xC0
)

// UnsignedFixedDeletionTimeSize returns the size of d in the oa form.
func UnsignedFixedDeletionTimeSize(d mutation.DeletionTime) int {
	switch {
	case d.IsLive():
		return 1
	case d.MarkedForDeleteAt < 0:
		return 13
	}
	return 12
}

// AppendUnsignedFixedDeletionTime appends d in the oa form. A non-live deletion with a
// negative timestamp, which Cassandra cannot write, gets ScyllaDB's 13-byte
// extension.
func AppendUnsignedFixedDeletionTime(dst []byte, d mutation.DeletionTime) []byte {
	if d.IsLive() {
		return append(dst, deletionLiveByte)
	}
	if d.MarkedForDeleteAt < 0 {
		dst = append(dst, deletionScyllaNegative)
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(d.MarkedForDeleteAt))
	return binary.BigEndian.AppendUint32(dst, UnsignedDeletionTime(d.LocalDeletionTime))
}

// ReadUnsignedFixedDeletionTime decodes an oa-form DeletionTime at the start of b and
// returns it with its size.
func ReadUnsignedFixedDeletionTime(b []byte) (mutation.DeletionTime, int, error) {
	if len(b) == 0 {
		return mutation.DeletionTime{}, 0, fmt.Errorf("deletion time truncated")
	}
	switch {
	case b[0] == deletionLiveByte:
		return mutation.Live, 1, nil
	case b[0] == deletionScyllaNegative:
		if len(b) < 13 {
			return mutation.DeletionTime{}, 0, fmt.Errorf("deletion time truncated (%d of 13 bytes)", len(b))
		}
		return mutation.DeletionTime{MarkedForDeleteAt: int64(binary.BigEndian.Uint64(b[1:])),
			LocalDeletionTime: FromUnsignedDeletionTime(binary.BigEndian.Uint32(b[9:]))}, 13, nil
	case b[0]&0x80 != 0:
		return mutation.DeletionTime{}, 0, fmt.Errorf("deletion time flag byte %#02x (want 0x80 or a timestamp ≥ 0)", b[0])
	}
	if len(b) < 12 {
		return mutation.DeletionTime{}, 0, fmt.Errorf("deletion time truncated (%d of 12 bytes)", len(b))
	}
	d := mutation.DeletionTime{MarkedForDeleteAt: int64(binary.BigEndian.Uint64(b)),
		LocalDeletionTime: FromUnsignedDeletionTime(binary.BigEndian.Uint32(b[8:]))}
	return d, 12, nil
}
