package jsondump

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// Format selects the dialect the Encoder writes (json-format.md).
type Format uint8

const (
	// FormatDump is what sstabledump prints by default (§1): ISO-8601
	// times, a cell's tstamp omitted when it equals the row liveness
	// timestamp, ttl/expires_at omitted when they equal the row's, and
	// "expired" flags computed against EncodeOptions.Now.
	FormatDump Format = iota
	// FormatRaw is sstabledump -t: like FormatDump with every time printed
	// as a JSON string of decimal digits.
	FormatRaw
	// FormatCanonical is the canonical form (§2.4): integer times,
	// explicit tstamp and ttl/expires_at on every cell, no "expired".
	FormatCanonical
)

// Layout selects the whitespace and framing of the output.
type Layout uint8

const (
	// LayoutPretty is a JSON array, one partition object per block, rows
	// and cells one per line with two-space indentation; small objects
	// (keys, clusterings, liveness and deletion info, cells) on one line.
	LayoutPretty Layout = iota
	// LayoutCompact is a JSON array without any whitespace.
	LayoutCompact
	// LayoutLines is JSON Lines: one compact partition object per line, no
	// enclosing array.
	LayoutLines
)

// EncodeOptions configure an Encoder. The zero value writes sstabledump's
// default form, pretty-printed.
type EncodeOptions struct {
	// Format is the dialect; default FormatDump.
	Format Format
	// Layout is the framing and whitespace; default LayoutPretty.
	Layout Layout
	// KeysOnly writes only each partition's key array (sstabledump -e):
	// [["k1"], ["k2"]]; rows are not written.
	KeysOnly bool
	// Now is the wall clock "expired" flags compare against (FormatDump and
	// FormatRaw); zero means the time NewEncoder is called.
	Now time.Time
}

// Encoder writes partitions as sstabledump JSON. Call Encode per partition
// (or BeginPartition, Row/Marker..., EndPartition to stream a huge one) and
// Close at the end. Output is deterministic. Errors are sticky: after one,
// every call returns it.
type Encoder struct {
	w    io.Writer
	t    *schema.Table
	opts EncodeOptions
	now  int64 // seconds

	buf        []byte
	err        error
	partitions int
	inPart     bool
	rowsInPart int
	closed     bool

	key      []byte // current partition key (for messages)
	liveness mutation.LivenessInfo

	// Column names in CQL form, by kind and index.
	staticNames, regularNames []string
}

// flushThreshold is the buffered size at which the encoder writes out.
const flushThreshold = 64 << 10

// NewEncoder returns an encoder writing partitions of table t to w.
func NewEncoder(w io.Writer, t *schema.Table, opts EncodeOptions) *Encoder {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	e := &Encoder{w: w, t: t, opts: opts, now: now.Unix()}
	e.staticNames = quotedNames(t.Static)
	e.regularNames = quotedNames(t.Regular)
	return e
}

func quotedNames(cols []*schema.Column) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = schema.QuoteIdentifier(c.Name)
	}
	return names
}

// columnName returns col's name in CQL form (quoted when needed).
func (e *Encoder) columnName(col *schema.Column) string {
	names := e.regularNames
	if col.Kind == schema.Static {
		names = e.staticNames
	}
	if col.Index >= 0 && col.Index < len(names) && e.tableColumn(col, names) {
		return names[col.Index]
	}
	return schema.QuoteIdentifier(col.Name)
}

func (e *Encoder) tableColumn(col *schema.Column, names []string) bool {
	cols := e.t.Regular
	if col.Kind == schema.Static {
		cols = e.t.Static
	}
	return len(cols) == len(names) && cols[col.Index] == col
}

var errClosed = errors.New("jsondump: encoder closed")

func (e *Encoder) pretty() bool    { return e.opts.Layout == LayoutPretty }
func (e *Encoder) canonical() bool { return e.opts.Format == FormatCanonical }

