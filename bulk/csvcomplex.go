package bulk

import (
	"crypto/rand"
	"encoding/binary"
	"time"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// uuidEpochOffset is the number of 100 ns intervals between the UUID epoch
// (1582-10-15) and the Unix epoch.
const uuidEpochOffset = 0x01B21DD213814000

// appendElements appends one cell per element of v, the frozen
// serialization of a non-frozen collection or UDT value (nil for null,
// which writes no element): a set element is the path with an empty value,
// a map entry its key as path, a list element a fresh time UUID as path, a
// UDT field its 2-byte index as path (null fields are skipped). The paths
// and values slice v or the batch arena.
//
// The serialization was produced by schema.Type.FromJSON and is therefore
// well formed: a 4-byte count then 4-byte-length-prefixed elements (map
// entries as key, value), or for a UDT the length-prefixed fields.
func (l *csvLoader) appendElements(dst []mutation.Cell, col *schema.Column, v []byte) []mutation.Cell {
	if v == nil {
		return dst
	}
	cell := func(path, value []byte) {
		dst = append(dst, mutation.Cell{Column: col, Path: path, Value: value, Timestamp: l.ts, TTL: l.ttl, LocalDeletionTime: l.expires})
	}
	next := func() []byte {
		n := int32(binary.BigEndian.Uint32(v))
		v = v[4:]
		if n < 0 {
			return nil
		}
		e := v[:n:n]
		v = v[n:]
		return e
	}
	if col.Type.Kind == schema.KindUDT {
		for i := 0; len(v) >= 4; i++ {
			if f := next(); f != nil {
				start := len(l.arena)
				l.arena = binary.BigEndian.AppendUint16(l.arena, uint16(i))
				cell(l.arena[start:len(l.arena):len(l.arena)], f)
			}
		}
		return dst
	}
	count := int(binary.BigEndian.Uint32(v))
	v = v[4:]
	for range count {
		switch col.Type.Kind {
		case schema.KindSet:
			cell(next(), emptyValue)
		case schema.KindMap:
			k := next()
			cell(k, next())
		case schema.KindList:
			start := len(l.arena)
			l.arena = l.appendTimeUUID(l.arena)
			cell(l.arena[start:len(l.arena):len(l.arena)], next())
		}
	}
	return dst
}

// appendTimeUUID appends a version 1 UUID later than every one this loader
// made before, from the clock, as the paths of list elements are.
func (l *csvLoader) appendTimeUUID(dst []byte) []byte {
	if l.uuidNode == ([8]byte{}) {
		_, _ = rand.Read(l.uuidNode[:])
		l.uuidNode[0] = l.uuidNode[0]&0x3f | 0x80 // RFC 4122 variant
		l.uuidNode[2] |= 0x01                     // multicast bit: not a real MAC
	}
	ticks := time.Now().UnixNano()/100 + uuidEpochOffset
	if ticks <= l.uuidTicks {
		ticks = l.uuidTicks + 1
	}
	l.uuidTicks = ticks
	dst = binary.BigEndian.AppendUint32(dst, uint32(ticks))
	dst = binary.BigEndian.AppendUint16(dst, uint16(ticks>>32))
	dst = binary.BigEndian.AppendUint16(dst, uint16(ticks>>48)&0x0fff|0x1000)
	return append(dst, l.uuidNode[:]...)
}
