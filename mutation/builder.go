package mutation

import (
	"fmt"
	"slices"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/schema"
)

// Builder assembles partitions on the memtable's hot path. It gathers one
// partition's rows and cells in scratch space it keeps between partitions,
// and Finish copies them into a new Partition made of a fixed number of
// allocations (the partition, its rows, its cells, its complex deletions,
// its clustering components and one byte arena for the key, paths, values
// and clusterings) however many cells it has. Byte slices passed in are
// copied by Finish; they must stay unchanged until then.
//
// A Builder is not safe for concurrent use; keep one per goroutine.
type Builder struct {
	t        *schema.Table
	part     dht.Partitioner
	err      error // the table's partitioner is unknown: Finish returns it
	key      []byte
	deletion DeletionTime

	static    Row
	hasStatic bool
	rows      []Row // Cells and ComplexDeletions unused until Finish
	cur       int   // current row: -1 static, else index into rows
	cells     []Cell
	cellOwner []int32
	cds       []ComplexDeletion
	cdOwner   []int32
	markers   []RangeTombstoneMarker
	// Scratch for Finish: rows in clustering order, owner -> output slot,
	// per-slot start of cells and complex deletions, write cursors.
	order        []int32
	slot         []int32
	cellAt, cdAt []int32
	counts       []int32
}

var emptyBytes = []byte{}

// NewBuilder returns a builder for partitions of table t, whose tokens it
// computes with the table's partitioner (schema.Options.Partitioner). A
// partitioner package dht does not know makes every Finish fail with an
// error naming it and the table.
func NewBuilder(t *schema.Table) *Builder {
	part, err := dht.Lookup(t.Options.Partitioner)
	if err != nil {
		err = fmt.Errorf("mutation: table %s.%s: the partitioner of its schema options: %w", t.Keyspace, t.Name, err)
	}
	b := &Builder{t: t, part: part, err: err}
	b.Reset(nil)
	return b
}

// Reset starts a new partition with the given serialized key, dropping
// anything not finished. Finish computes the key's token.
func (b *Builder) Reset(key []byte) {
	b.key, b.deletion = key, Live
	b.static, b.hasStatic, b.cur = NewRow(nil), false, -1
	clear(b.rows)
	b.rows = b.rows[:0]
	clear(b.cells)
	b.cells, b.cellOwner = b.cells[:0], b.cellOwner[:0]
	clear(b.cds)
	b.cds, b.cdOwner = b.cds[:0], b.cdOwner[:0]
	clear(b.markers)
	b.markers = b.markers[:0]
}

// SetPartitionDeletion sets the partition deletion.
func (b *Builder) SetPartitionDeletion(d DeletionTime) { b.deletion = d }

// StartStatic makes the static row the current row.
func (b *Builder) StartStatic() { b.cur, b.hasStatic = -1, true }

// StartRow starts a clustering row with the given clustering and makes it
// the current row (no liveness, no deletion).
func (b *Builder) StartRow(clustering Clustering) {
	b.rows = append(b.rows, NewRow(clustering))
	b.cur = len(b.rows) - 1
}

func (b *Builder) current() *Row {
	if b.cur < 0 {
		b.hasStatic = true
		return &b.static
	}
	return &b.rows[b.cur]
}

// SetLiveness sets the current row's primary-key liveness.
func (b *Builder) SetLiveness(l LivenessInfo) { b.current().Liveness = l }

// SetRowDeletion sets the current row's deletion (Cassandra-style
// shadowable when shadowable is set).
func (b *Builder) SetRowDeletion(d DeletionTime, shadowable bool) {
	r := b.current()
	r.Deletion, r.DeletionShadowable = d, shadowable
}

// SetShadowableDeletion sets the current row's ScyllaDB-style shadowable
// deletion.
func (b *Builder) SetShadowableDeletion(d DeletionTime) { b.current().ShadowableDeletion = d }