func (e *Encoder) fail(row, column string, err error) error {
	if e.err == nil {
		e.err = &Error{Op: "encode", Offset: -1, Partition: e.formatKey(), Row: row, Column: column, Err: err}
	}
	return e.err
}

func (e *Encoder) formatKey() string {
	if e.key == nil {
		return ""
	}
	return mutation.FormatKey(e.t, e.key)
}

// colon and comma inside one-line objects.
func (e *Encoder) colon() { e.buf = append(e.buf, ':'); e.space() }
func (e *Encoder) comma() { e.buf = append(e.buf, ','); e.space() }
func (e *Encoder) space() {
	if e.pretty() {
		e.buf = append(e.buf, ' ')
	}
}

// newline starts a new line at the given indentation (pretty only).
func (e *Encoder) newline(level int) {
	if !e.pretty() {
		return
	}
	e.buf = append(e.buf, '\n')
	for i := 0; i < level; i++ {
		e.buf = append(e.buf, ' ', ' ')
	}
}

func (e *Encoder) field(name string) {
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, name...)
	e.buf = append(e.buf, '"')
	e.colon()
}

func (e *Encoder) flush() error {
	if len(e.buf) == 0 {
		return nil
	}
	_, err := e.w.Write(e.buf)
	e.buf = e.buf[:0]
	if err != nil && e.err == nil {
		e.err = err
	}
	return e.err
}

func (e *Encoder) maybeFlush() error {
	if len(e.buf) >= flushThreshold {
		return e.flush()
	}
	return e.err
}

// startPartition writes what comes before a partition object.
func (e *Encoder) startPartition() {
	switch {
	case e.opts.Layout == LayoutLines:
	case e.partitions == 0:
		e.buf = append(e.buf, '[')
		e.newline(1)
	default:
		e.buf = append(e.buf, ',')
		e.newline(1)
	}
	e.partitions++
}

// Encode writes partition p; position is its offset in Data.db, or -1
// when unknown (then no "position" is written).
func (e *Encoder) Encode(p *mutation.Partition, position int64) error {
	if err := e.BeginPartition(p, position); err != nil {
		return err
	}
	if !e.opts.KeysOnly {
		if err := p.Unfiltered(e.t, func(r *mutation.Row, m *mutation.RangeTombstoneMarker) error {
			if r != nil {
				return e.Row(r)
			}
			return e.Marker(m)
		}); err != nil {
			return err
		}
	}
	return e.EndPartition()
}

// BeginPartition writes the header of p (key, position, partition
// deletion) and its static row when not empty; p's rows and markers are
// not written (pass them to Row and Marker, then call EndPartition).
func (e *Encoder) BeginPartition(p *mutation.Partition, position int64) error {
	if e.err != nil {
		return e.err
	}
	if e.closed {
		return errClosed
	}
	if e.inPart {
		return e.fail("", "", errors.New("BeginPartition before EndPartition"))
	}
	e.key = p.Key
	e.startPartition()
	if e.opts.KeysOnly {
		if err := e.appendKey(p.Key); err != nil {
			return err
		}
		e.inPart = true
		return nil
	}
	e.buf = append(e.buf, '{')
	e.newline(2)
	e.field("partition")
	e.buf = append(e.buf, '{')
	e.field("key")
	if err := e.appendKey(p.Key); err != nil {
		return err
	}
	if position >= 0 {
		e.comma()
		e.field("position")
		e.buf = strconv.AppendInt(e.buf, position, 10)
	}
	if !p.Deletion.IsLive() {
		e.comma()
		e.appendDeletion("deletion_info", p.Deletion, false)
	}
	e.buf = append(e.buf, '}', ',')
	e.newline(2)
	e.field("rows")
	e.buf = append(e.buf, '[')
	e.inPart, e.rowsInPart = true, 0
	if !p.Static.IsEmpty() {
		return e.writeRow(&p.Static, true)
	}
	return e.maybeFlush()
}

