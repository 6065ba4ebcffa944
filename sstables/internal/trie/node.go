// Package trie is the on-disk trie of Cassandra 5.0's BTI SSTables
// (io/tries in Cassandra): the node format, the incremental page-aware
// writer that lays nodes out exactly as Cassandra's
// IncrementalDeepTrieWriterPageAware does, and a reader that walks,
// searches, iterates and verifies tries held in memory.
//
// The package knows nothing of what the payloads mean: Partitions.db and
// Rows.db (package sstables/bti) choose the 4 payload flag bits of each node
// and the payload bytes written right after it. It imports nothing of the
// project.
//
// # Node format (all integers big-endian, unsigned)
//
// Byte 0 of every node: high nibble = node type, low nibble = payload flags
// (0 = no payload; for the two SINGLE_NOPAYLOAD types the low nibble is
// part of the pointer instead). Pointers are distances back from the node's
// own position to the child's position: children are always written before
// their parents, so every pointer points backwards. 12-bit pointer arrays
// are packed as a big-endian bit string, two entries per three bytes; an
// odd last entry takes two bytes whose low nibble is zero.
//
//	type  name                 after byte 0                                     size
//	0     PAYLOAD_ONLY         —                                                1
//	1     SINGLE_NOPAYLOAD_4   transition; pointer = low nibble of byte 0      2
//	2     SINGLE_8             transition, u8 pointer                          3
//	3     SINGLE_NOPAYLOAD_12  (nibble<<8 | byte 1) pointer, transition        3
//	4     SINGLE_16            transition, u16 pointer                         4
//	5     SPARSE_8             count c, c transitions (ascending), c u8 ptrs   2+2c
//	6     SPARSE_12            count c, c transitions, c 12-bit ptrs           2+(5c+1)/2
//	7,8,9 SPARSE_16/24/40      count c, c transitions, c 2/3/5-byte ptrs       2+c(1+w)
//	10    DENSE_12             first transition f, last-f, L 12-bit ptrs        3+(3L+1)/2
//	11-14 DENSE_16/24/32/40    f, last-f, L 2/3/4/5-byte ptrs                  3+Lw
//	15    LONG_DENSE           f, last-f, L 8-byte ptrs                        3+8L
//
// In dense nodes L = last-f+1 and a zero pointer means "no child". The
// payload, when the flags say there is one, follows the node.
package trie

import "fmt"

// NodeType is the 4-bit type of a trie node (the high nibble of its first
// byte). The values are part of the on-disk format.
type NodeType uint8

// The node types of Cassandra 5.0's TrieNode.
const (
	PayloadOnly       NodeType = 0
	SingleNoPayload4  NodeType = 1
	Single8           NodeType = 2
	SingleNoPayload12 NodeType = 3
	Single16          NodeType = 4
	Sparse8           NodeType = 5
	Sparse12          NodeType = 6
	Sparse16          NodeType = 7
	Sparse24          NodeType = 8
	Sparse40          NodeType = 9
	Dense12           NodeType = 10
	Dense16           NodeType = 11
	Dense24           NodeType = 12
	Dense32           NodeType = 13
	Dense40           NodeType = 14
	LongDense         NodeType = 15
)

var typeNames = [16]string{"PAYLOAD_ONLY", "SINGLE_NOPAYLOAD_4", "SINGLE_8", "SINGLE_NOPAYLOAD_12",
	"SINGLE_16", "SPARSE_8", "SPARSE_12", "SPARSE_16", "SPARSE_24", "SPARSE_40", "DENSE_12",
	"DENSE_16", "DENSE_24", "DENSE_32", "DENSE_40", "LONG_DENSE"}

// String returns Cassandra's name of the type.
func (t NodeType) String() string {
	if t < 16 {
		return typeNames[t]
	}
	return fmt.Sprintf("NodeType(%d)", uint8(t))
}

// pointerBits is the pointer width of each type in bits (0 for
// PAYLOAD_ONLY).
var pointerBits = [16]int{0, 4, 8, 12, 16, 8, 12, 16, 24, 40, 12, 16, 24, 32, 40, 64}

// PointerBits returns the width of the type's child pointers in bits.
func (t NodeType) PointerBits() int { return pointerBits[t&15] }

// IsSingle, IsSparse and IsDense classify the type.
func (t NodeType) IsSingle() bool { return t >= SingleNoPayload4 && t <= Single16 }

// IsSparse reports whether t is one of the SPARSE types.
func (t NodeType) IsSparse() bool { return t >= Sparse8 && t <= Sparse40 }

// IsDense reports whether t is one of the DENSE types or LONG_DENSE.
func (t NodeType) IsDense() bool { return t >= Dense12 }

// CanHavePayload reports whether the low nibble of the first byte holds
// payload flags (false for the SINGLE_NOPAYLOAD types).
func (t NodeType) CanHavePayload() bool { return t != SingleNoPayload4 && t != SingleNoPayload12 }

// fits reports whether a pointer distance d fits the type's pointers
// (TrieNode.fits).
func (t NodeType) fits(d int64) bool {
	switch t {
	case SingleNoPayload4:
		return d >= 0 && d <= 0xF
	case SingleNoPayload12, Sparse12, Dense12:
		return d >= 0 && d <= 0xFFF
	case LongDense:
		return true
	}
	return d >= 0 && d < int64(1)<<uint(pointerBits[t])
}

// The type-selection tables of TrieNode.Types, indexed by the smallest
// pointer class that fits the largest child distance.
var (
	singles = [8]NodeType{SingleNoPayload4, Single8, SingleNoPayload12, Single16, Dense24, Dense32, Dense40, LongDense}
	sparses = [8]NodeType{Sparse8, Sparse8, Sparse12, Sparse16, Sparse24, Sparse40, Sparse40, LongDense}
	denses  = [8]NodeType{Dense12, Dense12, Dense12, Dense16, Dense24, Dense32, Dense40, LongDense}
)

// nodeSize returns the size of a node of type t (without payload) with c
// children whose first and last transitions are lo and hi.
func nodeSize(t NodeType, c, lo, hi int) int {
	switch {
	case t == PayloadOnly:
		return 1
	case t == SingleNoPayload4:
		return 2
	case t == Single8, t == SingleNoPayload12:
		return 3
	case t == Single16:
		return 4
	case t == Sparse12:
		return 2 + (5*c+1)/2
	case t.IsSparse():
		return 2 + c*(1+pointerBits[t]/8)
	case t == Dense12:
		return 3 + (3*(hi-lo+1)+1)/2
	}
	return 3 + (hi-lo+1)*pointerBits[t]/8
}

// ChooseType is TrieNode.typeFor: the node type Cassandra uses for a node
// with c children whose transitions span lo…hi, the largest child distance
// maxDist (> 0) and, for single-child nodes, whether it carries a payload.
func ChooseType(c, lo, hi int, maxDist int64, hasPayload bool) NodeType {
	if c == 0 {
		return PayloadOnly
	}
	k := 0
	for !singles[k].fits(maxDist) {
		k++
	}
	if c == 1 {
		if hasPayload && !singles[k].CanHavePayload() {
			k++
		}
		return singles[k]
	}
	sp, de := sparses[k], denses[k]
	if nodeSize(sp, c, lo, hi) < nodeSize(de, c, lo, hi) {
		return sp
	}
	return de
}
