// Package export shows a table's SSTables as CQL shows the table: the live
// rows at a moment (View), as `SELECT *` returns them, and writes them out
// as Parquet, CSV or JSON Lines.
package export

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/table"
)

// SelectStarColumns returns t's columns in the order `SELECT *` returns
// them: the partition key and clustering columns as declared, then the
// static columns by name, then the regular ones by name (simple and
// complex together, unlike their order on disk). Hidden COMPACT STORAGE
// columns are left out.
func SelectStarColumns(t *schema.Table) []*schema.Column {
	out := append([]*schema.Column{}, t.PartitionKey...)
	out = append(out, t.Clustering...)
	for _, kind := range [][]*schema.Column{t.Static, t.Regular} {
		var cols []*schema.Column
		for _, c := range kind {
			if !c.Hidden {
				cols = append(cols, c)
			}
		}
		slices.SortFunc(cols, func(a, b *schema.Column) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, cols...)
	}
	return out
}

// ViewOptions configure a View. The zero value of each field means the
// default its comment gives.
type ViewOptions struct {
	// Now is the moment the view shows: cells expired by then are gone,
	// TTLs count down from it. The zero value means time.Now().
	Now time.Time
	// Tombstones makes the view an audit view: besides the live rows, Next
	// returns one Row (with Tombstone set) for each deletion the merged
	// data still holds — partition deletions, range tombstone bounds, row
	// deletions, cell tombstones, expired cells and row markers, and
	// deletions of whole collections — in the order the merge meets them.
	Tombstones bool
	// From, when set, starts every partition's rows at this clustering
	// prefix (table.Scanner.SeekClustering: through the row indexes): rows
	// before it are not read, or, where an input cannot seek, still
	// returned. A partition with no live row from there on shows as its
	// static row (StaticOnly) when that is live.
	From mutation.Clustering
}

// Row is one CQL row of the view, valid until the next call to the View.
type Row struct {
	// Token and Key are the partition's.
	Token dht.Token
	Key   []byte
	// Values holds one value per View.Columns entry, as the native protocol
	// carries it (a collection or non-frozen UDT in its frozen form, a
	// counter as its bigint total); nil is null.
	Values [][]byte
	// WriteTimes and TTLs hold, per column, what writetime() and ttl()
	// return: the cell's timestamp and remaining seconds, or NoWriteTime
	// and 0 when CQL returns null (no cell, no TTL, key and collection
	// columns).
	WriteTimes []int64
	TTLs       []int32
	// StaticOnly says the row stands for a partition with static data and
	// no live row: its clustering and regular columns are null.
	StaticOnly bool
	// Tombstone is nil for a live row. In an audit view
	// (ViewOptions.Tombstones) a row with Tombstone set describes one
	// deletion: Values hold the partition key, the clustering (a range
	// bound's prefix, a row's clustering; null for partition deletions
	// and static cells) and, for an expired simple cell, its value;
	// WriteTimes and TTLs are empty.
	Tombstone *Tombstone
}

// TombstoneKind says what a tombstone row of an audit view describes.
type TombstoneKind uint8

// The kinds of deletion an audit view shows.
const (
	// PartitionDeletion is a partition-wide deletion (DELETE FROM t WHERE
	// pk = ...).
	PartitionDeletion TombstoneKind = iota + 1
	// RangeStart and RangeEnd are the bounds of a range tombstone (DELETE
	// with a clustering prefix or slice); the row's clustering columns
	// hold the bound's prefix and Tombstone.Inclusive says whether rows
	// equal to it are deleted. Where one range ends as the next begins
	// (a boundary), an end row comes before a start row.
	RangeStart
	RangeEnd
	// RowDeletion is a row deletion (regular or shadowable).
	RowDeletion
	// CellDeletion is a cell tombstone: a deleted simple cell, or a
	// deleted element of a collection or UDT (Tombstone.Path).
	CellDeletion
	// Expired is a cell (or, without a Column, a row marker) whose TTL
	// ran out by the view's moment; LocalDeletionTime is when.
	Expired
	// CollectionDeletion is the deletion of a whole non-frozen collection
	// or UDT column (overwriting or deleting it).
	CollectionDeletion
)

