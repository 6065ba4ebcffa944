package query

import (
	"bytes"
	"io"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/table"
)

// Stats says what a run read.
type Stats struct {
	// Lookups counts the point lookups (one per partition key of a point
	// query), and Lookup sums what they consulted.
	Lookups int
	Lookup  table.GetStats
	// Partitions counts the merged partitions the rows came from (those a
	// range scan merged, or the lookups found).
	Partitions int
	// Rows counts the live rows read before filtering.
	Rows int
}

// Rows is a running query's result, read row by row.
type Rows struct {
	q   *Query
	set *table.Set
	now time.Time

	sc    *table.Scanner
	view  *export.View
	from  mutation.Clustering // where each partition's rows start
	until mutation.Clustering // and where they end (a prefix, inclusive)
	next  int                 // the next key of a point query

	out     [][]byte
	emitted int64
	done    bool

	curKey   []byte
	partRows int64
	partSkip bool

	counted bool
	stats   Stats
}

// Run starts the query over set (which must hold the table the query was
// prepared for); the rows are read as Next asks for them, at the Set's
// moment (table.Options.Now).
func (q *Query) Run(set *table.Set) (*Rows, error) {
	if q.part.Name() != set.Partitioner().Name() && (q.lo != nil || q.hi != nil) {
		q.part = set.Partitioner()
	}
	q.tokenRange()
	r := &Rows{q: q, set: set, now: time.Unix(set.NowInSec(), 0), out: make([][]byte, len(q.outs))}
	if !q.distinct {
		r.from, r.until = q.seekStart(), q.seekEnd()
	}
	if q.emptyRange {
		r.done = true
		return r, nil
	}
	if !q.pointQuery {
		sc, err := set.ScanWith(table.ScanOptions{
			Keep: func(tok dht.Token, key []byte) bool {
				if in, _ := q.inTokenRange(tok); !in {
					return false
				}
				return q.keepKey(key)
			},
			Until: func(tok dht.Token, key []byte) bool {
				_, past := q.inTokenRange(tok)
				return past
			},
		})
		if err != nil {
			return nil, err
		}
		r.sc = sc
		r.view = export.NewView(sc, set.Table(), export.ViewOptions{Now: r.now, From: r.from})
	}
	return r, nil
}

// keepKey applies the partition key filters of a range query to a key.
func (q *Query) keepKey(key []byte) bool {
	if len(q.pkFilters) == 0 {
		return true
	}
	parts := [][]byte{key}
	if len(q.t.PartitionKey) > 1 {
		var err error
		if parts, err = q.t.SplitPartitionKey(key); err != nil {
			return true // the view reports it
		}
	}
	for _, f := range q.pkFilters {
		if !f.matches(parts[f.col.Index]) {
			return false
		}
	}
	return true
}

// Columns returns the result's columns.
func (r *Rows) Columns() []Column { return r.q.cols }

// Stats returns what the run has read so far.
func (r *Rows) Stats() Stats { return r.stats }

// Close releases the scan.
func (r *Rows) Close() error {
	r.done = true
	if r.sc != nil {
		err := r.sc.Close()
		r.sc = nil
		return err
	}
	return nil
}

// Next returns the next row's values, one per column (nil is null), valid
// until the next call; io.EOF after the last.
func (r *Rows) Next() ([][]byte, error) {
	q := r.q
	if q.count {
		if r.counted {
			return nil, io.EOF
		}
		return r.countRows()
	}
	if r.done || q.limit > 0 && r.emitted >= q.limit {
		return nil, io.EOF
	}
	vr, err := r.nextRow()
	if err != nil {
		return nil, err
	}
	r.project(vr)
	r.emitted++
	return r.out, nil
}

// countRows reads every row and returns the one row of an aggregate
// query: the count, and the other selected values of the first row (null
// without rows), as Cassandra's selectors keep them.
func (r *Rows) countRows() ([][]byte, error) {
	r.counted = true
	var n int64
	first := make([][]byte, len(r.out))
	for {
		if r.done {
			break
		}
		vr, err := r.nextRow()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			r.project(vr)
			for i, v := range r.out {
				if v != nil {
					first[i] = append([]byte{}, v...)
				}
			}
		}
		n++
	}
	for i, o := range r.q.outs {
		if o.kind == outCount {
			first[i] = schema.AppendBigint(nil, n)
		}
	}
	r.out = first
	return r.out, nil
}

