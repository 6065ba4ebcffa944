package compaction

// longMap reproduces the iteration order of the java.util.HashMap<Long, V>
// that Cassandra's SizeTieredCompactionStrategy.getBuckets keys its buckets
// by (their average size). The order decides which bucket a file joins when
// several would take it, and which of two equally hot buckets of equal
// average size is compacted first (Collections.max keeps the first), so the
// buckets come out in Cassandra's order, not in an order of our own.
//
// The model is Java 8+'s HashMap: a power-of-two table (16 slots at the
// first insertion, doubled when the size passes 3/4 of it), the slot of a key
// being the low bits of its spread hash (Long.hashCode(k) ^ (that >>> 16)),
// each slot a list in insertion order (a put of an existing key replaces the
// value in place), a resize splitting every list in two in order. Java turns
// a slot of more than 8 entries into a tree once the table has 64 slots,
// which orders that slot differently; the model keeps the list and records
// that it diverged (treeified). That takes more than 48 buckets at once, 9
// of them sharing a slot.
type longMap[V any] struct {
	table     []*longNode[V]
	size      int
	threshold int
	// treeified is set when Java would have turned a slot into a tree.
	treeified bool
}

type longNode[V any] struct {
	key  int64
	hash uint32
	val  V
	next *longNode[V]
}

// Java's HashMap constants.
const (
	javaInitialCapacity = 16
	javaTreeifyLimit    = 8  // TREEIFY_THRESHOLD
	javaMinTreeCapacity = 64 // MIN_TREEIFY_CAPACITY
)

// javaLongHash is HashMap.hash(Long k): Long.hashCode spread by its high
// half.
func javaLongHash(k int64) uint32 {
	h := uint32(uint64(k) ^ uint64(k)>>32)
	return h ^ h>>16
}

// put maps k to v: in place when k is present, else at the end of its slot.
func (m *longMap[V]) put(k int64, v V) {
	if m.table == nil {
		m.resize()
	}
	h := javaLongHash(k)
	i := h & uint32(len(m.table)-1)
	p := m.table[i]
	if p == nil {
		m.table[i] = &longNode[V]{key: k, hash: h, val: v}
	} else {
		n := 1
		for ; ; n++ {
			if p.key == k {
				p.val = v
				return
			}
			if p.next == nil {
				break
			}
			p = p.next
		}
		p.next = &longNode[V]{key: k, hash: h, val: v}
		if n >= javaTreeifyLimit { // the slot held 8 or more: treeifyBin
			if len(m.table) < javaMinTreeCapacity {
				m.resize()
			} else {
				m.treeified = true
			}
		}
	}
	m.size++
	if m.size > m.threshold {
		m.resize()
	}
}

// remove deletes k, keeping the order of the others.
func (m *longMap[V]) remove(k int64) {
	if m.table == nil {
		return
	}
	i := javaLongHash(k) & uint32(len(m.table)-1)
	var prev *longNode[V]
	for p := m.table[i]; p != nil; prev, p = p, p.next {
		if p.key != k {
			continue
		}
		if prev == nil {
			m.table[i] = p.next
		} else {
			prev.next = p.next
		}
		m.size--
		return
	}
}

// resize doubles the table (or makes the first one), splitting each slot's
// list into the entries that stay and those that move up by the old
// capacity, both in order.
func (m *longMap[V]) resize() {
	old := m.table
	if old == nil {
		m.table = make([]*longNode[V], javaInitialCapacity)
		m.threshold = javaInitialCapacity * 3 / 4
		return
	}
	n := len(old)
	m.table = make([]*longNode[V], 2*n)
	m.threshold *= 2
	for j, p := range old {
		var loHead, loTail, hiHead, hiTail *longNode[V]
		for p != nil {
			next := p.next
			p.next = nil
			if p.hash&uint32(n) == 0 {
				if loTail == nil {
					loHead = p
				} else {
					loTail.next = p
				}
				loTail = p
			} else {
				if hiTail == nil {
					hiHead = p
				} else {
					hiTail.next = p
				}
				hiTail = p
			}
			p = next
		}
		m.table[j], m.table[j+n] = loHead, hiHead
	}
}

// each calls f for every entry in iteration order until f returns false.
func (m *longMap[V]) each(f func(k int64, v V) bool) {
	for _, p := range m.table {
		for ; p != nil; p = p.next {
			if !f(p.key, p.val) {
				return
			}
		}
	}
}

// values returns the values in iteration order.
func (m *longMap[V]) values() []V {
	out := make([]V, 0, m.size)
	m.each(func(_ int64, v V) bool {
		out = append(out, v)
		return true
	})
	return out
}
