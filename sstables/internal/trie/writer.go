package trie

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// PageSize is the page size the writer packs nodes into (Cassandra's
// PageAware.PAGE_SIZE). Pages are measured on absolute file positions.
const PageSize = 4096

// MaxPayload is the largest payload a node may carry. BTI payloads are at
// most 9 bytes (Partitions.db) and 19 bytes (Rows.db).
const MaxPayload = 32

// ErrOrder is returned by Writer.Add for a key that is not greater than the
// previous one (a key may extend the previous key).
var ErrOrder = errors.New("trie: keys out of order")

// A node of the trie under construction (IncrementalTrieWriterPageAware.Node).
type wnode struct {
	children   []int32 // node indices, ascending transitions
	filePos    int64   // -1 until written
	branchSize int     // bytes of the unwritten branch below the node
	nodeSize   int     // bytes of the node itself with its payload
	transition int16
	flags      uint8
	plen       uint8
	// hasOutOfPageChildren: some child is already written (forced true
	// for a node that has not been completed yet, as in Cassandra).
	hasOutOfPageChildren bool
	// hasOutOfPageInBranch: some unwritten node below the children has
	// written children.
	hasOutOfPageInBranch bool
	payload              [MaxPayload]byte
}

func (n *wnode) hasPayload() bool { return n.flags != 0 }

// Writer builds tries incrementally from keys added in increasing order and
// writes them page-aware, reproducing Cassandra 5.0's
// IncrementalDeepTrieWriterPageAware byte for byte (the "deep" variant only
// changes how Java recurses, not the output).
//
// Layout: a node is kept in memory until its branch (the node and all its
// unwritten descendants) reaches a page; then the children's branches are
// written, largest first, each packed into the rest of the current page
// when it fits (else the page is padded with zeros). Every written branch is
// in post-order (children in transition order, then the node). The root
// and what is still in memory are written by Complete, moved to the next
// page only when they do not fit the current one.
//
// One Writer can write many tries into one stream (Rows.db holds one per
// partition): Reset starts a new trie, the position continues. Raw bytes
// between tries (index entries, footers) go through Write so the position
// stays exact. Output is buffered; call Flush at the end.
//
// Add and Complete allocate nothing once the node pool has grown to the
// trie's width.
type Writer struct {
	out   io.Writer
	buf   []byte
	pos   int64 // absolute position of the next byte, buffered included
	flush int64 // bytes to buffer before writing to out
	err   error

	// nodes is the node pool in chunks of nodeChunk (w.node(i) is node
	// i): it grows without moving what it holds, so growing it copies
	// nothing, and Release hands the chunks to the next writer.
	nodes  [][]wnode
	nnodes int32
	free   []int32
	stack  []int32
	prev   []byte
	count  int64
	cands  []int32
	first  bool // no key added yet
	// spare holds children slices of released nodes by capacity class
	// (spare[k]: capacity 4<<k), so that a node's children grow into a
	// recycled slice: nodes change roles (leaf, inner) as they are reused.
	spare [][][]int32
	// slab is carved into new children slices: a trie keeps a node per
	// branch point of the part not yet written (and the written children
	// of those), so the node pool grows with the keys and a slice per
	// node would be an allocation every few keys.
	slab []int32
}

// slabSize is the number of int32 a slab holds.
const slabSize = 16 << 10

// newChildren returns an empty slice of capacity n, carved from the slab
// for small n.
func (w *Writer) newChildren(n int) []int32 {
	if n > slabSize/16 {
		return make([]int32, 0, n)
	}
	if len(w.slab) < n {
		w.slab = make([]int32, slabSize)
	}
	ch := w.slab[:0:n]
	w.slab = w.slab[n:]
	return ch
}

// addChild appends child c to node i's children, growing them into a
// spare slice of the next capacity class when full.
func (w *Writer) addChild(i, c int32) {
	n := w.node(i)
	if len(n.children) == cap(n.children) {
		k := 0
		for 4<<k < 2*len(n.children) {
			k++
		}
		for len(w.spare) <= k {
			w.spare = append(w.spare, nil)
		}
		var grown []int32
		if m := len(w.spare[k]); m > 0 {
			grown = w.spare[k][m-1][:0]
			w.spare[k] = w.spare[k][:m-1]
		} else {
			grown = w.newChildren(4 << k)
		}
		grown = append(grown, n.children...)
		w.putSpare(n.children)
		n.children = grown
	}
	n.children = append(n.children, c)
}

