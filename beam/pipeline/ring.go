package pipeline

import (
	"errors"
	"fmt"

	"github.com/castable-db/castable/dht"
)

// Node is one node of a Cassandra ring (dht.Node: the parser moved into
// the core, where castable split reads rings too).
type Node = dht.Node

// ParseRing reads a ring: `nodetool ring` output or JSON (dht.ParseRing).
func ParseRing(data []byte) ([]Node, error) { return dht.ParseRing(data) }

// planSpec says how rows are split among writers; it travels with the
// pipeline's functions (exported fields: Beam serializes them as JSON).
type planSpec struct {
	// Partitioner is the table's partitioner class name.
	Partitioner string
	// Slices is the number of equal token-space slices (--ranges); 1 when
	// not given with a ring.
	Slices int
	// Ring, when set, places rows on its nodes (SimpleStrategy).
	Ring []Node
	// RF is the replication factor with a ring.
	RF int
}

// writer is one group of the output: one memtable-and-flush writer and
// the directory its SSTables go to. Writers of one ring node share its
// directory.
type writer struct {
	// Dir is the output subdirectory ("range-003", or a node's name).
	Dir string
	// Index is the writer's position among the writers of Dir, which
	// spaces their integer generations apart.
	Index int
	// Ranges are the token ranges whose rows it writes: one range of
	// SplitRing, or the ring ranges its node replicates, cut down to Slice
	// when that is set (a ring with --ranges).
	Ranges []dht.Range
	Slice  *dht.Range
}

// plan is a planSpec made ready: the writers and the lookup from a token to
// the writers that hold it.
type plan struct {
	part    dht.Partitioner
	slices  *dht.RangeIndex
	nslices int
	ring    *dht.RangeIndex
	// keys[j*nslices+s] are the writers of ring range j and slice s.
	keys    [][]int
	writers []writer
}

// newPlan checks spec and builds its writers.
func newPlan(spec planSpec) (*plan, error) {
	part, err := dht.Lookup(spec.Partitioner)
	if err != nil {
		return nil, err
	}
	if spec.Slices < 1 {
		spec.Slices = 1
	}
	sliceRanges, err := dht.SplitRing(part, spec.Slices)
	if err != nil {
		return nil, err
	}
	p := &plan{part: part, nslices: spec.Slices}
	if p.slices, err = dht.NewRangeIndex(sliceRanges); err != nil {
		return nil, err
	}
	if len(spec.Ring) == 0 {
		if spec.RF > 1 {
			return nil, errors.New("a replication factor needs a ring (--ring)")
		}
		for i, r := range sliceRanges {
			p.writers = append(p.writers, writer{Dir: fmt.Sprintf("range-%03d", i), Ranges: []dht.Range{r}})
			p.keys = append(p.keys, []int{i})
		}
		return p, nil
	}

	// A ring: the ranges its tokens delimit, each owned by the node whose
	// token ends it; replicas are the next distinct nodes clockwise.
	rf := max(spec.RF, 1)
	if rf > len(spec.Ring) {
		return nil, fmt.Errorf("replication factor %d needs at least %d nodes; the ring has %d", rf, rf, len(spec.Ring))
	}
	var tokens []dht.Token
	owner := map[string]int{} // token string (canonical) -> node
	for ni, n := range spec.Ring {
		for _, s := range n.Tokens {
			t, err := part.ParseToken(s)
			if err != nil {
				return nil, fmt.Errorf("ring: node %s: %w", n.Name, err)
			}
			key := part.String(t)
			if prev, dup := owner[key]; dup {
				return nil, fmt.Errorf("ring: token %s belongs to %s and %s", key, spec.Ring[prev].Name, n.Name)
			}
			owner[key] = ni
			tokens = append(tokens, t)
		}
	}
	ringRanges, err := dht.RingRanges(tokens)
	if err != nil {
		return nil, err
	}
	if p.ring, err = dht.NewRangeIndex(ringRanges); err != nil {
		return nil, err
	}
	for _, n := range spec.Ring {
		for s := 0; s < spec.Slices; s++ {
			w := writer{Dir: n.Name, Index: s}
			if spec.Slices > 1 {
				w.Slice = &sliceRanges[s]
			}
			p.writers = append(p.writers, w)
		}
	}
	p.keys = make([][]int, len(ringRanges)*spec.Slices)
	for j, r := range ringRanges {
		// Replicas of range j: its owner, then the owners of the next
		// ranges clockwise, skipping nodes already chosen.
		var replicas []int
		for k := 0; len(replicas) < rf; k++ {
			node := owner[part.String(ringRanges[(j+k)%len(ringRanges)].Right)]
			if !contains(replicas, node) {
				replicas = append(replicas, node)
			}
		}
		for s := 0; s < spec.Slices; s++ {
			for _, node := range replicas {
				w := node*spec.Slices + s
				p.keys[j*spec.Slices+s] = append(p.keys[j*spec.Slices+s], w)
				p.writers[w].Ranges = append(p.writers[w].Ranges, r)
			}
		}
	}
	return p, nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// holds reports whether writer w writes token t.
func (p *plan) holds(w int, t dht.Token) bool { return contains(p.writersOf(t), w) }

// writersOf returns the writers of a token.
func (p *plan) writersOf(t dht.Token) []int {
	s := p.slices.Find(t)
	if p.ring == nil {
		return p.keys[s]
	}
	return p.keys[p.ring.Find(t)*p.nslices+s]
}
