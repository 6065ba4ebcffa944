package trie

import (
	"bytes"
	"errors"
	"math/rand"
	"slices"
	"sort"
	"testing"
)

type entry struct {
	key     []byte
	flags   uint8
	payload []byte
}

// genKeys makes n distinct sorted keys with long shared prefixes, skewed
// bytes (dense and sparse fan-outs) and payloads of every size 0…MaxPayload.
func genKeys(r *rand.Rand, n int) []entry {
	seen := map[string]bool{}
	var out []entry
	prefixes := make([][]byte, 64)
	for i := range prefixes {
		p := make([]byte, r.Intn(40))
		for j := range p {
			p[j] = byte(r.Intn(256))
		}
		prefixes[i] = p
	}
	for len(out) < n {
		k := append([]byte(nil), prefixes[r.Intn(len(prefixes))]...)
		l := 1 + r.Intn(12)
		for j := 0; j < l; j++ {
			switch r.Intn(3) {
			case 0:
				k = append(k, byte(r.Intn(256)))
			case 1:
				k = append(k, byte(0x30+r.Intn(10)))
			default:
				k = append(k, byte(r.Intn(4)))
			}
		}
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		pl := make([]byte, r.Intn(MaxPayload+1))
		r.Read(pl)
		out = append(out, entry{key: k, flags: uint8(1 + r.Intn(15)), payload: pl})
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].key, out[j].key) < 0 })
	return out
}

// payload sizes are not self-describing in this generic test: keep a map
// from payload position to size.
func build(t testing.TB, start int64, es []entry) ([]byte, int64, map[int64]entry) {
	t.Helper()
	var b bytes.Buffer
	b.Write(make([]byte, start))
	w := NewWriter(&b, start)
	for _, e := range es {
		if err := w.Add(e.key, e.flags, e.payload); err != nil {
			t.Fatal(err)
		}
	}
	root, err := w.Complete()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.Position() != int64(b.Len()) {
		t.Fatalf("position %d, wrote %d", w.Position(), b.Len())
	}
	return b.Bytes(), root, nil
}