// String returns the kind's name as exports show it: partition,
// range_start, range_end, row, cell, expired, collection.
func (k TombstoneKind) String() string {
	switch k {
	case PartitionDeletion:
		return "partition"
	case RangeStart:
		return "range_start"
	case RangeEnd:
		return "range_end"
	case RowDeletion:
		return "row"
	case CellDeletion:
		return "cell"
	case Expired:
		return "expired"
	case CollectionDeletion:
		return "collection"
	}
	return "unknown"
}

// Tombstone describes one deletion of an audit view.
type Tombstone struct {
	Kind TombstoneKind
	// Column is the deleted or expired cell's column (CellDeletion,
	// Expired, CollectionDeletion); nil otherwise (an expired row marker
	// has none).
	Column *schema.Column
	// Path is the element of a non-frozen collection or UDT the cell is
	// (the list element's timeuuid, the set element, the map key, the UDT
	// field index); nil for a simple cell.
	Path []byte
	// Inclusive says whether a range bound includes its clustering prefix.
	Inclusive bool
	// MarkedForDeleteAt is the deletion's timestamp in microseconds (an
	// expired cell's or marker's write timestamp).
	MarkedForDeleteAt int64
	// LocalDeletionTime is when the deletion happened (an expiring cell:
	// when it expired), in seconds since the epoch.
	LocalDeletionTime int64
}

// tombstoneItem is an audit row waiting to be returned: what it
// describes and where. Its slices point into the scan's current
// partition or row, which stay valid until the queue is drained.
type tombstoneItem struct {
	ts         Tombstone
	clustering mutation.Clustering
	value      []byte
}

// NoWriteTime is a Row.WriteTimes entry for which writetime() is null.
const NoWriteTime = mutation.NoTimestamp

// View reads the live rows of a merged scan.
type View struct {
	sc   *table.Scanner
	t    *schema.Table
	cols []*schema.Column
	now  int64
	from mutation.Clustering

	// index maps a column to its Values position.
	index map[*schema.Column]int
	nKey  int

	part       *mutation.Partition
	header     *mutation.Partition // the last row's partition, for Header
	keyValues  [][]byte
	static     staticState
	rowsLive   int
	done       bool
	row        Row
	buf        []byte
	cellsOfCol []mutation.Cell

	tombstones bool
	queue      []tombstoneItem
	queued     int
	tomb       Tombstone
}

type staticState struct {
	live       bool
	values     [][]byte
	writeTimes []int64
	ttls       []int32
}

// NewView returns a view over sc's partitions (a scan of a table.Set).
func NewView(sc *table.Scanner, t *schema.Table, opts ViewOptions) *View {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	cols := SelectStarColumns(t)
	v := &View{sc: sc, t: t, cols: cols, now: now.Unix(), index: map[*schema.Column]int{}, nKey: len(t.PartitionKey) + len(t.Clustering), tombstones: opts.Tombstones, from: opts.From}
	for i, c := range cols {
		v.index[c] = i
	}
	v.row.Values = make([][]byte, len(cols))
	v.row.WriteTimes = make([]int64, len(cols))
	v.row.TTLs = make([]int32, len(cols))
	v.static.values = make([][]byte, len(cols))
	v.static.writeTimes = make([]int64, len(cols))
	v.static.ttls = make([]int32, len(cols))
	return v
}

// Columns returns the view's columns (SelectStarColumns).
func (v *View) Columns() []*schema.Column { return v.cols }

// NowInSec is the view's moment in seconds since the epoch.
func (v *View) NowInSec() int64 { return v.now }