// putSpare keeps a children slice for reuse.
func (w *Writer) putSpare(ch []int32) {
	if cap(ch) < 4 {
		return
	}
	k := 0
	for 4<<(k+1) <= cap(ch) {
		k++
	}
	for len(w.spare) <= k {
		w.spare = append(w.spare, nil)
	}
	w.spare[k] = append(w.spare[k], ch[:0])
}

// NewWriter returns a Writer that writes to out, whose next byte is at
// absolute position pos of the destination file.
func NewWriter(out io.Writer, pos int64) *Writer {
	w := &Writer{out: out, pos: pos, flush: 64 << 10}
	w.Reset()
	return w
}

// Position returns the absolute position of the next byte written.
func (w *Writer) Position() int64 { return w.pos }

// Count returns the number of keys added to the current trie.
func (w *Writer) Count() int64 { return w.count }

// Err returns the first write error, which every later call returns too.
func (w *Writer) Err() error { return w.err }

// Write appends raw bytes (not trie nodes) to the stream.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	w.pos += int64(len(p))
	if int64(len(w.buf)) >= w.flush {
		w.Flush()
	}
	return len(p), w.err
}

func (w *Writer) writeByte(b byte) {
	w.buf = append(w.buf, b)
	w.pos++
}

// Flush writes the buffered bytes to the destination.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if len(w.buf) > 0 {
		if _, err := w.out.Write(w.buf); err != nil {
			w.err = err
			return err
		}
		w.buf = w.buf[:0]
	}
	return nil
}

func (w *Writer) bytesLeftInPage() int {
	return PageSize - int(w.pos%PageSize)
}

func (w *Writer) padToPageBoundary() {
	for w.pos%PageSize != 0 {
		w.writeByte(0)
	}
}

// Reset discards the current trie (written nodes stay written) and starts
// a new one at the current position.
func (w *Writer) Reset() {
	for i := range w.nnodes {
		w.node(i).children = w.node(i).children[:0]
	}
	w.free = w.free[:0]
	for i := w.nnodes - 1; i >= 0; i-- {
		w.free = append(w.free, i)
	}
	w.stack = append(w.stack[:0], w.newNode(0))
	w.prev = w.prev[:0]
	w.count = 0
	w.first = true
}

// nodeChunkBits sizes the node pool's chunks: 1<<nodeChunkBits nodes each.
const nodeChunkBits = 10

// node returns node i of the pool.
func (w *Writer) node(i int32) *wnode {
	return &w.nodes[i>>nodeChunkBits][i&(1<<nodeChunkBits-1)]
}

// chunks keeps the node chunks of released writers: a flush's Partitions.db
// trie holds a node for every branch not written yet and for the written
// children of those, hundreds of thousands for a large SSTable, which a
// new writer would otherwise allocate, fault in and have scanned by the
// collector again.
var chunks sync.Pool

func takeChunk() []wnode {
	if c, ok := chunks.Get().(*[]wnode); ok {
		return *c
	}
	return make([]wnode, 1<<nodeChunkBits)
}

// Release hands the writer's node pool to later writers; the writer must not
// be used afterwards.
func (w *Writer) Release() {
	for _, c := range w.nodes {
		for i := range c {
			c[i] = wnode{children: c[i].children[:0]}
		}
		chunks.Put(&c)
	}
	w.nodes, w.nnodes, w.free = nil, 0, nil
	w.err = errors.New("trie: writer released")
}

func (w *Writer) newNode(transition int) int32 {
	var i int32
	if n := len(w.free); n > 0 {
		i = w.free[n-1]
		w.free = w.free[:n-1]
	} else {
		i = w.nnodes
		if int(i>>nodeChunkBits) == len(w.nodes) {
			w.nodes = append(w.nodes, takeChunk())
		}
		w.nnodes++
	}
	n := w.node(i)
	ch := n.children[:0]
	if cap(ch) > 4 {
		// A large slice goes back to the pool; most nodes stay small.
		w.putSpare(ch)
		ch = nil
	}
	*n = wnode{children: ch, filePos: -1, branchSize: -1, nodeSize: -1,
		transition: int16(transition), hasOutOfPageChildren: true}
	return i
}

// release returns the children of a written node to the pool; they are
// written too and nothing refers to them any more.
func (w *Writer) release(i int32) {
	n := w.node(i)
	for _, c := range n.children {
		w.release(c)
		w.free = append(w.free, c)
	}
	n.children = n.children[:0]
}

