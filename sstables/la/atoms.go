package la

import (
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"math"
)

// Data.db partitions and atoms (la-format.md §3):
//
//	Data.db   := Partition*                    no file header, no footer
//	Partition := sbytes key, DeletionTime, Atom*, 00 00
//	Atom      := sbytes name (length > 0), u8 flags, body
//
// A name of length 0 ends the partition. The flags select the body:
//
//	flags  kind             body after the flags byte
//	00     live cell        i64 timestamp, ibytes value
//	01     deleted cell     i64 timestamp, i32 4, i32 localDeletionTime
//	02     expiring cell    i32 ttl, i32 expiration (s), i64 timestamp, ibytes value
//	04     counter cell     i64 timestampOfLastDelete (LONG_MIN), i64 timestamp, ibytes context
//	08     counter update   i64 timestamp, ibytes value (memtable only, never in a file)
//	10     range tombstone  sbytes end bound, DeletionTime; the name is the start bound
//	40     Scylla only      ScyllaDB's ka/la writer marked shadowable tombstones with it
//
// The reader tests the bits in Cassandra's order: 10, then 04, then 02,
// then 08, then 01, else a live cell.
const (
	flagDeletion       byte = 0x01
	flagExpiration     byte = 0x02
	flagCounter        byte = 0x04
	flagCounterUpdate  byte = 0x08
	flagRangeTombstone byte = 0x10
	flagScyllaShadow   byte = 0x40

	// endOfPartition is the 2-byte name length 0 that closes a partition.
	endOfPartitionSize = 2
	// partitionHeaderFixed is the size of a partition header beyond its key.
	partitionHeaderFixed = 2 + deletionTimeSize
	// counterNoDelete is the timestampOfLastDelete Cassandra writes.
	counterNoDelete int64 = -1 << 63
	// deletedValueSize is the length field of a deleted cell's value.
	deletedValueSize = 4
)

// atomKind classifies a decoded atom.
type atomKind uint8

const (
	atomCell atomKind = iota + 1
	atomTombstoneCell
	atomExpiringCell
	atomCounterCell
	atomRangeTombstone
)

// atom is one decoded or to-be-encoded atom. Slices alias the decoder's
// buffer or the caller's data.
type atom struct {
	kind atomKind
	// name is the encoded cell name, or the start bound of a range
	// tombstone.
	name []byte
	// Cells.
	timestamp int64
	ttl       int32
	// ldt is the expiration time of an expiring cell and the local
	// deletion time of a deleted cell; mutation.NoDeletionTime otherwise.
	ldt   int32
	value []byte
	// lastDelete is a counter cell's timestampOfLastDelete (unused by
	// Cassandra since 2.1, written as LONG_MIN).
	lastDelete int64
	// Range tombstones.
	end      []byte
	deletion mutation.DeletionTime
	// offset is the atom's offset in the uncompressed Data.db stream (set
	// by the decoder).
	offset int64
}

// isCell reports whether a is a cell (of any kind).
func (a *atom) isCell() bool { return a.kind != atomRangeTombstone }

// encodedSize is the number of bytes appendAtom writes for a.
func (a *atom) encodedSize() int {
	n := 2 + len(a.name) + 1
	switch a.kind {
	case atomRangeTombstone:
		return n + 2 + len(a.end) + deletionTimeSize
	case atomTombstoneCell:
		return n + 8 + 4 + 4
	case atomExpiringCell:
		return n + 4 + 4 + 8 + 4 + len(a.value)
	case atomCounterCell:
		return n + 8 + 8 + 4 + len(a.value)
	}
	return n + 8 + 4 + len(a.value)
}

// appendAtom appends the serialized atom. Names are at most 65535 bytes
// (the caller checks).
func appendAtom(dst []byte, a *atom) []byte {
	dst = appendShortBytes(dst, a.name)
	switch a.kind {
	case atomRangeTombstone:
		dst = append(dst, flagRangeTombstone)
		dst = appendShortBytes(dst, a.end)
		return appendDeletionTime(dst, a.deletion)
	case atomTombstoneCell:
		dst = append(dst, flagDeletion)
		dst = appendI64(dst, a.timestamp)
		dst = appendI32(dst, deletedValueSize)
		return appendI32(dst, a.ldt)
	case atomExpiringCell:
		dst = append(dst, flagExpiration)
		dst = appendI32(dst, a.ttl)
		dst = appendI32(dst, a.ldt)
		dst = appendI64(dst, a.timestamp)
		return appendIntBytes(dst, a.value)
	case atomCounterCell:
		dst = append(dst, flagCounter)
		dst = appendI64(dst, a.lastDelete)
		dst = appendI64(dst, a.timestamp)
		return appendIntBytes(dst, a.value)
	}
	dst = append(dst, 0)
	dst = appendI64(dst, a.timestamp)
	return appendIntBytes(dst, a.value)
}

