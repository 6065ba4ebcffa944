package dht

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
// later against the partitioner (RingTokens parses them).
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

// ParseRingTokens reads the tokens of a ring for partitioner p, in any of
// three forms: one token per line (blank lines and lines starting with '#'
// skipped), the output of `nodetool ring`, or the JSON form ParseRing
// reads. RingRanges turns them into the ranges they delimit.
func ParseRingTokens(p Partitioner, data []byte) ([]Token, error) {
	if looksLikeRing(data) {
		nodes, err := ParseRing(data)
		if err != nil {
			return nil, err
		}
		var out []Token
		for _, n := range nodes {
			ts, err := RingTokens(p, n)
			if err != nil {
				return nil, err
			}
			out = append(out, ts...)
		}
		return out, nil
	}
	var out []Token
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		t, err := p.ParseToken(s)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no token (want one token per line, nodetool ring output, or a JSON ring)")
	}
	return out, nil
}

// looksLikeRing reports whether data is nodetool ring output or JSON
// rather than a plain list of tokens.
func looksLikeRing(data []byte) bool {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{') {
		return true
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 1 && f[0] == "Address" && f[len(f)-1] == "Token" {
			return true
		}
	}
	return false
}

// RingTokens parses a node's tokens with p.
func RingTokens(p Partitioner, n Node) ([]Token, error) {
	out := make([]Token, 0, len(n.Tokens))
	for _, s := range n.Tokens {
		t, err := p.ParseToken(s)
		if err != nil {
			return nil, fmt.Errorf("ring: node %s: %w", n.Name, err)
		}
		out = append(out, t)
	}
	return out, nil
}