// Add inserts key with a payload: flags are the 4 payload bits of the
// node's first byte (non-zero), payload the bytes written after the node.
// Keys must increase; a key may extend the previous key (the previous
// key's node then gains children).
func (w *Writer) Add(key []byte, flags uint8, payload []byte) error {
	if w.err != nil {
		return w.err
	}
	if flags == 0 || flags > 15 {
		return fmt.Errorf("trie: payload flags %d not in 1…15", flags)
	}
	if len(payload) > MaxPayload {
		return fmt.Errorf("trie: payload of %d bytes (max %d)", len(payload), MaxPayload)
	}
	stackpos := 0
	if !w.first {
		stackpos = commonPrefix(w.prev, key)
		if stackpos == len(key) || (stackpos < len(w.prev) && w.prev[stackpos] > key[stackpos]) {
			return fmt.Errorf("%w: %x after %x", ErrOrder, key, w.prev)
		}
	}
	w.first = false
	w.count++
	w.prev = append(w.prev[:0], key...)

	for len(w.stack) > stackpos+1 {
		if err := w.completeLast(); err != nil {
			return err
		}
	}
	ni := w.stack[len(w.stack)-1]
	for _, b := range key[stackpos:] {
		c := w.newNode(int(b))
		w.addChild(ni, c)
		w.stack = append(w.stack, c)
		ni = c
	}
	n := w.node(ni)
	if n.hasPayload() {
		return fmt.Errorf("%w: duplicate key %x", ErrOrder, key)
	}
	n.flags = flags
	n.plen = uint8(len(payload))
	copy(n.payload[:], payload)
	return w.err
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func (w *Writer) completeLast() error {
	i := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	return w.complete(i)
}

// maxPositionDelta is Node.maxPositionDelta: the (negative) distance to the
// farthest child if the node were written at pos.
func (w *Writer) maxPositionDelta(n *wnode, pos int64) int64 {
	if !n.hasOutOfPageChildren {
		return -int64(n.branchSize - w.node(n.children[0]).branchSize)
	}
	var minPlaced int64
	var minUnplaced int64 = 1
	for _, ci := range n.children {
		c := w.node(ci)
		if c.filePos != -1 {
			minPlaced = min(minPlaced, c.filePos-pos)
		} else if minUnplaced > 0 {
			minUnplaced = -int64(n.branchSize - c.branchSize)
		}
	}
	return min(minPlaced, minUnplaced)
}

func (w *Writer) typeFor(n *wnode, pos int64) NodeType {
	c := len(n.children)
	if c == 0 {
		return PayloadOnly
	}
	d := -w.maxPositionDelta(n, pos)
	lo := int(w.node(n.children[0]).transition)
	hi := int(w.node(n.children[c-1]).transition)
	return ChooseType(c, lo, hi, d, n.hasPayload())
}

// sizeofNode is the serializer's sizeofNode: node plus payload.
func (w *Writer) sizeofNode(n *wnode, pos int64) int {
	t := w.typeFor(n, pos)
	c := len(n.children)
	lo, hi := 0, 0
	if c > 0 {
		lo = int(w.node(n.children[0]).transition)
		hi = int(w.node(n.children[c-1]).transition)
	}
	return nodeSize(t, c, lo, hi) + int(n.plen)
}

func (w *Writer) complete(i int32) error {
	n := w.node(i)
	branch := 0
	for _, ci := range n.children {
		c := w.node(ci)
		branch += c.branchSize + c.nodeSize
	}
	n.branchSize = branch
	size := w.sizeofNode(n, w.pos)
	if size+branch < PageSize {
		n.nodeSize = size
		n.hasOutOfPageChildren = false
		n.hasOutOfPageInBranch = false
		for _, ci := range n.children {
			c := w.node(ci)
			if c.filePos != -1 {
				n.hasOutOfPageChildren = true
			} else if c.hasOutOfPageChildren || c.hasOutOfPageInBranch {
				n.hasOutOfPageInBranch = true
			}
		}
		return nil
	}
	return w.layoutChildren(i)
}

// layoutChildren writes the unwritten children branches of node i, largest
// first, each in the current page when it fits.
func (w *Writer) layoutChildren(i int32) error {
	// The candidates: unwritten children. Cassandra keeps them in a set
	// ordered by (branch+node size, transition); the sizes of the others
	// do not change while one is handled, so a scan for the maximum is
	// the same choice.
	start := len(w.cands)
	for _, ci := range w.node(i).children {
		if w.node(ci).filePos == -1 {
			w.cands = append(w.cands, ci)
		}
	}
	defer func() { w.cands = w.cands[:start] }()

	left := w.bytesLeftInPage()
	for len(w.cands) > start {
		k := w.pickLargest(start, left)
		if k < 0 {
			w.padToPageBoundary()
			left = PageSize
			k = w.pickLargest(start, -1)
		}
		ci := w.cands[k]
		// Remove it from the candidates (order among them is irrelevant).
		w.cands[k] = w.cands[len(w.cands)-1]
		w.cands = w.cands[:len(w.cands)-1]
		c := w.node(ci)
		if c.hasOutOfPageChildren || c.hasOutOfPageInBranch {
			actual := w.recalcTotalSize(ci, w.pos)
			if actual > left {
				if left == PageSize {
					// The branch does not even fit a page.
					if err := w.layoutChildren(ci); err != nil {
						return err
					}
					left = w.bytesLeftInPage()
				}
				w.cands = append(w.cands, ci)
				continue
			}
		}
		pos, err := w.write(ci)
		if err != nil {
			return err
		}
		w.finalize(ci, pos)
		left = w.bytesLeftInPage()
	}
	n := w.node(i)
	n.branchSize = 0
	n.hasOutOfPageChildren = true
	n.hasOutOfPageInBranch = false
	n.nodeSize = w.sizeofNode(n, w.pos)
	return nil
}

// pickLargest returns the index in cands of the candidate with the largest
// (size, transition) whose size is at most limit (any size for limit < 0),
// or -1.
func (w *Writer) pickLargest(start, limit int) int {
	best, bestSize, bestT := -1, -1, -1
	for k := start; k < len(w.cands); k++ {
		c := w.node(w.cands[k])
		s := c.branchSize + c.nodeSize
		if limit >= 0 && s > limit {
			continue
		}
		if s > bestSize || s == bestSize && int(c.transition) > bestT {
			best, bestSize, bestT = k, s, int(c.transition)
		}
	}
	return best
}

func (w *Writer) finalize(i int32, pos int64) {
	n := w.node(i)
	n.filePos = pos
	n.branchSize = 0
	n.nodeSize = 0
	n.hasOutOfPageInBranch = false
	n.hasOutOfPageChildren = false
	w.release(i)
}

// recalcTotalSize recomputes the sizes of a branch that would be written at
// pos (its pointer widths depend on where it lands).
func (w *Writer) recalcTotalSize(i int32, pos int64) int {
	n := w.node(i)
	if n.hasOutOfPageInBranch {
		sz := 0
		for _, ci := range n.children {
			sz += w.recalcTotalSize(ci, pos+int64(sz))
		}
		n.branchSize = sz
	}
	if n.hasOutOfPageChildren || n.hasOutOfPageInBranch {
		n.nodeSize = w.sizeofNode(n, pos+int64(n.branchSize))
	}
	return n.branchSize + n.nodeSize
}

// write writes node i's unwritten branch in post-order and returns the
// node's position.
func (w *Writer) write(i int32) (int64, error) {
	start := w.pos
	for _, ci := range w.node(i).children {
		if w.node(ci).filePos == -1 {
			p, err := w.write(ci)
			if err != nil {
				return 0, err
			}
			w.node(ci).filePos = p
		}
	}
	n := w.node(i)
	at := start + int64(n.branchSize)
	if w.pos != at {
		return 0, fmt.Errorf("trie: internal layout error: node expected at %d, children end at %d", at, w.pos)
	}
	w.serialize(n, at)
	if int64(len(w.buf)) >= w.flush {
		w.Flush()
	}
	return at, w.err
}

// serialize writes node n at position pos (== w.pos): the TrieNode
// serialization followed by the payload.
func (w *Writer) serialize(n *wnode, pos int64) {
	t := w.typeFor(n, pos)
	c := len(n.children)
	flags := n.flags
	dist := func(k int) uint64 { return uint64(pos - w.node(n.children[k]).filePos) }
	switch {
	case t == PayloadOnly:
		w.writeByte(byte(t)<<4 | flags)
	case t == SingleNoPayload4:
		w.writeByte(byte(t)<<4 | byte(dist(0)&0xF))
		w.writeByte(byte(w.node(n.children[0]).transition))
	case t == SingleNoPayload12:
		d := dist(0)
		w.writeByte(byte(t)<<4 | byte(d>>8&0xF))
		w.writeByte(byte(d))
		w.writeByte(byte(w.node(n.children[0]).transition))
	case t == Single8 || t == Single16:
		w.writeByte(byte(t)<<4 | flags)
		w.writeByte(byte(w.node(n.children[0]).transition))
		w.writeUint(dist(0), pointerBits[t]/8)
	case t.IsSparse():
		w.writeByte(byte(t)<<4 | flags)
		w.writeByte(byte(c))
		for _, ci := range n.children {
			w.writeByte(byte(w.node(ci).transition))
		}
		if t == Sparse12 {
			w.write12(c, dist)
		} else {
			for k := 0; k < c; k++ {
				w.writeUint(dist(k), pointerBits[t]/8)
			}
		}
	default: // dense
		w.writeByte(byte(t)<<4 | flags)
		lo := int(w.node(n.children[0]).transition)
		hi := int(w.node(n.children[c-1]).transition)
		w.writeByte(byte(lo))
		w.writeByte(byte(hi - lo))
		slots := hi - lo + 1
		k := 0
		slot := func(s int) uint64 {
			if k < c && int(w.node(n.children[k]).transition) == lo+s {
				k++
				return dist(k - 1)
			}
			return 0
		}
		if t == Dense12 {
			w.write12(slots, slot)
		} else {
			for s := 0; s < slots; s++ {
				w.writeUint(slot(s), pointerBits[t]/8)
			}
		}
	}
	w.buf = append(w.buf, n.payload[:n.plen]...)
	w.pos += int64(n.plen)
}

func (w *Writer) writeUint(v uint64, n int) {
	for i := n - 1; i >= 0; i-- {
		w.writeByte(byte(v >> (8 * i)))
	}
}

// write12 writes count 12-bit values packed big-endian.
func (w *Writer) write12(count int, v func(int) uint64) {
	for k := 0; k+1 < count; k += 2 {
		a, b := v(k), v(k+1)
		w.writeByte(byte(a >> 4))
		w.writeByte(byte(a<<4) | byte(b>>8&0xF))
		w.writeByte(byte(b))
	}
	if count%2 == 1 {
		a := v(count - 1)
		w.writeByte(byte(a >> 4))
		w.writeByte(byte(a << 4))
	}
}

// Complete finishes the current trie, writes what is still in memory and
// returns the root position. An empty trie is a single PAYLOAD_ONLY node
// without payload. Call Reset before adding the keys of another trie.
func (w *Writer) Complete() (int64, error) {
	if w.err != nil {
		return 0, w.err
	}
	if len(w.stack) == 0 {
		return 0, errors.New("trie: Complete called twice without Reset")
	}
	root := w.stack[0]
	for len(w.stack) > 0 {
		if err := w.completeLast(); err != nil {
			return 0, err
		}
	}
	r := w.node(root)
	actual := w.recalcTotalSize(root, w.pos)
	left := w.bytesLeftInPage()
	if actual > left {
		if actual <= PageSize {
			w.padToPageBoundary()
			left = PageSize
			actual = w.recalcTotalSize(root, w.pos)
		}
		if actual > left {
			if err := w.layoutChildren(root); err != nil {
				return 0, err
			}
			if r.nodeSize > w.bytesLeftInPage() {
				w.padToPageBoundary()
				w.recalcTotalSize(root, w.pos)
			}
		}
	}
	pos, err := w.write(root)
	if err != nil {
		return 0, err
	}
	w.finalize(root, pos)
	return pos, w.err
}

// Bytes is a convenience for tests and small tries: it builds one trie from
// sorted keys with their payloads, starting at position start, and returns
// the bytes written (from start) and the root.
func Bytes(start int64, keys [][]byte, flags []uint8, payloads [][]byte) ([]byte, int64, error) {
	var b bytes.Buffer
	w := NewWriter(&b, start)
	for i, k := range keys {
		if err := w.Add(k, flags[i], payloads[i]); err != nil {
			return nil, 0, err
		}
	}
	root, err := w.Complete()
	if err != nil {
		return nil, 0, err
	}
	if err := w.Flush(); err != nil {
		return nil, 0, err
	}
	return b.Bytes(), root, nil
}
