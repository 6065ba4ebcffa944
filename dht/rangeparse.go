package dht

import (
	"fmt"
	"math"
	"strings"
)

// ParseRange parses a token range as Cassandra writes it, "(a, b]" (the
// tokens after a up to b; see Range), with p's token strings. The form
// takes exactly one comma, so a key-ordered token holding one cannot be
// given this way.
func ParseRange(p Partitioner, s string) (Range, error) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "(") || !strings.HasSuffix(t, "]") {
		return Range{}, fmt.Errorf("token range %q: want (left, right] — the tokens after left up to right", s)
	}
	parts := strings.Split(t[1:len(t)-1], ",")
	if len(parts) != 2 {
		return Range{}, fmt.Errorf("token range %q: want two tokens separated by one comma", s)
	}
	var r Range
	var err error
	if r.Left, err = p.ParseToken(strings.TrimSpace(parts[0])); err != nil {
		return Range{}, fmt.Errorf("token range %q: %w", s, err)
	}
	if r.Right, err = p.ParseToken(strings.TrimSpace(parts[1])); err != nil {
		return Range{}, fmt.Errorf("token range %q: %w", s, err)
	}
	return r, nil
}

// RingShare returns the part of the ring r covers (between 0 and 1) for a
// partitioner whose tokens spread evenly (Murmur3, Random), and false for
// the key-ordered ones, whose spread depends on the keys.
func RingShare(p Partitioner, r Range) (float64, bool) {
	var share float64
	switch p {
	case Murmur3:
		share = float64(r.Right.hi-r.Left.hi) / math.Exp2(64)
	case Random:
		v := func(t Token) float64 { return float64(t.hi)*math.Exp2(64) + float64(t.lo) }
		share = (v(r.Right) - v(r.Left)) / (math.Exp2(127) + 1)
	default:
		return 0, false
	}
	if share <= 0 {
		share++
	}
	return share, true
}
