package rows

import (
	"fmt"

	"github.com/castable-db/castable/internal/vint"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// unfilteredKind says what readUnfiltered found.
type unfilteredKind uint8

const (
	endOfPartition unfilteredKind = iota
	gotRow
	gotMarker
)

// Decoder decodes partitions from the uncompressed Data.db stream
// (layout.go). Decoded rows and markers alias its buffers and stay valid
// until the next unfiltered is read; the static row has buffers of its own
// and stays valid until the next partition.
type Decoder struct {
	v          version.Version
	enc        EncodingStats
	nClust     int
	clustFixed []int
	// fixedClust is the length of a row's clustering values when every
	// clustering type has a fixed length and one header covers them all
	// (1 to 32 of them), else 0.
	fixedClust      int
	static, regular columnList
	st              *Stream
	// maxValue bounds a row or marker body and a clustering value
	// (sstables.ReaderOptions.MaxValueSize); 0 means no bound beyond the
	// bytes left.
	maxValue int64
	// inPlace is the window readRowInPlace asks the stream for
	// (inPlaceWindow; tests vary it, 0 copies every row as the fallback
	// does).
	inPlace int
	// simpleBodies turns decodeSimpleBody on (tests turn it off).
	simpleBodies bool

	body, staticBody []byte
	clust            []byte
	skipClust        mutation.Clustering
	present          []int
	clustOffs        []int

	// Position facts of the last unfiltered and of the static row, for the
	// layout describer.
	lastStart, lastSize     int64
	lastPrevSize            uint64
	staticStart, staticSize int64
	staticPrevSize          uint64
}

// NewDecoder returns a decoder of version v's partitions with header h,
// whose static and regular columns are static and regular (of a table with
// nTableStatic and nTableRegular such columns). maxValue bounds a row or
// marker body and a clustering value (sstables.ReaderOptions.MaxValueSize);
// 0 means no bound beyond the bytes left.
func NewDecoder(v version.Version, h *Header, static, regular []*schema.Column, nTableStatic, nTableRegular int, maxValue int64) *Decoder {
	d := &Decoder{
		v:            v,
		maxValue:     maxValue,
		inPlace:      inPlaceWindow,
		simpleBodies: true,
		enc:          h.Stats,
		nClust:       len(h.ClusteringTypes),
		clustFixed:   ClusteringFixed(h.ClusteringTypes),
		static:       newColumnList(static, nTableStatic),
		regular:      newColumnList(regular, nTableRegular),
	}
	if n := len(d.clustFixed); n >= 1 && n <= clusteringBlockSize {
		for _, l := range d.clustFixed {
			if l == 0 {
				d.fixedClust = 0
				break
			}
			d.fixedClust += l
		}
	}
	return d
}

// decodeError is a decoding problem at an absolute Data.db offset; the
// reader turns it into a CorruptionError naming the file.
type decodeError struct {
	offset int64
	err    error
}

func (e *decodeError) Error() string { return fmt.Sprintf("offset %d: %v", e.offset, e.err) }
func (e *decodeError) Unwrap() error { return e.err }

func (d *Decoder) fail(offset int64, format string, args ...any) error {
	return &decodeError{offset: offset, err: fmt.Errorf(format, args...)}
}

// checkValueSize refuses a length over maxValue before anything is
// allocated for it.
func (d *Decoder) checkValueSize(what string, n int) error {
	if d.maxValue > 0 && int64(n) > d.maxValue {
		return fmt.Errorf("%w: %s of %d bytes, limit %d", sstables.ErrValueTooLarge, what, n, d.maxValue)
	}
	return nil
}

func (d *Decoder) wrap(offset int64, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*decodeError); ok {
		return err
	}
	return &decodeError{offset: offset, err: err}
}