// Next returns the next live row (and in an audit view the next
// tombstone row), or nil, io.EOF after the last.
func (v *View) Next() (*Row, error) {
	for {
		if v.queued < len(v.queue) {
			v.fillTombstone(&v.queue[v.queued])
			v.queued++
			return &v.row, nil
		}
		v.queue, v.queued = v.queue[:0], 0
		if v.part == nil {
			p, err := v.sc.NextPartition()
			if err != nil {
				return nil, err
			}
			if err := v.startPartition(p); err != nil {
				return nil, err
			}
			if v.from != nil {
				if err := v.sc.SeekClustering(v.from); err != nil {
					return nil, err
				}
			}
			if v.tombstones {
				if !p.Deletion.IsLive() {
					v.queue = append(v.queue, tombstoneItem{ts: Tombstone{Kind: PartitionDeletion, MarkedForDeleteAt: p.Deletion.MarkedForDeleteAt, LocalDeletionTime: p.Deletion.LocalDeletionTime}})
				}
				v.queueRow(&p.Static, nil)
			}
			continue
		}
		r, m, err := v.sc.Next()
		if err != nil {
			return nil, err
		}
		if m != nil {
			// The merge has applied the range deletions already.
			if v.tombstones {
				v.queueMarker(m)
			}
			continue
		}
		if r == nil {
			// The partition's end. A partition with live static data and no live row shows
			// as one row.
			p := v.part
			v.part = nil
			if v.rowsLive == 0 && v.static.live {
				v.fillStaticOnly(p)
				return &v.row, nil
			}
			continue
		}
		ok, err := v.fillRow(r)
		if err != nil {
			return nil, err
		}
		if v.tombstones {
			v.queueRow(r, r.Clustering)
		}
		if ok {
			v.rowsLive++
			return &v.row, nil
		}
	}
}

func (v *View) startPartition(p *mutation.Partition) error {
	v.part, v.header, v.rowsLive = p, p, 0
	if len(v.t.PartitionKey) == 1 {
		v.keyValues = append(v.keyValues[:0], p.Key)
	} else {
		parts, err := v.t.SplitPartitionKey(p.Key)
		if err != nil {
			return fmt.Errorf("partition %x: %w", p.Key, err)
		}
		v.keyValues = parts
	}
	st := &v.static
	clear(st.values)
	for i := range st.writeTimes {
		st.writeTimes[i], st.ttls[i] = NoWriteTime, 0
	}
	st.live = false
	if !p.Static.IsEmpty() {
		live, err := v.columns(&p.Static, st.values, st.writeTimes, st.ttls)
		if err != nil {
			return fmt.Errorf("partition %s: static row: %w", mutation.FormatKey(v.t, p.Key), err)
		}
		st.live = live
	}
	return nil
}

// fillKey sets the key columns of the row.
func (v *View) fillKey(r *Row, clustering mutation.Clustering) {
	r.Token, r.Key = v.part.Token, v.part.Key
	for i := range v.t.PartitionKey {
		r.Values[i] = v.keyValues[i]
		r.WriteTimes[i], r.TTLs[i] = NoWriteTime, 0
	}
	for i := range v.t.Clustering {
		j := len(v.t.PartitionKey) + i
		r.Values[j] = nil
		if i < len(clustering) {
			r.Values[j] = clustering[i]
		}
		r.WriteTimes[j], r.TTLs[j] = NoWriteTime, 0
	}
}

func (v *View) resetColumns(r *Row) {
	for i := v.nKey; i < len(v.cols); i++ {
		r.Values[i], r.WriteTimes[i], r.TTLs[i] = nil, NoWriteTime, 0
	}
}

func (v *View) fillStaticOnly(p *mutation.Partition) {
	r := &v.row
	v.part = p
	v.fillKey(r, nil)
	v.part = nil
	v.resetColumns(r)
	v.copyStatic(r)
	r.StaticOnly = true
	r.Tombstone = nil
}

func (v *View) copyStatic(r *Row) {
	for _, c := range v.t.Static {
		if i, ok := v.index[c]; ok {
			r.Values[i], r.WriteTimes[i], r.TTLs[i] = v.static.values[i], v.static.writeTimes[i], v.static.ttls[i]
		}
	}
}

