package table

import (
	"fmt"
	"io"
	"slices"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// GetStats says what a point lookup read.
type GetStats struct {
	// Consulted counts the SSTables whose index was asked for the key
	// (each behind its bloom filter); Found those that held it.
	Consulted, Found int
	// SkippedByTimestamp counts the SSTables left out because a partition
	// deletion already seen is newer than everything they hold.
	SkippedByTimestamp int
}

// Get returns the merged partition of key (nil when no input holds it),
// whole. See GetWith for what it reads.
func (s *Set) Get(key []byte) (*mutation.Partition, error) {
	p, _, err := s.GetWith(key)
	return p, err
}

// GetWith is Get with what it read. The SSTables are consulted newest
// first (by their newest timestamp, as Cassandra orders them for a
// single-partition read); once a partition deletion newer than an
// SSTable's newest timestamp is known, that SSTable and every older one
// are skipped: nothing they hold survives it. Each SSTable's own lookup
// checks its bloom filter (and index) before reading Data.db.
func (s *Set) GetWith(key []byte) (*mutation.Partition, GetStats, error) {
	sc, st, err := s.GetScanner(key)
	if err != nil || sc == nil {
		return nil, st, err
	}
	defer sc.Close()
	head, err := sc.NextPartition()
	if err == io.EOF {
		return nil, st, nil
	}
	if err != nil {
		return nil, st, err
	}
	p, err := readWhole(sc, head)
	return p, st, err
}

// GetScanner is GetWith as a stream: a Scanner positioned before key's
// merged partition (its only one), read row by row as a Scan reads, or nil
// when no input holds key. It consults the SSTables as GetWith does. The
// caller closes the Scanner.
func (s *Set) GetScanner(key []byte) (*Scanner, GetStats, error) {
	var st GetStats
	order := make([]int, len(s.readers))
	for i := range order {
		order[i] = i
	}
	maxTS := func(i int) int64 { return s.readers[i].Statistics().Stats.MaxTimestamp }
	slices.SortStableFunc(order, func(a, b int) int {
		switch ta, tb := maxTS(a), maxTS(b); {
		case ta > tb:
			return -1
		case ta < tb:
			return 1
		}
		return 0
	})
	var srcs []source
	var names []string
	newestDeletion := mutation.NoTimestamp
	if s.mem != nil {
		if p := s.mem.Get(key); p != nil {
			srcs = append(srcs, &singleSource{p: p, t: s.table})
			names = append(names, "memtable")
			if !p.Deletion.IsLive() {
				newestDeletion = p.Deletion.MarkedForDeleteAt
			}
		}
	}
	defer func() {
		for _, src := range srcs {
			src.Close()
		}
	}()
	for k, i := range order {
		if newestDeletion != mutation.NoTimestamp && maxTS(i) < newestDeletion {
			st.SkippedByTimestamp = len(order) - k
			break
		}
		st.Consulted++
		sc, err := s.readers[i].ScanFrom(key)
		if err != nil {
			return nil, st, fmt.Errorf("%s: %w", s.readers[i].Descriptor(), err)
		}
		if sc == nil {
			continue
		}
		st.Found++
		one := &oneSource{sc: sc}
		// Peek at the partition deletion to decide what older SSTables
		// can still matter.
		p, err := one.peek()
		if err != nil {
			sc.Close()
			return nil, st, fmt.Errorf("%s: %w", s.readers[i].Descriptor(), err)
		}
		if !p.Deletion.IsLive() && p.Deletion.MarkedForDeleteAt > newestDeletion {
			newestDeletion = p.Deletion.MarkedForDeleteAt
		}
		srcs = append(srcs, one)
		names = append(names, s.readers[i].Descriptor().String())
	}
	if len(srcs) == 0 {
		return nil, st, nil
	}
	sc := &Scanner{set: s, t: s.table,
		merger: mutation.NewRowMerger(s.table, s.rules, s.now),
		static: mutation.NewRowMerger(s.table, s.rules, s.now)}
	for i, src := range srcs {
		sc.inputs = append(sc.inputs, &input{src: src, idx: i, name: names[i]})
	}
	srcs = nil // the scanner closes them now
	sc.versions = make([]*mutation.Row, len(sc.inputs))
	for _, in := range sc.inputs {
		if err := sc.advance(in); err != nil {
			sc.Close()
			return nil, st, err
		}
	}
	return sc, st, nil
}

// readWhole copies the current partition of sc, rows and markers, into a
// partition of its own.
func readWhole(sc *Scanner, head *mutation.Partition) (*mutation.Partition, error) {
	p := &mutation.Partition{Key: slices.Clone(head.Key), Token: head.Token, Deletion: head.Deletion, Static: cloneRow(&head.Static)}
	for {
		r, m, err := sc.Next()
		if err != nil {
			return nil, err
		}
		switch {
		case r != nil:
			p.Rows = append(p.Rows, cloneRow(r))
		case m != nil:
			c := *m
			c.Clustering = cloneClustering(m.Clustering)
			p.Markers = append(p.Markers, c)
		default:
			return p, nil
		}
	}
}

func cloneClustering(c mutation.Clustering) mutation.Clustering {
	if c == nil {
		return nil
	}
	out := make(mutation.Clustering, len(c))
	for i, v := range c {
		if v != nil {
			out[i] = slices.Clone(v)
		}
	}
	return out
}

func cloneRow(r *mutation.Row) mutation.Row {
	out := *r
	out.Clustering = cloneClustering(r.Clustering)
	out.Cells = slices.Clone(r.Cells)
	for i := range out.Cells {
		c := &out.Cells[i]
		c.Path = cloneBytes(c.Path)
		c.Value = cloneBytes(c.Value)
	}
	out.ComplexDeletions = slices.Clone(r.ComplexDeletions)
	return out
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// oneSource is an SSTable scanner positioned at one partition, read as a
// source of that partition only.
type oneSource struct {
	sc     sstables.Scanner
	p      *mutation.Partition
	peeked bool
	done   bool
}

func (o *oneSource) peek() (*mutation.Partition, error) {
	if !o.peeked {
		p, err := o.sc.NextPartition()
		if err != nil {
			return nil, err
		}
		o.p, o.peeked = p, true
	}
	return o.p, nil
}

func (o *oneSource) NextPartition() (*mutation.Partition, error) {
	if o.done {
		return nil, io.EOF
	}
	o.done = true
	return o.peek()
}

func (o *oneSource) Next() (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
	return o.sc.Next()
}

func (o *oneSource) Close() error { return o.sc.Close() }

// singleSource is one whole partition (a memtable's) as a source.
type singleSource struct {
	p    *mutation.Partition
	t    *schema.Table
	done bool
	mem  memSource
}

func (s *singleSource) NextPartition() (*mutation.Partition, error) {
	if s.done {
		return nil, io.EOF
	}
	s.done = true
	s.mem = memSource{t: s.t, p: s.p}
	s.mem.head = mutation.Partition{Key: s.p.Key, Token: s.p.Token, Deletion: s.p.Deletion, Static: s.p.Static}
	return &s.mem.head, nil
}

func (s *singleSource) Next() (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
	return s.mem.Next()
}

func (s *singleSource) Close() error { return nil }
