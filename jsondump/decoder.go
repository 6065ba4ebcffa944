package jsondump

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// DecodeOptions configure a Decoder. The zero value is the default.
type DecodeOptions struct {
	// MaxValueBytes bounds the JSON text of any single value (a cell value,
	// a clustering component, a string, or a skipped unknown field); 0
	// means 64 MiB. Larger values are an error, so memory stays bounded.
	MaxValueBytes int
}

// Unfiltered is one element of a partition's "rows" array as returned by
// Decoder.NextUnfiltered: the static row, a clustering row or a range
// tombstone marker.
type Unfiltered struct {
	// Kind says which of Row and Marker holds the element.
	Kind UnfilteredKind
	// Row is the static or clustering row (Kind StaticRow or ClusteringRow).
	Row mutation.Row
	// Marker is the range tombstone marker (Kind Marker).
	Marker mutation.RangeTombstoneMarker
}

// UnfilteredKind tells the elements of a partition's rows apart.
type UnfilteredKind uint8

// The kinds of elements.
const (
	StaticRow UnfilteredKind = iota
	ClusteringRow
	Marker
)

// Decoder reads partitions from sstabledump JSON: a JSON array of partition
// objects or JSON Lines (one per line), in any of the forms the Encoder
// writes and sstabledump prints, with the extensions of json-format.md
// Part 2, fields in any order, unknown fields ignored. It reads one
// partition object at a time (and with NextUnfiltered one row at a time),
// so memory stays bounded by one partition (one row) whatever the size of
// the document. It computes tokens but checks nothing about the order of
// partitions or rows: callers sort (cells within a row are put in
// canonical order).
type Decoder struct {
	t    *schema.Table
	part dht.Partitioner
	s    *scanner
	opts DecodeOptions
	cols map[string]*schema.Column // by name and by quoted name

	started, array, done, first bool
	err                         error

	// Current partition.
	inRows    bool // inside the "rows" array
	rowsFirst bool
	tailOpen  bool // the partition object has fields left
	sawRows   bool
	pending   []Unfiltered // rows that came before the "partition" field
	pendIdx   int
	keyKnown  bool // d.hdr.keys holds the current key (for messages)
	position  int64

	// Scratch reused across rows.
	arena []byte
	raw   rawRow
	hdr   rawHeader
}

// NewDecoder returns a decoder reading partitions of table t from r.
func NewDecoder(r io.Reader, t *schema.Table, opts DecodeOptions) *Decoder {
	if opts.MaxValueBytes <= 0 {
		opts.MaxValueBytes = 64 << 20
	}
	part, err := dht.Lookup(t.Options.Partitioner)
	d := &Decoder{t: t, part: part, s: newScanner(r, opts.MaxValueBytes), opts: opts, position: -1,
		cols: make(map[string]*schema.Column)}
	if err != nil {
		// Every Next… returns it: nothing is ordered by a guessed
		// partitioner.
		d.err = fmt.Errorf("jsondump: table %s.%s: the partitioner of its schema options: %w", t.Keyspace, t.Name, err)
	}
	for _, group := range [][]*schema.Column{t.PartitionKey, t.Clustering, t.Static, t.Regular} {
		for _, c := range group {
			d.cols[c.Name] = c
			d.cols[schema.QuoteIdentifier(c.Name)] = c
		}
	}
	return d
}

// Position returns the "position" of the partition last started by
// NextPartition or Decode, or -1 when it had none.
func (d *Decoder) Position() int64 { return d.position }

// span locates raw JSON bytes kept in the decoder's arena; end < 0 means
// absent.
type span struct{ off, end int32 }

var absent = span{-1, -1}

func (sp span) ok() bool { return sp.end >= 0 }

type rawDeletion struct {
	present            bool
	marked, ldt, shdwb span
}

type rawShard struct{ id, clock, count, kind span }

type rawCell struct {
	name                   span
	pathN                  int
	path                   span
	value                  span
	del                    rawDeletion
	shards                 bool
	shardLo, shardHi       int
	tstamp, ttl, expiresAt span
}

type rawBound struct {
	present    bool
	typ        span
	clustering []span
	hasClust   bool
	del        rawDeletion
}

type rawRow struct {
	typ                    span
	clustering             []span
	hasClust               bool
	live                   bool
	tstamp, ttl, expiresAt span
	del, shadowDel         rawDeletion
	cells                  []rawCell
	shards                 []rawShard
	start, end             rawBound
}

type rawHeader struct {
	keys     []span
	hasKey   bool
	position span
	del      rawDeletion
}

// keep copies raw bytes into the arena.
func (d *Decoder) keep(b []byte) span {
	off := len(d.arena)
	d.arena = append(d.arena, b...)
	return span{int32(off), int32(len(d.arena))}
}

func (d *Decoder) bytesOf(sp span) []byte {
	if !sp.ok() {
		return nil
	}
	return d.arena[sp.off:sp.end]
}

// keepValue reads the next value into the arena.
func (d *Decoder) keepValue() (span, error) {
	b, err := d.s.rawValue()
	if err != nil {
		return absent, err
	}
	return d.keep(b), nil
}

