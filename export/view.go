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
	v := &View{sc: sc, t: t, cols: cols, now: now.Unix(), from: opts.From, index: map[*schema.Column]int{}, nKey: len(t.PartitionKey) + len(t.Clustering)}
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

// Next returns the next live row, or nil, io.EOF after the last.
func (v *View) Next() (*Row, error) {
	for {
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
		}
		r, m, err := v.sc.Next()
		if err != nil {
			return nil, err
		}
		if m != nil {
			continue // the merge has applied the range deletions already
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
	row.StaticOnly = false
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
