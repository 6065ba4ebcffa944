package bulk

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// CSVOptions say how CSV input is read. Each record is written as
//
//	INSERT INTO t (columns...) VALUES (values...) USING TIMESTAMP ts [AND TTL ttl]
//
// would write it: a row marker, one cell per non-key column, and a cell
// tombstone for a null value (as cqlsh COPY FROM does). The zero value
// reads comma-separated records whose fields are the table's columns in
// cqlsh's order (partition key, clustering columns, then the other columns
// by name), with the empty field as null.
type CSVOptions struct {
	// Columns names the CSV fields' columns in order; nil means the header
	// line (with Header) or the table's columns in cqlsh's order.
	Columns []string
	// Header says the first line is a header naming the columns; it is
	// skipped when Columns is given.
	Header bool
	// Delimiter separates fields; 0 means ','.
	Delimiter rune
	// NullString is the field text that stands for null; with
	// NullStringSet false the empty field is null.
	NullString    string
	NullStringSet bool
	// TTL is the time to live in seconds of every record; 0 means the
	// table's default_time_to_live.
	TTL int
}

// Given reports whether any CSV option differs from the zero value.
func (o CSVOptions) Given() bool {
	return o.Columns != nil || o.Header || o.Delimiter != 0 || o.NullStringSet || o.TTL != 0
}

// csvColumn is one CSV field's column and its value parser.
type csvColumn struct {
	col   *schema.Column
	parse func(dst []byte, s string) ([]byte, error)
	slot  int // index into the row's cell slots (regular/static), -1 for key columns
}

// csvLoader turns CSV records into partition updates without allocating
// per record beyond what encoding/csv does: the partition, its row, its
// cells and a value arena are reused.
type csvLoader struct {
	t       *schema.Table
	cols    []csvColumn
	null    string
	ts      int64
	ttl     int32
	expires int64
	now     int64

	pk, ck      []int // field index of each partition key / clustering column
	static, reg []int // field indexes of static and regular columns, in column order

	// The record being parsed: its values in rec, sliced by valueOffsets.
	rec          []byte
	valueOffsets []int
	values       [][]byte
	keyComps     [][]byte
	clust        mutation.Clustering
	key          []byte
	// staticOnly says the record holds static columns alone (its
	// clustering and regular columns all null): no clustering row.
	staticOnly bool

	// The batch: one partition update gathered from consecutive records.
	batch     mutation.Partition
	inBatch   bool
	batchLine int
	arena     []byte // key and values
	cells     []mutation.Cell
	cds       []mutation.ComplexDeletion
	clusts    [][]byte
	// uuidTicks is the time (100 ns units of the UUID epoch) of the last
	// list element path; uuidNode the clock sequence and node of them.
	uuidTicks int64
	uuidNode  [8]byte
}