// setCell fills a as the cell c named name.
func (a *atom) setCell(name []byte, c *mutation.Cell, counter bool) {
	a.name = name
	a.timestamp = c.Timestamp
	a.ttl = c.TTL
	a.ldt = sstables.LegacyDeletionTime(c.LocalDeletionTime)
	a.value = c.Value
	switch {
	case c.IsTombstone():
		a.kind = atomTombstoneCell
		a.value = nil
	case c.IsExpiring():
		a.kind = atomExpiringCell
	case counter:
		a.kind = atomCounterCell
		a.lastDelete = counterNoDelete
	default:
		a.kind = atomCell
	}
}

// readAtom decodes the next atom, copying its name, end bound and value
// to the end of *arena (so they stay valid while the input buffer moves on;
// the caller resets the arena). It returns false at the end of the
// partition (a name of length 0).
func readAtom(in *input, a *atom, arena *[]byte) (bool, error) {
	a.offset = in.offset()
	name, err := in.shortBytes()
	if err != nil {
		return false, err
	}
	if len(name) == 0 {
		return false, nil
	}
	a.name = keep(arena, name)
	return true, readAtomBody(in, a, arena)
}

// keep copies b to the end of *arena and returns the copy.
func keep(arena *[]byte, b []byte) []byte {
	n := len(*arena)
	*arena = append(*arena, b...)
	return (*arena)[n : n+len(b) : n+len(b)]
}

// readAtomBody decodes the flags and body of an atom whose name was read.
func readAtomBody(in *input, a *atom, arena *[]byte) error {
	flagsOff := in.offset()
	flags, err := in.u8()
	if err != nil {
		return err
	}
	a.ttl = mutation.NoTTL
	a.ldt = math.MaxInt32
	a.value = nil
	a.end = nil
	switch {
	case flags&flagScyllaShadow != 0:
		return in.corrupt(flagsOff, "atom flags 0x%02x: 0x40 marks a ScyllaDB shadowable tombstone, which Cassandra never writes and la cannot represent", flags)
	case flags != 0 && flags != flagDeletion && flags != flagExpiration && flags != flagCounter &&
		flags != flagCounterUpdate && flags != flagRangeTombstone:
		// Cassandra writes exactly one of the flags.
		return in.corrupt(flagsOff, "unknown atom flags 0x%02x", flags)
	case flags&flagRangeTombstone != 0:
		a.kind = atomRangeTombstone
		end, err := in.shortBytes()
		if err != nil {
			return err
		}
		a.end = keep(arena, end)
		b, err := in.next(deletionTimeSize)
		if err != nil {
			return err
		}
		a.deletion = decodeDeletionTime(b)
		return nil
	case flags&flagCounter != 0:
		a.kind = atomCounterCell
		if a.lastDelete, err = in.i64(); err != nil {
			return err
		}
		if a.timestamp, err = in.i64(); err != nil {
			return err
		}
		return readValue(in, a, arena)
	case flags&flagExpiration != 0:
		a.kind = atomExpiringCell
		off := in.offset()
		if a.ttl, err = in.i32(); err != nil {
			return err
		}
		if a.ttl <= 0 {
			return in.corrupt(off, "expiring cell with ttl %d", a.ttl)
		}
		if a.ldt, err = in.i32(); err != nil {
			return err
		}
		if a.timestamp, err = in.i64(); err != nil {
			return err
		}
		return readValue(in, a, arena)
	case flags&flagCounterUpdate != 0:
		return in.corrupt(flagsOff, "counter update cell (flags 0x08) is never written to an SSTable")
	case flags&flagDeletion != 0:
		a.kind = atomTombstoneCell
		if a.timestamp, err = in.i64(); err != nil {
			return err
		}
		off := in.offset()
		v, err := in.intBytes()
		if err != nil {
			return err
		}
		if len(v) != deletedValueSize {
			return in.corrupt(off, "deleted cell value of %d bytes, want the 4-byte local deletion time", len(v))
		}
		a.ldt = int32(uint32(v[0])<<24 | uint32(v[1])<<16 | uint32(v[2])<<8 | uint32(v[3]))
		return nil
	default:
		a.kind = atomCell
		if a.timestamp, err = in.i64(); err != nil {
			return err
		}
		return readValue(in, a, arena)
	}
}

func readValue(in *input, a *atom, arena *[]byte) error {
	v, err := in.intBytes()
	if err != nil {
		return err
	}
	a.value = keep(arena, v)
	return nil
}
