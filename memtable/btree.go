package memtable

import (
	"github.com/castable-db/castable/dht"
)

// btree is an insert-only B-tree of partitions ordered by (token, key), the
// order SSTables store them in. A memtable never removes a partition, so the
// tree needs only lookup, insertion and in-order traversal; every node is a
// fixed-size array, which keeps a shard's partitions in few cache lines.
type btree struct {
	root   *node
	length int
}

const (
	degree   = 16
	maxItems = 2*degree - 1
)

// item is a partition of the tree: its entry, and its token's leading 64
// bits, which decide most comparisons without touching the entry.
type item struct {
	prefix uint64
	e      *entry
}

// less reports whether the item sorts before the partition (token, key).
func (it *item) less(prefix uint64, token dht.Token, key []byte) bool {
	if it.prefix != prefix {
		return it.prefix < prefix
	}
	return dht.ComparePartitions(it.e.p.Token, it.e.p.Key, token, key) < 0
}

type node struct {
	n        int
	items    [maxItems]item
	children [maxItems + 1]*node // nil in leaves
}

func (n *node) leaf() bool { return n.children[0] == nil }

// search returns the index of the first item not less than (token, key) and
// whether it is equal.
func (n *node) search(token dht.Token, key []byte) (int, bool) {
	prefix := token.Prefix()
	lo, hi := 0, n.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if n.items[mid].less(prefix, token, key) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < n.n && n.items[lo].prefix == prefix && string(n.items[lo].e.p.Key) == string(key) {
		return lo, true
	}
	return lo, false
}

// get returns the entry with the given token and key, or nil.
func (t *btree) get(token dht.Token, key []byte) *entry {
	for n := t.root; n != nil; {
		i, found := n.search(token, key)
		if found {
			return n.items[i].e
		}
		if n.leaf() {
			return nil
		}
		n = n.children[i]
	}
	return nil
}

// find looks (token, key) up in one descent that also prepares its
// insertion: it returns the entry holding it, or the leaf and position where
// an entry for it goes (insertAt). Full nodes on the way are split, as an
// insertion splits them, so that the leaf has room and nothing moves until
// insertAt.
func (t *btree) find(token dht.Token, key []byte) (e *entry, leaf *node, at int) {
	if t.root == nil {
		t.root = &node{}
	}
	if t.root.n == maxItems {
		old := t.root
		t.root = &node{}
		t.root.children[0] = old
		t.root.splitChild(0)
	}
	prefix := token.Prefix()
	n := t.root
	for {
		i, found := n.search(token, key)
		if found {
			return n.items[i].e, nil, 0
		}
		if n.leaf() {
			return nil, n, i
		}
		if n.children[i].n == maxItems {
			n.splitChild(i)
			// The child's middle item moved up to i: it may be the key.
			if it := &n.items[i]; it.prefix == prefix && string(it.e.p.Key) == string(key) {
				return it.e, nil, 0
			}
			if n.items[i].less(prefix, token, key) {
				i++
			}
		}
		n = n.children[i]
	}
}

// insertAt adds e, whose (token, key) find reported missing, at the leaf
// position find returned; the tree must not have changed since.
func (t *btree) insertAt(leaf *node, at int, e *entry) {
	copy(leaf.items[at+1:leaf.n+1], leaf.items[at:leaf.n])
	leaf.items[at] = item{prefix: e.p.Token.Prefix(), e: e}
	leaf.n++
	t.length++
}

// insert adds e, whose key must not be in the tree yet.
func (t *btree) insert(e *entry) {
	it := item{prefix: e.p.Token.Prefix(), e: e}
	if t.root == nil {
		t.root = &node{}
	}
	if t.root.n == maxItems {
		old := t.root
		t.root = &node{}
		t.root.children[0] = old
		t.root.splitChild(0)
	}
	t.root.insertNonFull(it)
	t.length++
}

func (n *node) insertNonFull(it item) {
	for {
		i, _ := n.search(it.e.p.Token, it.e.p.Key)
		if n.leaf() {
			copy(n.items[i+1:n.n+1], n.items[i:n.n])
			n.items[i] = it
			n.n++
			return
		}
		if n.children[i].n == maxItems {
			n.splitChild(i)
			if n.items[i].less(it.prefix, it.e.p.Token, it.e.p.Key) {
				i++
			}
		}
		n = n.children[i]
	}
}

// splitChild splits the full child i around its middle item, which moves up
// into n.
func (n *node) splitChild(i int) {
	child := n.children[i]
	right := &node{}
	mid := child.items[degree-1]
	right.n = degree - 1
	copy(right.items[:], child.items[degree:])
	if !child.leaf() {
		copy(right.children[:], child.children[degree:])
		for j := degree; j <= maxItems; j++ {
			child.children[j] = nil
		}
	}
	for j := degree - 1; j < maxItems; j++ {
		child.items[j] = item{}
	}
	child.n = degree - 1

	copy(n.items[i+1:n.n+1], n.items[i:n.n])
	n.items[i] = mid
	copy(n.children[i+2:n.n+2], n.children[i+1:n.n+1])
	n.children[i+1] = right
	n.n++
}

// appendEntries appends the entries in order to dst.
func (t *btree) appendEntries(dst []*entry) []*entry {
	if t.root == nil {
		return dst
	}
	return t.root.appendEntries(dst)
}

func (n *node) appendEntries(dst []*entry) []*entry {
	if n.leaf() {
		for i := 0; i < n.n; i++ {
			dst = append(dst, n.items[i].e)
		}
		return dst
	}
	for i := 0; i < n.n; i++ {
		dst = n.children[i].appendEntries(dst)
		dst = append(dst, n.items[i].e)
	}
	return n.children[n.n].appendEntries(dst)
}

// ascend calls fn for every entry in order until fn returns false.
func (t *btree) ascend(fn func(*entry) bool) bool {
	if t.root == nil {
		return true
	}
	return t.root.ascend(fn)
}

func (n *node) ascend(fn func(*entry) bool) bool {
	for i := 0; i < n.n; i++ {
		if !n.leaf() && !n.children[i].ascend(fn) {
			return false
		}
		if !fn(n.items[i].e) {
			return false
		}
	}
	if !n.leaf() {
		return n.children[n.n].ascend(fn)
	}
	return true
}
