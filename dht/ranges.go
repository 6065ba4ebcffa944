package dht

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
)

// Range is a range of one partitioner's tokens, (Left, Right] as Cassandra
// writes them: the tokens t with Left < t <= Right. A range whose Right is
// not after its Left wraps around the ring: it holds the tokens after Left
// and those up to Right; (x, x] is the whole ring.
type Range struct {
	Left, Right Token
}

// Wraps reports whether r goes past the end of the ring (Right <= Left).
func (r Range) Wraps() bool { return Compare(r.Right, r.Left) <= 0 }

// Contains reports whether t is in r.
func (r Range) Contains(t Token) bool {
	if r.Wraps() {
		return Compare(t, r.Left) > 0 || Compare(t, r.Right) <= 0
	}
	return Compare(t, r.Left) > 0 && Compare(t, r.Right) <= 0
}

// Format renders r with p's token strings: "(-9223372036854775808, 0]".
func (r Range) Format(p Partitioner) string {
	return fmt.Sprintf("(%s, %s]", p.String(r.Left), p.String(r.Right))
}

// Limits of SplitRing for the key-ordered partitioners, whose ranges split
// the first byte (ByteOrdered) or first printable ASCII character
// (OrderPreserving) of the keys.
const (
	maxByteOrderedSplits     = 256
	firstPrintable           = 0x20
	maxOrderPreservingSplits = 0x7f - firstPrintable
)

// SplitRing divides p's token space into n contiguous ranges in ring order:
// the first starts at the minimum token and the last ends there (it holds
// every token after the last split point, so the n ranges hold every token
// exactly once).
//
// For Murmur3 and Random, whose tokens are hashes spread evenly, the ranges
// have equal widths (split points Min + i·(Max−Min)/n, rounded down).
// Key-ordered partitioners have no such spread: their tokens are the keys,
// whatever their distribution. SplitRing splits them on the keys' first
// byte (ByteOrdered: split points at byte i·256/n, at most 256 ranges) or
// first character among the printable ASCII ones (OrderPreserving: ' ' to
// '~', at most 95 ranges; keys beyond '~' fall in the last range), which
// suits text-like keys; a ring's real tokens (RingRanges) place data as the
// cluster does.
func SplitRing(p Partitioner, n int) ([]Range, error) {
	if n < 1 {
		return nil, fmt.Errorf("dht: %d ranges: want at least one", n)
	}
	points := make([]Token, n) // points[0] is the minimum
	switch p {
	case Murmur3:
		for i := 1; i < n; i++ {
			// hi holds the signed value with its sign flipped: 0 is the
			// minimum and 2^64-1 the maximum.
			hi, _ := bits.Div64(uint64(i), 0, uint64(n)) // i·2^64/n
			points[i] = Token{hi: hi}
		}
	case Random:
		// Tokens are value+1 in hi:lo, from 0 (the minimum, -1) to
		// 2^127+1 (2^127).
		span := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
		for i := 1; i < n; i++ {
			v := new(big.Int).Mul(span, big.NewInt(int64(i)))
			v.Div(v, big.NewInt(int64(n)))
			var b [16]byte
			v.FillBytes(b[:])
			points[i] = Token{hi: be64(b[:8]), lo: be64(b[8:])}
		}
	case ByteOrdered:
		if n > maxByteOrderedSplits {
			return nil, fmt.Errorf("dht: %s splits on the keys' first byte: at most %d ranges, not %d (give the ring's tokens instead)", shortName(p.Name()), maxByteOrderedSplits, n)
		}
		for i := 1; i < n; i++ {
			points[i] = bytesToken([]byte{byte(i * 256 / n)})
		}
	case OrderPreserving:
		if n > maxOrderPreservingSplits {
			return nil, fmt.Errorf("dht: %s splits on the keys' first printable character: at most %d ranges, not %d (give the ring's tokens instead)", shortName(p.Name()), maxOrderPreservingSplits, n)
		}
		for i := 1; i < n; i++ {
			points[i] = bytesToken(utf16BE(string(rune(firstPrintable + i*maxOrderPreservingSplits/n))))
		}
	default:
		return nil, fmt.Errorf("dht: cannot split the token space of %s", p.Name())
	}
	out := make([]Range, n)
	for i := range out {
		out[i] = Range{Left: points[i], Right: points[(i+1)%n]}
	}
	return out, nil
}

// RingRanges returns the ranges a ring's tokens delimit, one per token in
// token order: the range a token ends, from the token before it — (t[i-1],
// t[i]] — and for the first token the wrapping range from the last one.
// In Cassandra the node that owns t[i] is the primary replica of its range.
// tokens may come in any order; a token given twice is an error.
func RingRanges(tokens []Token) ([]Range, error) {
	if len(tokens) == 0 {
		return nil, errors.New("dht: a ring needs at least one token")
	}
	sorted := slices.Clone(tokens)
	slices.SortFunc(sorted, Compare)
	for i := 1; i < len(sorted); i++ {
		if Compare(sorted[i-1], sorted[i]) == 0 {
			return nil, errors.New("dht: a token is given twice in the ring")
		}
	}
	out := make([]Range, len(sorted))
	for i, t := range sorted {
		out[i] = Range{Left: sorted[(i+len(sorted)-1)%len(sorted)], Right: t}
	}
	return out, nil
}

// RangeIndex finds the range of a token among ranges that cover the ring
// exactly once (SplitRing's or RingRanges'), in O(log n).
type RangeIndex struct {
	// ends are the ranges' Right tokens in token order, at[i] the index
	// (in the slice given to NewRangeIndex) of the range ending at ends[i].
	ends []Token
	at   []int
}

// NewRangeIndex indexes ranges, which must cover the ring exactly once:
// each range starts where another ends. It keeps no reference to ranges.
func NewRangeIndex(ranges []Range) (*RangeIndex, error) {
	if len(ranges) == 0 {
		return nil, errors.New("dht: no ranges")
	}
	x := &RangeIndex{ends: make([]Token, len(ranges)), at: make([]int, len(ranges))}
	order := make([]int, len(ranges))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return Compare(ranges[a].Right, ranges[b].Right) })
	for i, r := range order {
		x.ends[i], x.at[i] = ranges[r].Right, r
	}
	// Tiling: sorted by their ends, each range starts at the previous end
	// (the first at the last end), and exactly one range wraps unless
	// there is one range only.
	wraps := 0
	for i, r := range order {
		prev := x.ends[(i+len(order)-1)%len(order)]
		if Compare(ranges[r].Left, prev) != 0 {
			return nil, fmt.Errorf("dht: the ranges do not cover the ring once (a range ends where the next does not start)")
		}
		if ranges[r].Wraps() {
			wraps++
		}
	}
	if wraps != 1 {
		return nil, fmt.Errorf("dht: the ranges do not cover the ring once (%d of them wrap)", wraps)
	}
	return x, nil
}

// Find returns the index of the range holding t.
func (x *RangeIndex) Find(t Token) int {
	i, _ := slices.BinarySearchFunc(x.ends, t, Compare) // the first end >= t
	if i == len(x.ends) {
		i = 0 // after the last end: the wrapping range
	}
	return x.at[i]
}

// Len returns the number of ranges.
func (x *RangeIndex) Len() int { return len(x.ends) }