func (e *Encoder) appendKey(key []byte) error {
	var one [1][]byte
	parts := one[:]
	if len(e.t.PartitionKey) == 1 {
		one[0] = key
	} else {
		var err error
		if parts, err = e.t.SplitPartitionKey(key); err != nil {
			return e.fail("", "", fmt.Errorf("partition key: %w", err))
		}
	}
	if len(parts) != len(e.t.PartitionKey) {
		return e.fail("", "", fmt.Errorf("partition key has %d components, table has %d", len(parts), len(e.t.PartitionKey)))
	}
	e.buf = append(e.buf, '[')
	var scratch [64]byte
	for i, v := range parts {
		if i > 0 {
			e.comma()
		}
		s, err := e.t.PartitionKey[i].Type.AppendString(scratch[:0], v)
		if err != nil {
			return e.fail("", e.t.PartitionKey[i].Name, fmt.Errorf("partition key component: %w", err))
		}
		e.buf = appendJSONString(e.buf, s)
	}
	e.buf = append(e.buf, ']')
	return nil
}

// EndPartition closes the partition begun by BeginPartition.
func (e *Encoder) EndPartition() error {
	if e.err != nil {
		return e.err
	}
	if !e.inPart {
		return e.fail("", "", errors.New("EndPartition without BeginPartition"))
	}
	e.inPart = false
	if !e.opts.KeysOnly {
		if e.rowsInPart > 0 {
			e.newline(2)
		}
		e.buf = append(e.buf, ']')
		e.newline(1)
		e.buf = append(e.buf, '}')
	}
	if e.opts.Layout == LayoutLines {
		e.buf = append(e.buf, '\n')
	}
	e.key = nil
	return e.maybeFlush()
}

// Row writes a clustering row of the current partition.
func (e *Encoder) Row(r *mutation.Row) error {
	if e.err != nil {
		return e.err
	}
	if !e.inPart {
		return e.fail("", "", errors.New("Row outside a partition"))
	}
	if e.opts.KeysOnly {
		return nil
	}
	return e.writeRow(r, false)
}

func (e *Encoder) startElement() {
	if e.rowsInPart > 0 {
		e.buf = append(e.buf, ',')
	}
	e.rowsInPart++
	e.newline(3)
	e.buf = append(e.buf, '{')
	e.newline(4)
}

func (e *Encoder) endElement() {
	e.newline(3)
	e.buf = append(e.buf, '}')
}

// nextField separates the fields of a row or marker object.
func (e *Encoder) nextField() {
	e.buf = append(e.buf, ',')
	if e.pretty() {
		e.newline(4)
	}
}

func (e *Encoder) writeRow(r *mutation.Row, static bool) error {
	rowName := "static"
	if !static {
		rowName = "" // computed lazily on error
	}
	e.startElement()
	e.field("type")
	if static {
		e.buf = append(e.buf, `"static_block"`...)
	} else {
		e.buf = append(e.buf, `"row"`...)
		if len(e.t.Clustering) > 0 {
			e.nextField()
			e.field("clustering")
			if err := e.appendClustering(r.Clustering, len(r.Clustering)); err != nil {
				return e.fail(mutation.FormatClustering(e.t, r.Clustering), "", err)
			}
		}
	}
	if !r.Liveness.IsEmpty() {
		e.nextField()
		e.appendLiveness(r.Liveness)
	}
	if !r.Deletion.IsLive() {
		e.nextField()
		e.appendDeletion("deletion_info", r.Deletion, r.DeletionShadowable)
	}
	if !r.ShadowableDeletion.IsLive() {
		e.nextField()
		e.appendDeletion("shadowable_deletion_info", r.ShadowableDeletion, false)
	}
	e.nextField()
	e.field("cells")
	e.buf = append(e.buf, '[')
	e.liveness = r.Liveness
	n := 0
	cds := r.ComplexDeletions
	if hasLiveComplexDeletion(cds) {
		cds = liveRemoved(cds)
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		// Complex deletions come before their column's elements (and a
		// deletion of a column without elements where it sorts).
		for len(cds) > 0 && compareColumns(cds[0].Column, c.Column) <= 0 {
			e.startCell(&n)
			e.appendComplexDeletion(&cds[0])
			cds = cds[1:]
		}
		e.startCell(&n)
		if err := e.appendCell(c); err != nil {
			if rowName == "" {
				rowName = mutation.FormatClustering(e.t, r.Clustering)
			}
			return e.fail(rowName, c.Column.Name, err)
		}
	}
	for i := range cds {
		e.startCell(&n)
		e.appendComplexDeletion(&cds[i])
	}
	if n > 0 {
		e.newline(4)
	}
	e.buf = append(e.buf, ']')
	e.endElement()
	return e.maybeFlush()
}

