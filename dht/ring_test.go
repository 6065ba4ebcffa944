package dht

import (
	"slices"
	"testing"
)

// nodetoolRing is `nodetool ring` as Cassandra 3.11 prints it for three
// nodes, one token each.
const nodetoolRing = `
Datacenter: datacenter1
==========
Address    Rack        Status State   Load            Owns                Token
                                                                          3074457345618258602
127.0.0.1  rack1       Up     Normal  110.35 KiB      33.33%              -9223372036854775808
127.0.0.2  rack1       Up     Normal  98.2 KiB        33.33%              -3074457345618258603
127.0.0.3  rack1       Down   Normal  ?               ?                   3074457345618258602

  Warning: "nodetool ring" is used to output all the tokens of a node.
  To view status related info of a node use "nodetool status" instead.
`

func TestParseRing(t *testing.T) {
	want := []Node{
		{Name: "127.0.0.1", Tokens: []string{"-9223372036854775808"}},
		{Name: "127.0.0.2", Tokens: []string{"-3074457345618258603"}},
		{Name: "127.0.0.3", Tokens: []string{"3074457345618258602"}},
	}
	for name, in := range map[string]string{
		"nodetool": nodetoolRing,
		"json":     `[{"node": "127.0.0.1", "tokens": [-9223372036854775808]}, {"node": "127.0.0.2", "tokens": ["-3074457345618258603"]}, {"address": "127.0.0.3", "tokens": [3074457345618258602]}]`,
	} {
		got, err := ParseRing([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.EqualFunc(got, want, func(a, b Node) bool { return a.Name == b.Name && slices.Equal(a.Tokens, b.Tokens) }) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	vn := "Address Rack Status State Load Owns Token\n  9\n10.0.0.1 r1 Up Normal 1 KiB 50% 1\n10.0.0.2 r1 Up Normal 1 KiB 50% 5\n10.0.0.1 r1 Up Normal 1 KiB 50% 9\n"
	got, err := ParseRing([]byte(vn))
	if err != nil || len(got) != 2 || !slices.Equal(got[0].Tokens, []string{"1", "9"}) {
		t.Errorf("vnodes: %v %v", got, err)
	}
	for _, bad := range []string{"", "Address Rack Status State Load Owns Token\n10.0.0.1 x\n", `[{"tokens": ["1"]}]`, `[{"node": "a/b", "tokens": ["1"]}]`, `[{"node": "a"}]`, "[{"} {
		if _, err := ParseRing([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestParseRingTokens: the three forms give the same tokens; bad tokens
// name their line.
func TestParseRingTokens(t *testing.T) {
	want := []Token{Murmur3.MinToken(), Murmur3Token(-3074457345618258603), Murmur3Token(3074457345618258602)}
	for name, in := range map[string]string{
		"nodetool": nodetoolRing,
		"json":     `[{"node": "a", "tokens": ["-9223372036854775808", "-3074457345618258603"]}, {"node": "b", "tokens": [3074457345618258602]}]`,
		"lines":    "# the ring\n-9223372036854775808\n\n  -3074457345618258603\n3074457345618258602\n",
	} {
		got, err := ParseRingTokens(Murmur3, []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.EqualFunc(got, want, Token.Equal) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	for _, bad := range []string{"", "# nothing\n", "1\nx\n", "1 2\n"} {
		if _, err := ParseRingTokens(Murmur3, []byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ParseRingTokens(Murmur3, []byte("1\nnope\n")); err == nil || err.Error()[:6] != "line 2" {
		t.Errorf("a bad token: %v", err)
	}
}

func TestParseRange(t *testing.T) {
	r, err := ParseRange(Murmur3, " (-10,20] ")
	if err != nil || !r.Left.Equal(Murmur3Token(-10)) || !r.Right.Equal(Murmur3Token(20)) {
		t.Fatalf("%v %v", r, err)
	}
	if got := r.Format(Murmur3); got != "(-10, 20]" {
		t.Errorf("format %s", got)
	}
	if r, err = ParseRange(Murmur3, "(-9223372036854775808, -9223372036854775808]"); err != nil || !r.Wraps() {
		t.Errorf("the whole ring: %v %v", r, err)
	}
	for _, bad := range []string{"", "(1, 2)", "[1, 2]", "(1 2]", "(1, 2, 3]", "(x, 2]", "(1, y]"} {
		if _, err := ParseRange(Murmur3, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRingShare(t *testing.T) {
	for _, p := range []Partitioner{Murmur3, Random} {
		rs, err := SplitRing(p, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if s, ok := RingShare(p, r); !ok || s < 0.2499 || s > 0.2501 {
				t.Errorf("%s %s: share %g %v", p.Name(), r.Format(p), s, ok)
			}
		}
		if s, _ := RingShare(p, Range{Left: p.MinToken(), Right: p.MinToken()}); s != 1 {
			t.Errorf("%s: the whole ring's share %g", p.Name(), s)
		}
	}
	if _, ok := RingShare(ByteOrdered, Range{}); ok {
		t.Error("ByteOrdered has a share")
	}
}