// readPartitionHeader reads the key and the partition deletion, and the
// static row when the header has static columns. key aliases a buffer
// valid until the next call.
func (d *Decoder) readPartitionHeader(keyBuf []byte, static *mutation.Row) (key []byte, del mutation.DeletionTime, err error) {
	start := d.st.pos
	kl, err := d.st.U16()
	if err != nil {
		return nil, del, d.wrap(start, err)
	}
	if kl == 0 {
		return nil, del, d.fail(start, "empty partition key")
	}
	key, err = d.st.ReadInto(keyBuf[:0], int(kl))
	if err != nil {
		return nil, del, d.wrap(start, err)
	}
	// The fixed-form deletion: 12 bytes, or from oa 1 byte when live.
	delAt := d.st.pos
	var fixed [maxFixedDeletionTimeSize]byte
	b, err := d.st.ReadInto(fixed[:0], 1)
	if err != nil {
		return nil, del, d.wrap(start, err)
	}
	need := legacyDeletionTimeSize
	if d.v.UIntDeletionTime() {
		switch {
		case b[0] == 0xC0: // ScyllaDB's negative timestamp
			need = maxFixedDeletionTimeSize
		case b[0]&0x80 != 0:
			need = 1 // live, or a bad flag ReadFixedDeletionTime reports
		}
	}
	if b, err = d.st.ReadInto(b, need-1); err != nil {
		return nil, del, d.wrap(start, err)
	}
	if del, _, err = sstables.ReadFixedDeletionTime(b, d.v); err != nil {
		return nil, del, d.fail(delAt, "partition deletion: %v", err)
	}
	resetRow(static)
	if len(d.static.cols) > 0 {
		at := d.st.pos
		flags, err := d.st.Byte()
		if err != nil {
			return nil, del, d.wrap(at, err)
		}
		var ext byte
		if flags&flagExtension != 0 {
			if ext, err = d.st.Byte(); err != nil {
				return nil, del, d.wrap(at, err)
			}
		}
		if flags&flagIsMarker != 0 || flags&flagEndOfPartition != 0 || ext&extIsStatic == 0 {
			return nil, del, d.fail(at, "expected the static row (flags %#02x ext %#02x)", flags, ext)
		}
		if err := d.readRow(at, flags, ext, true, static, &d.staticBody); err != nil {
			return nil, del, err
		}
		d.staticStart, d.staticSize, d.staticPrevSize = at, d.st.pos-at, d.lastPrevSize
	}
	return key, del, nil
}

// StaticSpan returns the Data.db offset, size and previous-unfiltered size
// of the current partition's static row (for the layout describer).
func (d *Decoder) StaticSpan() (start, size int64, prevSize uint64) {
	return d.staticStart, d.staticSize, d.staticPrevSize
}

// LastSpan returns the Data.db offset, size and previous-unfiltered size of
// the last unfiltered decoded.
func (d *Decoder) LastSpan() (start, size int64, prevSize uint64) {
	return d.lastStart, d.lastSize, d.lastPrevSize
}

func resetRow(r *mutation.Row) {
	r.Clustering = r.Clustering[:0]
	r.Liveness = mutation.EmptyLiveness
	r.Deletion = mutation.Live
	r.DeletionShadowable = false
	r.ShadowableDeletion = mutation.Live
	r.Cells = r.Cells[:0]
	r.ComplexDeletions = r.ComplexDeletions[:0]
}

// readUnfiltered reads the next row or marker of the partition, or its end.
func (d *Decoder) readUnfiltered(row *mutation.Row, m *mutation.RangeTombstoneMarker) (unfilteredKind, error) {
	if d.inPlace > 0 {
		if ok, err := d.readRowInPlace(row); ok {
			return gotRow, err
		}
	}
	at := d.st.pos
	flags, err := d.st.Byte()
	if err != nil {
		return 0, d.wrap(at, err)
	}
	d.lastStart = at
	if flags == flagEndOfPartition {
		d.lastSize = 1
		return endOfPartition, nil
	}
	if flags&flagEndOfPartition != 0 {
		return 0, d.fail(at, "unfiltered flags %#02x mix end-of-partition with other bits", flags)
	}
	if flags&flagIsMarker != 0 {
		if flags != flagIsMarker {
			return 0, d.fail(at, "marker flags %#02x", flags)
		}
		return gotMarker, d.readMarker(at, m)
	}
	var ext byte
	if flags&flagExtension != 0 {
		if ext, err = d.st.Byte(); err != nil {
			return 0, d.wrap(at, err)
		}
		if ext&extIsStatic != 0 {
			return 0, d.fail(at, "static row after the partition header")
		}
	}
	resetRow(row)
	return gotRow, d.readRow(at, flags, ext, false, row, &d.body)
}

// inPlaceWindow is how many of the buffered bytes readRowInPlace looks at
// (the stream's buffer holds the rest of the current chunk after any
// read): rows up to about this size that lie in it are decoded where they
// lie.
const inPlaceWindow = 4 << 10