func compareColumns(a, b *schema.Column) int {
	switch {
	case a.Index < b.Index:
		return -1
	case a.Index > b.Index:
		return 1
	}
	return 0
}

func (e *Encoder) startCell(n *int) {
	if *n > 0 {
		e.buf = append(e.buf, ',')
	}
	*n++
	e.newline(5)
}

// appendClustering writes a clustering (prefix) padded to the table's
// clustering columns with "*" (bounds).
func (e *Encoder) appendClustering(c mutation.Clustering, n int) error {
	e.buf = append(e.buf, '[')
	for i := range e.t.Clustering {
		if i > 0 {
			e.comma()
		}
		switch {
		case i >= n:
			e.buf = append(e.buf, `"*"`...)
		case c[i] == nil:
			e.buf = append(e.buf, "null"...)
		default:
			out, err := e.t.Clustering[i].Type.AppendJSON(e.buf, c[i])
			if err != nil {
				return fmt.Errorf("clustering column %s: %w", e.t.Clustering[i].Name, err)
			}
			e.buf = out
		}
	}
	if n > len(e.t.Clustering) {
		return fmt.Errorf("clustering has %d components, table has %d", n, len(e.t.Clustering))
	}
	e.buf = append(e.buf, ']')
	return nil
}

// appendMicros writes a µs time field value.
func (e *Encoder) appendMicros(v int64) {
	switch e.opts.Format {
	case FormatCanonical:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case FormatRaw:
		e.buf = append(e.buf, '"')
		e.buf = strconv.AppendInt(e.buf, v, 10)
		e.buf = append(e.buf, '"')
	default:
		e.buf = append(e.buf, '"')
		e.buf = appendMicrosInstant(e.buf, v)
		e.buf = append(e.buf, '"')
	}
}

// appendSeconds writes a time field value in seconds.
func (e *Encoder) appendSeconds(v int64) {
	switch e.opts.Format {
	case FormatCanonical:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case FormatRaw:
		e.buf = append(e.buf, '"')
		e.buf = strconv.AppendInt(e.buf, v, 10)
		e.buf = append(e.buf, '"')
	default:
		e.buf = append(e.buf, '"')
		e.buf = appendSecondsInstant(e.buf, v)
		e.buf = append(e.buf, '"')
	}
}

func (e *Encoder) appendBool(b bool) {
	if b {
		e.buf = append(e.buf, "true"...)
	} else {
		e.buf = append(e.buf, "false"...)
	}
}

func (e *Encoder) appendDeletion(name string, d mutation.DeletionTime, shadowable bool) {
	e.field(name)
	e.buf = append(e.buf, '{')
	e.field("marked_deleted")
	e.appendMicros(d.MarkedForDeleteAt)
	e.comma()
	e.field("local_delete_time")
	e.appendSeconds(d.LocalDeletionTime)
	if shadowable {
		e.comma()
		e.field("shadowable")
		e.buf = append(e.buf, "true"...)
	}
	e.buf = append(e.buf, '}')
}

func (e *Encoder) appendLiveness(l mutation.LivenessInfo) {
	e.field("liveness_info")
	e.buf = append(e.buf, '{')
	e.field("tstamp")
	e.appendMicros(l.Timestamp)
	if l.IsExpiring() {
		e.comma()
		e.field("ttl")
		e.buf = strconv.AppendInt(e.buf, int64(l.TTL), 10)
		e.comma()
		e.field("expires_at")
		e.appendSeconds(l.LocalExpirationTime)
		if !e.canonical() {
			e.comma()
			e.field("expired")
			e.appendBool(int64(l.LocalExpirationTime) < e.now)
		}
	}
	e.buf = append(e.buf, '}')
}