// fillRow fills v.row from a clustering row and reports whether the row is
// live.
func (v *View) fillRow(r *mutation.Row) (bool, error) {
	row := &v.row
	row.StaticOnly, row.Tombstone = false, nil
	v.fillKey(row, r.Clustering)
	v.resetColumns(row)
	live, err := v.columns(r, row.Values, row.WriteTimes, row.TTLs)
	if err != nil {
		return false, fmt.Errorf("partition %s: row %s: %w", mutation.FormatKey(v.t, v.part.Key), mutation.FormatClustering(v.t, r.Clustering), err)
	}
	del := r.EffectiveDeletion()
	if l := r.Liveness; !l.IsEmpty() && l.IsLive(v.now) && !del.Deletes(l.Timestamp) {
		live = true
	}
	if !live {
		return false, nil
	}
	v.copyStatic(row)
	return true, nil
}

// columns fills the values of r's live cells and reports whether any is
// live.
func (v *View) columns(r *mutation.Row, values [][]byte, wts []int64, ttls []int32) (bool, error) {
	del := r.EffectiveDeletion()
	live := false
	cells := r.Cells
	for len(cells) > 0 {
		col := cells[0].Column
		n := 1
		for n < len(cells) && cells[n].Column == col {
			n++
		}
		run := cells[:n]
		cells = cells[n:]
		i, ok := v.index[col]
		if !ok {
			continue
		}
		colDel := del
		if col.Type.IsComplex() {
			colDel = mutation.MaxDeletion(del, r.ComplexDeletionOf(col))
		}
		if !col.Type.IsComplex() {
			c := &run[0]
			if !c.IsLiveAt(v.now) || colDel.DeletesCell(c) {
				continue
			}
			val := c.Value
			if col.Type.Kind == schema.KindCounter {
				total, err := mutation.CounterTotal(c.Value)
				if err != nil {
					return false, fmt.Errorf("column %s: %w", col.Name, err)
				}
				val = schema.AppendBigint(nil, total)
			}
			values[i], wts[i] = val, c.Timestamp
			if c.IsExpiring() {
				ttls[i] = int32(c.LocalDeletionTime - v.now)
			}
			live = true
			continue
		}
		liveCells := v.cellsOfCol[:0]
		for k := range run {
			if run[k].IsLiveAt(v.now) && !colDel.DeletesCell(&run[k]) {
				liveCells = append(liveCells, run[k])
			}
		}
		v.cellsOfCol = liveCells
		if len(liveCells) == 0 {
			continue
		}
		values[i] = frozenValue(col.Type, liveCells)
		live = true
	}
	return live, nil
}

// frozenValue is the native protocol value of a non-frozen collection or
// UDT made of its live cells (in path order): a list of the values, a set
// of the paths, a map of path to value, a UDT of every field (null where
// no cell is).
func frozenValue(t *schema.Type, cells []mutation.Cell) []byte {
	var dst []byte
	switch t.Kind {
	case schema.KindUDT:
		fields := make([][]byte, len(t.Params))
		for k := range cells {
			if idx, ok := schema.FieldIndex(cells[k].Path); ok && idx < len(fields) {
				fields[idx] = cells[k].Value
				if fields[idx] == nil {
					fields[idx] = []byte{}
				}
			}
		}
		for _, f := range fields {
			dst = schema.AppendTupleField(dst, f)
		}
		return dst
	case schema.KindList:
		dst = schema.AppendCollectionSize(dst, len(cells))
		for k := range cells {
			dst = schema.AppendCollectionValue(dst, cells[k].Value)
		}
	case schema.KindSet:
		dst = schema.AppendCollectionSize(dst, len(cells))
		for k := range cells {
			dst = schema.AppendCollectionValue(dst, cells[k].Path)
		}
	case schema.KindMap:
		dst = schema.AppendCollectionSize(dst, len(cells))
		for k := range cells {
			dst = schema.AppendCollectionValue(dst, cells[k].Path)
			dst = schema.AppendCollectionValue(dst, cells[k].Value)
		}
	}
	return dst
}

