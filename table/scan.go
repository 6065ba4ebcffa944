package table

import (
	"container/heap"
	"errors"
	"fmt"
	"io"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// source is one input of the merge: an SSTable's scanner or a memtable's
// partitions.
type source interface {
	NextPartition() (*mutation.Partition, error)
	Next() (*mutation.Row, *mutation.RangeTombstoneMarker, error)
	Close() error
}

// input is a source with the partition it is at.
type input struct {
	src  source
	idx  int // position in Scanner.inputs, which is the source's index
	part *mutation.Partition
	// Within the current partition: the unfiltered waiting to be merged
	// (row or marker; both nil with end set at the partition's end).
	row    *mutation.Row
	marker *mutation.RangeTombstoneMarker
	end    bool
	// open is the range deletion this source has open.
	open mutation.DeletionTime
	// eqNext: the pending unfiltered is at the same position as that of
	// the input after this one in Scanner.order.
	eqNext bool
	// consumed (the simple merge's): the pending unfiltered went into the
	// last merged output; the input moves on at the next call.
	consumed bool
	name     string
}

// Scanner walks the merged partitions of a Set, row by row. It implements
// sstables.Scanner but for Position, which is -1: a merged partition has
// no one offset.
type Scanner struct {
	set    *Set
	t      *schema.Table
	inputs []*input
	heap   inputHeap
	cur    []*input // the inputs holding the current partition
	// order holds the inputs of cur with a pending unfiltered, by its
	// position (ties in any order, marked by eqNext); the first taken of
	// them went into the last merged output, whose values alias their
	// pending unfiltereds: they move on at the next call.
	order []*input
	taken int
	// groupIn and group: the inputs at the smallest position in source
	// order, and their rows.
	groupIn []*input
	group   []*mutation.Row
	// simple merges by nextSimple, the reference the ordered merge is
	// checked against.
	simple bool
	err    error

	part     mutation.Partition
	keyBuf   []byte
	merger   *mutation.RowMerger
	static   *mutation.RowMerger
	versions []*mutation.Row
	row      mutation.Row
	marker   mutation.RangeTombstoneMarker
	merged   mutation.DeletionTime // the deletion open in the merged stream
	started  bool
	filter   func(dht.Token, []byte) bool
	until    func(dht.Token, []byte) bool
	stopped  bool
	nexted   bool // Next was called in the current partition
}

// ScanOptions restrict a scan.
type ScanOptions struct {
	// Keep, when set, is asked about every partition (token and key)
	// before its rows are merged; a partition it refuses is skipped.
	Keep func(token dht.Token, key []byte) bool
	// Until, when set, is asked about every partition (token and key)
	// before Keep; the first one it accepts ends the scan (io.EOF), which
	// then reads no further: a scan up to a token stops there.
	Until func(token dht.Token, key []byte) bool
}

// Scan returns a scanner positioned before the first partition.
func (s *Set) Scan() (*Scanner, error) { return s.ScanWith(ScanOptions{}) }

// ScanWith is Scan with options.
func (s *Set) ScanWith(o ScanOptions) (*Scanner, error) {
	sc := &Scanner{set: s, t: s.table, filter: o.Keep, until: o.Until,
		merger: mutation.NewRowMerger(s.table, s.rules, s.now),
		static: mutation.NewRowMerger(s.table, s.rules, s.now)}
	for i, r := range s.readers {
		src, err := r.Scan()
		if err != nil {
			sc.Close()
			return nil, err
		}
		sc.inputs = append(sc.inputs, &input{src: src, idx: i, name: r.Descriptor().String()})
	}
	if s.mem != nil {
		sc.inputs = append(sc.inputs, &input{src: &memSource{f: s.mem, t: s.table}, idx: len(sc.inputs), name: "memtable"})
	}
	sc.versions = make([]*mutation.Row, len(sc.inputs))
	for _, in := range sc.inputs {
		if err := sc.advance(in); err != nil {
			sc.Close()
			return nil, err
		}
	}
	return sc, nil
}

// advance moves in to its next partition and into the heap (or out of the
// merge at its end).
func (sc *Scanner) advance(in *input) error {
	p, err := in.src.NextPartition()
	if err == io.EOF {
		in.part = nil
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", in.name, err)
	}
	in.part = p
	heap.Push(&sc.heap, in)
	return nil
}

// NextPartition advances to the next merged partition and returns its
// header: key, token, the merged partition deletion and the merged static
// row (valid until the next NextPartition). It returns io.EOF after the
// last one.
func (sc *Scanner) NextPartition() (*mutation.Partition, error) {
	if sc.err != nil {
		return nil, sc.err
	}
	if sc.stopped {
		return nil, io.EOF
	}
	for {
		for _, in := range sc.cur {
			if err := sc.advance(in); err != nil {
				return nil, sc.fail(err)
			}
		}
		sc.cur = sc.cur[:0]
		if sc.heap.Len() == 0 {
			return nil, io.EOF
		}
		first := heap.Pop(&sc.heap).(*input)
		sc.cur = append(sc.cur, first)
		for sc.heap.Len() > 0 {
			h := sc.heap.items[0]
			if dht.ComparePartitions(h.part.Token, h.part.Key, first.part.Token, first.part.Key) != 0 {
				break
			}
			sc.cur = append(sc.cur, heap.Pop(&sc.heap).(*input))
		}
		if sc.until != nil && sc.until(first.part.Token, first.part.Key) {
			sc.stopped = true
			return nil, io.EOF
		}
		if sc.filter != nil && !sc.filter(first.part.Token, first.part.Key) {
			continue
		}
		break
	}
	first := sc.cur[0]
	sc.keyBuf = append(sc.keyBuf[:0], first.part.Key...)
	sc.part = mutation.Partition{Key: sc.keyBuf, Token: first.part.Token, Deletion: mutation.Live}
	if sc.set.part.PreservesOrder() {
		sc.part.Token = sc.set.part.Token(sc.keyBuf)
	}
	clear(sc.versions)
	statics := 0
	for _, in := range sc.cur {
		sc.part.Deletion = mutation.MaxDeletion(sc.part.Deletion, in.part.Deletion)
		if !in.part.Static.IsEmpty() {
			sc.versions[in.idx] = &in.part.Static
			statics++
		}
	}
	sc.part.Static = mutation.NewRow(nil)
	if statics > 0 {
		var st mutation.Row
		ok, err := sc.static.Merge(&st, sc.versions, sc.part.Deletion)
		if err != nil {
			return nil, sc.fail(fmt.Errorf("partition %s: static row: %w", mutation.FormatKey(sc.t, sc.part.Key), err))
		}
		if ok {
			st.Clustering = nil
			sc.part.Static = st
		}
	}
	sc.merged = mutation.Live
	sc.order, sc.taken = sc.order[:0], 0
	for _, in := range sc.cur {
		in.open, in.end, in.consumed = mutation.Live, false, false
		if err := sc.pull(in); err != nil {
			return nil, sc.fail(err)
		}
	}
	sc.sortOrder()
	sc.started, sc.nexted = true, false
	return &sc.part, nil
}

// sortOrder rebuilds sc.order from the inputs of cur with a pending
// unfiltered, by its position.
func (sc *Scanner) sortOrder() {
	sc.order, sc.taken = sc.order[:0], 0
	for _, in := range sc.cur {
		if !in.end {
			sc.order = append(sc.order, in)
		}
	}
	for i := len(sc.order) - 1; i >= 0; i-- {
		sc.place(i)
	}
}

// SeekClustering skips, in every input holding the current partition, the
// rows and markers before the inclusive start bound of the clustering
// prefix ck, through each SSTable scanner's row index
// (sstables.ClusteringSeeker), so that Next goes on as a scan of the
// partition restricted to [ck, end) does: a range deletion open at ck
// first shows as a start bound at ck, as the SSTable scanners report it.
// It must come before the partition's first Next (after, it is an error).
// When an input cannot seek (a memtable), it does nothing: Next then
// returns the whole partition, which a caller filtering by clustering
// must allow for.
func (sc *Scanner) SeekClustering(ck mutation.Clustering) error {
	if sc.err != nil {
		return sc.err
	}
	if !sc.started {
		return errors.New("table: SeekClustering before NextPartition")
	}
	if sc.nexted {
		return errors.New("table: SeekClustering after Next in the partition")
	}
	for _, in := range sc.cur {
		if _, ok := seekerOf(in.src); !in.end && !ok {
			return nil
		}
	}
	for _, in := range sc.cur {
		if in.end {
			continue
		}
		if kind, c := pendingPos(in); mutation.ComparePrefix(sc.t, kind, c, mutation.InclStartBound, ck) >= 0 {
			continue
		}
		s, _ := seekerOf(in.src)
		if err := s.SeekClustering(ck); err != nil {
			return sc.fail(fmt.Errorf("%s: partition %s: %w", in.name, mutation.FormatKey(sc.t, sc.part.Key), err))
		}
		// The pending unfiltered is dropped unread: nothing it opened is
		// open here but what the seek reports at ck.
		in.open = mutation.Live
		if err := sc.pull(in); err != nil {
			return sc.fail(err)
		}
	}
	// The seeks changed pending positions: the ordered merge's order
	// follows them.
	sc.sortOrder()
	return nil
}

// seekerOf returns the clustering seeker of an SSTable source.
func seekerOf(src source) (sstables.ClusteringSeeker, bool) {
	switch s := src.(type) {
	case *oneSource:
		cs, ok := s.sc.(sstables.ClusteringSeeker)
		return cs, ok
	case sstables.ClusteringSeeker:
		return s, true
	}
	return nil, false
}

// pull reads in's next unfiltered of the current partition.
func (sc *Scanner) pull(in *input) error {
	r, m, err := in.src.Next()
	if err != nil {
		return fmt.Errorf("%s: partition %s: %w", in.name, mutation.FormatKey(sc.t, sc.part.Key), err)
	}
	in.row, in.marker, in.consumed = r, m, false
	in.end = r == nil && m == nil
	return nil
}

// place moves order[i], whose pending unfiltered changed, to its place
// among order[i+1:] (which is in order), comparing it with each input it
// passes and with the one it stops before, and keeps eqNext right for it
// and for the input now before it. The inputs before i are not looked at.
func (sc *Scanner) place(i int) {
	o := sc.order
	in := o[i]
	in.eqNext = false
	for i+1 < len(o) {
		c := comparePending(sc.t, in, o[i+1])
		if c <= 0 {
			in.eqNext = c == 0
			break
		}
		o[i] = o[i+1] // its eqNext still tells about o[i+1] unless that is in
		i++
	}
	o[i] = in
	// The input before in, if in moved, sorts before it and already said
	// so: it had eqNext set only if equal to the one after it, which in
	// did not pass.
}

// advanceTaken moves the inputs whose unfiltereds the last output took
// (the first sc.taken of sc.order) to their next ones, keeping sc.order
// in order: each is pulled and placed among the ones after it, the last
// taken first, so that what it is placed among is always in order.
func (sc *Scanner) advanceTaken() error {
	for i := sc.taken - 1; i >= 0; i-- {
		in := sc.order[i]
		if err := sc.pull(in); err != nil {
			return err
		}
		if in.end {
			sc.order = append(sc.order[:i], sc.order[i+1:]...)
			continue
		}
		sc.place(i)
	}
	sc.taken = 0
	return nil
}

func (sc *Scanner) fail(err error) error {
	if sc.err == nil {
		sc.err = err
	}
	return sc.err
}

// activeDeletion is the deletion covering a row at the current position:
// the merged open range deletion, else the partition's.
func (sc *Scanner) activeDeletion() mutation.DeletionTime {
	if sc.merged.IsLive() {
		return sc.part.Deletion
	}
	return sc.merged
}

// Next returns the next merged row or marker of the current partition
// (exactly one non-nil), or nil, nil, nil at its end. The values are valid
// until the next call.
func (sc *Scanner) Next() (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
	if sc.err != nil {
		return nil, nil, sc.err
	}
	if !sc.started {
		return nil, nil, sc.fail(errors.New("table: Next before NextPartition"))
	}
	sc.nexted = true
	if sc.simple {
		return sc.nextSimple()
	}
	for {
		if err := sc.advanceTaken(); err != nil {
			return nil, nil, sc.fail(err)
		}
		// The smallest pending position is order[0]'s, and the inputs
		// equal to it follow it.
		if len(sc.order) == 0 {
			return nil, nil, nil
		}
		n := 1
		for n < len(sc.order) && sc.order[n-1].eqNext {
			n++
		}
		sc.taken = n
		minIn := sc.order[0]
		if n == 1 && minIn.row != nil {
			// One version that nothing shadows: the merge would copy it
			// unchanged (it is valid until the next call as a merged row
			// is).
			if active := sc.activeDeletion(); mutation.PassesAlone(minIn.row, active) {
				if minIn.row.IsEmpty() {
					continue
				}
				return minIn.row, nil, nil
			}
		}
		if minIn.row != nil {
			// The versions in the order of their sources.
			gi := append(sc.groupIn[:0], sc.order[:n]...)
			for i := 1; i < len(gi); i++ {
				for j := i; j > 0 && gi[j-1].idx > gi[j].idx; j-- {
					gi[j], gi[j-1] = gi[j-1], gi[j]
				}
			}
			g := sc.group[:0]
			for _, in := range gi {
				g = append(g, in.row)
			}
			sc.groupIn, sc.group = gi, g
			ok, err := sc.merger.MergeVersions(&sc.row, g, sc.activeDeletion())
			if err != nil {
				return nil, nil, sc.fail(fmt.Errorf("partition %s: row %s: %w", mutation.FormatKey(sc.t, sc.part.Key), mutation.FormatClustering(sc.t, minIn.row.Clustering), err))
			}
			if ok {
				return &sc.row, nil, nil
			}
			continue
		}
		// Markers at one position: update each source's open deletion.
		// (A row never ties with a marker: rows have every clustering
		// component, markers at most as many, and at equal length a row's
		// kind compares equal to no marker's.) The bound written is the
		// last source's, as the merged row's clustering is.
		var at *mutation.RangeTombstoneMarker
		atIdx := -1
		for _, in := range sc.order[:n] {
			if in.idx > atIdx {
				at, atIdx = in.marker, in.idx
			}
			in.takeMarker()
		}
		if sc.mergeMarkers(at) {
			return nil, &sc.marker, nil
		}
	}
}

// takeMarker updates in's open deletion past its pending marker.
func (in *input) takeMarker() {
	if in.marker.Kind.IsStart() {
		in.open = in.marker.Open
	} else {
		in.open = mutation.Live
	}
}

// mergeMarkers recomputes the merged open deletion after the markers at
// at's position were taken (each input's open deletion updated) and
// reports whether it changed; sc.marker is then the marker to return.
func (sc *Scanner) mergeMarkers(at *mutation.RangeTombstoneMarker) bool {
	prev := sc.merged
	sc.merged = mutation.Live
	for _, in := range sc.cur {
		if !in.open.IsLive() && in.open.Supersedes(sc.merged) {
			sc.merged = in.open
		}
	}
	if !sc.merged.Supersedes(sc.part.Deletion) {
		sc.merged = mutation.Live
	}
	if prev == sc.merged {
		return false
	}
	before := at.Kind.BeforeClustering()
	m := mutation.RangeTombstoneMarker{Clustering: at.Clustering, Close: mutation.Live, Open: mutation.Live}
	switch {
	case prev.IsLive():
		m.Kind, m.Open = mutation.ExclStartBound, sc.merged
		if before {
			m.Kind = mutation.InclStartBound
		}
	case sc.merged.IsLive():
		m.Kind, m.Close = mutation.InclEndBound, prev
		if before {
			m.Kind = mutation.ExclEndBound
		}
	default:
		m.Kind, m.Close, m.Open = mutation.InclEndExclStartBoundary, prev, sc.merged
		if before {
			m.Kind = mutation.ExclEndInclStartBoundary
		}
	}
	sc.marker = m
	return true
}

// comparePending orders two inputs' pending unfiltereds by clustering
// position.
func comparePending(t *schema.Table, a, b *input) int {
	ka, ca := pendingPos(a)
	kb, cb := pendingPos(b)
	return mutation.ComparePrefix(t, ka, ca, kb, cb)
}

func pendingPos(in *input) (mutation.BoundKind, mutation.Clustering) {
	if in.row != nil {
		return mutation.ClusteringKind, in.row.Clustering
	}
	return in.marker.Kind, in.marker.Clustering
}

// Position is -1: a merged partition has no one Data.db offset.
func (sc *Scanner) Position() int64 { return -1 }

// Sources returns the indexes (in Set.Readers order, the memtable last) of
// the inputs that hold the current partition.
func (sc *Scanner) Sources(dst []int) []int {
	for _, in := range sc.cur {
		dst = append(dst, in.idx)
	}
	return dst
}

// Close releases every input's scanner.
func (sc *Scanner) Close() error {
	var first error
	for _, in := range sc.inputs {
		if err := in.src.Close(); err != nil && first == nil {
			first = err
		}
	}
	sc.inputs = nil
	return first
}

var _ sstables.Scanner = (*Scanner)(nil)

// inputHeap orders inputs by their current partition.
type inputHeap struct{ items []*input }

func (h *inputHeap) Len() int { return len(h.items) }
func (h *inputHeap) Less(i, j int) bool {
	a, b := h.items[i].part, h.items[j].part
	if c := dht.ComparePartitions(a.Token, a.Key, b.Token, b.Key); c != 0 {
		return c < 0
	}
	return h.items[i].idx < h.items[j].idx
}
func (h *inputHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *inputHeap) Push(x any)    { h.items = append(h.items, x.(*input)) }
func (h *inputHeap) Pop() any {
	n := len(h.items) - 1
	x := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	return x
}

// memSource walks a frozen memtable's partitions as a scanner does.
type memSource struct {
	f    *memtable.Frozen
	t    *schema.Table
	i    int
	p    *mutation.Partition
	r, m int
	head mutation.Partition
}

func (s *memSource) NextPartition() (*mutation.Partition, error) {
	if s.i >= int(s.f.Len()) {
		return nil, io.EOF
	}
	s.p = s.f.Partition(s.i)
	s.i++
	s.r, s.m = 0, 0
	s.head = mutation.Partition{Key: s.p.Key, Token: s.p.Token, Deletion: s.p.Deletion, Static: s.p.Static}
	return &s.head, nil
}

func (s *memSource) Next() (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
	p := s.p
	if p == nil {
		return nil, nil, nil
	}
	switch {
	case s.r < len(p.Rows) && (s.m >= len(p.Markers) ||
		mutation.ComparePrefix(s.t, mutation.ClusteringKind, p.Rows[s.r].Clustering, p.Markers[s.m].Kind, p.Markers[s.m].Clustering) < 0):
		s.r++
		return &p.Rows[s.r-1], nil, nil
	case s.m < len(p.Markers):
		s.m++
		return nil, &p.Markers[s.m-1], nil
	}
	return nil, nil, nil
}

func (s *memSource) Close() error { return nil }