func (r *Rows) project(vr *export.Row) {
	for i, o := range r.q.outs {
		switch o.kind {
		case outValue:
			r.out[i] = vr.Values[o.idx]
		case outWritetime:
			r.out[i] = nil
			if wt := vr.WriteTimes[o.idx]; wt != export.NoWriteTime && vr.Values[o.idx] != nil {
				r.out[i] = schema.AppendBigint(nil, wt)
			}
		case outTTL:
			r.out[i] = nil
			if ttl := vr.TTLs[o.idx]; ttl != 0 && vr.Values[o.idx] != nil {
				r.out[i] = schema.AppendInt(nil, ttl)
			}
		case outCount:
			r.out[i] = nil
		}
	}
}

// viewRow returns the next live row of the partitions the query reads.
func (r *Rows) viewRow() (*export.Row, error) {
	q := r.q
	for {
		if r.view != nil {
			vr, err := r.view.Next()
			if err == nil {
				r.stats.Rows++
				return vr, nil
			}
			if err != io.EOF {
				return nil, err
			}
			if !q.pointQuery {
				r.done = true
				return nil, io.EOF
			}
			r.sc.Close()
			r.sc, r.view = nil, nil
		}
		if !q.pointQuery || r.next >= len(q.keys) {
			r.done = true
			return nil, io.EOF
		}
		key := q.keys[r.next]
		r.next++
		if q.lo != nil || q.hi != nil {
			if in, _ := q.inTokenRange(r.set.Partitioner().Token(key)); !in {
				continue
			}
		}
		sc, st, err := r.set.GetScanner(key)
		r.stats.Lookups++
		r.stats.Lookup.Consulted += st.Consulted
		r.stats.Lookup.Found += st.Found
		r.stats.Lookup.SkippedByTimestamp += st.SkippedByTimestamp
		if err != nil {
			return nil, err
		}
		if sc == nil {
			continue
		}
		r.sc = sc
		r.view = export.NewView(sc, r.set.Table(), export.ViewOptions{Now: r.now, From: r.from})
	}
}

// nextRow returns the next row that the restrictions keep.
func (r *Rows) nextRow() (*export.Row, error) {
	q := r.q
	nKey := len(q.t.PartitionKey)
	for {
		vr, err := r.viewRow()
		if err != nil {
			return nil, err
		}
		if r.curKey == nil || !bytes.Equal(vr.Key, r.curKey) {
			r.curKey = append(r.curKey[:0], vr.Key...)
			if r.curKey == nil {
				r.curKey = []byte{}
			}
			r.stats.Partitions++
			r.partRows = 0
			r.partSkip = false
			if len(q.staticFilters) > 0 {
				st := &r.view.Header().Static
				for _, f := range q.staticFilters {
					if !f.matches(rawValue(st, f.col)) {
						r.partSkip = true
					}
				}
			}
		}
		if r.partSkip {
			continue
		}
		if q.distinct && r.partRows >= 1 {
			continue
		}
		if vr.StaticOnly {
			if q.hasCKRestrictions || len(q.regularFilters) > 0 {
				continue
			}
		} else {
			ck := vr.Values[nKey : nKey+len(q.t.Clustering)]
			if r.until != nil && q.t.CompareClustering(ck[:len(r.until)], r.until) > 0 {
				// Past the restrictions' last row: the rest of the
				// partition is left unread.
				r.view.SkipPartition()
				continue
			}
			ok := true
			for _, c := range q.clustering {
				if !c.matches(q.t, ck) {
					ok = false
					break
				}
			}
			for _, f := range q.regularFilters {
				if !ok {
					break
				}
				ok = f.matches(vr.Values[f.idx])
			}
			if !ok {
				continue
			}
		}
		if q.perPartitionLimit > 0 && r.partRows >= q.perPartitionLimit {
			continue
		}
		r.partRows++
		return vr, nil
	}
}

// rawValue is what Cassandra's row filter sees of a column in a row it
// does not purge first (the static row): the value of its cell whether
// live, expired or a tombstone (whose value is empty), and for a
// non-frozen collection every cell's, deleted elements included; nil when
// the row has no cell of the column.
func rawValue(r *mutation.Row, col *schema.Column) []byte {
	var cells []*mutation.Cell
	for i := range r.Cells {
		if c := &r.Cells[i]; c.Column != nil && c.Column.Name == col.Name {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return nil
	}
	typ := col.Type.Unreversed()
	if !typ.IsComplex() {
		if cells[0].Value == nil {
			return []byte{}
		}
		return cells[0].Value
	}
	dst := schema.AppendCollectionSize(nil, len(cells))
	for _, c := range cells {
		switch typ.Kind {
		case schema.KindSet:
			dst = schema.AppendCollectionValue(dst, c.Path)
		case schema.KindMap:
			dst = schema.AppendCollectionValue(dst, c.Path)
			dst = schema.AppendCollectionValue(dst, nonNil(c.Value))
		default:
			dst = schema.AppendCollectionValue(dst, nonNil(c.Value))
		}
	}
	return dst
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
