package pipeline

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// A batch carries partition updates from the stage that reads the input to
// the stage that writes one token range's SSTables: the shuffle's unit, so
// that the runner moves a few large elements instead of one per row.
//
// A batch travels compressed with S2 (klauspost/compress), about 3x
// smaller for typical rows: the shuffle is the costly part on every runner.
//
// Layout (varints are encoding/binary's; "bytes" is a uvarint length + 1
// followed by that many bytes, 0 standing for nil):
//
//	batch     = version(1 byte = wireVersion) source(bytes) entry*
//	entry     = line(uvarint) partition
//	partition = key(bytes) deletion static-flag(1 byte) [row] rows(uvarint) row* markers(uvarint) marker*
//	row       = clustering liveness deletion shadowable(1 byte) shadowableDeletion
//	            cells(uvarint) cell* complexDeletions(uvarint) complexDeletion*
//	clustering = count(uvarint) bytes*
//	liveness  = timestamp(varint) ttl(varint) localExpirationTime(varint)
//	deletion  = markedForDeleteAt(varint) localDeletionTime(varint)
//	cell      = column(uvarint) path(bytes) value(bytes) timestamp(varint) ttl(varint) localDeletionTime(varint)
//	complexDeletion = column(uvarint) deletion
//	marker    = kind(1 byte) clustering close(deletion) open(deletion)
//
// A column is its Index among the static columns (static row) or the
// regular ones (clustering rows). Tokens are not carried: the reader
// computes them from the keys. The format lives only between two stages of
// one job (both run the same binary), so it has no compatibility to keep
// beyond wireVersion.
const wireVersion = 1

// errWire is the cause of every batch decoding error.
var errWire = errors.New("malformed partition batch")

// batchWriter appends entries to a batch.
type batchWriter struct {
	buf []byte
	n   int // entries
}

func newBatchWriter(source string, capacity int) *batchWriter {
	w := &batchWriter{buf: make([]byte, 0, capacity)}
	w.buf = append(w.buf, wireVersion)
	w.buf = appendBytes(w.buf, []byte(source))
	return w
}

func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return append(dst, 0)
	}
	dst = binary.AppendUvarint(dst, uint64(len(b))+1)
	return append(dst, b...)
}

func appendDeletion(dst []byte, d mutation.DeletionTime) []byte {
	dst = binary.AppendVarint(dst, d.MarkedForDeleteAt)
	return binary.AppendVarint(dst, int64(d.LocalDeletionTime))
}

func appendClustering(dst []byte, c mutation.Clustering) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(c)))
	for _, v := range c {
		dst = appendBytes(dst, v)
	}
	return dst
}

func appendRow(dst []byte, r *mutation.Row) []byte {
	dst = appendClustering(dst, r.Clustering)
	dst = binary.AppendVarint(dst, r.Liveness.Timestamp)
	dst = binary.AppendVarint(dst, int64(r.Liveness.TTL))
	dst = binary.AppendVarint(dst, int64(r.Liveness.LocalExpirationTime))
	dst = appendDeletion(dst, r.Deletion)
	if r.DeletionShadowable {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	dst = appendDeletion(dst, r.ShadowableDeletion)
	dst = binary.AppendUvarint(dst, uint64(len(r.Cells)))
	for i := range r.Cells {
		c := &r.Cells[i]
		dst = binary.AppendUvarint(dst, uint64(c.Column.Index))
		dst = appendBytes(dst, c.Path)
		dst = appendBytes(dst, c.Value)
		dst = binary.AppendVarint(dst, c.Timestamp)
		dst = binary.AppendVarint(dst, int64(c.TTL))
		dst = binary.AppendVarint(dst, int64(c.LocalDeletionTime))
	}
	dst = binary.AppendUvarint(dst, uint64(len(r.ComplexDeletions)))
	for _, cd := range r.ComplexDeletions {
		dst = binary.AppendUvarint(dst, uint64(cd.Column.Index))
		dst = appendDeletion(dst, cd.Deletion)
	}
	return dst
}

// add appends one partition update read from line.
func (w *batchWriter) add(p *mutation.Partition, line int) {
	b := binary.AppendUvarint(w.buf, uint64(line))
	b = appendBytes(b, p.Key)
	b = appendDeletion(b, p.Deletion)
	if p.Static.IsEmpty() {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = appendRow(b, &p.Static)
	}
	b = binary.AppendUvarint(b, uint64(len(p.Rows)))
	for i := range p.Rows {
		b = appendRow(b, &p.Rows[i])
	}
	b = binary.AppendUvarint(b, uint64(len(p.Markers)))
	for i := range p.Markers {
		m := &p.Markers[i]
		b = append(b, byte(m.Kind))
		b = appendClustering(b, m.Clustering)
		b = appendDeletion(b, m.Close)
		b = appendDeletion(b, m.Open)
	}
	w.buf = b
	w.n++
}

// batchReader decodes a batch. The partitions it returns point into the
// batch and into slices the reader reuses: they are valid until the next
// call of next.
type batchReader struct {
	t      *schema.Table
	part   dht.Partitioner
	b      []byte
	source string
	err    error

	p      mutation.Partition
	rows   []mutation.Row
	cells  []mutation.Cell
	cds    []mutation.ComplexDeletion
	clusts [][]byte
}

func newBatchReader(t *schema.Table, part dht.Partitioner, batch []byte) (*batchReader, error) {
	r := &batchReader{t: t, part: part, b: batch}
	if len(batch) == 0 || batch[0] != wireVersion {
		return nil, fmt.Errorf("%w: version byte %v, want %d", errWire, batch[:min(1, len(batch))], wireVersion)
	}
	r.b = batch[1:]
	src := r.bytes()
	if r.err != nil {
		return nil, r.err
	}
	r.source = string(src)
	return r, nil
}

func (r *batchReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", errWire, what)
	}
	r.b = nil
}

