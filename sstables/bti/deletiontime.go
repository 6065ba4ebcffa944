package bti

import (
	"encoding/binary"
	"fmt"

	"github.com/castable-db/castable/mutation"
)

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

// DeletionTimeSize returns the size of d in the oa form.
func DeletionTimeSize(d mutation.DeletionTime) int {
	switch {
	case d.IsLive():
		return 1
	case d.MarkedForDeleteAt < 0:
		return 13
	}
	return 12
}

// AppendDeletionTime appends d in the oa form. A non-live deletion with a
// negative timestamp, which Cassandra cannot write, gets ScyllaDB's 13-byte
// extension.
func AppendDeletionTime(dst []byte, d mutation.DeletionTime) []byte {
	if d.IsLive() {
		return append(dst, deletionLiveByte)
	}
	if d.MarkedForDeleteAt < 0 {
		dst = append(dst, deletionScyllaNegative)
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(d.MarkedForDeleteAt))
	return binary.BigEndian.AppendUint32(dst, uint32(d.LocalDeletionTime))
}

// ReadDeletionTime decodes an oa-form DeletionTime at the start of b and
// returns it with its size. The local deletion time is kept as its 32 bits
// (values above 2^31 come back negative, as mutation stores an int32).
func ReadDeletionTime(b []byte) (mutation.DeletionTime, int, error) {
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
			LocalDeletionTime: int32(binary.BigEndian.Uint32(b[9:]))}, 13, nil
	case b[0]&0x80 != 0:
		return mutation.DeletionTime{}, 0, fmt.Errorf("deletion time flag byte %#02x (want 0x80 or a timestamp ≥ 0)", b[0])
	}
	if len(b) < 12 {
		return mutation.DeletionTime{}, 0, fmt.Errorf("deletion time truncated (%d of 12 bytes)", len(b))
	}
	d := mutation.DeletionTime{MarkedForDeleteAt: int64(binary.BigEndian.Uint64(b)),
		LocalDeletionTime: int32(binary.BigEndian.Uint32(b[8:]))}
	return d, 12, nil
}