// ReadCSV reads CSV records and feeds the sink one partition update per
// run of consecutive records of one partition (see maxBatchRows). Errors
// name the input and the line; a record with a wrong number of fields or a
// value that does not parse is a BadRecord.
func ReadCSV(r io.Reader, opts ReadOptions, sink Sink) (int64, error) {
	opts, err := opts.ensureDefaults()
	if err != nil {
		return 0, err
	}
	name, t, co := opts.Name, opts.Table, opts.CSV
	if t.IsCounter() {
		return 0, fmt.Errorf("%s: table %s.%s has counter columns, which INSERT cannot write (use --cql with UPDATE ... SET c = c + n)", name, t.Keyspace, t.Name)
	}
	comma := byte(',')
	if d := co.Delimiter; d != 0 {
		if d >= utf8.RuneSelf || d == '"' || d == '\n' || d == '\r' {
			return 0, optionErrorf("--delimiter %q cannot separate CSV fields (want one ASCII character other than a quote or line end)", d)
		}
		comma = byte(d)
	}
	cr := newCSVReader(r, comma)
	names := co.Columns
	if co.Header {
		hdr, err := cr.Read()
		if err != nil {
			if err == io.EOF {
				return 0, fmt.Errorf("%s: empty input, expected a header line", name)
			}
			return 0, csvReadError(name, err)
		}
		if names == nil {
			names = make([]string, len(hdr))
			for i, h := range hdr {
				names[i] = strings.Clone(strings.TrimSpace(h)) // hdr views a reused buffer
			}
		}
	}
	if names == nil {
		names = cqlshColumnOrder(t)
	}
	ttl := int32(co.TTL)
	if ttl == 0 {
		ttl = int32(t.Options.DefaultTimeToLive)
	}
	if ttl < 0 {
		return 0, optionErrorf("--ttl %d: must not be negative", co.TTL)
	}
	l, err := newCSVLoader(t, names, opts.Timestamp, ttl, opts.Now.Unix())
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	if co.NullStringSet {
		l.null = co.NullString
	}
	var n, reported int64
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			opts.OnRows(n - reported)
			return n, l.flush(sink, name)
		}
		if err != nil {
			return n, csvReadError(name, err)
		}
		line := cr.line
		if len(rec) != len(names) {
			err := fmt.Errorf("wrong number of fields: %d, want %d (%s)", len(rec), len(names), strings.Join(names, ", "))
			if err := opts.bad(line, csvRecord(rec, comma), err); err != nil {
				return n, err
			}
			continue
		}
		if err := l.parse(rec); err != nil {
			if err := opts.bad(line, csvRecord(rec, comma), err); err != nil {
				return n, err
			}
			continue
		}
		if !l.fits() {
			if err := l.flush(sink, name); err != nil {
				return n, err
			}
		}
		if !l.inBatch {
			l.batchLine = line
		}
		l.add()
		n++
		if n&1023 == 0 {
			opts.OnRows(n - reported)
			reported = n
		}
	}
}