// text returns the content of a kept string token (unescaped; no
// allocation when it has no escapes). Numbers and literals are returned
// as they are.
func (d *Decoder) text(sp span) ([]byte, error) {
	b := d.bytesOf(sp)
	if len(b) == 0 || b[0] != '"' {
		return b, nil
	}
	inner := b[1 : len(b)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, nil
	}
	s, err := unquote(b)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

func (d *Decoder) fail(row, column, field string, err error) error {
	var je *Error
	if errors.As(err, &je) {
		return err
	}
	key := ""
	if d.keyKnown {
		key = d.spansText(d.hdr.keys)
	}
	return &Error{Op: "decode", Offset: d.s.offset(), Partition: key, Row: row, Column: column, Field: field, Err: err}
}

func (d *Decoder) setErr(err error) error {
	if d.err == nil {
		d.err = err
	}
	return d.err
}

// NextPartition finishes the current partition (skipping rows not read)
// and starts the next one: p's Key, Token and Deletion are set and its
// Static, Rows and Markers emptied (their capacity kept). Rows then come
// from NextUnfiltered. It returns io.EOF after the last partition.
func (d *Decoder) NextPartition(p *mutation.Partition) error {
	if d.err != nil {
		return d.err
	}
	if err := d.finishPartition(); err != nil {
		return d.setErr(err)
	}
	if d.done {
		return io.EOF
	}
	s := d.s
	if !d.started {
		d.started = true
		c, ok := s.peek()
		if !ok {
			if s.rerr != nil {
				return d.setErr(d.fail("", "", "", s.rerr))
			}
			d.done = true
			return io.EOF
		}
		switch c {
		case '[':
			s.pos++
			d.array, d.first = true, true
		case '{':
		default:
			return d.setErr(d.fail("", "", "", fmt.Errorf("document starts with %s, want an array or a partition object", describeByte(c))))
		}
	}
	if d.array {
		ok, err := s.nextElem(&d.first)
		if err != nil {
			return d.setErr(d.fail("", "", "", err))
		}
		if !ok {
			d.done = true
			if _, more := s.peek(); more {
				return d.setErr(d.fail("", "", "", errors.New("data after the end of the array")))
			}
			if s.rerr != nil {
				return d.setErr(d.fail("", "", "", s.rerr))
			}
			return io.EOF
		}
	} else if _, ok := s.peek(); !ok {
		if s.rerr != nil {
			return d.setErr(d.fail("", "", "", s.rerr))
		}
		d.done = true
		return io.EOF
	}
	if c, _ := s.peek(); c != '{' {
		return d.setErr(d.fail("", "", "", fmt.Errorf("found %s where a partition object should start", describeByte(c))))
	}
	s.pos++
	return d.setErr(d.readHeader(p))
}

// readHeader reads the fields of a partition object up to "rows" (or to
// its end), decoding the header into p.
func (d *Decoder) readHeader(p *mutation.Partition) error {
	d.keyKnown, d.position = false, -1
	clear(d.pending)
	d.pending, d.pendIdx = d.pending[:0], 0
	d.inRows, d.tailOpen, d.sawRows = false, true, false
	d.arena = d.arena[:0]
	d.hdr = rawHeader{keys: d.hdr.keys[:0], position: absent}
	haveHeader := false
	first := true
	for {
		key, ok, err := d.s.nextKey(&first)
		if err != nil {
			return d.fail("", "", "", err)
		}
		if !ok {
			d.tailOpen = false
			break
		}
		switch string(key) {
		case `"partition"`:
			if haveHeader {
				return d.fail("", "", "partition", errors.New("two partition fields"))
			}
			if err := d.readPartitionField(); err != nil {
				return d.fail("", "", "partition", err)
			}
			haveHeader = true
		case `"rows"`:
			if d.sawRows {
				return d.fail("", "", "rows", errors.New("two rows fields"))
			}
			d.sawRows = true
			if err := d.s.expect('['); err != nil {
				return d.fail("", "", "rows", err)
			}
			d.rowsFirst = true
			if haveHeader {
				d.inRows = true
				return d.applyHeader(p)
			}
			// Rows before the header: convert and keep them.
			for {
				ok, err := d.s.nextElem(&d.rowsFirst)
				if err != nil {
					return d.fail("", "", "rows", err)
				}
				if !ok {
					break
				}
				var u Unfiltered
				if err := d.readUnfiltered(&u); err != nil {
					return err
				}
				d.pending = append(d.pending, u)
			}
		default:
			if err := d.s.skipValue(); err != nil {
				return d.fail("", "", unquoteKey(key), err)
			}
		}
	}
	if !haveHeader {
		return d.fail("", "", "partition", errors.New(`partition object without a "partition" field`))
	}
	return d.applyHeader(p)
}

func unquoteKey(key []byte) string {
	s, err := unquote(key)
	if err != nil {
		return string(key)
	}
	return s
}

// readPartitionField reads {"key": [...], "position": N, "deletion_info": {...}}.
func (d *Decoder) readPartitionField() error {
	s := d.s
	if err := s.expect('{'); err != nil {
		return err
	}
	first := true
	for {
		key, ok, err := s.nextKey(&first)
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case `"key"`:
			if err := s.expect('['); err != nil {
				return fmt.Errorf("key: %w", err)
			}
			d.hdr.hasKey = true
			efirst := true
			for {
				ok, err := s.nextElem(&efirst)
				if err != nil {
					return fmt.Errorf("key: %w", err)
				}
				if !ok {
					break
				}
				sp, err := d.keepValue()
				if err != nil {
					return fmt.Errorf("key: %w", err)
				}
				d.hdr.keys = append(d.hdr.keys, sp)
			}
		case `"position"`:
			if d.hdr.position, err = d.keepValue(); err != nil {
				return err
			}
		case `"deletion_info"`:
			if err := d.readDeletion(&d.hdr.del); err != nil {
				return fmt.Errorf("deletion_info: %w", err)
			}
		default:
			if err := s.skipValue(); err != nil {
				return err
			}
		}
	}
}

