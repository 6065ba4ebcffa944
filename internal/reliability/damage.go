package reliability

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/castable-db/castable/sstables"
)

// Kind is a kind of damage.
type Kind uint8

// The kinds of damage a sweep applies to one component.
const (
	// Truncate cuts the file to Offset bytes.
	Truncate Kind = iota
	// Flip XORs the byte at Offset with Mask.
	Flip
)

func (k Kind) String() string {
	if k == Truncate {
		return "truncate"
	}
	return "flip"
}

// Damage is one corruption of one component.
type Damage struct {
	Component sstables.Component
	Kind      Kind
	// Offset is the new length (Truncate) or the damaged byte (Flip).
	Offset int
	// Mask is XORed into the byte (Flip).
	Mask byte
}

func (d Damage) String() string {
	if d.Kind == Truncate {
		return fmt.Sprintf("%s truncated to %d bytes", d.Component, d.Offset)
	}
	return fmt.Sprintf("%s byte %d ^ 0x%02x", d.Component, d.Offset, d.Mask)
}

// Apply returns the damaged copy of orig (a new slice).
func (d Damage) Apply(orig []byte) []byte {
	if d.Kind == Truncate {
		return slices.Clone(orig[:d.Offset])
	}
	b := slices.Clone(orig)
	b[d.Offset] ^= d.Mask
	return b
}

// Plan chooses the damage a sweep applies.
type Plan struct {
	// ExhaustiveLimit: a component of at most this many bytes is truncated
	// at every length and flipped at every byte.
	ExhaustiveLimit int
	// Spread is the number of evenly spaced offsets added for a larger
	// component.
	Spread int
	// Edge is the number of bytes at each end of a larger component that
	// are all visited.
	Edge int
	// Window is the number of bytes visited on each side of a structural
	// boundary (chunk edges, index entries, component headers) of a larger
	// component.
	Window int
	// MaxBoundaries caps the boundaries used per component (sampled
	// evenly).
	MaxBoundaries int
	// Masks are the XOR masks of the flips: each visited byte is flipped
	// once per mask.
	Masks []byte
	// BigTarget and BigBudget: an SSTable whose components total more than
	// BigTarget bytes gets at most BigBudget cases per component (sampled
	// evenly), each case reading it whole; 0 means no limit.
	BigTarget, BigBudget int
}

// budget samples damages evenly down to the plan's budget for an SSTable of
// size bytes.
func (p Plan) budget(damages []Damage, size int) []Damage {
	if p.BigTarget <= 0 || size <= p.BigTarget || len(damages) <= p.BigBudget {
		return damages
	}
	out := make([]Damage, 0, p.BigBudget)
	for k := 0; k < p.BigBudget; k++ {
		out = append(out, damages[k*len(damages)/p.BigBudget])
	}
	return out
}

// QuickPlan is the default sweep (CI): small components fully, larger ones
// at their boundaries and a spread.
var QuickPlan = Plan{ExhaustiveLimit: 128, Spread: 48, Edge: 16, Window: 1, MaxBoundaries: 48, Masks: []byte{0xff},
	BigTarget: 1 << 20, BigBudget: 6}

// ShortPlan is QuickPlan scaled down for make test (go test -short): every
// component still truncated and flipped at its ends, boundaries and a
// spread, a quarter as densely.
var ShortPlan = Plan{ExhaustiveLimit: 32, Spread: 12, Edge: 4, Window: 1, MaxBoundaries: 12, Masks: []byte{0xff},
	BigTarget: 1 << 20, BigBudget: 3}

// FullPlan is the sweep behind the README table: every length and byte of
// components up to 16 KiB, dense sampling above.
var FullPlan = Plan{ExhaustiveLimit: 16 << 10, Spread: 1024, Edge: 64, Window: 3, MaxBoundaries: 1024, Masks: []byte{0xff, 0x01},
	BigTarget: 1 << 20, BigBudget: 400}

// Damages lists the damage the plan applies to component c of size n, given
// its structural boundaries.
func (p Plan) Damages(c sstables.Component, n int, boundaries []int) []Damage {
	offsets := p.offsets(n, boundaries)
	out := make([]Damage, 0, len(offsets)*(1+len(p.Masks)))
	for _, off := range offsets {
		out = append(out, Damage{Component: c, Kind: Truncate, Offset: off})
	}
	for _, off := range offsets {
		for _, m := range p.Masks {
			out = append(out, Damage{Component: c, Kind: Flip, Offset: off, Mask: m})
		}
	}
	return out
}

// offsets returns the byte offsets (in [0, n)) the plan visits.
func (p Plan) offsets(n int, boundaries []int) []int {
	if n <= p.ExhaustiveLimit {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	add := func(i int) {
		if i >= 0 && i < n {
			out = append(out, i)
		}
	}
	for i := 0; i < p.Edge; i++ {
		add(i)
		add(n - 1 - i)
	}
	if p.Spread > 0 {
		for k := 0; k < p.Spread; k++ {
			add(int(int64(k) * int64(n) / int64(p.Spread)))
		}
	}
	bs := slices.Clone(boundaries)
	slices.Sort(bs)
	bs = slices.Compact(bs)
	if len(bs) > p.MaxBoundaries && p.MaxBoundaries > 0 {
		sampled := make([]int, 0, p.MaxBoundaries)
		for k := 0; k < p.MaxBoundaries; k++ {
			sampled = append(sampled, bs[k*len(bs)/p.MaxBoundaries])
		}
		sampled = append(sampled, bs[len(bs)-1])
		bs = sampled
	}
	for _, b := range bs {
		for d := -p.Window; d <= p.Window; d++ {
			add(b + d)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// statisticsBoundaries returns the offsets of Statistics.db's table of
// contents and of each metadata component it points to (la and 3.x share
// this framing: i32 count, count × (i32 type, i32 offset), big-endian).
func statisticsBoundaries(b []byte) []int {
	if len(b) < 4 {
		return nil
	}
	n := int(binary.BigEndian.Uint32(b))
	out := []int{0, 4}
	for i := 0; i < n && 4+8*i+8 <= len(b); i++ {
		out = append(out, 4+8*i, 4+8*i+4, int(binary.BigEndian.Uint32(b[4+8*i+4:])))
	}
	return out
}

// laIndexBoundaries returns the entry offsets of an la Index.db (u16 key
// length, key, i64 position, i32 promoted index size, promoted index;
// big-endian), and the field offsets inside each entry.
func laIndexBoundaries(b []byte) []int {
	var out []int
	for off := 0; off+2 <= len(b); {
		out = append(out, off)
		k := int(binary.BigEndian.Uint16(b[off:]))
		pos := off + 2 + k
		if pos+12 > len(b) {
			break
		}
		size := int(int32(binary.BigEndian.Uint32(b[pos+8:])))
		out = append(out, pos, pos+8, pos+12)
		if size < 0 {
			break
		}
		off = pos + 12 + size
	}
	return append(out, len(b))
}