// csvRecord renders fields as one CSV record, quoting those that need it.
func csvRecord(fields []string, comma byte) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(comma)
		}
		if f == "" || !strings.ContainsAny(f, "\"\r\n"+string(rune(comma))) && f[0] != ' ' {
			b.WriteString(f)
			continue
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(f, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}

// csvReadError locates a malformed record.
func csvReadError(name string, err error) error {
	var ce *csvError
	if errors.As(err, &ce) {
		return fmt.Errorf("%s:%d: %v", name, ce.Line, ce.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// flush applies the batch to the sink and empties it.
func (l *csvLoader) flush(sink Sink, name string) error {
	p := l.pending()
	if p == nil {
		return nil
	}
	if err := sink.Apply(p, l.batchLine); err != nil {
		if errors.Is(err, ErrStopped) {
			return err
		}
		return fmt.Errorf("%s:%d: %w", name, l.batchLine, err)
	}
	l.reset()
	return nil
}

// cqlshColumnOrder is the column order of cqlsh COPY without a column list:
// partition key, clustering columns, then the others by name.
func cqlshColumnOrder(t *schema.Table) []string {
	var names []string
	for _, c := range t.PartitionKey {
		names = append(names, c.Name)
	}
	for _, c := range t.Clustering {
		names = append(names, c.Name)
	}
	var rest []string
	for _, c := range append(slices.Clone(t.Static), t.Regular...) {
		if !c.Hidden {
			rest = append(rest, c.Name)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

func newCSVLoader(t *schema.Table, names []string, ts int64, ttl int32, now int64) (*csvLoader, error) {
	l := &csvLoader{t: t, ts: ts, ttl: ttl, now: now, expires: mutation.NoDeletionTime}
	if ttl > 0 {
		l.expires = now + int64(ttl)
	}
	l.pk = make([]int, len(t.PartitionKey))
	l.ck = make([]int, len(t.Clustering))
	for i := range l.pk {
		l.pk[i] = -1
	}
	for i := range l.ck {
		l.ck[i] = -1
	}
	seen := map[*schema.Column]bool{}
	for i, name := range names {
		col := t.Column(name)
		if col == nil {
			col = t.Column(strings.ToLower(name))
		}
		if col == nil || col.Hidden {
			return nil, optionErrorf("CSV column %q is not a column of %s.%s", name, t.Keyspace, t.Name)
		}
		if seen[col] {
			return nil, optionErrorf("CSV column %q is given twice", name)
		}
		seen[col] = true
		parse, err := csvParser(col)
		if err != nil {
			return nil, err
		}
		l.cols = append(l.cols, csvColumn{col: col, parse: parse, slot: -1})
		switch col.Kind {
		case schema.PartitionKey:
			l.pk[col.Index] = i
		case schema.ClusteringKey:
			l.ck[col.Index] = i
		case schema.Static:
			l.static = append(l.static, i)
		default:
			l.reg = append(l.reg, i)
		}
	}
	for i, f := range l.pk {
		if f < 0 {
			return nil, optionErrorf("the CSV columns lack partition key column %s", t.PartitionKey[i].Name)
		}
	}
	missingCK := 0
	for _, f := range l.ck {
		if f < 0 {
			missingCK++
		}
	}
	switch {
	case missingCK > 0 && (missingCK != len(l.ck) || len(l.reg) > 0):
		return nil, optionErrorf("the CSV columns lack clustering columns of %s.%s (only a row of static columns may omit them)", t.Keyspace, t.Name)
	case missingCK > 0:
		l.ck = nil // a static-only insert
	}
	byIndex := func(a, b int) int { return l.cols[a].col.Index - l.cols[b].col.Index }
	slices.SortFunc(l.static, byIndex)
	slices.SortFunc(l.reg, byIndex)
	l.keyComps = make([][]byte, len(l.pk))
	l.valueOffsets = make([]int, len(names)+1)
	l.values = make([][]byte, len(names))
	if l.ck != nil {
		l.clust = make(mutation.Clustering, len(l.ck))
	}
	l.reset()
	return l, nil
}

// Batching: consecutive records of one partition, in increasing clustering
// order, are gathered into one partition update, so the memtable receives
// one update per run of a partition instead of one per record (inputs
// exported partition by partition, as most are, then cost no merges).
// Records out of order, repeated, or carrying static values when the batch
// already has some start a new update; the memtable merges those.
const (
	maxBatchRows  = 4096
	maxBatchBytes = 1 << 20
)

// parse converts one CSV record into l.values and l.key.
func (l *csvLoader) parse(rec []string) error {
	l.rec = l.rec[:0]
	for i, s := range rec {
		c := &l.cols[i]
		l.valueOffsets[i] = len(l.rec)
		if s == l.null {
			l.values[i] = nil
			continue
		}
		out, err := c.parse(l.rec, s)
		if err != nil {
			return fmt.Errorf("column %s (%s): %w", c.col.Name, c.col.Type, err)
		}
		l.rec = out
		l.values[i] = emptyValue // a non-nil marker; sliced below
	}
	// Slice the values out of the buffer once it has stopped growing.
	l.valueOffsets[len(rec)] = len(l.rec)
	for i := range rec {
		if l.values[i] != nil {
			end := l.valueOffsets[i+1]
			l.values[i] = l.rec[l.valueOffsets[i]:end:end]
		}
	}
	for i, f := range l.pk {
		if l.values[f] == nil {
			return fmt.Errorf("partition key column %s is null", l.t.PartitionKey[i].Name)
		}
		l.keyComps[i] = l.values[f]
	}
	l.staticOnly = l.ck != nil && l.staticOnlyRecord()
	for i, f := range l.ck {
		if l.staticOnly {
			break
		}
		if l.values[f] == nil {
			return fmt.Errorf("clustering column %s is null", l.t.Clustering[i].Name)
		}
		l.clust[i] = l.values[f]
	}
	var err error
	l.key, err = l.t.AppendPartitionKey(l.key[:0], l.keyComps)
	return err
}

// staticOnlyRecord reports whether the parsed record is a partition's
// static row alone, as cqlsh COPY TO and castable export print a partition
// with static data and no live row: every clustering and regular column
// null, some static one not.
func (l *csvLoader) staticOnlyRecord() bool {
	for _, f := range l.ck {
		if l.values[f] != nil {
			return false
		}
	}
	for _, f := range l.reg {
		if l.values[f] != nil {
			return false
		}
	}
	for _, f := range l.static {
		if l.values[f] != nil {
			return true
		}
	}
	return false
}

// fits reports whether the parsed record can join the current batch.
func (l *csvLoader) fits() bool {
	p := &l.batch
	switch {
	case !l.inBatch:
		return true
	case !bytes.Equal(p.Key, l.key), len(p.Rows) >= maxBatchRows, len(l.arena) >= maxBatchBytes:
		return false
	case len(l.static) > 0 && len(p.Static.Cells) > 0:
		return false
	case l.ck != nil && !l.staticOnly && len(p.Rows) > 0 && l.t.CompareClustering(p.Rows[len(p.Rows)-1].Clustering, l.clust) >= 0:
		return false
	}
	return true
}

// pending returns the batch gathered so far, or nil.
func (l *csvLoader) pending() *mutation.Partition {
	if !l.inBatch {
		return nil
	}
	return &l.batch
}

// reset empties the batch, keeping its memory. It sets only what a batch
// changes (a whole Partition assigned per record costs more than the rest
// of a small record's handling).
func (l *csvLoader) reset() {
	p := &l.batch
	p.Key, p.Rows, p.Deletion = nil, p.Rows[:0], mutation.Live
	if st := &p.Static; st.Cells != nil || st.ComplexDeletions != nil || st.Clustering != nil || st.Liveness != mutation.EmptyLiveness ||
		st.Deletion != mutation.Live || st.ShadowableDeletion != mutation.Live || st.DeletionShadowable {
		p.Static = mutation.NewRow(nil)
	}
	l.arena, l.cells, l.cds, l.clusts = l.arena[:0], l.cells[:0], l.cds[:0], l.clusts[:0]
	l.inBatch = false
}

// add appends the parsed record to the batch. Earlier rows keep pointing
// into the old backing arrays when an append reallocates one, which stays
// valid: nothing already added is ever written again.
func (l *csvLoader) add() {
	p := &l.batch
	if !l.inBatch {
		start := len(l.arena)
		l.arena = append(l.arena, l.key...)
		p.Key = l.arena[start:len(l.arena):len(l.arena)]
		l.inBatch = true
	}
	// Copy the record's values into the batch arena.
	base := len(l.arena)
	l.arena = append(l.arena, l.rec...)
	for i, v := range l.values {
		if v != nil {
			off := base + l.valueOffsets[i]
			l.values[i] = l.arena[off : off+len(v) : off+len(v)]
		}
	}
	if len(l.static) > 0 {
		start, cdStart := len(l.cells), len(l.cds)
		l.cells = l.appendCells(l.cells, l.static)
		p.Static.Cells = l.cells[start:len(l.cells):len(l.cells)]
		if len(l.cds) > cdStart {
			p.Static.ComplexDeletions = l.cds[cdStart:len(l.cds):len(l.cds)]
		}
	}
	if l.ck == nil || l.staticOnly {
		return
	}
	start := len(l.clusts)
	for _, f := range l.ck {
		l.clusts = append(l.clusts, l.values[f])
	}
	row := mutation.NewRow(l.clusts[start:len(l.clusts):len(l.clusts)])
	row.Liveness = mutation.LivenessInfo{Timestamp: l.ts, TTL: l.ttl, LocalExpirationTime: l.expires}
	cstart, cdStart := len(l.cells), len(l.cds)
	l.cells = l.appendCells(l.cells, l.reg)
	row.Cells = l.cells[cstart:len(l.cells):len(l.cells)]
	if len(l.cds) > cdStart {
		row.ComplexDeletions = l.cds[cdStart:len(l.cds):len(l.cds)]
	}
	p.Rows = append(p.Rows, row)
}

// appendCells appends the cells of the given fields (in column order).
// A non-frozen collection or UDT gets what an INSERT writes for it: the
// deletion of the previous content (timestamp - 1) and one cell per
// element.
func (l *csvLoader) appendCells(dst []mutation.Cell, fields []int) []mutation.Cell {
	for _, f := range fields {
		col := l.cols[f].col
		if col.Type.IsComplex() {
			l.cds = append(l.cds, mutation.ComplexDeletion{Column: col,
				Deletion: mutation.DeletionTime{MarkedForDeleteAt: l.ts - 1, LocalDeletionTime: l.now}})
			dst = l.appendElements(dst, col, l.values[f])
			continue
		}
		c := mutation.Cell{Column: col, Timestamp: l.ts}
		if v := l.values[f]; v == nil {
			c.TTL, c.LocalDeletionTime = mutation.NoTTL, l.now
		} else {
			c.Value, c.TTL, c.LocalDeletionTime = v, l.ttl, l.expires
		}
		dst = append(dst, c)
	}
	return dst
}

var emptyValue = []byte{}
