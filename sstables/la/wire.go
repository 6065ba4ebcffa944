package la

import (
	"encoding/binary"
	"math"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// Primitive encodings of the la format. Every integer is big-endian two's
// complement (Java DataOutput):
//
//	u16 / i32 / i64          2 / 4 / 8 bytes, big-endian
//	sbytes                   u16 length, then the bytes ("with short length", ≤ 65535)
//	ibytes                   i32 length, then the bytes ("with length")
//
// DeletionTime, used in partition headers, range tombstones and Index.db, is
// 12 bytes with the int FIRST:
//
//	+0  i32 localDeletionTime   seconds since the epoch; INT_MAX when live
//	+4  i64 markedForDeleteAt   microseconds; LONG_MIN when live
//
// so "live" is 7F FF FF FF 80 00 00 00 00 00 00 00.
const (
	deletionTimeSize = 12
	// maxShortLength is the largest length an sbytes field can carry.
	maxShortLength = math.MaxUint16
)

// liveDeletionBytes is the encoding of mutation.Live.
var liveDeletionBytes = [deletionTimeSize]byte{0x7f, 0xff, 0xff, 0xff, 0x80}

func appendU16(dst []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(dst, v) }
func appendI32(dst []byte, v int32) []byte  { return binary.BigEndian.AppendUint32(dst, uint32(v)) }
func appendI64(dst []byte, v int64) []byte  { return binary.BigEndian.AppendUint64(dst, uint64(v)) }

// appendShortBytes appends b with a u16 length; the caller guarantees
// len(b) <= maxShortLength.
func appendShortBytes(dst, b []byte) []byte {
	dst = appendU16(dst, uint16(len(b)))
	return append(dst, b...)
}

// appendIntBytes appends b with an i32 length.
func appendIntBytes(dst, b []byte) []byte {
	dst = appendI32(dst, int32(len(b)))
	return append(dst, b...)
}

// appendDeletionTime appends the 12-byte DeletionTime (ldt, then timestamp).
func appendDeletionTime(dst []byte, d mutation.DeletionTime) []byte {
	dst = appendI32(dst, sstables.LegacyDeletionTime(d.LocalDeletionTime))
	return appendI64(dst, d.MarkedForDeleteAt)
}

// decodeDeletionTime decodes the 12 bytes of b.
func decodeDeletionTime(b []byte) mutation.DeletionTime {
	return mutation.DeletionTime{
		LocalDeletionTime: sstables.FromLegacyDeletionTime(int32(binary.BigEndian.Uint32(b))),
		MarkedForDeleteAt: int64(binary.BigEndian.Uint64(b[4:])),
	}
}