func (e *Encoder) appendComplexDeletion(cd *mutation.ComplexDeletion) {
	e.buf = append(e.buf, '{')
	e.field("name")
	e.buf = appendJSONString(e.buf, e.columnName(cd.Column))
	e.comma()
	e.appendDeletion("deletion_info", cd.Deletion, false)
	e.buf = append(e.buf, '}')
}

func (e *Encoder) appendCell(c *mutation.Cell) error {
	col := c.Column
	e.buf = append(e.buf, '{')
	e.field("name")
	e.buf = appendJSONString(e.buf, e.columnName(col))
	valueType := col.Type
	if col.Type.IsComplex() {
		if c.Path == nil {
			return errors.New("element of a complex column without a path")
		}
		e.comma()
		e.field("path")
		e.buf = append(e.buf, '[')
		var scratch [64]byte
		s, err := col.Type.PathType().AppendString(scratch[:0], c.Path)
		if err != nil {
			return fmt.Errorf("path: %w", err)
		}
		e.buf = appendJSONString(e.buf, s)
		e.buf = append(e.buf, ']')
		valueType = col.Type.ElementValueType(c.Path)
		if valueType == nil {
			return fmt.Errorf("path %x names no element of %s", c.Path, col.Type)
		}
	}
	e.comma()
	if c.IsTombstone() {
		e.field("deletion_info")
		e.buf = append(e.buf, '{')
		e.field("local_delete_time")
		e.appendSeconds(c.LocalDeletionTime)
		e.buf = append(e.buf, '}')
	} else if valueType.Kind == schema.KindCounter {
		shards, err := mutation.ParseCounterContext(c.Value)
		if err != nil {
			return fmt.Errorf("counter context: %w", err)
		}
		var total int64
		for i := range shards {
			total += shards[i].Count
		}
		e.field("value")
		e.buf = strconv.AppendInt(e.buf, total, 10)
		e.comma()
		e.field("counter_shards")
		e.buf = append(e.buf, '[')
		for i := range shards {
			if i > 0 {
				e.comma()
			}
			e.appendShard(&shards[i])
		}
		e.buf = append(e.buf, ']')
	} else {
		e.field("value")
		out, err := valueType.AppendJSON(e.buf, c.Value)
		if err != nil {
			return fmt.Errorf("value: %w", err)
		}
		e.buf = out
	}

	l := e.liveness
	if e.canonical() || l.IsEmpty() || c.Timestamp != l.Timestamp {
		e.comma()
		e.field("tstamp")
		e.appendMicros(c.Timestamp)
	}
	switch {
	case c.IsExpiring():
		// sstabledump omits ttl when it equals the row's; we also require
		// the same expiry so the output stays lossless.
		if e.canonical() || !l.IsExpiring() || c.TTL != l.TTL || c.LocalDeletionTime != l.LocalExpirationTime {
			e.comma()
			e.field("ttl")
			e.buf = strconv.AppendInt(e.buf, int64(c.TTL), 10)
			e.comma()
			e.field("expires_at")
			e.appendSeconds(c.LocalDeletionTime)
			if !e.canonical() {
				e.comma()
				e.field("expired")
				e.appendBool(!c.IsLiveAt(e.now))
			}
		}
	case !c.IsTombstone() && l.IsExpiring():
		// EXTENSION: a non-expiring cell in a row whose liveness expires.
		e.comma()
		e.field("ttl")
		e.buf = append(e.buf, '0')
	}
	e.buf = append(e.buf, '}')
	return nil
}