// readRowInPlace decodes the next unfiltered when it is a row lying wholly
// in the stream's buffer, aliasing the buffer instead of copying the row
// into the decoder's (the row stays valid until the next read, as a
// copied one does). It reports false, having consumed nothing, for
// anything else — a marker, the partition's end, a row that does not fit,
// damage of any kind — which readUnfiltered then reads (and reports) the
// copying way. Both ways share the body decoder (decodeRowBody) and give
// the same row.
func (d *Decoder) readRowInPlace(row *mutation.Row) (bool, error) {
	win := d.st.window(d.inPlace)
	if len(win) < 2 {
		return false, nil
	}
	flags := win[0]
	if flags&(flagEndOfPartition|flagIsMarker) != 0 {
		return false, nil
	}
	off := 1
	var ext byte
	if flags&flagExtension != 0 {
		ext = win[1]
		if ext&extIsStatic != 0 {
			return false, nil
		}
		off = 2
	}
	var clust mutation.Clustering
	if fl := d.fixedClust; fl > 0 && len(win)-off > fl && win[off] == 0 {
		// Fixed-length values only, none null or empty (a zero header):
		// what DecodeClusteringValues gives, without its per-value checks.
		clust = row.Clustering[:0]
		p := off + 1
		for _, l := range d.clustFixed {
			clust = append(clust, win[p:p+l:p+l])
			p += l
		}
		off = p
	} else {
		var k int
		var err error
		if clust, k, err = sstables.DecodeClusteringValues(win[off:], row.Clustering, d.nClust, d.clustFixed, int(d.maxValue)); err != nil {
			return false, nil
		}
		off += k
	}
	size, k := vint.Decode(win[off:])
	if k == 0 || size > uint64(len(win)-off-k) || (d.maxValue > 0 && size > uint64(d.maxValue)) {
		return false, nil
	}
	off += k
	at := d.st.pos
	resetRow(row)
	row.Clustering = clust
	body := win[off : off+int(size) : off+int(size)]
	if err := d.decodeRowBody(at, flags, ext, &d.regular, row, SliceReader{B: body}); err != nil {
		return true, err
	}
	d.lastStart = at
	d.st.consume(off + int(size))
	d.lastSize = int64(off) + int64(size)
	return true, nil
}

// readUnfilteredSkipping is readUnfiltered for a seek to the inclusive
// start bound of ck in table t's order: a row that sorts before the bound
// has its body skipped by its size, not decoded (skipped is then true and
// only the row's clustering is set), as skipToPartitionEnd skips.
func (d *Decoder) readUnfilteredSkipping(row *mutation.Row, m *mutation.RangeTombstoneMarker, t *schema.Table, ck mutation.Clustering) (kind unfilteredKind, skipped bool, err error) {
	at := d.st.pos
	flags, err := d.st.Byte()
	if err != nil {
		return 0, false, d.wrap(at, err)
	}
	if flags == flagEndOfPartition || flags&flagIsMarker != 0 {
		d.st.unreadByte()
		kind, err := d.readUnfiltered(row, m)
		return kind, false, err
	}
	d.lastStart = at
	if flags&flagEndOfPartition != 0 {
		return 0, false, d.fail(at, "unfiltered flags %#02x mix end-of-partition with other bits", flags)
	}
	var ext byte
	if flags&flagExtension != 0 {
		if ext, err = d.st.Byte(); err != nil {
			return 0, false, d.wrap(at, err)
		}
		if ext&extIsStatic != 0 {
			return 0, false, d.fail(at, "static row after the partition header")
		}
	}
	resetRow(row)
	if row.Clustering, err = d.readClustering(row.Clustering, d.nClust); err != nil {
		return 0, false, d.wrap(at, err)
	}
	if mutation.ComparePrefix(t, mutation.ClusteringKind, row.Clustering, mutation.InclStartBound, ck) > 0 {
		return gotRow, false, d.readRowBody(at, flags, ext, false, row, &d.body)
	}
	size, err := d.st.Length()
	if err != nil {
		return 0, false, d.wrap(at, err)
	}
	if err := d.st.Skip(int64(size)); err != nil {
		return 0, false, d.wrap(at, err)
	}
	d.lastSize = d.st.pos - at
	return gotRow, true, nil
}