func (r *batchReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("bad uvarint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *batchReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *batchReader) int32() int32 {
	v := r.varint()
	if v != int64(int32(v)) {
		r.fail("32-bit value out of range")
	}
	return int32(v)
}

func (r *batchReader) byte1() byte {
	if len(r.b) == 0 {
		r.fail("truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *batchReader) bytes() []byte {
	n := r.uvarint()
	if n == 0 {
		return nil
	}
	n--
	if n > uint64(len(r.b)) {
		r.fail("a value runs past the end")
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *batchReader) deletion() mutation.DeletionTime {
	return mutation.DeletionTime{MarkedForDeleteAt: r.varint(), LocalDeletionTime: r.varint()}
}

func (r *batchReader) clustering() mutation.Clustering {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("clustering count past the end")
		return nil
	}
	start := len(r.clusts)
	for range n {
		r.clusts = append(r.clusts, r.bytes())
	}
	if n == 0 {
		return nil
	}
	return r.clusts[start:len(r.clusts):len(r.clusts)]
}

func (r *batchReader) column(cols []*schema.Column) *schema.Column {
	i := r.uvarint()
	if i >= uint64(len(cols)) {
		r.fail("unknown column")
		return nil
	}
	return cols[i]
}

func (r *batchReader) row(static bool) mutation.Row {
	cols := r.t.Regular
	if static {
		cols = r.t.Static
	}
	var row mutation.Row
	row.Clustering = r.clustering()
	row.Liveness = mutation.LivenessInfo{Timestamp: r.varint(), TTL: r.int32(), LocalExpirationTime: r.varint()}
	row.Deletion = r.deletion()
	row.DeletionShadowable = r.byte1() == 1
	row.ShadowableDeletion = r.deletion()
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("cell count past the end")
		return row
	}
	start := len(r.cells)
	for range n {
		c := mutation.Cell{Column: r.column(cols), Path: r.bytes(), Value: r.bytes(), Timestamp: r.varint(), TTL: r.int32(), LocalDeletionTime: r.varint()}
		if r.err != nil {
			return row
		}
		r.cells = append(r.cells, c)
	}
	if n > 0 {
		row.Cells = r.cells[start:len(r.cells):len(r.cells)]
	}
	n = r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("complex deletion count past the end")
		return row
	}
	start = len(r.cds)
	for range n {
		cd := mutation.ComplexDeletion{Column: r.column(cols), Deletion: r.deletion()}
		if r.err != nil {
			return row
		}
		r.cds = append(r.cds, cd)
	}
	if n > 0 {
		row.ComplexDeletions = r.cds[start:len(r.cds):len(r.cds)]
	}
	return row
}

// next returns the next partition and the line it was read from; ok is
// false at the end of the batch or on an error (see r.err).
func (r *batchReader) next() (p *mutation.Partition, line int, ok bool) {
	if len(r.b) == 0 || r.err != nil {
		return nil, 0, false
	}
	r.rows, r.cells, r.cds, r.clusts = r.rows[:0], r.cells[:0], r.cds[:0], r.clusts[:0]
	line = int(r.uvarint())
	key := r.bytes()
	r.p = mutation.Partition{Key: key, Deletion: r.deletion(), Static: mutation.NewRow(nil)}
	if r.byte1() == 1 {
		r.p.Static = r.row(true)
	}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("row count past the end")
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		r.rows = append(r.rows, r.row(false))
	}
	r.p.Rows = r.rows
	n = r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("marker count past the end")
	}
	var markers []mutation.RangeTombstoneMarker
	for i := uint64(0); i < n && r.err == nil; i++ {
		markers = append(markers, mutation.RangeTombstoneMarker{Kind: mutation.BoundKind(r.byte1()), Clustering: r.clustering(), Close: r.deletion(), Open: r.deletion()})
	}
	r.p.Markers = markers
	if r.err != nil {
		return nil, 0, false
	}
	if key == nil {
		r.fail("a partition without a key")
		return nil, 0, false
	}
	r.p.Token = r.part.Token(key)
	return &r.p, line, true
}
