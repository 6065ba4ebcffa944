package pipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/castable-db/castable/dht"
)

// Node is one node of a Cassandra ring: a name (the address nodetool ring
// prints, used as its output directory) and the tokens it owns.
type Node struct {
	Name   string   `json:"node"`
	Tokens []string `json:"tokens"`
}

// ParseRing reads a ring, in either of two forms:
//
//   - the output of `nodetool ring` (every datacenter's section; the
//     address is each line's first column and the token its last; the
//     header, the datacenter lines and the lone "last token" line are
//     skipped), or
//   - JSON: [{"node": "10.0.0.1", "tokens": ["-9223372036854775808", ...]}, ...],
//     tokens as strings or as JSON numbers (read exactly, not as floats).
//
// Nodes come out in the order they first appear. The tokens are checked
// later against the partitioner (see newPlan).
func ParseRing(data []byte) ([]Node, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{') {
		return parseRingJSON(trimmed)
	}
	return parseNodetoolRing(data)
}

func parseRingJSON(data []byte) ([]Node, error) {
	var raw []struct {
		Node    string        `json:"node"`
		Address string        `json:"address"`
		Tokens  []json.Number `json:"tokens"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("ring JSON: %w (want [{\"node\": \"10.0.0.1\", \"tokens\": [\"-9223372036854775808\"]}, ...])", err)
	}
	var nodes []Node
	for i, r := range raw {
		name := r.Node
		if name == "" {
			name = r.Address
		}
		if name == "" {
			return nil, fmt.Errorf("ring JSON: entry %d has no \"node\"", i)
		}
		n := Node{Name: name}
		for _, t := range r.Tokens {
			n.Tokens = append(n.Tokens, t.String())
		}
		nodes = append(nodes, n)
	}
	return mergeNodes(nodes)
}

func parseNodetoolRing(data []byte) ([]Node, error) {
	var nodes []Node
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	inTable := false
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0:
			inTable = false // a datacenter's table ends at a blank line
			continue
		case f[0] == "Address" && f[len(f)-1] == "Token":
			inTable = true
			continue
		case strings.HasPrefix(f[0], "Datacenter:"), strings.HasPrefix(f[0], "==="):
			inTable = false
			continue
		case !inTable:
			continue
		case len(f) == 1:
			continue // the datacenter's last token, printed above its nodes
		case len(f) < 4:
			return nil, fmt.Errorf("nodetool ring line %d: %q is not \"address rack status state load owns token\"", line, sc.Text())
		}
		nodes = append(nodes, Node{Name: f[0], Tokens: []string{f[len(f)-1]}})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, errors.New("nodetool ring output: no node lines (want the table under \"Address  Rack  Status  State  Load  Owns  Token\")")
	}
	return mergeNodes(nodes)
}

// mergeNodes joins the entries of one node (nodetool ring prints one line
// per token), keeping first-appearance order.
func mergeNodes(in []Node) ([]Node, error) {
	var out []Node
	at := map[string]int{}
	for _, n := range in {
		if err := checkNodeName(n.Name); err != nil {
			return nil, err
		}
		i, ok := at[n.Name]
		if !ok {
			i = len(out)
			at[n.Name] = i
			out = append(out, Node{Name: n.Name})
		}
		out[i].Tokens = append(out[i].Tokens, n.Tokens...)
	}
	for _, n := range out {
		if len(n.Tokens) == 0 {
			return nil, fmt.Errorf("ring: node %s has no token", n.Name)
		}
	}
	return out, nil
}

// checkNodeName refuses node names that cannot be one directory.
func checkNodeName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") || strings.HasPrefix(name, "_") {
		return fmt.Errorf("ring: node name %q cannot name an output directory", name)
	}
	return nil
}

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
