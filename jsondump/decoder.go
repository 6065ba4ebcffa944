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
	// MaxValueBytes bounds the JSON text of a single cell or clustering
	// value (collections and UDTs included); 0 means 64 MiB.
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
// Part 2. It reads one partition object at a time (and with NextUnfiltered
// one row at a time), so memory stays bounded by one partition (one row)
// whatever the size of the document. It computes tokens but checks nothing
// about the order of partitions or rows: callers sort (cells within a row
// are put in canonical order).
type Decoder struct {
	t    *schema.Table
	dec  *json.Decoder
	opts DecodeOptions

	started, array, done bool
	err                  error

	// Current partition state.
	inRows   bool       // positioned inside the "rows" array of the object
	pending  []jsonRow  // rows read before the "partition" field
	pendIdx  int        // next pending row
	tailOpen bool       // the partition object still has fields to read
	keyText  string     // current key, JSON text, for messages
	position int64      // current partition's "position" or -1
	hdr      jsonHeader // current partition header
	jr       jsonRow    // scratch row
	sawRows  bool
}

// NewDecoder returns a decoder reading partitions of table t from r.
func NewDecoder(r io.Reader, t *schema.Table, opts DecodeOptions) *Decoder {
	if opts.MaxValueBytes <= 0 {
		opts.MaxValueBytes = 64 << 20
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return &Decoder{t: t, dec: dec, opts: opts, position: -1}
}

// Position returns the "position" of the partition last started by
// NextPartition or Decode, or -1 when it had none.
func (d *Decoder) Position() int64 { return d.position }

// JSON shapes. RawMessage fields are nil when absent.
type jsonHeader struct {
	Key          []json.RawMessage `json:"key"`
	Position     json.RawMessage   `json:"position"`
	DeletionInfo *jsonDeletion     `json:"deletion_info"`
}

type jsonDeletion struct {
	MarkedDeleted   json.RawMessage `json:"marked_deleted"`
	LocalDeleteTime json.RawMessage `json:"local_delete_time"`
	Shadowable      bool            `json:"shadowable"`
}

type jsonLiveness struct {
	Tstamp    json.RawMessage `json:"tstamp"`
	TTL       json.RawMessage `json:"ttl"`
	ExpiresAt json.RawMessage `json:"expires_at"`
}

type jsonShard struct {
	CounterID string          `json:"counter_id"`
	Clock     json.RawMessage `json:"clock"`
	Count     json.RawMessage `json:"count"`
	Kind      string          `json:"kind"`
}

type jsonCell struct {
	Name          string            `json:"name"`
	Path          []json.RawMessage `json:"path"`
	Value         json.RawMessage   `json:"value"`
	DeletionInfo  *jsonDeletion     `json:"deletion_info"`
	CounterShards []jsonShard       `json:"counter_shards"`
	Tstamp        json.RawMessage   `json:"tstamp"`
	TTL           json.RawMessage   `json:"ttl"`
	ExpiresAt     json.RawMessage   `json:"expires_at"`
}

type jsonBound struct {
	Type         string            `json:"type"`
	Clustering   []json.RawMessage `json:"clustering"`
	DeletionInfo *jsonDeletion     `json:"deletion_info"`
}

type jsonRow struct {
	Type                   string            `json:"type"`
	Clustering             []json.RawMessage `json:"clustering"`
	LivenessInfo           *jsonLiveness     `json:"liveness_info"`
	DeletionInfo           *jsonDeletion     `json:"deletion_info"`
	ShadowableDeletionInfo *jsonDeletion     `json:"shadowable_deletion_info"`
	Cells                  []jsonCell        `json:"cells"`
	Start                  *jsonBound        `json:"start"`
	End                    *jsonBound        `json:"end"`
}

func (d *Decoder) fail(row, column, field string, err error) error {
	var je *Error
	if errors.As(err, &je) {
		return err
	}
	return &Error{Op: "decode", Offset: d.dec.InputOffset(), Partition: d.keyText, Row: row, Column: column, Field: field, Err: err}
}

func (d *Decoder) setErr(err error) error {
	if d.err == nil {
		d.err = err
	}
	return d.err
}

func isDelim(tok json.Token, c byte) bool {
	dl, ok := tok.(json.Delim)
	return ok && byte(dl) == c
}

// start reads the first token: '[' (array) or '{' (JSON Lines, the first
// object's brace is then consumed).
func (d *Decoder) start() (objectOpen bool, err error) {
	d.started = true
	tok, err := d.dec.Token()
	if err == io.EOF {
		d.done = true
		return false, io.EOF
	}
	if err != nil {
		return false, d.fail("", "", "", err)
	}
	switch {
	case isDelim(tok, '['):
		d.array = true
		return false, nil
	case isDelim(tok, '{'):
		return true, nil
	}
	return false, d.fail("", "", "", fmt.Errorf("document starts with %v, want an array or a partition object", tok))
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
	objectOpen := false
	if !d.started {
		var err error
		if objectOpen, err = d.start(); err != nil {
			if err == io.EOF {
				return io.EOF
			}
			return d.setErr(err)
		}
	}
	if !objectOpen {
		if d.array {
			if !d.dec.More() {
				if _, err := d.dec.Token(); err != nil { // ']'
					return d.setErr(d.fail("", "", "", err))
				}
				d.done = true
				if _, err := d.dec.Token(); err != io.EOF {
					return d.setErr(d.fail("", "", "", errors.New("data after the end of the array")))
				}
				return io.EOF
			}
		}
		tok, err := d.dec.Token()
		if err == io.EOF && !d.array {
			d.done = true
			return io.EOF
		}
		if err != nil {
			return d.setErr(d.fail("", "", "", err))
		}
		if !isDelim(tok, '{') {
			return d.setErr(d.fail("", "", "", fmt.Errorf("found %v where a partition object should start", tok)))
		}
	}
	return d.setErr(d.readHeader(p))
}

// readHeader reads the fields of a partition object up to "rows" (or to
// its end), decoding the header into p.
func (d *Decoder) readHeader(p *mutation.Partition) error {
	d.hdr = jsonHeader{}
	d.keyText, d.position = "", -1
	d.pending, d.pendIdx = d.pending[:0], 0
	d.inRows, d.tailOpen, d.sawRows = false, true, false
	haveHeader := false
	for {
		tok, err := d.dec.Token()
		if err != nil {
			return d.fail("", "", "", err)
		}
		if isDelim(tok, '}') {
			d.tailOpen = false
			break
		}
		name, ok := tok.(string)
		if !ok {
			return d.fail("", "", "", fmt.Errorf("unexpected %v in a partition object", tok))
		}
		switch name {
		case "partition":
			if err := d.dec.Decode(&d.hdr); err != nil {
				return d.fail("", "", "partition", err)
			}
			haveHeader = true
		case "rows":
			if d.sawRows {
				return d.fail("", "", "rows", errors.New("two rows fields"))
			}
			d.sawRows = true
			tok, err := d.dec.Token()
			if err != nil {
				return d.fail("", "", "rows", err)
			}
			if !isDelim(tok, '[') {
				return d.fail("", "", "rows", fmt.Errorf("rows is %v, want an array", tok))
			}
			if haveHeader {
				d.inRows = true
				return d.applyHeader(p)
			}
			// Rows before the header: buffer them.
			for d.dec.More() {
				var jr jsonRow
				if err := d.dec.Decode(&jr); err != nil {
					return d.fail("", "", "rows", err)
				}
				d.pending = append(d.pending, jr)
			}
			if _, err := d.dec.Token(); err != nil {
				return d.fail("", "", "rows", err)
			}
		default:
			var skip json.RawMessage
			if err := d.dec.Decode(&skip); err != nil {
				return d.fail("", "", name, err)
			}
		}
	}
	if !haveHeader {
		return d.fail("", "", "partition", errors.New("partition object without a \"partition\" field"))
	}
	return d.applyHeader(p)
}

// applyHeader turns d.hdr into p's key, token and deletion.
func (d *Decoder) applyHeader(p *mutation.Partition) error {
	t := d.t
	d.keyText = rawArrayText(d.hdr.Key)
	if d.hdr.Key == nil {
		return d.fail("", "", "key", errors.New("missing partition key"))
	}
	if len(d.hdr.Key) != len(t.PartitionKey) {
		return d.fail("", "", "key", fmt.Errorf("key has %d components, the partition key has %d (%s)", len(d.hdr.Key), len(t.PartitionKey), keyColumnNames(t)))
	}
	comps := make([][]byte, len(d.hdr.Key))
	for i, raw := range d.hdr.Key {
		col := t.PartitionKey[i]
		s, err := scalarText(raw)
		if err != nil {
			return d.fail("", col.Name, "key", err)
		}
		v, err := col.Type.FromString(s)
		if err != nil {
			return d.fail("", col.Name, "key", err)
		}
		if v == nil {
			return d.fail("", col.Name, "key", errors.New("null key component"))
		}
		comps[i] = v
	}
	key, err := t.AppendPartitionKey(p.Key[:0:0], comps)
	if err != nil {
		return d.fail("", "", "key", err)
	}
	if len(key) == 0 {
		return d.fail("", "", "key", errors.New("empty partition key"))
	}
	if len(key) > math.MaxUint16 {
		return d.fail("", "", "key", fmt.Errorf("partition key of %d bytes exceeds 65535", len(key)))
	}
	p.Key, p.Token = key, dht.Token(key)
	p.Deletion = mutation.Live
	if d.hdr.DeletionInfo != nil {
		if p.Deletion, err = parseDeletion(d.hdr.DeletionInfo); err != nil {
			return d.fail("", "", "deletion_info", err)
		}
	}
	if d.hdr.Position != nil {
		var n json.Number
		if err := json.Unmarshal(d.hdr.Position, &n); err == nil {
			if v, err := n.Int64(); err == nil {
				d.position = v
			}
		}
	}
	p.Static = mutation.NewRow(nil)
	p.Static.Cells, p.Static.ComplexDeletions = p.Static.Cells[:0], p.Static.ComplexDeletions[:0]
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

// rawArrayText renders decoded raw elements as a compact JSON array.
func rawArrayText(elems []json.RawMessage) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		if len(e) > 200 {
			b.Write(e[:200])
			b.WriteString("…")
			continue
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.String()
}

// finishPartition skips what remains of the current partition object.
func (d *Decoder) finishPartition() error {
	if d.inRows {
		for d.dec.More() {
			var skip json.RawMessage
			if err := d.dec.Decode(&skip); err != nil {
				return d.fail("", "", "rows", err)
			}
		}
		if _, err := d.dec.Token(); err != nil {
			return d.fail("", "", "rows", err)
		}
		d.inRows = false
	}
	for d.tailOpen {
		tok, err := d.dec.Token()
		if err != nil {
			return d.fail("", "", "", err)
		}
		if isDelim(tok, '}') {
			d.tailOpen = false
			break
		}
		name, _ := tok.(string)
		if name == "rows" || name == "partition" {
			return d.fail("", "", name, fmt.Errorf("field %q appears twice", name))
		}
		var skip json.RawMessage
		if err := d.dec.Decode(&skip); err != nil {
			return d.fail("", "", name, err)
		}
	}
	d.pending, d.pendIdx = d.pending[:0], 0
	return nil
}

// NextUnfiltered decodes the next element of the current partition's rows
// into u (reusing u's slices). It returns io.EOF after the last one.
func (d *Decoder) NextUnfiltered(u *Unfiltered) error {
	if d.err != nil {
		return d.err
	}
	var jr *jsonRow
	switch {
	case d.pendIdx < len(d.pending):
		jr = &d.pending[d.pendIdx]
		d.pendIdx++
	case d.inRows && d.dec.More():
		// A fresh value: encoding/json does not zero reused slice elements.
		d.jr = jsonRow{}
		if err := d.dec.Decode(&d.jr); err != nil {
			return d.setErr(d.fail("", "", "rows", err))
		}
		jr = &d.jr
	default:
		return io.EOF
	}
	return d.setErr(d.convert(jr, u))
}

// Decode reads the next whole partition into p (io.EOF after the last).
func (d *Decoder) Decode(p *mutation.Partition) error {
	if err := d.NextPartition(p); err != nil {
		return err
	}
	var u Unfiltered
	for {
		// Decode into fresh rows: p keeps them.
		u = Unfiltered{}
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

// DecodeAll reads every partition of a document.
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

// convert turns one decoded rows element into u.
func (d *Decoder) convert(jr *jsonRow, u *Unfiltered) error {
	switch jr.Type {
	case "row", "static_block":
		static := jr.Type == "static_block"
		u.Kind = ClusteringRow
		if static {
			u.Kind = StaticRow
		}
		return d.convertRow(jr, &u.Row, static)
	case "range_tombstone_bound", "range_tombstone_boundary":
		u.Kind = Marker
		return d.convertMarker(jr, &u.Marker)
	case "":
		return d.fail("", "", "type", errors.New("rows element without a type"))
	}
	return d.fail("", "", "type", fmt.Errorf("unknown rows element type %q", jr.Type))
}

// clusteringValue decodes one clustering component in JSON form.
func (d *Decoder) clusteringValue(i int, raw json.RawMessage) ([]byte, error) {
	col := d.t.Clustering[i]
	if len(raw) > d.opts.MaxValueBytes {
		return nil, fmt.Errorf("clustering column %s: value of %d bytes exceeds the %d-byte limit", col.Name, len(raw), d.opts.MaxValueBytes)
	}
	if bytes.Equal(raw, nullJSON) {
		return nil, nil
	}
	v, err := toAny(raw)
	if err != nil {
		return nil, fmt.Errorf("clustering column %s: %w", col.Name, err)
	}
	b, err := col.Type.FromJSON(v)
	if err != nil {
		return nil, fmt.Errorf("clustering column %s: %w", col.Name, err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

var (
	nullJSON = []byte("null")
	starJSON = []byte(`"*"`)
)

func (d *Decoder) convertRow(jr *jsonRow, r *mutation.Row, static bool) error {
	t := d.t
	rowName := "static"
	if !static {
		rowName = rawArrayText(jr.Clustering)
	}
	cells, cds := r.Cells[:0], r.ComplexDeletions[:0]
	*r = mutation.NewRow(nil)
	if !static {
		switch {
		case len(t.Clustering) == 0:
			if len(jr.Clustering) != 0 {
				return d.fail(rowName, "", "clustering", errors.New("table has no clustering columns"))
			}
		case jr.Clustering == nil:
			return d.fail("", "", "clustering", errors.New("row without clustering"))
		case len(jr.Clustering) != len(t.Clustering):
			return d.fail(rowName, "", "clustering", fmt.Errorf("clustering has %d components, table has %d clustering columns", len(jr.Clustering), len(t.Clustering)))
		default:
			r.Clustering = make(mutation.Clustering, len(jr.Clustering))
			for i, raw := range jr.Clustering {
				v, err := d.clusteringValue(i, raw)
				if err != nil {
					return d.fail(rowName, "", "clustering", err)
				}
				r.Clustering[i] = v
			}
		}
	} else if jr.Clustering != nil {
		return d.fail(rowName, "", "clustering", errors.New("static row with a clustering"))
	}
	if jr.LivenessInfo != nil {
		l, err := parseLiveness(jr.LivenessInfo)
		if err != nil {
			return d.fail(rowName, "", "liveness_info", err)
		}
		r.Liveness = l
	}
	if jr.DeletionInfo != nil {
		del, err := parseDeletion(jr.DeletionInfo)
		if err != nil {
			return d.fail(rowName, "", "deletion_info", err)
		}
		r.Deletion, r.DeletionShadowable = del, jr.DeletionInfo.Shadowable
	}
	if jr.ShadowableDeletionInfo != nil {
		del, err := parseDeletion(jr.ShadowableDeletionInfo)
		if err != nil {
			return d.fail(rowName, "", "shadowable_deletion_info", err)
		}
		r.ShadowableDeletion = del
	}
	kind := schema.Regular
	if static {
		kind = schema.Static
	}
	for i := range jr.Cells {
		jc := &jr.Cells[i]
		col, err := d.column(jc.Name, kind)
		if err != nil {
			return d.fail(rowName, jc.Name, "name", err)
		}
		if col.Type.IsComplex() && jc.Path == nil {
			if jc.DeletionInfo == nil {
				return d.fail(rowName, col.Name, "path", errors.New("element of a collection or UDT column without path"))
			}
			del, err := parseDeletion(jc.DeletionInfo)
			if err != nil {
				return d.fail(rowName, col.Name, "deletion_info", err)
			}
			cds = append(cds, mutation.ComplexDeletion{Column: col, Deletion: del})
			continue
		}
		c, field, err := d.convertCell(jc, col, r.Liveness)
		if err != nil {
			return d.fail(rowName, col.Name, field, err)
		}
		cells = append(cells, c)
	}
	r.Cells, r.ComplexDeletions = cells, cds
	if len(r.Cells) == 0 {
		r.Cells = nil
	}
	if len(r.ComplexDeletions) == 0 {
		r.ComplexDeletions = nil
	}
	mutation.SortCells(r)
	return nil
}

// column resolves a cell's column name (quoted CQL form or plain).
func (d *Decoder) column(name string, kind schema.ColumnKind) (*schema.Column, error) {
	if name == "" {
		return nil, errors.New("cell without a name")
	}
	plain := parseCQLName(name)
	col := d.t.Column(plain)
	if col == nil && plain == name {
		col = d.t.Column(strings.ToLower(name))
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

// convertCell builds a cell, applying the inheritance rules of §2.3.
func (d *Decoder) convertCell(jc *jsonCell, col *schema.Column, l mutation.LivenessInfo) (mutation.Cell, string, error) {
	c := mutation.Cell{Column: col, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}
	valueType := col.Type
	if col.Type.IsComplex() {
		if len(jc.Path) != 1 {
			return c, "path", fmt.Errorf("path has %d elements, want 1", len(jc.Path))
		}
		s, err := scalarText(jc.Path[0])
		if err != nil {
			return c, "path", err
		}
		if c.Path, err = col.Type.PathType().FromString(s); err != nil {
			return c, "path", err
		}
		if c.Path == nil {
			c.Path = []byte{}
		}
		if valueType = col.Type.ElementValueType(c.Path); valueType == nil {
			return c, "path", fmt.Errorf("path %q names no element of %s", s, col.Type)
		}
	} else if jc.Path != nil {
		return c, "path", fmt.Errorf("column of type %s is not a collection or UDT: no path allowed", col.Type)
	}

	// Timestamp: explicit, else the row liveness's.
	switch {
	case jc.Tstamp != nil && !bytes.Equal(jc.Tstamp, nullJSON):
		ts, err := parseTimeValue(jc.Tstamp, true)
		if err != nil {
			return c, "tstamp", err
		}
		c.Timestamp = ts
	case !l.IsEmpty():
		c.Timestamp = l.Timestamp
	case jc.DeletionInfo != nil && jc.DeletionInfo.MarkedDeleted != nil:
		ts, err := parseTimeValue(jc.DeletionInfo.MarkedDeleted, true)
		if err != nil {
			return c, "deletion_info", err
		}
		c.Timestamp = ts
	default:
		return c, "tstamp", errors.New("cell without tstamp in a row without liveness_info")
	}

	if jc.DeletionInfo != nil {
		if jc.Value != nil {
			return c, "value", errors.New("cell with both value and deletion_info")
		}
		if jc.DeletionInfo.LocalDeleteTime == nil {
			return c, "deletion_info", errors.New("missing local_delete_time")
		}
		ldt, err := parseInt32Value(jc.DeletionInfo.LocalDeleteTime, false)
		if err != nil {
			return c, "deletion_info", err
		}
		if ldt == mutation.NoDeletionTime {
			return c, "deletion_info", errors.New("local_delete_time 2147483647 is the live marker")
		}
		c.LocalDeletionTime = ldt
		return c, "", nil
	}

	// TTL: explicit (0 = not expiring), else the row liveness's.
	switch {
	case jc.TTL != nil && !bytes.Equal(jc.TTL, nullJSON):
		ttl, err := parseInt32Value(jc.TTL, false)
		if err != nil {
			return c, "ttl", err
		}
		if ttl < 0 {
			return c, "ttl", fmt.Errorf("negative ttl %d", ttl)
		}
		if ttl > 0 {
			if jc.ExpiresAt == nil {
				return c, "expires_at", errors.New("expiring cell without expires_at")
			}
			exp, err := parseInt32Value(jc.ExpiresAt, false)
			if err != nil {
				return c, "expires_at", err
			}
			if exp == mutation.NoDeletionTime {
				return c, "expires_at", errors.New("expires_at 2147483647 is the live marker")
			}
			c.TTL, c.LocalDeletionTime = ttl, exp
		}
	case jc.ExpiresAt != nil && !bytes.Equal(jc.ExpiresAt, nullJSON):
		return c, "ttl", errors.New("expires_at without ttl")
	case l.IsExpiring():
		c.TTL, c.LocalDeletionTime = l.TTL, l.LocalExpirationTime
	}

	if valueType.Kind == schema.KindCounter {
		if jc.CounterShards == nil {
			return c, "counter_shards", errors.New("counter cell without counter_shards (its exact context is needed)")
		}
		shards := make([]mutation.CounterShard, len(jc.CounterShards))
		for i := range jc.CounterShards {
			s, err := parseShard(&jc.CounterShards[i])
			if err != nil {
				return c, "counter_shards", fmt.Errorf("shard %d: %w", i, err)
			}
			shards[i] = s
		}
		v, err := mutation.AppendCounterContext(nil, shards)
		if err != nil {
			return c, "counter_shards", err
		}
		c.Value = v
		return c, "", nil
	}
	if jc.CounterShards != nil {
		return c, "counter_shards", fmt.Errorf("counter_shards on a %s column", valueType)
	}
	if jc.Value == nil {
		return c, "value", errors.New("cell without value or deletion_info")
	}
	if len(jc.Value) > d.opts.MaxValueBytes {
		return c, "value", fmt.Errorf("value of %d bytes exceeds the %d-byte limit", len(jc.Value), d.opts.MaxValueBytes)
	}
	if bytes.Equal(jc.Value, nullJSON) {
		return c, "value", errors.New("null value (a deleted cell has deletion_info)")
	}
	v, err := toAny(jc.Value)
	if err != nil {
		return c, "value", err
	}
	b, err := valueType.FromJSON(v)
	if err != nil {
		return c, "value", err
	}
	if b == nil {
		b = []byte{}
	}
	c.Value = b
	return c, "", nil
}

func parseShard(s *jsonShard) (mutation.CounterShard, error) {
	var sh mutation.CounterShard
	id, err := parseUUID(s.CounterID)
	if err != nil {
		return sh, fmt.Errorf("counter_id: %w", err)
	}
	sh.ID = id
	if s.Clock == nil || s.Count == nil {
		return sh, errors.New("shard needs clock and count")
	}
	if sh.Clock, err = parseTimeValue(s.Clock, true); err != nil {
		return sh, fmt.Errorf("clock: %w", err)
	}
	if sh.Count, err = parseTimeValue(s.Count, true); err != nil {
		return sh, fmt.Errorf("count: %w", err)
	}
	kind := s.Kind
	if kind == "" {
		kind = "global"
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

func parseDeletion(jd *jsonDeletion) (mutation.DeletionTime, error) {
	if jd.MarkedDeleted == nil || jd.LocalDeleteTime == nil {
		return mutation.Live, errors.New("deletion_info needs marked_deleted and local_delete_time")
	}
	ts, err := parseTimeValue(jd.MarkedDeleted, true)
	if err != nil {
		return mutation.Live, fmt.Errorf("marked_deleted: %w", err)
	}
	ldt, err := parseInt32Value(jd.LocalDeleteTime, false)
	if err != nil {
		return mutation.Live, fmt.Errorf("local_delete_time: %w", err)
	}
	d := mutation.DeletionTime{MarkedForDeleteAt: ts, LocalDeletionTime: ldt}
	if d.IsLive() {
		return d, errors.New("deletion_info holds the live deletion time")
	}
	return d, nil
}

func parseLiveness(jl *jsonLiveness) (mutation.LivenessInfo, error) {
	l := mutation.EmptyLiveness
	if jl.Tstamp == nil {
		return l, errors.New("liveness_info without tstamp")
	}
	ts, err := parseTimeValue(jl.Tstamp, true)
	if err != nil {
		return l, fmt.Errorf("tstamp: %w", err)
	}
	if ts == mutation.NoTimestamp {
		return l, errors.New("tstamp is the no-timestamp marker")
	}
	l.Timestamp = ts
	if jl.TTL != nil && !bytes.Equal(jl.TTL, nullJSON) {
		ttl, err := parseInt32Value(jl.TTL, false)
		if err != nil {
			return l, fmt.Errorf("ttl: %w", err)
		}
		if ttl < 0 {
			return l, fmt.Errorf("negative ttl %d", ttl)
		}
		if ttl > 0 {
			if jl.ExpiresAt == nil {
				return l, errors.New("expiring liveness without expires_at")
			}
			exp, err := parseInt32Value(jl.ExpiresAt, false)
			if err != nil {
				return l, fmt.Errorf("expires_at: %w", err)
			}
			l.TTL, l.LocalExpirationTime = ttl, exp
		}
	} else if jl.ExpiresAt != nil && !bytes.Equal(jl.ExpiresAt, nullJSON) {
		return l, errors.New("expires_at without ttl")
	}
	return l, nil
}

func (d *Decoder) convertMarker(jr *jsonRow, m *mutation.RangeTombstoneMarker) error {
	*m = mutation.RangeTombstoneMarker{Close: mutation.Live, Open: mutation.Live}
	boundary := jr.Type == "range_tombstone_boundary"
	name := jr.Type
	switch {
	case boundary && (jr.Start == nil || jr.End == nil):
		return d.fail(name, "", "", errors.New("boundary needs start and end"))
	case !boundary && (jr.Start == nil) == (jr.End == nil):
		return d.fail(name, "", "", errors.New("bound needs exactly one of start and end"))
	}
	var open, closing mutation.BoundKind
	if jr.Start != nil {
		c, incl, del, err := d.convertBound(jr.Start)
		if err != nil {
			return d.fail(name+" start", "", "", err)
		}
		open = mutation.ExclStartBound
		if incl {
			open = mutation.InclStartBound
		}
		m.Clustering, m.Open, m.Kind = c, del, open
		name = open.String() + rawArrayText(jr.Start.Clustering)
	}
	if jr.End != nil {
		c, incl, del, err := d.convertBound(jr.End)
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
			m.Kind = mutation.BoundaryKind(closing)
			if len(c) == 0 {
				return d.fail(name, "", "", errors.New("boundary without clustering"))
			}
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

func (d *Decoder) convertBound(jb *jsonBound) (mutation.Clustering, bool, mutation.DeletionTime, error) {
	var incl bool
	switch jb.Type {
	case "inclusive":
		incl = true
	case "exclusive":
	default:
		return nil, false, mutation.Live, fmt.Errorf("bound type %q, want inclusive or exclusive", jb.Type)
	}
	if jb.DeletionInfo == nil {
		return nil, false, mutation.Live, errors.New("bound without deletion_info")
	}
	del, err := parseDeletion(jb.DeletionInfo)
	if err != nil {
		return nil, false, mutation.Live, err
	}
	raw := jb.Clustering
	if len(raw) > len(d.t.Clustering) {
		return nil, false, del, fmt.Errorf("bound has %d components, table has %d clustering columns", len(raw), len(d.t.Clustering))
	}
	n := len(raw)
	if n == len(d.t.Clustering) {
		for n > 0 && bytes.Equal(raw[n-1], starJSON) {
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

// scalarText returns the text of a JSON string or number (keys and paths
// are strings in string form; a bare number is accepted too).
func scalarText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", errors.New("empty value")
	}
	switch raw[0] {
	case '"':
		return unquote(raw)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 't', 'f':
		return string(raw), nil
	}
	return "", fmt.Errorf("%s is not a string", raw)
}

// toAny converts raw JSON into what encoding/json with UseNumber would
// produce, cheaply for scalars.
func toAny(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, errors.New("empty value")
	}
	switch raw[0] {
	case '"':
		return unquote(raw)
	case 't':
		if string(raw) == "true" {
			return true, nil
		}
	case 'f':
		if string(raw) == "false" {
			return false, nil
		}
	case 'n':
		if string(raw) == "null" {
			return nil, nil
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return json.Number(raw), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