// readDeletion reads {"marked_deleted": T, "local_delete_time": L[, "shadowable": B]}.
func (d *Decoder) readDeletion(del *rawDeletion) error {
	*del = rawDeletion{present: true, marked: absent, ldt: absent, shdwb: absent}
	if c, ok := d.s.peek(); ok && c == 'n' {
		del.present = false
		return d.s.skipValue()
	}
	if err := d.s.expect('{'); err != nil {
		return err
	}
	first := true
	for {
		key, ok, err := d.s.nextKey(&first)
		if err != nil || !ok {
			return err
		}
		var dst *span
		switch string(key) {
		case `"marked_deleted"`:
			dst = &del.marked
		case `"local_delete_time"`:
			dst = &del.ldt
		case `"shadowable"`:
			dst = &del.shdwb
		default:
			if err := d.s.skipValue(); err != nil {
				return err
			}
			continue
		}
		if *dst, err = d.keepValue(); err != nil {
			return err
		}
	}
}

// applyHeader turns d.hdr into p's key, token and deletion.
func (d *Decoder) applyHeader(p *mutation.Partition) error {
	t := d.t
	d.keyKnown = true
	if !d.hdr.hasKey {
		return d.fail("", "", "key", errors.New("missing partition key"))
	}
	if len(d.hdr.keys) != len(t.PartitionKey) {
		return d.fail("", "", "key", fmt.Errorf("key has %d components, the partition key has %d (%s)", len(d.hdr.keys), len(t.PartitionKey), keyColumnNames(t)))
	}
	var one [1][]byte
	comps := one[:]
	if len(t.PartitionKey) > 1 {
		comps = make([][]byte, len(t.PartitionKey))
	}
	for i, sp := range d.hdr.keys {
		col := t.PartitionKey[i]
		txt, err := d.scalarText(sp)
		if err != nil {
			return d.fail("", col.Name, "key", err)
		}
		v, err := col.Type.FromString(string(txt))
		if err != nil {
			return d.fail("", col.Name, "key", err)
		}
		if v == nil {
			return d.fail("", col.Name, "key", errors.New("null key component"))
		}
		comps[i] = v
	}
	key := comps[0]
	if len(comps) > 1 {
		var err error
		if key, err = t.AppendPartitionKey(nil, comps); err != nil {
			return d.fail("", "", "key", err)
		}
	}
	if len(key) == 0 {
		return d.fail("", "", "key", errors.New("empty partition key"))
	}
	if len(key) > math.MaxUint16 {
		return d.fail("", "", "key", fmt.Errorf("partition key of %d bytes exceeds 65535", len(key)))
	}
	p.Key, p.Token = key, d.part.Token(key)
	p.Deletion = mutation.Live
	if d.hdr.del.present {
		var err error
		if p.Deletion, err = d.deletion(&d.hdr.del); err != nil {
			return d.fail("", "", "deletion_info", err)
		}
	}
	if pos := d.bytesOf(d.hdr.position); pos != nil {
		if v, ok := parseInt(pos); ok {
			d.position = v
		}
	}
	p.Static = mutation.NewRow(nil)
	clear(p.Rows)
	p.Rows = p.Rows[:0]
	clear(p.Markers)
	p.Markers = p.Markers[:0]
	return nil
}