func TestBigTrieReadsBack(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	// Not scaled down under -short: fewer keys do not make every node
	// type (a 20,000-key trie has no DENSE_24 node), and it takes 1–2 s.
	n := 120000
	es := genKeys(r, n)
	for _, start := range []int64{0, 4000, 4095} {
		data, root, _ := build(t, start, es)
		tr := New(data)
		sizes := map[int64]int{}
		// Walk: every key in order with its flags and payload.
		i := 0
		err := tr.Walk(root, func(key []byte, n *Node) error {
			e := es[i]
			if !bytes.Equal(key, e.key) || n.Flags != e.flags ||
				!bytes.Equal(data[n.PayloadPos:n.PayloadPos+int64(len(e.payload))], e.payload) {
				t.Fatalf("entry %d: got key %x flags %d, want %x %d", i, key, n.Flags, e.key, e.flags)
			}
			sizes[n.Pos] = len(e.payload)
			i++
			return nil
		})
		if err != nil || i != len(es) {
			t.Fatalf("walk: %v after %d of %d", err, i, len(es))
		}
		st, err := tr.Verify(root, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Payloads != len(es) {
			t.Fatalf("verify counted %d payloads", st.Payloads)
		}
		// Exact, floor and ceiling for present and absent keys.
		for k := 0; k < 3000; k++ {
			e := es[r.Intn(len(es))]
			n, ok, err := tr.Exact(root, e.key)
			if err != nil || !ok || n.Flags != e.flags {
				t.Fatalf("Exact(%x): %v %v", e.key, ok, err)
			}
			probe := append(append([]byte(nil), e.key...), byte(r.Intn(256)))
			if r.Intn(2) == 0 && len(probe) > 2 {
				probe = probe[:len(probe)-2]
			}
			j := sort.Search(len(es), func(j int) bool { return bytes.Compare(es[j].key, probe) > 0 })
			fn, ok, err := tr.Floor(root, probe)
			if err != nil {
				t.Fatal(err)
			}
			if j == 0 {
				if ok {
					t.Fatalf("Floor(%x) found something below the first key", probe)
				}
			} else if !ok || fn.Flags != es[j-1].flags || !bytes.Equal(data[fn.PayloadPos:fn.PayloadPos+int64(len(es[j-1].payload))], es[j-1].payload) {
				t.Fatalf("Floor(%x) wrong", probe)
			}
			j = sort.Search(len(es), func(j int) bool { return bytes.Compare(es[j].key, probe) >= 0 })
			cn, ok, err := tr.Ceiling(root, probe)
			if err != nil {
				t.Fatal(err)
			}
			if j == len(es) {
				if ok {
					t.Fatalf("Ceiling(%x) found something above the last key", probe)
				}
			} else if !ok || cn.Flags != es[j].flags || !bytes.Equal(data[cn.PayloadPos:cn.PayloadPos+int64(len(es[j].payload))], es[j].payload) {
				t.Fatalf("Ceiling(%x) wrong", probe)
			}
		}
		checkPageRules(t, data, start, root)
		t.Logf("start %d: %d keys, %d bytes, %d pages, node types %v", start, len(es), len(data)-int(start), (len(data)+PageSize-1)/PageSize, typeCounts(st))
		for ty, c := range st.Types {
			if c == 0 && !slices.Contains([]NodeType{LongDense, Dense40, Sparse40, Dense32, Single16}, NodeType(ty)) {
				// (the wide ones are covered by TestAllPointerWidths)
				t.Errorf("no %v node in a %d-key trie", NodeType(ty), len(es))
			}
		}
	}
}

func typeCounts(st VerifyStats) map[string]int {
	m := map[string]int{}
	for ty, c := range st.Types {
		if c > 0 {
			m[NodeType(ty).String()] = c
		}
	}
	return m
}

// checkPageRules encodes what Cassandra's page-aware layout guarantees:
// every node lies in one page unless it is written as part of a branch that
// was larger than a page (then only pointers to other pages are long); in
// particular no node whose pointers all stay in its page straddles a page
// boundary, padding is only zeros, and every pointer to a child in the same
// page fits 12 bits.
func checkPageRules(t *testing.T, data []byte, start int64, root int64) {
	t.Helper()
	tr := New(data)
	straddle := 0
	err := tr.Walk(root, func([]byte, *Node) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	// Visit all nodes (Walk only reports payload nodes).
	stack := []int64{root}
	for len(stack) > 0 {
		pos := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, err := tr.Node(pos)
		if err != nil {
			t.Fatal(err)
		}
		allInPage := true
		for i := 0; i < n.Slots(); i++ {
			c := tr.Child(&n, i)
			if c == -1 {
				continue
			}
			if c/PageSize != pos/PageSize {
				allInPage = false
			} else if pos-c > 0xFFF {
				t.Fatalf("node %d: in-page pointer %d does not fit 12 bits", pos, pos-c)
			}
			stack = append(stack, c)
		}
		end := n.PayloadPos // payload excluded: its size is index-defined
		if allInPage && pos/PageSize != (end-1)/PageSize {
			straddle++
		}
	}
	if straddle > 0 {
		t.Errorf("%d in-page nodes straddle a page boundary", straddle)
	}
}

func TestChooseTypeTable(t *testing.T) {
	for _, c := range []struct {
		c, lo, hi int
		d         int64
		pay       bool
		want      NodeType
	}{
		{0, 0, 0, 0, true, PayloadOnly},
		{1, 5, 5, 15, false, SingleNoPayload4},
		{1, 5, 5, 15, true, Single8},
		{1, 5, 5, 16, false, Single8},
		{1, 5, 5, 256, false, SingleNoPayload12},
		{1, 5, 5, 256, true, Single16},
		{1, 5, 5, 4096, false, Single16},
		{1, 5, 5, 1 << 16, false, Dense24},
		{1, 5, 5, 1 << 24, false, Dense32},
		{1, 5, 5, 1 << 32, false, Dense40},
		{1, 5, 5, 1 << 40, false, LongDense},
		{2, 0x47, 0x4f, 6, false, Sparse8},
		{5, 0x30, 0x34, 15, true, Dense12},
		{3, 0, 200, 300, false, Sparse12},
		{3, 0, 2, 300, false, Dense12},
		{3, 0, 200, 5000, false, Sparse16},
		{3, 0, 2, 5000, false, Dense16},
		{3, 0, 200, 1 << 20, false, Sparse24},
		{3, 0, 200, 1 << 30, false, Sparse40},
		{3, 0, 2, 1 << 30, false, Dense32},
		{3, 0, 200, 1 << 50, false, LongDense},
	} {
		if got := ChooseType(c.c, c.lo, c.hi, c.d, c.pay); got != c.want {
			t.Errorf("ChooseType(%d, %d..%d, %d, %v) = %v, want %v", c.c, c.lo, c.hi, c.d, c.pay, got, c.want)
		}
	}
}

// Far pointers: tries written after a large gap (positions far into the
// file) use every pointer width; the reader must follow all of them.
func TestAllPointerWidths(t *testing.T) {
	seen := map[NodeType]bool{}
	for _, gap := range []int64{1 << 8, 1 << 12, 1 << 16, 1 << 24, 1 << 32, 1 << 40} {
		for _, c := range []int{1, 2, 3, 40} {
			// Hand-build: c leaves, then a parent placed gap bytes later.
			var data []byte
			var leaves []int64
			for i := 0; i < c; i++ {
				leaves = append(leaves, int64(len(data)))
				data = append(data, byte(PayloadOnly)<<4|1, byte(i))
			}
			// The parent at a virtual position: represent with Base.
			parentPos := gap + int64(len(data))
			w := &Writer{out: &bytes.Buffer{}, pos: parentPos, flush: 1 << 30}
			w.Reset()
			p := w.newNode(0)
			for i := 0; i < c; i++ {
				ch := w.newNode(i * 3)
				w.node(ch).filePos = leaves[i]
				w.node(p).children = append(w.node(p).children, ch)
			}
			w.node(p).branchSize = 0
			w.node(p).hasOutOfPageChildren = true
			w.serialize(w.node(p), parentPos)
			node := w.buf
			n, err := decodeAt(data, leaves, parentPos, node)
			if err != nil {
				t.Fatalf("gap %d c %d: %v", gap, c, err)
			}
			seen[n] = true
		}
	}
	for _, ty := range []NodeType{SingleNoPayload12, Single16, Dense24, Dense32, Dense40, LongDense, Sparse16, Sparse24, Sparse40, Sparse12} {
		if !seen[ty] {
			t.Errorf("%v not exercised", ty)
		}
	}
}

// decodeAt checks a node serialized at a virtual position pos whose
// children are at leaves: it builds a sparse view (Base trick: the node's
// bytes are copied to a buffer whose Base is chosen so that pos is inside)
// and resolves every child.
func decodeAt(leavesData []byte, leaves []int64, pos int64, node []byte) (NodeType, error) {
	nt := &Trie{Data: node, Base: pos}
	n, err := nt.Node(pos)
	if err != nil {
		return 0, err
	}
	k := 0
	for i := 0; i < n.Slots(); i++ {
		c := nt.Child(&n, i)
		if c == -1 {
			continue
		}
		if k >= len(leaves) || c != leaves[k] || nt.Transition(&n, i) != k*3 {
			return n.Type, errors.New("child mismatch")
		}
		k++
	}
	if k != len(leaves) {
		return n.Type, errors.New("children missing")
	}
	return n.Type, nil
}

// Several tries in one stream with Reset, positions continuing (Rows.db).
func TestResetContinuesPosition(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	var b bytes.Buffer
	w := NewWriter(&b, 0)
	type trieAt struct {
		root int64
		es   []entry
	}
	var tries []trieAt
	for k := 0; k < 50; k++ {
		es := genKeys(r, 1+r.Intn(2000))
		for _, e := range es {
			if err := w.Add(e.key, e.flags, e.payload); err != nil {
				t.Fatal(err)
			}
		}
		root, err := w.Complete()
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte{1, 2, 3}) // an entry between tries
		tries = append(tries, trieAt{root, es})
		w.Reset()
	}
	w.Flush()
	tr := New(b.Bytes())
	for _, ta := range tries {
		i := 0
		if err := tr.Walk(ta.root, func(key []byte, n *Node) error {
			if !bytes.Equal(key, ta.es[i].key) {
				t.Fatalf("key %d differs", i)
			}
			i++
			return nil
		}); err != nil || i != len(ta.es) {
			t.Fatalf("walk %v %d/%d", err, i, len(ta.es))
		}
	}
	checkPageRules(t, b.Bytes(), 0, tries[len(tries)-1].root)
}

func TestWriterRejectsDisorder(t *testing.T) {
	w := NewWriter(&bytes.Buffer{}, 0)
	if err := w.Add([]byte("b"), 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Add([]byte("a"), 1, nil); !errors.Is(err, ErrOrder) {
		t.Fatalf("got %v", err)
	}
	w.Reset()
	w.Add([]byte("a"), 1, nil)
	if err := w.Add([]byte("a"), 1, nil); !errors.Is(err, ErrOrder) {
		t.Fatalf("duplicate: %v", err)
	}
	w.Reset()
	w.Add(nil, 1, nil)
	if err := w.Add([]byte("x"), 1, nil); err != nil {
		t.Fatalf("extension of the empty key: %v", err)
	}
	if _, err := w.Complete(); err != nil {
		t.Fatal(err)
	}
}

func TestEmptyTrie(t *testing.T) {
	b, root, err := Bytes(0, nil, nil, nil)
	if err != nil || root != 0 || !bytes.Equal(b, []byte{0}) {
		t.Fatalf("%x %d %v", b, root, err)
	}
}

// A trie read page by page through a PagedSource (with a cache of a few
// pages, so that pages are evicted and read again) answers every query as
// the same trie in memory does.
func TestPagedSourceMatchesMemory(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	n := 60000
	if testing.Short() {
		n = 10000
	}
	es := genKeys(r, n)
	for _, start := range []int64{0, 4095} {
		data, root, _ := build(t, start, es)
		mem := New(data)
		for _, cache := range []int{0, 3 * PageSize, 1 << 20} {
			src := NewPagedSource(bytes.NewReader(data), PagedSourceOptions{Start: start, End: int64(len(data)), CacheBytes: cache})
			paged := NewFromSource(src)
			same := func(what string, a Node, aok bool, aerr error, b Node, bok bool, berr error) {
				t.Helper()
				if aerr != nil || berr != nil || aok != bok || a.Pos != b.Pos || a.Flags != b.Flags ||
					(aok && !bytes.Equal(a.Payload()[:4], b.Payload()[:4])) {
					t.Fatalf("start %d cache %d: %s: memory (%d %v %v), paged (%d %v %v)", start, cache, what, a.Pos, aok, aerr, b.Pos, bok, berr)
				}
			}
			var keys [][]byte
			err := paged.Walk(root, func(key []byte, n *Node) error {
				keys = append(keys, append([]byte(nil), key...))
				return nil
			})
			if err != nil || len(keys) != len(es) {
				t.Fatalf("paged walk: %v, %d keys of %d", err, len(keys), len(es))
			}
			for i := range keys {
				if !bytes.Equal(keys[i], es[i].key) {
					t.Fatalf("paged walk key %d: %x, want %x", i, keys[i], es[i].key)
				}
			}
			if _, err := paged.Verify(root, nil); err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 2000; k++ {
				probe := append([]byte(nil), es[r.Intn(len(es))].key...)
				if r.Intn(2) == 0 {
					probe = append(probe, byte(r.Intn(256)))
				} else if len(probe) > 1 {
					probe = probe[:len(probe)-1]
				}
				a, aok, aerr := mem.Exact(root, probe)
				b, bok, berr := paged.Exact(root, probe)
				same("Exact", a, aok, aerr, b, bok, berr)
				a, aok, aerr = mem.Floor(root, probe)
				b, bok, berr = paged.Floor(root, probe)
				same("Floor", a, aok, aerr, b, bok, berr)
				a, aok, aerr = mem.Ceiling(root, probe)
				b, bok, berr = paged.Ceiling(root, probe)
				same("Ceiling", a, aok, aerr, b, bok, berr)
			}
			read, reads := src.BytesRead()
			t.Logf("start %d, cache %d: %d reads, %d bytes for %d-byte trie", start, cache, reads, read, len(data))
			if cache >= len(data) && read > int64(len(data)) {
				t.Errorf("a cache larger than the file read %d bytes of %d", read, len(data))
			}
		}
	}
}

// A PagedSource refuses positions outside its bounds and reports a file
// shorter than its end as an *Error.
func TestPagedSourceBounds(t *testing.T) {
	data := make([]byte, 3*PageSize)
	src := NewPagedSource(bytes.NewReader(data), PagedSourceOptions{Start: 10, End: int64(len(data)) + 100})
	var te *Error
	if _, err := src.View(5, 1); !errors.As(err, &te) {
		t.Errorf("before the start: %v", err)
	}
	if _, err := src.View(int64(len(data))+100, 1); !errors.As(err, &te) {
		t.Errorf("at the end: %v", err)
	}
	if _, err := src.View(3*PageSize+5, 1); !errors.As(err, &te) {
		t.Errorf("a page past the file's end: %v", err)
	}
	v, err := src.View(PageSize-2, 8)
	if err != nil || len(v) != 8 {
		t.Errorf("across a page boundary: %d bytes, %v", len(v), err)
	}
	v, err = src.View(PageSize+1, 8)
	if err != nil || len(v) != PageSize-1 {
		t.Errorf("inside a page: %d bytes (want the rest of the page), %v", len(v), err)
	}
}
