package pipeline

import (
	"strings"
	"testing"

	"github.com/castable-db/castable/dht"
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

// ParseRing is dht.ParseRing, tested there (dht.TestParseRing); here only
// that the alias reads the ring TestPlanReplicas uses.
func TestParseRingIsDHTs(t *testing.T) {
	got, err := ParseRing([]byte(nodetoolRing))
	if err != nil || len(got) != 3 || got[2].Name != "127.0.0.3" {
		t.Fatalf("%v %v", got, err)
	}
}

// TestPlanReplicas: SimpleStrategy placement — a token's primary replica
// owns the first token at or after it, the next distinct nodes clockwise
// hold the other replicas.
func TestPlanReplicas(t *testing.T) {
	ring, _ := ParseRing([]byte(nodetoolRing))
	p, err := newPlan(planSpec{Partitioner: dht.Murmur3Name, Ring: ring, RF: 2})
	if err != nil {
		t.Fatal(err)
	}
	dirs := func(tok int64) string {
		var d []string
		for _, w := range p.writersOf(dht.Murmur3Token(tok)) {
			d = append(d, p.writers[w].Dir)
		}
		return strings.Join(d, " ")
	}
	for _, tc := range []struct {
		tok  int64
		want string
	}{
		{-3074457345618258603, "127.0.0.2 127.0.0.3"}, // on node 2's token: its own range
		{-3074457345618258602, "127.0.0.3 127.0.0.1"},
		{0, "127.0.0.3 127.0.0.1"},
		{3074457345618258603, "127.0.0.1 127.0.0.2"}, // past the last token: wraps to node 1
		{-9223372036854775807, "127.0.0.2 127.0.0.3"},
	} {
		if got := dirs(tc.tok); got != tc.want {
			t.Errorf("token %d: %s, want %s", tc.tok, got, tc.want)
		}
	}
	// vnodes: replicas skip a node's own later tokens.
	vring := []Node{{Name: "a", Tokens: []string{"0", "10"}}, {Name: "b", Tokens: []string{"20"}}, {Name: "c", Tokens: []string{"30"}}}
	p, err = newPlan(planSpec{Partitioner: dht.Murmur3Name, Ring: vring, RF: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := dirs(5); got != "a b" {
		t.Errorf("vnodes, token 5: %s, want a b (not a twice)", got)
	}
	// A ring with slices: one writer per node and slice.
	p, err = newPlan(planSpec{Partitioner: dht.Murmur3Name, Ring: ring, RF: 2, Slices: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.writers) != 12 || dirs(0) != "127.0.0.3 127.0.0.1" {
		t.Errorf("sliced: %d writers, token 0 at %s", len(p.writers), dirs(0))
	}
	if w := p.writersOf(dht.Murmur3Token(0)); p.writers[w[0]].Index != 1 || !p.holds(w[1], dht.Murmur3Token(0)) || p.holds(w[0], dht.Murmur3Token(1)) {
		t.Errorf("sliced writers of token 0: %v", w)
	}
	for _, bad := range []planSpec{
		{Partitioner: dht.Murmur3Name, Ring: ring, RF: 4},
		{Partitioner: dht.Murmur3Name, RF: 2},
		{Partitioner: dht.Murmur3Name, Ring: []Node{{Name: "a", Tokens: []string{"x"}}}},
		{Partitioner: dht.Murmur3Name, Ring: []Node{{Name: "a", Tokens: []string{"1"}}, {Name: "b", Tokens: []string{"1"}}}},
		{Partitioner: "nope"},
	} {
		if _, err := newPlan(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	// Ranges alone.
	p, err = newPlan(planSpec{Partitioner: dht.Murmur3Name, Slices: 4})
	if err != nil || len(p.writers) != 4 || p.writers[3].Dir != "range-003" || dirs(1) != "range-002" {
		t.Errorf("ranges: %v %v", p, err)
	}
}
