package trie

import (
	"errors"
	"fmt"
)

// Error is a problem found in trie bytes, at an absolute file offset.
// Callers wrap it with the file and component.
type Error struct {
	// Offset is the absolute position of the offending node or byte.
	Offset int64
	// Reason says what is wrong.
	Reason string
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("trie: at offset %d: %s", e.Offset, e.Reason) }

func errorf(off int64, format string, args ...any) error {
	return &Error{Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// Trie reads trie nodes from bytes held in memory. Data is the content of
// the file from absolute position Base on (usually the whole file, Base 0).
// A Trie is immutable and safe for concurrent use.
type Trie struct {
	Data []byte
	Base int64
}

// New returns a Trie over data, which starts at absolute position 0.
func New(data []byte) *Trie { return &Trie{Data: data} }

// Node is a decoded node header.
type Node struct {
	// Pos is the absolute position of the node.
	Pos int64
	// Type is the node type.
	Type NodeType
	// Flags are the payload flags (0: no payload).
	Flags uint8
	// PayloadPos is the absolute position just after the node, where its
	// payload (if any) starts.
	PayloadPos int64

	// count is the number of child slots: children for single and sparse
	// nodes, the transition range for dense ones.
	count int
	// first is the first transition of a dense node.
	first int
	// hdr is the offset in Data of the node.
	hdr int
}

// Slots returns the number of child slots: the child count of single and
// sparse nodes, the transition range of dense nodes (whose slots may be
// empty).
func (n *Node) Slots() int { return n.count }

// HasChildren reports whether the node has at least one child slot.
func (n *Node) HasChildren() bool { return n.count > 0 }

// Node decodes the node at absolute position pos, checking that it lies
// within the data (its payload is not checked).
func (t *Trie) Node(pos int64) (Node, error) {
	off := pos - t.Base
	if off < 0 || off >= int64(len(t.Data)) {
		return Node{}, errorf(pos, "node position outside the file (%d bytes from %d)", len(t.Data), t.Base)
	}
	d := t.Data[off:]
	b0 := d[0]
	n := Node{Pos: pos, Type: NodeType(b0 >> 4), Flags: b0 & 0xF, hdr: int(off)}
	var size int
	switch n.Type {
	case PayloadOnly:
		size = 1
	case SingleNoPayload4:
		n.Flags, n.count, size = 0, 1, 2
	case SingleNoPayload12:
		n.Flags, n.count, size = 0, 1, 3
	case Single8:
		n.count, size = 1, 3
	case Single16:
		n.count, size = 1, 4
	case Sparse8, Sparse12, Sparse16, Sparse24, Sparse40:
		if len(d) < 2 {
			return Node{}, errorf(pos, "%v node truncated", n.Type)
		}
		n.count = int(d[1])
		if n.count == 0 {
			return Node{}, errorf(pos, "%v node with no children", n.Type)
		}
		size = nodeSize(n.Type, n.count, 0, 0)
	default:
		if len(d) < 3 {
			return Node{}, errorf(pos, "%v node truncated", n.Type)
		}
		n.first = int(d[1])
		n.count = int(d[2]) + 1
		if n.first+n.count > 256 {
			return Node{}, errorf(pos, "%v node transitions %d…%d beyond 255", n.Type, n.first, n.first+n.count-1)
		}
		size = nodeSize(n.Type, 0, n.first, n.first+n.count-1)
	}
	if size > len(d) {
		return Node{}, errorf(pos, "%v node of %d bytes truncated (%d left)", n.Type, size, len(d))
	}
	n.PayloadPos = pos + int64(size)
	return n, nil
}

func readUint(b []byte, n int) uint64 {
	var v uint64
	for i := 0; i < n; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func read12(b []byte, i int) uint64 {
	o := 3 * i / 2
	w := uint64(b[o])<<8 | uint64(b[o+1])
	if i&1 == 0 {
		w >>= 4
	}
	return w & 0xFFF
}

// Transition returns the transition byte of child slot i.
func (t *Trie) Transition(n *Node, i int) int {
	d := t.Data[n.hdr:]
	switch {
	case n.Type == SingleNoPayload4 || n.Type == Single8 || n.Type == Single16:
		return int(d[1])
	case n.Type == SingleNoPayload12:
		return int(d[2])
	case n.Type.IsSparse():
		return int(d[2+i])
	}
	return n.first + i
}

// Child returns the absolute position of the child in slot i, or -1 for an
// empty dense slot. The position is not checked.
func (t *Trie) Child(n *Node, i int) int64 {
	d := t.Data[n.hdr:]
	var dist uint64
	switch n.Type {
	case SingleNoPayload4:
		dist = uint64(d[0] & 0xF)
	case SingleNoPayload12:
		dist = uint64(d[0]&0xF)<<8 | uint64(d[1])
	case Single8, Single16:
		dist = readUint(d[2:], pointerBits[n.Type]/8)
	case Sparse12:
		dist = read12(d[2+n.count:], i)
	case Sparse8, Sparse16, Sparse24, Sparse40:
		w := pointerBits[n.Type] / 8
		dist = readUint(d[2+n.count+w*i:], w)
	case Dense12:
		dist = read12(d[3:], i)
	default:
		w := pointerBits[n.Type] / 8
		dist = readUint(d[3+w*i:], w)
	}
	if dist == 0 {
		if n.Type.IsDense() {
			return -1
		}
		return n.Pos // invalid: a self pointer, rejected by callers
	}
	if dist > uint64(n.Pos) {
		return -2 // outside the file; callers reject
	}
	return n.Pos - int64(dist)
}

// Search finds transition b among the node's slots. It returns the slot
// and true on a match; otherwise the slot of the greatest transition below
// b (or -1) and false. Empty dense slots are skipped.
func (t *Trie) Search(n *Node, b int) (int, bool) {
	switch {
	case n.count == 0:
		return -1, false
	case n.Type.IsDense():
		i := b - n.first
		if i < 0 {
			return -1, false
		}
		if i >= n.count {
			i = n.count
		} else if t.Child(n, i) != -1 {
			return i, true
		}
		for i--; i >= 0; i-- {
			if t.Child(n, i) != -1 {
				return i, false
			}
		}
		return -1, false
	case n.Type.IsSparse():
		d := t.Data[n.hdr+2 : n.hdr+2+n.count]
		lo, hi := 0, len(d) // first index with d[i] >= b
		for lo < hi {
			m := (lo + hi) / 2
			if int(d[m]) < b {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < len(d) && int(d[lo]) == b {
			return lo, true
		}
		return lo - 1, false
	}
	tr := t.Transition(n, 0)
	if tr == b {
		return 0, true
	}
	if tr < b {
		return 0, false
	}
	return -1, false
}

// child returns the checked child of slot i: a position strictly before n
// and inside the data, or -1 for an empty dense slot.
func (t *Trie) child(n *Node, i int) (int64, error) {
	c := t.Child(n, i)
	if c == -1 && n.Type.IsDense() {
		return -1, nil
	}
	if c >= n.Pos || c < t.Base {
		return 0, errorf(n.Pos, "%v child %d (transition %02x) points outside the file or not backwards", n.Type, i, t.Transition(n, i))
	}
	return c, nil
}

// Follow walks key from root as far as the trie matches it. It returns the
// last node reached and how many bytes of key it consumed.
func (t *Trie) Follow(root int64, key []byte) (Node, int, error) {
	n, err := t.Node(root)
	if err != nil {
		return Node{}, 0, err
	}
	for i, b := range key {
		k, ok := t.Search(&n, int(b))
		if !ok {
			return n, i, nil
		}
		c, err := t.child(&n, k)
		if err != nil {
			return Node{}, 0, err
		}
		if n, err = t.Node(c); err != nil {
			return Node{}, 0, err
		}
	}
	return n, len(key), nil
}

// Exact returns the node whose key is exactly key and carries a payload,
// or ok false.
func (t *Trie) Exact(root int64, key []byte) (Node, bool, error) {
	n, used, err := t.Follow(root, key)
	if err != nil || used < len(key) || n.Flags == 0 {
		return Node{}, false, err
	}
	return n, true, nil
}

// Floor returns the payload node of the greatest key ≤ key, or ok false
// when every key is greater. Keys compare as unsigned byte strings (a
// prefix first).
func (t *Trie) Floor(root int64, key []byte) (Node, bool, error) {
	n, err := t.Node(root)
	if err != nil {
		return Node{}, false, err
	}
	// best: a payload node (exact prefix of key) or the root of a lesser
	// branch whose maximum is the candidate; deeper candidates are greater.
	var best int64 = -1
	bestIsBranch := false
	for i := 0; ; i++ {
		if n.Flags != 0 {
			best, bestIsBranch = n.Pos, false
		}
		if i == len(key) {
			break
		}
		k, ok := t.Search(&n, int(key[i]))
		lesser := k - 1
		if !ok {
			lesser = k
		}
		if lesser >= 0 {
			// Slots below are occupied or (dense) empty; find the last
			// occupied one.
			for ; lesser >= 0; lesser-- {
				c, err := t.child(&n, lesser)
				if err != nil {
					return Node{}, false, err
				}
				if c != -1 {
					best, bestIsBranch = c, true
					break
				}
			}
		}
		if !ok {
			break
		}
		c, err := t.child(&n, k)
		if err != nil {
			return Node{}, false, err
		}
		if n, err = t.Node(c); err != nil {
			return Node{}, false, err
		}
	}
	if best == -1 {
		return Node{}, false, nil
	}
	if !bestIsBranch {
		bn, err := t.Node(best)
		return bn, err == nil, err
	}
	bn, err := t.Last(best)
	return bn, err == nil, err
}

// Ceiling returns the payload node of the smallest key ≥ key, or ok false
// when every key is smaller.
func (t *Trie) Ceiling(root int64, key []byte) (Node, bool, error) {
	n, err := t.Node(root)
	if err != nil {
		return Node{}, false, err
	}
	var greater int64 = -1 // the nearest greater branch seen (deepest wins)
	for i := 0; ; i++ {
		if i == len(key) {
			if n.Flags != 0 {
				return n, true, nil
			}
			// Everything below n is greater than key.
			greater = n.Pos
			break
		}
		k, ok := t.Search(&n, int(key[i]))
		for g := k + 1; g < n.count; g++ {
			c, err := t.child(&n, g)
			if err != nil {
				return Node{}, false, err
			}
			if c != -1 {
				greater = c
				break
			}
		}
		if !ok {
			break
		}
		c, err := t.child(&n, k)
		if err != nil {
			return Node{}, false, err
		}
		if n, err = t.Node(c); err != nil {
			return Node{}, false, err
		}
	}
	if greater == -1 {
		return Node{}, false, nil
	}
	bn, err := t.First(greater)
	return bn, err == nil, err
}

// First returns the payload node of the smallest key below pos (pos
// included).
func (t *Trie) First(pos int64) (Node, error) {
	for {
		n, err := t.Node(pos)
		if err != nil {
			return Node{}, err
		}
		if n.Flags != 0 {
			return n, nil
		}
		next := int64(-1)
		for i := 0; i < n.count; i++ {
			c, err := t.child(&n, i)
			if err != nil {
				return Node{}, err
			}
			if c != -1 {
				next = c
				break
			}
		}
		if next == -1 {
			return Node{}, errorf(n.Pos, "%v node without payload or children", n.Type)
		}
		pos = next
	}
}

// Last returns the payload node of the greatest key below pos (pos
// included).
func (t *Trie) Last(pos int64) (Node, error) {
	for {
		n, err := t.Node(pos)
		if err != nil {
			return Node{}, err
		}
		next := int64(-1)
		for i := n.count - 1; i >= 0; i-- {
			c, err := t.child(&n, i)
			if err != nil {
				return Node{}, err
			}
			if c != -1 {
				next = c
				break
			}
		}
		if next == -1 {
			if n.Flags != 0 {
				return n, nil
			}
			return Node{}, errorf(n.Pos, "%v node without payload or children", n.Type)
		}
		pos = next
	}
}

// ErrStop may be returned by a Walk callback to end the walk early; Walk
// then returns nil.
var ErrStop = errors.New("trie: stop")

// Walk calls fn for every node with a payload below root, in key order (a
// node before its children, children in transition order), with the node's
// key. key is reused between calls. Because children always precede their
// parent, a walk cannot loop; a node reached twice (which no writer
// produces) makes the walk stop with an error once more nodes have been
// visited than the data has bytes.
func (t *Trie) Walk(root int64, fn func(key []byte, n *Node) error) error {
	type frame struct {
		n    Node
		next int
	}
	var stack []frame
	var key []byte
	budget := len(t.Data) + 1
	n, err := t.Node(root)
	if err != nil {
		return err
	}
	visit := func(n Node) error {
		budget--
		if budget < 0 {
			return errorf(n.Pos, "more nodes reached than the data has bytes: nodes are shared")
		}
		if n.Flags != 0 {
			if err := fn(key, &n); err != nil {
				return err
			}
		}
		stack = append(stack, frame{n: n})
		return nil
	}
	if err := visit(n); err != nil {
		if err == ErrStop {
			return nil
		}
		return err
	}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next >= f.n.count {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				key = key[:len(key)-1]
			}
			continue
		}
		i := f.next
		f.next++
		c, err := t.child(&f.n, i)
		if err != nil {
			return err
		}
		if c == -1 {
			continue
		}
		cn, err := t.Node(c)
		if err != nil {
			return err
		}
		key = append(key, byte(t.Transition(&f.n, i)))
		if err := visit(cn); err != nil {
			if err == ErrStop {
				return nil
			}
			return err
		}
	}
	return nil
}

// PayloadSizer returns the size of the payload that starts at absolute
// position pos for a node with the given (non-zero) flags, or an error when
// the flags are invalid or the bytes there do not form a payload.
type PayloadSizer func(flags uint8, data []byte) (int, error)

// VerifyStats summarises a verified trie.
type VerifyStats struct {
	// Nodes is the number of nodes, Payloads of nodes with a payload.
	Nodes, Payloads int
	// Low and High are the lowest position and the end of the highest
	// node or payload, i.e. the span the trie occupies.
	Low, High int64
	// Types counts the nodes of each type.
	Types [16]int
}

// Verify walks the whole trie below root and checks every node: inside
// the data, a known shape, sparse transitions strictly ascending, dense
// ranges within 0…255 with the first and last slots occupied, every child
// strictly before its parent and reached once, every node with a payload
// or children, and payloads in bounds per size (nil: flags alone are not
// checked). Errors carry the offset of the offending node.
func (t *Trie) Verify(root int64, size PayloadSizer) (VerifyStats, error) {
	st := VerifyStats{Low: root, High: root}
	seen := make(map[int64]struct{})
	stack := []int64{root}
	for len(stack) > 0 {
		pos := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, dup := seen[pos]; dup {
			return st, errorf(pos, "node reached twice")
		}
		seen[pos] = struct{}{}
		n, err := t.Node(pos)
		if err != nil {
			return st, err
		}
		st.Nodes++
		st.Types[n.Type]++
		st.Low = min(st.Low, pos)
		end := n.PayloadPos
		if n.Flags != 0 {
			st.Payloads++
			if size != nil {
				pl, err := size(n.Flags, t.Data[n.PayloadPos-t.Base:])
				if err != nil {
					return st, errorf(pos, "payload: %v", err)
				}
				if pl < 0 || n.PayloadPos-t.Base+int64(pl) > int64(len(t.Data)) {
					return st, errorf(pos, "payload of %d bytes (flags %x) runs past the end of the file", pl, n.Flags)
				}
				end += int64(pl)
			}
		}
		st.High = max(st.High, end)
		if n.count == 0 && n.Flags == 0 && pos != root {
			return st, errorf(pos, "%v node without payload or children", n.Type)
		}
		prev := -1
		occupied := 0
		for i := 0; i < n.count; i++ {
			tr := t.Transition(&n, i)
			if tr <= prev {
				return st, errorf(pos, "%v transitions not ascending: %02x after %02x", n.Type, tr, prev)
			}
			prev = tr
			c, err := t.child(&n, i)
			if err != nil {
				return st, err
			}
			if c == -1 {
				if i == 0 || i == n.count-1 {
					return st, errorf(pos, "%v node with an empty first or last slot", n.Type)
				}
				continue
			}
			occupied++
			stack = append(stack, c)
		}
		if n.Type.IsDense() && occupied == 0 {
			return st, errorf(pos, "%v node with no children", n.Type)
		}
	}
	return st, nil
}