// AddCell adds a cell to the current row. Cells may come in any order;
// Finish sorts them.
func (b *Builder) AddCell(c Cell) {
	b.current()
	b.cells = append(b.cells, c)
	b.cellOwner = append(b.cellOwner, int32(b.cur))
}

// AddLiveCell adds a live, non-expiring cell to the current row.
func (b *Builder) AddLiveCell(col *schema.Column, path, value []byte, timestamp int64) {
	b.AddCell(Cell{Column: col, Path: path, Value: value, Timestamp: timestamp, TTL: NoTTL, LocalDeletionTime: NoDeletionTime})
}

// AddComplexDeletion adds the deletion of a whole complex column to the
// current row.
func (b *Builder) AddComplexDeletion(col *schema.Column, d DeletionTime) {
	b.current()
	b.cds = append(b.cds, ComplexDeletion{Column: col, Deletion: d})
	b.cdOwner = append(b.cdOwner, int32(b.cur))
}

// AddMarker adds a range tombstone marker (markers must be added in
// clustering order).
func (b *Builder) AddMarker(m RangeTombstoneMarker) { b.markers = append(b.markers, m) }

// Finish returns the partition built since Reset: rows sorted by
// clustering, cells in canonical order. Two rows with the same clustering
// or two cells for the same column and path are an error (merge such
// updates with Merge instead).
func (b *Builder) Finish() (*Partition, error) {
	if b.err != nil {
		return nil, b.err
	}
	if err := b.sortRows(); err != nil {
		return nil, err
	}
	// Sizes of everything copied.
	total, nClust := len(b.key), 0
	for i := range b.rows {
		nClust += len(b.rows[i].Clustering)
		for _, v := range b.rows[i].Clustering {
			total += len(v)
		}
	}
	for i := range b.cells {
		total += len(b.cells[i].Path) + len(b.cells[i].Value)
	}
	for i := range b.markers {
		nClust += len(b.markers[i].Clustering)
		for _, v := range b.markers[i].Clustering {
			total += len(v)
		}
	}

	a := arena{buf: make([]byte, 0, total)}
	p := &Partition{Key: a.copy(b.key), Deletion: b.deletion, Static: NewRow(nil)}
	p.Token = b.part.Token(p.Key)
	if nClust > 0 {
		a.comps = make([][]byte, 0, nClust)
	}

	// Place cells and complex deletions grouped by row, the static row first
	// and then the rows in clustering order (a counting sort on the owner).
	n := len(b.rows) + 1
	b.slot = resize(b.slot, n)
	b.slot[0] = 0
	for pos, ri := range b.order {
		b.slot[ri+1] = int32(pos) + 1
	}
	b.cellAt = b.groupStarts(b.cellAt, b.cellOwner, n)
	b.cdAt = b.groupStarts(b.cdAt, b.cdOwner, n)
	var cells []Cell
	if len(b.cells) > 0 {
		cells = make([]Cell, len(b.cells))
		next := b.counts[:0]
		next = append(next, b.cellAt[:n]...)
		for i := range b.cells {
			c := b.cells[i]
			c.Path, c.Value = a.copy(c.Path), a.copy(c.Value)
			s := b.slot[b.cellOwner[i]+1]
			cells[next[s]] = c
			next[s]++
		}
		b.counts = next
	}
	var cds []ComplexDeletion
	if len(b.cds) > 0 {
		cds = make([]ComplexDeletion, len(b.cds))
		next := b.counts[:0]
		next = append(next, b.cdAt[:n]...)
		for i := range b.cds {
			s := b.slot[b.cdOwner[i]+1]
			cds[next[s]] = b.cds[i]
			next[s]++
		}
		b.counts = next
	}

	fill := func(src, dst *Row, slot int) error {
		*dst = *src
		dst.Cells, dst.ComplexDeletions = nil, nil
		if lo, hi := b.cellAt[slot], b.cellAt[slot+1]; hi > lo {
			dst.Cells = cells[lo:hi:hi]
			if !slices.IsSortedFunc(dst.Cells, cellOrder) {
				slices.SortStableFunc(dst.Cells, cellOrder)
			}
			for i := 1; i < len(dst.Cells); i++ {
				if CompareCells(&dst.Cells[i-1], &dst.Cells[i]) == 0 {
					return fmt.Errorf("mutation.Builder: two cells for column %s", dst.Cells[i].Column.Name)
				}
			}
		}
		if lo, hi := b.cdAt[slot], b.cdAt[slot+1]; hi > lo {
			dst.ComplexDeletions = cds[lo:hi:hi]
			if !slices.IsSortedFunc(dst.ComplexDeletions, complexDeletionOrder) {
				slices.SortStableFunc(dst.ComplexDeletions, complexDeletionOrder)
			}
			for i := 1; i < len(dst.ComplexDeletions); i++ {
				if compareColumns(dst.ComplexDeletions[i-1].Column, dst.ComplexDeletions[i].Column) == 0 {
					return fmt.Errorf("mutation.Builder: two complex deletions for column %s", dst.ComplexDeletions[i].Column.Name)
				}
			}
		}
		return nil
	}
	if b.hasStatic {
		if err := fill(&b.static, &p.Static, 0); err != nil {
			return nil, err
		}
	}
	if len(b.rows) > 0 {
		p.Rows = make([]Row, len(b.rows))
		for i, ri := range b.order {
			if err := fill(&b.rows[ri], &p.Rows[i], i+1); err != nil {
				return nil, err
			}
			p.Rows[i].Clustering = a.copyClustering(b.rows[ri].Clustering)
		}
	}
	if len(b.markers) > 0 {
		p.Markers = make([]RangeTombstoneMarker, len(b.markers))
		for i, m := range b.markers {
			m.Clustering = a.copyClustering(m.Clustering)
			p.Markers[i] = m
		}
	}
	return p, nil
}