func (e *Encoder) appendShard(s *mutation.CounterShard) {
	e.buf = append(e.buf, '{')
	e.field("counter_id")
	e.buf = append(e.buf, '"')
	e.buf = appendUUID(e.buf, s.ID[:])
	e.buf = append(e.buf, '"')
	e.comma()
	e.field("clock")
	e.buf = strconv.AppendInt(e.buf, s.Clock, 10)
	e.comma()
	e.field("count")
	e.buf = strconv.AppendInt(e.buf, s.Count, 10)
	e.comma()
	e.field("kind")
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, s.Kind.String()...)
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, '}')
}

func appendUUID(dst, id []byte) []byte {
	for i, b := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[b>>4], hexDigits[b&0xF])
	}
	return dst
}

// Marker writes a range tombstone marker of the current partition.
func (e *Encoder) Marker(m *mutation.RangeTombstoneMarker) error {
	if e.err != nil {
		return e.err
	}
	if !e.inPart {
		return e.fail("", "", errors.New("Marker outside a partition"))
	}
	if e.opts.KeysOnly {
		return nil
	}
	if !m.Kind.IsMarkerKind() {
		return e.fail(m.Kind.String(), "", fmt.Errorf("marker kind %v is not a bound or boundary", m.Kind))
	}
	e.startElement()
	e.field("type")
	if m.Kind.IsBoundary() {
		e.buf = append(e.buf, `"range_tombstone_boundary"`...)
		e.nextField()
		if err := e.appendBound("start", m.Kind.OpenBound(), m.Clustering, m.Open); err != nil {
			return err
		}
		e.nextField()
		if err := e.appendBound("end", m.Kind.CloseBound(), m.Clustering, m.Close); err != nil {
			return err
		}
	} else {
		e.buf = append(e.buf, `"range_tombstone_bound"`...)
		e.nextField()
		var err error
		if m.Kind.IsStart() {
			err = e.appendBound("start", m.Kind, m.Clustering, m.Open)
		} else {
			err = e.appendBound("end", m.Kind, m.Clustering, m.Close)
		}
		if err != nil {
			return err
		}
	}
	e.endElement()
	return e.maybeFlush()
}

func (e *Encoder) appendBound(name string, kind mutation.BoundKind, c mutation.Clustering, d mutation.DeletionTime) error {
	e.field(name)
	e.buf = append(e.buf, '{')
	e.field("type")
	if kind.IsInclusive() {
		e.buf = append(e.buf, `"inclusive"`...)
	} else {
		e.buf = append(e.buf, `"exclusive"`...)
	}
	if len(c) > 0 {
		e.comma()
		e.field("clustering")
		if err := e.appendClustering(c, len(c)); err != nil {
			return e.fail(kind.String()+mutation.FormatClustering(e.t, c), "", err)
		}
	}
	e.comma()
	e.appendDeletion("deletion_info", d, false)
	e.buf = append(e.buf, '}')
	return nil
}

// Close ends the document (the closing bracket of the array) and flushes.
// It does not close the underlying writer.
func (e *Encoder) Close() error {
	if e.closed {
		return e.err
	}
	if e.err == nil && e.inPart {
		e.fail("", "", errors.New("Close inside a partition"))
	}
	e.closed = true
	if e.err != nil {
		return e.err
	}
	if e.opts.Layout != LayoutLines {
		if e.partitions == 0 {
			e.buf = append(e.buf, '[', ']')
		} else {
			e.newline(0)
			e.buf = append(e.buf, ']')
		}
		e.buf = append(e.buf, '\n')
	}
	return e.flush()
}

// hasLiveComplexDeletion reports whether cds holds a live entry (a present
// empty column, see mutation.ComplexDeletion), which a dump does not show.
func hasLiveComplexDeletion(cds []mutation.ComplexDeletion) bool {
	for i := range cds {
		if cds[i].Deletion.IsLive() {
			return true
		}
	}
	return false
}

func liveRemoved(cds []mutation.ComplexDeletion) []mutation.ComplexDeletion {
	out := make([]mutation.ComplexDeletion, 0, len(cds))
	for _, cd := range cds {
		if !cd.Deletion.IsLive() {
			out = append(out, cd)
		}
	}
	return out
}