func keyColumnNames(t *schema.Table) string {
	names := make([]string, len(t.PartitionKey))
	for i, c := range t.PartitionKey {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// spansText renders kept values as a compact JSON array, for messages.
func (d *Decoder) spansText(elems []span) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		v := d.bytesOf(e)
		if len(v) > 200 {
			b.Write(v[:200])
			b.WriteString("…")
			continue
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.String()
}

// finishPartition skips what remains of the current partition object.
func (d *Decoder) finishPartition() error {
	s := d.s
	for d.inRows {
		ok, err := s.nextElem(&d.rowsFirst)
		if err != nil {
			return d.fail("", "", "rows", err)
		}
		if !ok {
			d.inRows = false
			break
		}
		if err := s.skipValue(); err != nil {
			return d.fail("", "", "rows", err)
		}
	}
	first := false
	for d.tailOpen {
		key, ok, err := s.nextKey(&first)
		if err != nil {
			return d.fail("", "", "", err)
		}
		if !ok {
			d.tailOpen = false
			break
		}
		if k := string(key); k == `"rows"` || k == `"partition"` {
			return d.fail("", "", unquoteKey(key), errors.New("field appears twice"))
		}
		if err := s.skipValue(); err != nil {
			return d.fail("", "", unquoteKey(key), err)
		}
	}
	clear(d.pending)
	d.pending, d.pendIdx = d.pending[:0], 0
	return nil
}

// NextUnfiltered decodes the next element of the current partition's rows
// into u. It returns io.EOF after the last one. u's previous contents are
// replaced (its slices are not reused: rows handed out stay valid).
func (d *Decoder) NextUnfiltered(u *Unfiltered) error {
	if d.err != nil {
		return d.err
	}
	if d.pendIdx < len(d.pending) {
		*u = d.pending[d.pendIdx]
		d.pending[d.pendIdx] = Unfiltered{}
		d.pendIdx++
		return nil
	}
	if !d.inRows {
		return io.EOF
	}
	ok, err := d.s.nextElem(&d.rowsFirst)
	if err != nil {
		return d.setErr(d.fail("", "", "rows", err))
	}
	if !ok {
		d.inRows = false
		return io.EOF
	}
	return d.setErr(d.readUnfiltered(u))
}

// Decode reads the next whole partition into p (io.EOF after the last).
func (d *Decoder) Decode(p *mutation.Partition) error {
	if err := d.NextPartition(p); err != nil {
		return err
	}
	var u Unfiltered
	for {
		err := d.NextUnfiltered(&u)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch u.Kind {
		case StaticRow:
			p.Static = u.Row
		case ClusteringRow:
			p.Rows = append(p.Rows, u.Row)
		case Marker:
			p.Markers = append(p.Markers, u.Marker)
		}
	}
}

// DecodeAll reads every partition of a document, with their positions.
func DecodeAll(r io.Reader, t *schema.Table, opts DecodeOptions) ([]*mutation.Partition, []int64, error) {
	d := NewDecoder(r, t, opts)
	var out []*mutation.Partition
	var pos []int64
	for {
		p := &mutation.Partition{}
		err := d.Decode(p)
		if err == io.EOF {
			return out, pos, nil
		}
		if err != nil {
			return out, pos, err
		}
		out = append(out, p)
		pos = append(pos, d.Position())
	}
}

// readUnfiltered reads one rows element (an object) and converts it.
func (d *Decoder) readUnfiltered(u *Unfiltered) error {
	// Header spans live in the arena too; keep them, reuse the rest.
	mark := len(d.arena)
	defer func() { d.arena = d.arena[:mark] }()
	if err := d.readRowObject(); err != nil {
		return d.fail("", "", "rows", err)
	}
	*u = Unfiltered{}
	return d.convert(u)
}

// readRowObject reads a rows element into d.raw.
func (d *Decoder) readRowObject() error {
	s := d.s
	r := &d.raw
	*r = rawRow{clustering: r.clustering[:0], cells: r.cells[:0], shards: r.shards[:0],
		start: rawBound{clustering: r.start.clustering[:0]}, end: rawBound{clustering: r.end.clustering[:0]},
		typ: absent, tstamp: absent, ttl: absent, expiresAt: absent}
	if err := s.expect('{'); err != nil {
		return err
	}
	first := true
	for {
		key, ok, err := s.nextKey(&first)
		if err != nil || !ok {
			return err
		}
		field := ""
		switch string(key) {
		case `"type"`:
			field = "type"
			r.typ, err = d.keepValue()
		case `"clustering"`:
			field = "clustering"
			r.hasClust = true
			r.clustering, err = d.readValueArray(r.clustering)
		case `"liveness_info"`:
			field = "liveness_info"
			err = d.readLiveness(r)
		case `"deletion_info"`:
			field = "deletion_info"
			err = d.readDeletion(&r.del)
		case `"shadowable_deletion_info"`:
			field = "shadowable_deletion_info"
			err = d.readDeletion(&r.shadowDel)
		case `"cells"`:
			field = "cells"
			err = d.readCells(r)
		case `"start"`:
			field = "start"
			err = d.readBound(&r.start)
		case `"end"`:
			field = "end"
			err = d.readBound(&r.end)
		default:
			err = s.skipValue()
			if err != nil {
				field = unquoteKey(key)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
	}
}

// readValueArray reads an array of values, keeping each.
func (d *Decoder) readValueArray(dst []span) ([]span, error) {
	if c, ok := d.s.peek(); ok && c == 'n' {
		return dst, d.s.skipValue()
	}
	if err := d.s.expect('['); err != nil {
		return dst, err
	}
	first := true
	for {
		ok, err := d.s.nextElem(&first)
		if err != nil || !ok {
			return dst, err
		}
		sp, err := d.keepValue()
		if err != nil {
			return dst, err
		}
		dst = append(dst, sp)
	}
}

// readPath reads a cell path array, keeping its first element; n is the
// number of elements, -1 for an empty array (0 means no path).
func (d *Decoder) readPath() (n int, first span, err error) {
	first = absent
	if err := d.s.expect('['); err != nil {
		return 0, first, err
	}
	f := true
	for {
		ok, err := d.s.nextElem(&f)
		if err != nil {
			return 0, first, err
		}
		if !ok {
			break
		}
		sp, err := d.keepValue()
		if err != nil {
			return 0, first, err
		}
		if n == 0 {
			first = sp
		}
		n++
	}
	if n == 0 {
		n = -1
	}
	return n, first, nil
}

func (d *Decoder) readLiveness(r *rawRow) error {
	if c, ok := d.s.peek(); ok && c == 'n' {
		return d.s.skipValue()
	}
	if err := d.s.expect('{'); err != nil {
		return err
	}
	r.live = true
	first := true
	for {
		key, ok, err := d.s.nextKey(&first)
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case `"tstamp"`:
			r.tstamp, err = d.keepValue()
		case `"ttl"`:
			r.ttl, err = d.keepValue()
		case `"expires_at"`:
			r.expiresAt, err = d.keepValue()
		default:
			err = d.s.skipValue()
		}
		if err != nil {
			return err
		}
	}
}

func (d *Decoder) readCells(r *rawRow) error {
	if err := d.s.expect('['); err != nil {
		return err
	}
	first := true
	for {
		ok, err := d.s.nextElem(&first)
		if err != nil || !ok {
			return err
		}
		if err := d.s.expect('{'); err != nil {
			return err
		}
		c := rawCell{name: absent, path: absent, value: absent, tstamp: absent, ttl: absent, expiresAt: absent}
		cfirst := true
		for {
			key, ok, err := d.s.nextKey(&cfirst)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			switch string(key) {
			case `"name"`:
				c.name, err = d.keepValue()
			case `"path"`:
				c.pathN, c.path, err = d.readPath()
			case `"value"`:
				c.value, err = d.keepValue()
			case `"deletion_info"`:
				err = d.readDeletion(&c.del)
			case `"counter_shards"`:
				c.shards = true
				c.shardLo = len(r.shards)
				err = d.readShards(r)
				c.shardHi = len(r.shards)
			case `"tstamp"`:
				c.tstamp, err = d.keepValue()
			case `"ttl"`:
				c.ttl, err = d.keepValue()
			case `"expires_at"`:
				c.expiresAt, err = d.keepValue()
			default:
				err = d.s.skipValue()
			}
			if err != nil {
				return fmt.Errorf("cell %d: %w", len(r.cells), err)
			}
		}
		r.cells = append(r.cells, c)
	}
}

func (d *Decoder) readShards(r *rawRow) error {
	if err := d.s.expect('['); err != nil {
		return err
	}
	first := true
	for {
		ok, err := d.s.nextElem(&first)
		if err != nil || !ok {
			return err
		}
		if err := d.s.expect('{'); err != nil {
			return err
		}
		sh := rawShard{id: absent, clock: absent, count: absent, kind: absent}
		sfirst := true
		for {
			key, ok, err := d.s.nextKey(&sfirst)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			switch string(key) {
			case `"counter_id"`:
				sh.id, err = d.keepValue()
			case `"clock"`:
				sh.clock, err = d.keepValue()
			case `"count"`:
				sh.count, err = d.keepValue()
			case `"kind"`:
				sh.kind, err = d.keepValue()
			default:
				err = d.s.skipValue()
			}
			if err != nil {
				return err
			}
		}
		r.shards = append(r.shards, sh)
	}
}

func (d *Decoder) readBound(b *rawBound) error {
	if err := d.s.expect('{'); err != nil {
		return err
	}
	b.present, b.typ = true, absent
	first := true
	for {
		key, ok, err := d.s.nextKey(&first)
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case `"type"`:
			b.typ, err = d.keepValue()
		case `"clustering"`:
			b.hasClust = true
			b.clustering, err = d.readValueArray(b.clustering)
		case `"deletion_info"`:
			err = d.readDeletion(&b.del)
		default:
			err = d.s.skipValue()
		}
		if err != nil {
			return err
		}
	}
}

// convert turns d.raw into u.
func (d *Decoder) convert(u *Unfiltered) error {
	r := &d.raw
	typ, err := d.text(r.typ)
	if err != nil || !r.typ.ok() {
		return d.fail("", "", "type", errors.New("rows element without a string type"))
	}
	switch string(typ) {
	case "row", "static_block":
		static := string(typ) == "static_block"
		u.Kind = ClusteringRow
		if static {
			u.Kind = StaticRow
		}
		return d.convertRow(&u.Row, static)
	case "range_tombstone_bound", "range_tombstone_boundary":
		u.Kind = Marker
		return d.convertMarker(&u.Marker, string(typ) == "range_tombstone_boundary")
	}
	return d.fail("", "", "type", fmt.Errorf("unknown rows element type %q", typ))
}

var (
	nullJSON = []byte("null")
	starJSON = []byte(`"*"`)
)

// clusteringValue decodes one clustering component in JSON form.
func (d *Decoder) clusteringValue(i int, sp span) ([]byte, error) {
	col := d.t.Clustering[i]
	raw := d.bytesOf(sp)
	if bytes.Equal(raw, nullJSON) {
		return nil, nil
	}
	b, err := d.valueFromJSON(col.Type, raw)
	if err != nil {
		return nil, fmt.Errorf("clustering column %s: %w", col.Name, err)
	}
	return b, nil
}

// valueFromJSON converts a raw JSON value with the type's FromJSON; a
// null yields an empty (non-nil) value only where the caller allows it.
func (d *Decoder) valueFromJSON(typ *schema.Type, raw []byte) ([]byte, error) {
	v, err := toAny(raw)
	if err != nil {
		return nil, err
	}
	b, err := typ.FromJSON(v)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

func (d *Decoder) convertRow(r *mutation.Row, static bool) error {
	t := d.t
	raw := &d.raw
	// The row's label for messages, built only when one is needed.
	label := func() string {
		if static {
			return "static"
		}
		return d.spansText(raw.clustering)
	}
	*r = mutation.NewRow(nil)
	if !static {
		switch {
		case len(t.Clustering) == 0:
			if len(raw.clustering) != 0 {
				return d.fail(label(), "", "clustering", errors.New("table has no clustering columns"))
			}
		case !raw.hasClust:
			return d.fail("", "", "clustering", errors.New("row without clustering"))
		case len(raw.clustering) != len(t.Clustering):
			return d.fail(label(), "", "clustering", fmt.Errorf("clustering has %d components, table has %d clustering columns", len(raw.clustering), len(t.Clustering)))
		default:
			r.Clustering = make(mutation.Clustering, len(raw.clustering))
			for i, sp := range raw.clustering {
				v, err := d.clusteringValue(i, sp)
				if err != nil {
					return d.fail(label(), "", "clustering", err)
				}
				r.Clustering[i] = v
			}
		}
	} else if raw.hasClust && len(raw.clustering) > 0 {
		return d.fail(label(), "", "clustering", errors.New("static row with a clustering"))
	}
	if raw.live {
		l, err := d.liveness(raw)
		if err != nil {
			return d.fail(label(), "", "liveness_info", err)
		}
		r.Liveness = l
	}
	if raw.del.present {
		del, err := d.deletion(&raw.del)
		if err != nil {
			return d.fail(label(), "", "deletion_info", err)
		}
		r.Deletion = del
		if sh := d.bytesOf(raw.del.shdwb); sh != nil {
			switch string(sh) {
			case "true":
				r.DeletionShadowable = true
			case "false", "null":
			default:
				return d.fail(label(), "", "deletion_info", fmt.Errorf("shadowable is %s, want true or false", sh))
			}
		}
	}
	if raw.shadowDel.present {
		del, err := d.deletion(&raw.shadowDel)
		if err != nil {
			return d.fail(label(), "", "shadowable_deletion_info", err)
		}
		r.ShadowableDeletion = del
	}
	kind := schema.Regular
	if static {
		kind = schema.Static
	}
	if len(raw.cells) > 0 {
		r.Cells = make([]mutation.Cell, 0, len(raw.cells))
	}
	for i := range raw.cells {
		jc := &raw.cells[i]
		name, err := d.text(jc.name)
		if err != nil || len(name) == 0 {
			return d.fail(label(), "", "name", errors.New("cell without a name"))
		}
		col, err := d.column(name, kind)
		if err != nil {
			return d.fail(label(), string(name), "name", err)
		}
		if col.Type.IsComplex() && jc.pathN == 0 {
			if !jc.del.present {
				return d.fail(label(), col.Name, "path", errors.New("element of a collection or UDT column without path"))
			}
			del, err := d.deletion(&jc.del)
			if err != nil {
				return d.fail(label(), col.Name, "deletion_info", err)
			}
			r.ComplexDeletions = append(r.ComplexDeletions, mutation.ComplexDeletion{Column: col, Deletion: del})
			continue
		}
		c, field, err := d.convertCell(jc, col, r.Liveness)
		if err != nil {
			return d.fail(label(), col.Name, field, err)
		}
		r.Cells = append(r.Cells, c)
	}
	mutation.SortCells(r)
	return nil
}

// column resolves a cell's column name (CQL form, quoted when needed, or
// plain).
func (d *Decoder) column(name []byte, kind schema.ColumnKind) (*schema.Column, error) {
	col := d.cols[string(name)]
	if col == nil {
		plain := parseCQLName(string(name))
		if col = d.cols[plain]; col == nil && plain == string(name) {
			col = d.cols[strings.ToLower(plain)]
		}
	}
	if col == nil {
		return nil, fmt.Errorf("unknown column %q", name)
	}
	if col.Kind != kind {
		if kind == schema.Static {
			return nil, fmt.Errorf("column %s is %v, not static (static_block)", col.Name, col.Kind)
		}
		return nil, fmt.Errorf("column %s is %v, not a regular column", col.Name, col.Kind)
	}
	return col, nil
}

func (d *Decoder) present(sp span) bool {
	b := d.bytesOf(sp)
	return b != nil && !bytes.Equal(b, nullJSON)
}

// convertCell builds a cell, applying the inheritance rules of §2.3.
func (d *Decoder) convertCell(jc *rawCell, col *schema.Column, l mutation.LivenessInfo) (mutation.Cell, string, error) {
	c := mutation.Cell{Column: col, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}
	valueType := col.Type
	if col.Type.IsComplex() {
		if jc.pathN != 1 {
			return c, "path", fmt.Errorf("path needs exactly 1 element")
		}
		s, err := d.scalarText(jc.path)
		if err != nil {
			return c, "path", err
		}
		if c.Path, err = col.Type.PathType().FromString(string(s)); err != nil {
			return c, "path", err
		}
		if c.Path == nil {
			c.Path = []byte{}
		}
		if valueType = col.Type.ElementValueType(c.Path); valueType == nil {
			return c, "path", fmt.Errorf("path %q names no element of %s", s, col.Type)
		}
	} else if jc.pathN != 0 {
		return c, "path", fmt.Errorf("column of type %s is not a collection or UDT: no path allowed", col.Type)
	}

	// Timestamp: explicit, else the row liveness's.
	switch {
	case d.present(jc.tstamp):
		ts, err := parseTimeValue(d.bytesOf(jc.tstamp), true)
		if err != nil {
			return c, "tstamp", err
		}
		c.Timestamp = ts
	case !l.IsEmpty():
		c.Timestamp = l.Timestamp
	case jc.del.present && d.present(jc.del.marked):
		ts, err := parseTimeValue(d.bytesOf(jc.del.marked), true)
		if err != nil {
			return c, "deletion_info", err
		}
		c.Timestamp = ts
	default:
		return c, "tstamp", errors.New("cell without tstamp in a row without liveness_info")
	}

	if jc.del.present {
		if jc.value.ok() {
			return c, "value", errors.New("cell with both value and deletion_info")
		}
		if !d.present(jc.del.ldt) {
			return c, "deletion_info", errors.New("missing local_delete_time")
		}
		ldt, err := parseDeletionTimeValue(d.bytesOf(jc.del.ldt))
		if err != nil {
			return c, "deletion_info", err
		}
		c.LocalDeletionTime = ldt
		return c, "", nil
	}

	// TTL: explicit (0 = not expiring), else the row liveness's.
	switch {
	case d.present(jc.ttl):
		ttl, err := parseInt32Value(d.bytesOf(jc.ttl), false)
		if err != nil {
			return c, "ttl", err
		}
		if ttl < 0 {
			return c, "ttl", fmt.Errorf("negative ttl %d", ttl)
		}
		if ttl > 0 {
			if !d.present(jc.expiresAt) {
				return c, "expires_at", errors.New("expiring cell without expires_at")
			}
			exp, err := parseDeletionTimeValue(d.bytesOf(jc.expiresAt))
			if err != nil {
				return c, "expires_at", err
			}
			c.TTL, c.LocalDeletionTime = ttl, exp
		}
	case d.present(jc.expiresAt):
		return c, "ttl", errors.New("expires_at without ttl")
	case l.IsExpiring():
		c.TTL, c.LocalDeletionTime = l.TTL, l.LocalExpirationTime
	}

	if valueType.Kind == schema.KindCounter {
		if !jc.shards {
			return c, "counter_shards", errors.New("counter cell without counter_shards (its exact context is needed)")
		}
		shards := make([]mutation.CounterShard, 0, jc.shardHi-jc.shardLo)
		for i := jc.shardLo; i < jc.shardHi; i++ {
			s, err := d.shard(&d.raw.shards[i])
			if err != nil {
				return c, "counter_shards", fmt.Errorf("shard %d: %w", i-jc.shardLo, err)
			}
			shards = append(shards, s)
		}
		v, err := mutation.AppendCounterContext(nil, shards)
		if err != nil {
			return c, "counter_shards", err
		}
		c.Value = v
		return c, "", nil
	}
	if jc.shards {
		return c, "counter_shards", fmt.Errorf("counter_shards on a %s column", valueType)
	}
	if !jc.value.ok() {
		return c, "value", errors.New("cell without value or deletion_info")
	}
	raw := d.bytesOf(jc.value)
	if bytes.Equal(raw, nullJSON) {
		return c, "value", errors.New("null value (a deleted cell has deletion_info)")
	}
	v, err := d.valueFromJSON(valueType, raw)
	if err != nil {
		return c, "value", err
	}
	c.Value = v
	return c, "", nil
}

func (d *Decoder) shard(s *rawShard) (mutation.CounterShard, error) {
	var sh mutation.CounterShard
	idText, err := d.text(s.id)
	if err != nil || !s.id.ok() {
		return sh, errors.New("counter_id missing")
	}
	id, err := parseUUID(string(idText))
	if err != nil {
		return sh, fmt.Errorf("counter_id: %w", err)
	}
	sh.ID = id
	if !d.present(s.clock) || !d.present(s.count) {
		return sh, errors.New("shard needs clock and count")
	}
	if sh.Clock, err = parseTimeValue(d.bytesOf(s.clock), true); err != nil {
		return sh, fmt.Errorf("clock: %w", err)
	}
	if sh.Count, err = parseTimeValue(d.bytesOf(s.count), true); err != nil {
		return sh, fmt.Errorf("count: %w", err)
	}
	kind := "global"
	if d.present(s.kind) {
		k, err := d.text(s.kind)
		if err != nil {
			return sh, err
		}
		kind = string(k)
	}
	if sh.Kind, err = mutation.ParseCounterShardKind(kind); err != nil {
		return sh, err
	}
	return sh, nil
}

func parseUUID(s string) ([16]byte, error) {
	var id [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, fmt.Errorf("%q is not a UUID", s)
	}
	h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	if _, err := hex.Decode(id[:], []byte(h)); err != nil {
		return id, fmt.Errorf("%q is not a UUID", s)
	}
	return id, nil
}

func (d *Decoder) deletion(jd *rawDeletion) (mutation.DeletionTime, error) {
	if !d.present(jd.marked) || !d.present(jd.ldt) {
		return mutation.Live, errors.New("deletion_info needs marked_deleted and local_delete_time")
	}
	ts, err := parseTimeValue(d.bytesOf(jd.marked), true)
	if err != nil {
		return mutation.Live, fmt.Errorf("marked_deleted: %w", err)
	}
	ldt, err := parseDeletionTimeValue(d.bytesOf(jd.ldt))
	if err != nil {
		return mutation.Live, fmt.Errorf("local_delete_time: %w", err)
	}
	del := mutation.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: ldt}
	if ts == mutation.NoTimestamp {
		// Long.MIN_VALUE deletes nothing: it is the live deletion time
		// whatever the local deletion time says.
		return del, errors.New("deletion_info holds the live deletion time (marked_deleted is Long.MIN_VALUE)")
	}
	return del, nil
}

func (d *Decoder) liveness(r *rawRow) (mutation.LivenessInfo, error) {
	l := mutation.EmptyLiveness
	if !d.present(r.tstamp) {
		return l, errors.New("liveness_info without tstamp")
	}
	ts, err := parseTimeValue(d.bytesOf(r.tstamp), true)
	if err != nil {
		return l, fmt.Errorf("tstamp: %w", err)
	}
	if ts == mutation.NoTimestamp {
		return l, errors.New("tstamp is the no-timestamp marker")
	}
	l.Timestamp = ts
	switch {
	case d.present(r.ttl):
		ttl, err := parseInt32Value(d.bytesOf(r.ttl), false)
		if err != nil {
			return l, fmt.Errorf("ttl: %w", err)
		}
		if ttl < 0 {
			return l, fmt.Errorf("negative ttl %d", ttl)
		}
		if ttl > 0 {
			if !d.present(r.expiresAt) {
				return l, errors.New("expiring liveness without expires_at")
			}
			exp, err := parseDeletionTimeValue(d.bytesOf(r.expiresAt))
			if err != nil {
				return l, fmt.Errorf("expires_at: %w", err)
			}
			l.TTL, l.LocalExpirationTime = ttl, exp
		}
	case d.present(r.expiresAt):
		return l, errors.New("expires_at without ttl")
	}
	return l, nil
}

func (d *Decoder) convertMarker(m *mutation.RangeTombstoneMarker, boundary bool) error {
	*m = mutation.RangeTombstoneMarker{Close: mutation.Live, Open: mutation.Live}
	r := &d.raw
	name := "range_tombstone_bound"
	if boundary {
		name = "range_tombstone_boundary"
	}
	switch {
	case boundary && (!r.start.present || !r.end.present):
		return d.fail(name, "", "", errors.New("boundary needs start and end"))
	case !boundary && r.start.present == r.end.present:
		return d.fail(name, "", "", errors.New("bound needs exactly one of start and end"))
	}
	var open, closing mutation.BoundKind
	if r.start.present {
		c, incl, del, err := d.convertBound(&r.start)
		if err != nil {
			return d.fail(name+" start", "", "", err)
		}
		open = mutation.ExclStartBound
		if incl {
			open = mutation.InclStartBound
		}
		m.Clustering, m.Open, m.Kind = c, del, open
		name = open.String() + d.spansText(r.start.clustering)
	}
	if r.end.present {
		c, incl, del, err := d.convertBound(&r.end)
		if err != nil {
			return d.fail(name+" end", "", "", err)
		}
		closing = mutation.ExclEndBound
		if incl {
			closing = mutation.InclEndBound
		}
		if boundary {
			if !clusteringEqual(c, m.Clustering) {
				return d.fail(name, "", "end", errors.New("boundary start and end have different clusterings"))
			}
			if closing.Invert() != open {
				return d.fail(name, "", "", errors.New("boundary must close inclusive and open exclusive, or the reverse"))
			}
			if len(c) == 0 {
				return d.fail(name, "", "", errors.New("boundary without clustering"))
			}
			m.Kind = mutation.BoundaryKind(closing)
		} else {
			m.Clustering, m.Kind = c, closing
		}
		m.Close = del
	}
	return nil
}

func clusteringEqual(a, b mutation.Clustering) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) || !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func (d *Decoder) convertBound(b *rawBound) (mutation.Clustering, bool, mutation.DeletionTime, error) {
	var incl bool
	typ, err := d.text(b.typ)
	if err != nil {
		return nil, false, mutation.Live, err
	}
	switch string(typ) {
	case "inclusive":
		incl = true
	case "exclusive":
	default:
		return nil, false, mutation.Live, fmt.Errorf("bound type %q, want inclusive or exclusive", typ)
	}
	if !b.del.present {
		return nil, false, mutation.Live, errors.New("bound without deletion_info")
	}
	del, err := d.deletion(&b.del)
	if err != nil {
		return nil, false, mutation.Live, err
	}
	raw := b.clustering
	if len(raw) > len(d.t.Clustering) {
		return nil, false, del, fmt.Errorf("bound has %d components, table has %d clustering columns", len(raw), len(d.t.Clustering))
	}
	n := len(raw)
	if n == len(d.t.Clustering) {
		for n > 0 && bytes.Equal(d.bytesOf(raw[n-1]), starJSON) {
			n--
		}
	}
	var c mutation.Clustering
	if n > 0 {
		c = make(mutation.Clustering, n)
		for i := 0; i < n; i++ {
			v, err := d.clusteringValue(i, raw[i])
			if err != nil {
				return nil, false, del, err
			}
			c[i] = v
		}
	}
	return c, incl, del, nil
}

// scalarText returns the text of a kept JSON string or number (keys and
// paths are strings in string form; a bare number or boolean is accepted
// too).
func (d *Decoder) scalarText(sp span) ([]byte, error) {
	raw := d.bytesOf(sp)
	if len(raw) == 0 {
		return nil, errors.New("empty value")
	}
	switch raw[0] {
	case '"':
		return d.text(sp)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 't', 'f':
		if !validLiteral(raw) {
			return nil, fmt.Errorf("%s is not a JSON value", raw)
		}
		return raw, nil
	}
	return nil, fmt.Errorf("%s is not a string", raw)
}

// toAny converts raw JSON into what encoding/json with UseNumber would
// produce, cheaply for scalars.
func toAny(raw []byte) (any, error) {
	if len(raw) == 0 {
		return nil, errors.New("empty value")
	}
	switch raw[0] {
	case '"':
		return unquote(raw)
	case '{', '[':
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		return v, nil
	}
	if !validLiteral(raw) {
		return nil, fmt.Errorf("%q is not a JSON value", raw)
	}
	switch string(raw) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	return json.Number(raw), nil
}

// parseInt parses a JSON integer without allocating.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}