// readClustering reads n clustering values from the stream; they alias
// d.clust until the next call.
func (d *Decoder) readClustering(dst mutation.Clustering, n int) (mutation.Clustering, error) {
	d.clust = d.clust[:0]
	d.clustOffs = d.clustOffs[:0]
	dst = dst[:0]
	const null, empty = -1, -2
	for start := 0; start < n; start += clusteringBlockSize {
		end := min(start+clusteringBlockSize, n)
		header, err := d.st.UVint()
		if err != nil {
			return dst, err
		}
		for i := start; i < end; i++ {
			shift := uint(2 * (i - start))
			switch {
			case header&(1<<(shift+1)) != 0:
				d.clustOffs = append(d.clustOffs, null, 0)
			case header&(1<<shift) != 0:
				d.clustOffs = append(d.clustOffs, empty, 0)
			default:
				l := 0
				if i < len(d.clustFixed) {
					l = d.clustFixed[i]
				}
				if l == 0 {
					if l, err = d.st.Length(); err != nil {
						return dst, err
					}
					if err := d.checkValueSize("clustering value", l); err != nil {
						return dst, err
					}
				}
				off := len(d.clust)
				if d.clust, err = d.st.ReadInto(d.clust, l); err != nil {
					return dst, err
				}
				d.clustOffs = append(d.clustOffs, off, l)
			}
		}
	}
	for i := 0; i < len(d.clustOffs); i += 2 {
		switch off := d.clustOffs[i]; off {
		case null:
			dst = append(dst, nil)
		case empty:
			dst = append(dst, EmptyValue)
		default:
			l := d.clustOffs[i+1]
			dst = append(dst, d.clust[off:off+l:off+l])
		}
	}
	return dst, nil
}

// readBody reads a uvint size and that many bytes into *buf.
func (d *Decoder) readBody(buf *[]byte) (SliceReader, error) {
	size, err := d.st.Length()
	if err != nil {
		return SliceReader{}, err
	}
	if err := d.checkValueSize("row or marker body", size); err != nil {
		return SliceReader{}, err
	}
	b, err := d.st.ReadInto((*buf)[:0], size)
	*buf = b
	if err != nil {
		return SliceReader{}, err
	}
	return SliceReader{B: b}, nil
}

func (d *Decoder) readMarker(at int64, m *mutation.RangeTombstoneMarker) error {
	kind, err := d.st.Byte()
	if err != nil {
		return d.wrap(at, err)
	}
	k := mutation.BoundKind(kind)
	if k > mutation.ExclStartBound || k == mutation.ClusteringKind || k == mutation.StaticClustering {
		return d.fail(at, "range tombstone marker of kind %d", kind)
	}
	n, err := d.st.U16()
	if err != nil {
		return d.wrap(at, err)
	}
	if int(n) > d.nClust {
		return d.fail(at, "range tombstone bound with %d components, the table has %d", n, d.nClust)
	}
	m.Kind = k
	if m.Clustering, err = d.readClustering(m.Clustering, int(n)); err != nil {
		return d.wrap(at, err)
	}
	r, err := d.readBody(&d.body)
	if err != nil {
		return d.wrap(at, err)
	}
	d.lastPrevSize, _ = r.UVint()
	first := d.readDeletion(&r)
	m.Open, m.Close = mutation.Live, mutation.Live
	switch k {
	case mutation.InclStartBound, mutation.ExclStartBound:
		m.Open = first
	case mutation.InclEndBound, mutation.ExclEndBound:
		m.Close = first
	default:
		m.Close = first
		m.Open = d.readDeletion(&r)
	}
	if r.Err != nil {
		return d.fail(at, "range tombstone marker: %v", r.Err)
	}
	if r.Remaining() != 0 {
		return d.fail(at, "range tombstone marker size %d but its content ends after %d bytes", len(r.B), r.Off)
	}
	d.lastSize = d.st.pos - at
	return nil
}

func (d *Decoder) readDeletion(r *SliceReader) mutation.DeletionTime {
	ts, _ := r.UVint()
	ldt, _ := r.UVint()
	return mutation.DeletionTime{MarkedForDeleteAt: d.enc.Timestamp(ts), LocalDeletionTime: d.enc.LocalDeletionTime(ldt)}
}

// readRow reads a row after its flags (and extended flags).
func (d *Decoder) readRow(at int64, flags, ext byte, isStatic bool, row *mutation.Row, buf *[]byte) error {
	if !isStatic {
		var err error
		if row.Clustering, err = d.readClustering(row.Clustering, d.nClust); err != nil {
			return d.wrap(at, err)
		}
	}
	return d.readRowBody(at, flags, ext, isStatic, row, buf)
}