// groupStarts fills starts (n+1 entries, reused) with the index where each
// output slot's items begin, given each item's owner.
func (b *Builder) groupStarts(starts, owners []int32, n int) []int32 {
	starts = resize(starts, n+1)
	clear(starts)
	for _, o := range owners {
		starts[b.slot[o+1]+1]++
	}
	for i := 1; i <= n; i++ {
		starts[i] += starts[i-1]
	}
	return starts
}

func resize(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/2)
	}
	return s[:n]
}

// sortRows computes the clustering order of the rows and rejects
// duplicates.
func (b *Builder) sortRows() error {
	b.order = b.order[:0]
	for i := range b.rows {
		b.order = append(b.order, int32(i))
	}
	cmp := func(x, y int32) int { return CompareClusterings(b.t, b.rows[x].Clustering, b.rows[y].Clustering) }
	if !slices.IsSortedFunc(b.order, cmp) {
		slices.SortStableFunc(b.order, cmp)
	}
	for i := 1; i < len(b.order); i++ {
		if cmp(b.order[i-1], b.order[i]) == 0 {
			return fmt.Errorf("mutation.Builder: two rows with clustering %s", FormatClustering(b.t, b.rows[b.order[i]].Clustering))
		}
	}
	return nil
}

// arena hands out copies of byte slices from one allocation, keeping nil
// (null) apart from empty.
type arena struct {
	buf   []byte
	comps [][]byte
}

func (a *arena) copy(v []byte) []byte {
	if v == nil {
		return nil
	}
	if len(v) == 0 {
		return emptyBytes
	}
	n := len(a.buf)
	a.buf = append(a.buf, v...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

func (a *arena) copyClustering(c Clustering) Clustering {
	if c == nil {
		return nil
	}
	n := len(a.comps)
	for _, v := range c {
		a.comps = append(a.comps, a.copy(v))
	}
	return Clustering(a.comps[n:len(a.comps):len(a.comps)])
}