// queueMarker queues the tombstone rows of a merged range tombstone
// marker: a bound, or a boundary's end then its start.
func (v *View) queueMarker(m *mutation.RangeTombstoneMarker) {
	k := m.Kind
	if k.IsEnd() {
		inclusive := k == mutation.InclEndBound || k == mutation.InclEndExclStartBoundary
		v.queue = append(v.queue, tombstoneItem{clustering: m.Clustering, ts: Tombstone{Kind: RangeEnd, Inclusive: inclusive,
			MarkedForDeleteAt: m.Close.MarkedForDeleteAt, LocalDeletionTime: m.Close.LocalDeletionTime}})
	}
	if k.IsStart() {
		inclusive := k == mutation.InclStartBound || k == mutation.ExclEndInclStartBoundary
		v.queue = append(v.queue, tombstoneItem{clustering: m.Clustering, ts: Tombstone{Kind: RangeStart, Inclusive: inclusive,
			MarkedForDeleteAt: m.Open.MarkedForDeleteAt, LocalDeletionTime: m.Open.LocalDeletionTime}})
	}
}

// queueRow queues the tombstone rows of a merged row (the static row
// with a nil clustering): its deletion, an expired row marker, its
// collection deletions, cell tombstones and expired cells, by column.
func (v *View) queueRow(r *mutation.Row, clustering mutation.Clustering) {
	add := func(ts Tombstone, value []byte) {
		v.queue = append(v.queue, tombstoneItem{ts: ts, clustering: clustering, value: value})
	}
	for _, d := range []mutation.DeletionTime{r.Deletion, r.ShadowableDeletion} {
		if !d.IsLive() {
			add(Tombstone{Kind: RowDeletion, MarkedForDeleteAt: d.MarkedForDeleteAt, LocalDeletionTime: d.LocalDeletionTime}, nil)
		}
	}
	if l := r.Liveness; !l.IsEmpty() && (l.IsExpired() || l.IsExpiring() && !l.IsLive(v.now)) {
		add(Tombstone{Kind: Expired, MarkedForDeleteAt: l.Timestamp, LocalDeletionTime: l.LocalExpirationTime}, nil)
	}
	cds := r.ComplexDeletions
	for i := range r.Cells {
		c := &r.Cells[i]
		for len(cds) > 0 && cds[0].Column.Index <= c.Column.Index && cds[0].Column.Kind == c.Column.Kind {
			if !cds[0].Deletion.IsLive() {
				add(Tombstone{Kind: CollectionDeletion, Column: cds[0].Column, MarkedForDeleteAt: cds[0].Deletion.MarkedForDeleteAt, LocalDeletionTime: cds[0].Deletion.LocalDeletionTime}, nil)
			}
			cds = cds[1:]
		}
		switch {
		case c.IsTombstone():
			add(Tombstone{Kind: CellDeletion, Column: c.Column, Path: c.Path, MarkedForDeleteAt: c.Timestamp, LocalDeletionTime: c.LocalDeletionTime}, nil)
		case c.IsExpiring() && !c.IsLiveAt(v.now):
			var value []byte
			if c.Path == nil && c.Column.Type.Kind != schema.KindCounter {
				value = c.Value
			}
			add(Tombstone{Kind: Expired, Column: c.Column, Path: c.Path, MarkedForDeleteAt: c.Timestamp, LocalDeletionTime: c.LocalDeletionTime}, value)
		}
	}
	for _, cd := range cds {
		if !cd.Deletion.IsLive() {
			add(Tombstone{Kind: CollectionDeletion, Column: cd.Column, MarkedForDeleteAt: cd.Deletion.MarkedForDeleteAt, LocalDeletionTime: cd.Deletion.LocalDeletionTime}, nil)
		}
	}
}

// fillTombstone fills v.row from a queued tombstone row.
func (v *View) fillTombstone(it *tombstoneItem) {
	r := &v.row
	v.fillKey(r, it.clustering)
	v.resetColumns(r)
	r.StaticOnly = false
	if it.value != nil && it.ts.Column != nil {
		if i, ok := v.index[it.ts.Column]; ok {
			r.Values[i] = it.value
		}
	}
	v.tomb = it.ts
	r.Tombstone = &v.tomb
}