// readRowBody reads a row's size and body, after its clustering.
func (d *Decoder) readRowBody(at int64, flags, ext byte, isStatic bool, row *mutation.Row, buf *[]byte) error {
	cols := &d.regular
	if isStatic {
		cols = &d.static
	}
	r, err := d.readBody(buf)
	if err != nil {
		return d.wrap(at, err)
	}
	if err := d.decodeRowBody(at, flags, ext, cols, row, r); err != nil {
		return err
	}
	d.lastSize = d.st.pos - at
	return nil
}

// decodeRowBody decodes a row body (what follows its size) from r into
// row; the values alias r's bytes.
func (d *Decoder) decodeRowBody(at int64, flags, ext byte, cols *columnList, row *mutation.Row, r SliceReader) error {
	if ext == 0 && d.simpleBodies && d.decodeSimpleBody(flags, cols, row, r.B[r.Off:]) {
		return nil
	}
	d.lastPrevSize, _ = r.UVint()
	if flags&flagHasTimestamp != 0 {
		ts, _ := r.UVint()
		row.Liveness = mutation.LivenessInfo{Timestamp: d.enc.Timestamp(ts), TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
		if flags&flagHasTTL != 0 {
			ttl, _ := r.UVint()
			ldt, _ := r.UVint()
			row.Liveness.TTL = d.enc.TTL(ttl)
			row.Liveness.LocalExpirationTime = d.enc.LocalDeletionTime(ldt)
		}
	} else if flags&flagHasTTL != 0 {
		return d.fail(at, "row has a TTL but no timestamp (flags %#02x)", flags)
	}
	if flags&flagHasDeletion != 0 {
		row.Deletion = d.readDeletion(&r)
		row.DeletionShadowable = ext&extHasShadowableDeletion != 0
	}
	if ext&extScyllaShadowable != 0 {
		row.ShadowableDeletion = d.readDeletion(&r)
	}
	if err := d.readColumns(&r, flags, cols, row); err != nil {
		return d.fail(at, "%v", err)
	}
	if r.Err != nil {
		return d.fail(at, "row: %v", r.Err)
	}
	if r.Remaining() != 0 {
		return d.fail(at, "row size %d but its content ends after %d bytes", len(r.B), r.Off)
	}
	return nil
}

// decodeSimpleBody is decodeRowBody for the common row — no extended
// flags, no row or complex deletion, only simple columns in the header,
// fewer than 64 of them — in one loop over b without the sticky-error
// reader. It decodes exactly what decodeRowBody would, or reports false
// having changed nothing decodeRowBody does not set again: for any other
// row and for anything it does not find well-formed, which decodeRowBody
// then decodes or reports.
func (d *Decoder) decodeSimpleBody(flags byte, cols *columnList, row *mutation.Row, b []byte) bool {
	n := len(cols.cols)
	if cols.hasComplex || n >= largeSubsetThreshold || flags&(flagHasDeletion|flagHasComplexDeletion) != 0 {
		return false
	}
	prevSize, k := vint.Decode(b)
	if k == 0 {
		return false
	}
	off := k
	if flags&flagHasTimestamp != 0 {
		ts, k := vint.Decode(b[off:])
		if k == 0 {
			return false
		}
		off += k
		row.Liveness = mutation.LivenessInfo{Timestamp: d.enc.Timestamp(ts), TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
		if flags&flagHasTTL != 0 {
			ttl, k := vint.Decode(b[off:])
			if k == 0 {
				return false
			}
			off += k
			ldt, k := vint.Decode(b[off:])
			if k == 0 {
				return false
			}
			off += k
			row.Liveness.TTL = d.enc.TTL(ttl)
			row.Liveness.LocalExpirationTime = d.enc.LocalDeletionTime(ldt)
		}
	} else if flags&flagHasTTL != 0 {
		return false
	}
	var missing uint64
	if flags&flagHasAllColumns == 0 {
		if missing, k = vint.Decode(b[off:]); k == 0 || missing>>uint(n) != 0 {
			return false
		}
		off += k
	}
	lv := row.Liveness
	cells := row.Cells
	for i := range cols.cols {
		if missing&(1<<uint(i)) != 0 {
			continue
		}
		info := &cols.cols[i]
		if off >= len(b) {
			return false
		}
		cf := b[off]
		off++
		if cf&^(cellIsDeleted|cellIsExpiring|cellHasEmptyValue|cellUseRowTimestamp|cellUseRowTTL) != 0 {
			return false
		}
		c := mutation.Cell{Column: info.col, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}
		if cf&cellUseRowTimestamp != 0 {
			c.Timestamp = lv.Timestamp
		} else {
			ts, k := vint.Decode(b[off:])
			if k == 0 {
				return false
			}
			off += k
			c.Timestamp = d.enc.Timestamp(ts)
		}
		if cf&cellUseRowTTL != 0 {
			c.LocalDeletionTime, c.TTL = lv.LocalExpirationTime, lv.TTL
		} else {
			if cf&(cellIsDeleted|cellIsExpiring) != 0 {
				ldt, k := vint.Decode(b[off:])
				if k == 0 {
					return false
				}
				off += k
				c.LocalDeletionTime = d.enc.LocalDeletionTime(ldt)
			}
			if cf&cellIsExpiring != 0 {
				ttl, k := vint.Decode(b[off:])
				if k == 0 {
					return false
				}
				off += k
				c.TTL = d.enc.TTL(ttl)
			}
		}
		switch l := info.fixed; {
		case cf&cellHasEmptyValue != 0:
			c.Value = EmptyValue
		case l > 0:
			if l > len(b)-off {
				return false
			}
			c.Value = b[off : off+l : off+l]
			off += l
		default:
			u, k := vint.Decode(b[off:])
			if k == 0 || u > uint64(len(b)-off-k) {
				return false
			}
			off += k
			l = int(u)
			c.Value = b[off : off+l : off+l]
			off += l
		}
		cells = append(cells, c)
	}
	if off != len(b) {
		return false
	}
	row.Cells = cells
	d.lastPrevSize = prevSize
	return true
}

// readColumns reads the column subset and the column data of a row body.
func (d *Decoder) readColumns(r *SliceReader, flags byte, cols *columnList, row *mutation.Row) error {
	n := len(cols.cols)
	hasComplexDeletion := flags&flagHasComplexDeletion != 0
	if flags&flagHasAllColumns != 0 {
		for i := 0; i < n && r.Err == nil; i++ {
			if err := d.readColumn(r, &cols.cols[i], hasComplexDeletion, row); err != nil {
				return err
			}
		}
		return nil
	}
	if n < largeSubsetThreshold {
		missing, _ := r.UVint()
		if n < 64 && missing>>uint(n) != 0 {
			return fmt.Errorf("column bitmap %#x names columns beyond the header's %d", missing, n)
		}
		for i := 0; i < n && r.Err == nil; i++ {
			if missing&(1<<uint(i)) != 0 {
				continue
			}
			if err := d.readColumn(r, &cols.cols[i], hasComplexDeletion, row); err != nil {
				return err
			}
		}
		return nil
	}
	missingCount, _ := r.UVint()
	if missingCount > uint64(n) {
		return fmt.Errorf("%d missing columns of %d", missingCount, n)
	}
	presentCount := n - int(missingCount)
	if presentCount < n/2 {
		// The present indexes come first, then their columns' data.
		idxs := d.present[:0]
		last := -1
		for k := 0; k < presentCount && r.Err == nil; k++ {
			idx, _ := r.UVint()
			if r.Err != nil {
				break
			}
			if idx >= uint64(n) || int(idx) <= last {
				return fmt.Errorf("column index %d out of order or range (%d columns)", idx, n)
			}
			last = int(idx)
			idxs = append(idxs, last)
		}
		d.present = idxs
		for _, idx := range idxs {
			if err := d.readColumn(r, &cols.cols[idx], hasComplexDeletion, row); err != nil {
				return err
			}
		}
		return nil
	}
	// The missing indexes come first; the present columns' data follows.
	var missingSet [4]uint64 // fast path for up to 256 columns
	var big []bool
	if n > 256 {
		big = make([]bool, n)
	}
	last := -1
	for k := 0; k < int(missingCount) && r.Err == nil; k++ {
		idx, _ := r.UVint()
		if r.Err != nil {
			break
		}
		if idx >= uint64(n) || int(idx) <= last {
			return fmt.Errorf("column index %d out of order or range (%d columns)", idx, n)
		}
		last = int(idx)
		if big != nil {
			big[idx] = true
		} else {
			missingSet[idx/64] |= 1 << (idx % 64)
		}
	}
	for i := 0; i < n && r.Err == nil; i++ {
		if big != nil && big[i] || big == nil && missingSet[i/64]&(1<<(uint(i)%64)) != 0 {
			continue
		}
		if err := d.readColumn(r, &cols.cols[i], hasComplexDeletion, row); err != nil {
			return err
		}
	}
	return nil
}

// readColumn reads the data of one present column.
func (d *Decoder) readColumn(r *SliceReader, info *colInfo, hasComplexDeletion bool, row *mutation.Row) error {
	if !info.complex {
		return d.readCell(r, info, row)
	}
	del := mutation.Live
	if hasComplexDeletion {
		del = d.readDeletion(r)
	}
	n := r.Count(1)
	if !del.IsLive() || n == 0 {
		// A present column with neither elements nor a deletion is kept
		// as a live complex deletion, so that a rewrite lists it again
		// (see mutation.ComplexDeletion).
		row.ComplexDeletions = append(row.ComplexDeletions, mutation.ComplexDeletion{Column: info.col, Deletion: del})
	}
	for i := 0; i < n && r.Err == nil; i++ {
		if err := d.readCell(r, info, row); err != nil {
			return err
		}
	}
	return nil
}

func (d *Decoder) readCell(r *SliceReader, info *colInfo, row *mutation.Row) error {
	flags := r.U8()
	if r.Err != nil {
		return nil
	}
	if flags&^(cellIsDeleted|cellIsExpiring|cellHasEmptyValue|cellUseRowTimestamp|cellUseRowTTL) != 0 {
		return fmt.Errorf("column %s: cell flags %#02x", info.col.Name, flags)
	}
	lv := row.Liveness
	c := mutation.Cell{Column: info.col, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}
	if flags&cellUseRowTimestamp != 0 {
		c.Timestamp = lv.Timestamp
	} else {
		ts, _ := r.UVint()
		c.Timestamp = d.enc.Timestamp(ts)
	}
	isDeleted := flags&cellIsDeleted != 0
	isExpiring := flags&cellIsExpiring != 0
	if flags&cellUseRowTTL != 0 {
		c.LocalDeletionTime = lv.LocalExpirationTime
		c.TTL = lv.TTL
	} else {
		if isDeleted || isExpiring {
			ldt, _ := r.UVint()
			c.LocalDeletionTime = d.enc.LocalDeletionTime(ldt)
		}
		if isExpiring {
			ttl, _ := r.UVint()
			c.TTL = d.enc.TTL(ttl)
		}
	}
	if info.complex {
		c.Path = r.VBytes()
	}
	if flags&cellHasEmptyValue == 0 {
		if info.fixed > 0 {
			c.Value = r.Bytes(info.fixed)
		} else {
			c.Value = r.VBytes()
		}
	} else {
		c.Value = EmptyValue
	}
	if r.Err == nil {
		row.Cells = append(row.Cells, c)
	}
	return nil
}

// skipToPartitionEnd skips the rest of the current partition.
func (d *Decoder) skipToPartitionEnd() error {
	for {
		at := d.st.pos
		flags, err := d.st.Byte()
		if err != nil {
			return d.wrap(at, err)
		}
		if flags == flagEndOfPartition {
			return nil
		}
		if flags&flagIsMarker != 0 {
			if _, err := d.st.Byte(); err != nil {
				return d.wrap(at, err)
			}
			n, err := d.st.U16()
			if err != nil {
				return d.wrap(at, err)
			}
			if int(n) > d.nClust {
				return d.fail(at, "range tombstone bound with %d components, the table has %d", n, d.nClust)
			}
			if d.skipClust, err = d.readClustering(d.skipClust, int(n)); err != nil {
				return d.wrap(at, err)
			}
		} else {
			if flags&flagExtension != 0 {
				if _, err := d.st.Byte(); err != nil {
					return d.wrap(at, err)
				}
			}
			if d.skipClust, err = d.readClustering(d.skipClust, d.nClust); err != nil {
				return d.wrap(at, err)
			}
		}
		size, err := d.st.Length()
		if err != nil {
			return d.wrap(at, err)
		}
		if err := d.st.Skip(int64(size)); err != nil {
			return d.wrap(at, err)
		}
	}
}
