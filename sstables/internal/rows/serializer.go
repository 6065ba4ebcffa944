package rows

import (
	"encoding/binary"
	"fmt"

	"github.com/castable-db/castable/internal/vint"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// DataSink receives the uncompressed Data.db stream in buffers
// (sstables.PartitionSink).
type DataSink interface {
	// Submit takes buf, the bytes that follow those submitted before, and
	// returns an empty buffer to continue in.
	Submit(buf []byte) ([]byte, error)
	// Position is the number of bytes submitted so far.
	Position() int64
}

// serializer turns partitions into Data.db bytes (layout.go), builds each
// partition's Index.db entry with its promoted index (index.go), and feeds
// the collector. It reuses its buffers: writing a row allocates nothing once
// they have grown.
type Serializer struct {
	// lastComplexFlag is SerializerOptions.LastComplexDeletionFlag.
	lastComplexFlag  bool
	table            *schema.Table
	enc              EncodingStats
	scyllaShadowable bool
	static, regular  columnList
	nClust           int
	clustFixed       []int
	sink             DataSink
	coll             *Collector
	// simpleRegular says no regular column of the header is complex, so
	// rows without deletions take writeSimpleRow.
	simpleRegular bool

	out     []byte // bytes not yet handed to the sink (coalesced writes)
	outBase int64  // Data.db position of out[0]: the bytes submitted so far
	present []int  // header positions of the present columns of a row

	// Partition state.
	key          []byte
	deletion     mutation.DeletionTime
	partStart    int64
	prevStart    int64 // start of the previous unfiltered, relative
	headerLength int64
	partCells    int64
	lastPos      int64 // end of the last unfiltered, relative
	blocks       BlockCutter
	v            version.Version
}

// NewSerializer starts serializing partitions of table with header h, whose
// static and regular columns are static and regular, into opts.Sink.
func NewSerializer(table *schema.Table, h *Header, static, regular []*schema.Column, opts SerializerOptions) *Serializer {
	s := &Serializer{
		table:            table,
		enc:              h.Stats,
		scyllaShadowable: opts.ScyllaShadowable,
		lastComplexFlag:  opts.LastComplexDeletionFlag,
		static:           newColumnList(static, len(table.Static)),
		regular:          newColumnList(regular, len(table.Regular)),
		nClust:           len(table.Clustering),
		clustFixed:       ClusteringFixed(h.ClusteringTypes),
		sink:             opts.Sink,
		coll:             opts.Collector,
		v:                opts.Version,
	}
	s.blocks.Size = int64(opts.BlockSize)
	s.simpleRegular = !s.regular.hasComplex
	s.outBase = s.sink.Position()
	return s
}

// SerializerOptions configure a Serializer.
type SerializerOptions struct {
	// Version selects the partition header's deletion form (1 byte when
	// live from oa on).
	Version version.Version
	// ScyllaShadowable writes a row's shadowable deletion as ScyllaDB does
	// (its extended flag 0x80 and a second deletion time) instead of
	// folding it into the row deletion as Cassandra does.
	ScyllaShadowable bool
	// BlockSize is the row-index block size in bytes (column_index_size).
	BlockSize int
	// Sink receives the Data.db bytes.
	Sink DataSink
	// Collector gathers Statistics.db's values.
	Collector *Collector
	// LastComplexDeletionFlag sets a row's complex-deletion flag, and so
	// writes its complex deletions, only when the row's last complex
	// column has a deletion, as Cassandra 5.0 does (BTreeRow
	// .hasComplexDeletion returns what the last complex column's says:
	// its accumulator ignores the value it is given and stops only at
	// Long.MAX_VALUE, which it never returns). The other deletions are not
	// written but still counted in Statistics.db, as 5.0 counts them.
	LastComplexDeletionFlag bool
}

// coalesceSize is how many bytes the serializer gathers before handing
// them to the sink: few large writes let the sink checksum and copy in bulk.
const coalesceSize = 64 << 10

// pos is the Data.db position of the next byte.
func (s *Serializer) pos() int64 { return s.outBase + int64(len(s.out)) }

// commit accepts b, which extends s.out, and hands the pending bytes to the
// sink once they reach coalesceSize.
func (s *Serializer) commit(b []byte) error {
	s.out = b
	if len(b) >= coalesceSize {
		return s.flush()
	}
	return nil
}

// flush hands every pending byte to the sink.
func (s *Serializer) flush() error {
	if len(s.out) == 0 {
		return nil
	}
	var err error
	s.out, err = s.sink.Submit(s.out)
	s.outBase = s.sink.Position()
	return err
}

// TakeOut returns the pending bytes, which the caller hands over last.
func (s *Serializer) TakeOut() []byte {
	b := s.out
	s.outBase += int64(len(b))
	s.out = nil
	return b
}

// StartPartition writes the partition header and the static row (always,
// when the header has static columns).
func (s *Serializer) StartPartition(key []byte, deletion mutation.DeletionTime, static *mutation.Row) error {
	if len(key) > maxKeyLength {
		return fmt.Errorf("partition key of %d bytes exceeds the format's %d", len(key), maxKeyLength)
	}
	if len(key) == 0 {
		return fmt.Errorf("empty partition key")
	}
	s.key = append(s.key[:0], key...)
	s.deletion = deletion
	s.partStart = s.pos()
	s.partCells = 0
	s.blocks.Reset()
	s.coll.partitionDeletion(deletion)
	if err := s.coll.Overflow(); err != nil {
		return err
	}

	b := s.out
	b = binary.BigEndian.AppendUint16(b, uint16(len(key)))
	b = append(b, key...)
	b = sstables.AppendFixedDeletionTime(b, deletion, s.v)
	if err := s.commit(b); err != nil {
		return err
	}
	if len(s.static.cols) > 0 {
		if err := s.writeRow(static, true); err != nil {
			return err
		}
	} else if static != nil && !rowIsEmpty(static) {
		return fmt.Errorf("partition has static data but the serialization header lists no static column")
	}
	s.headerLength = s.pos() - s.partStart
	s.prevStart = 0
	s.lastPos = s.headerLength
	return nil
}

// FinishPartition writes the end-of-partition byte and returns the
// partition's size and its row-index blocks (none for a partition of one
// block), valid until the next partition.
func (s *Serializer) FinishPartition() (size int64, blocks []Block, err error) {
	if err := s.commit(append(s.out, flagEndOfPartition)); err != nil {
		return 0, nil, err
	}
	size = s.pos() - s.partStart
	return size, s.blocks.Finish(size), nil
}

// Key returns the current partition's key.
func (s *Serializer) Key() []byte { return s.key }

// Deletion returns the current partition's deletion.
func (s *Serializer) Deletion() mutation.DeletionTime { return s.deletion }

// Position returns the Data.db position of the next byte serialized (the
// bytes still buffered, not yet submitted to the sink, included).
func (s *Serializer) Position() int64 { return s.pos() }

// PartitionStart returns the current partition's Data.db position.
func (s *Serializer) PartitionStart() int64 { return s.partStart }

// HeaderLength returns the length of the current partition's header (key,
// deletion and static row): the offset of its first unfiltered.
func (s *Serializer) HeaderLength() int64 { return s.headerLength }

// Cells returns the number of cells of the current partition.
func (s *Serializer) Cells() int64 { return s.partCells }

// WriteRow writes a clustering row.
func (s *Serializer) WriteRow(r *mutation.Row) error { return s.writeRow(r, false) }

// RowIsEmpty reports whether r holds nothing to write.
func RowIsEmpty(r *mutation.Row) bool { return rowIsEmpty(r) }

func rowIsEmpty(r *mutation.Row) bool {
	return len(r.Cells) == 0 && len(r.ComplexDeletions) == 0 && r.Liveness.IsEmpty() &&
		r.Deletion.IsLive() && r.ShadowableDeletion.IsLive()
}

// writeRow writes a clustering row or (isStatic) the static row.
func (s *Serializer) writeRow(r *mutation.Row, isStatic bool) error {
	if !isStatic && s.simpleRegular && len(r.ComplexDeletions) == 0 &&
		r.Deletion.IsLive() && r.ShadowableDeletion.IsLive() {
		if done, err := s.writeSimpleRow(r); done {
			return err
		}
	}
	cols := &s.regular
	if isStatic {
		cols = &s.static
		if r == nil {
			r = &emptyRow
		}
	}
	start := s.pos() - s.partStart
	deletion := r.Deletion
	shadowable := r.DeletionShadowable
	scyllaShadow := mutation.Live
	// A ScyllaDB shadowable deletion matters only when it supersedes the
	// regular one (ScyllaDB's row_tombstone keeps the greater as its
	// shadowable part and writes it, flag 0x80, only then:
	// is_shadowable()); otherwise the regular deletion covers it.
	if !r.ShadowableDeletion.IsLive() && r.ShadowableDeletion.Supersedes(deletion) {
		switch {
		case s.scyllaShadowable:
			scyllaShadow = r.ShadowableDeletion
		case deletion.IsLive():
			// Cassandra's encoding: the row deletion, marked shadowable.
			deletion, shadowable = r.ShadowableDeletion, true
		default:
			// Cassandra's encoding holds one row deletion: writing the
			// shadowable one would lose the regular one, which still
			// deletes older data once a newer row marker shadows the
			// shadowable one.
			return fmt.Errorf("row %v has a regular and a newer ScyllaDB shadowable deletion; Cassandra's encoding holds one of them: write ScyllaDB's (WriterOptions.ScyllaShadowable, --scylla-shadowable)", r.Clustering)
		}
	}

	// First pass: which header columns are present, and is any complex
	// deletion set.
	present, hasComplexDeletion, err := s.presentColumns(r, cols)
	if err != nil {
		return err
	}

	var flags, ext byte
	if isStatic {
		ext |= extIsStatic
	}
	if !r.Liveness.IsEmpty() {
		flags |= flagHasTimestamp
		if r.Liveness.IsExpiring() {
			flags |= flagHasTTL
		}
	}
	if !deletion.IsLive() {
		flags |= flagHasDeletion
		if shadowable {
			ext |= extHasShadowableDeletion
		}
	}
	if !scyllaShadow.IsLive() {
		ext |= extScyllaShadowable
	}
	if hasComplexDeletion {
		flags |= flagHasComplexDeletion
	}
	allColumns := len(present) == len(cols.cols)
	if allColumns {
		flags |= flagHasAllColumns
	}
	if ext != 0 {
		flags |= flagExtension
	}

	b := s.out
	rowStart := len(b)
	b = append(b, flags)
	if ext != 0 {
		b = append(b, ext)
	}
	clustStart := len(b)
	if !isStatic {
		if len(r.Clustering) > s.nClust {
			return fmt.Errorf("row clustering has %d components, the table %d", len(r.Clustering), s.nClust)
		}
		b, err = appendClusteringValues(b, r.Clustering, s.nClust, s.clustFixed)
		if err != nil {
			return err
		}
	}
	clustEnd := len(b)

	sizeAt, body := reserveBodySize(b)
	if isStatic {
		body = append(body, 0) // the static row has no previous unfiltered
	} else {
		body = vint.Append(body, uint64(start-s.prevStart))
	}
	if flags&flagHasTimestamp != 0 {
		body = s.enc.AppendTimestamp(body, r.Liveness.Timestamp)
	}
	if flags&flagHasTTL != 0 {
		body = s.enc.AppendTTL(body, r.Liveness.TTL)
		body = s.enc.AppendLocalDeletionTime(body, r.Liveness.LocalExpirationTime)
	}
	if flags&flagHasDeletion != 0 {
		body = s.enc.AppendDeletionTime(body, deletion)
	}
	if ext&extScyllaShadowable != 0 {
		body = s.enc.AppendDeletionTime(body, scyllaShadow)
	}
	if !allColumns {
		body = appendSubset(body, present, len(cols.cols))
	}
	body, columns, cells, err := s.appendColumns(body, r, cols, hasComplexDeletion)
	if err != nil {
		return err
	}
	b = finishBodySize(body, sizeAt)
	rowEnd := len(b)
	// The index keeps its own copies of the prefix.
	if !isStatic {
		s.prevStart = start
		end := start + int64(rowEnd-rowStart)
		s.blocks.Add(start, end, byte(mutation.ClusteringKind), b[clustStart:clustEnd], false, mutation.Live)
		s.lastPos = end
	}
	if err := s.commit(b); err != nil {
		return err
	}

	// Statistics.
	c := s.coll
	c.liveness(r.Liveness)
	c.deletion(deletion)
	c.deletion(scyllaShadow)
	if !isStatic {
		c.clustering(r.Clustering)
		c.prefix(mutation.ClusteringKind, r.Clustering)
	}
	if !isStatic || !rowIsEmpty(r) {
		c.row(columns)
	}
	if err := c.Overflow(); err != nil {
		return err
	}
	s.partCells += cells
	return nil
}

// reserveBodySize starts a row or marker body, whose uvint size precedes
// it, after the bytes of b: it reserves one byte for the size (the common
// case of a body under 128 bytes) and returns where the size goes and the
// buffer to append the body to.
func reserveBodySize(b []byte) (sizeAt int, body []byte) {
	return len(b), append(b, 0)
}

// finishBodySize writes the size of the body appended since
// reserveBodySize returned sizeAt, moving the body when its size takes more
// than the reserved byte, and returns the buffer.
func finishBodySize(b []byte, sizeAt int) []byte {
	bodyStart := sizeAt + 1
	n := len(b) - bodyStart
	if n < 0x80 {
		b[sizeAt] = byte(n)
		return b
	}
	k := vint.Size(uint64(n))
	b = append(b, make([]byte, k-1)...)
	copy(b[bodyStart+k-1:], b[bodyStart:bodyStart+n])
	vint.Put(b[sizeAt:], uint64(n))
	return b
}

// writeSimpleRow writes a clustering row without row or complex deletions
// of a table whose header has no complex regular column: the common row,
// without writeRow's column bookkeeping. It returns done false, having
// written nothing, when the cells are not one per present header column in
// header order; writeRow then takes the general path, which reports why.
func (s *Serializer) writeSimpleRow(r *mutation.Row) (done bool, err error) {
	cols := &s.regular
	present := s.present[:0]
	last := -1
	for i := range r.Cells {
		pos := cols.position(r.Cells[i].Column)
		if pos <= last {
			return false, nil
		}
		last = pos
		present = append(present, pos)
	}
	s.present = present
	if len(r.Clustering) > s.nClust {
		return true, fmt.Errorf("row clustering has %d components, the table %d", len(r.Clustering), s.nClust)
	}
	start := s.pos() - s.partStart
	live := !r.Liveness.IsEmpty()
	allColumns := len(present) == len(cols.cols)
	var flags byte
	if live {
		flags |= flagHasTimestamp
		if r.Liveness.IsExpiring() {
			flags |= flagHasTTL
		}
	}
	if allColumns {
		flags |= flagHasAllColumns
	}

	b := s.out
	rowStart := len(b)
	b = append(b, flags)
	clustStart := len(b)
	b, err = appendClusteringValues(b, r.Clustering, s.nClust, s.clustFixed)
	if err != nil {
		return true, err
	}
	clustEnd := len(b)
	sizeAt, b := reserveBodySize(b)
	b = vint.Append(b, uint64(start-s.prevStart))
	if live {
		b = s.enc.AppendTimestamp(b, r.Liveness.Timestamp)
		if flags&flagHasTTL != 0 {
			b = s.enc.AppendTTL(b, r.Liveness.TTL)
			b = s.enc.AppendLocalDeletionTime(b, r.Liveness.LocalExpirationTime)
		}
	}
	if !allColumns {
		b = appendSubset(b, present, len(cols.cols))
	}
	for i, pos := range present {
		if b, err = s.appendCell(b, &r.Cells[i], &cols.cols[pos], r.Liveness); err != nil {
			return true, err
		}
	}
	b = finishBodySize(b, sizeAt)
	s.prevStart = start
	end := start + int64(len(b)-rowStart)
	s.blocks.Add(start, end, byte(mutation.ClusteringKind), b[clustStart:clustEnd], false, mutation.Live)
	s.lastPos = end
	if err := s.commit(b); err != nil {
		return true, err
	}
	c := s.coll
	c.liveness(r.Liveness)
	c.clustering(r.Clustering)
	c.prefix(mutation.ClusteringKind, r.Clustering)
	n := int64(len(present))
	c.row(n)
	if err := c.Overflow(); err != nil {
		return true, err
	}
	s.partCells += n
	return true, nil
}

var emptyRow = mutation.Row{Liveness: mutation.EmptyLiveness, Deletion: mutation.Live, ShadowableDeletion: mutation.Live}

// presentColumns walks the row's cells and complex deletions (both ordered
// by column) and returns the header positions of the present columns,
// ascending, and whether a complex deletion is set.
func (s *Serializer) presentColumns(r *mutation.Row, cols *columnList) ([]int, bool, error) {
	present := s.present[:0]
	hasComplexDeletion := false
	lastComplexDeleted := false // the row's last complex column has a deletion
	ci, di := 0, 0
	last := -1
	for ci < len(r.Cells) || di < len(r.ComplexDeletions) {
		var col *schema.Column
		if ci < len(r.Cells) {
			col = r.Cells[ci].Column
		}
		if di < len(r.ComplexDeletions) {
			dc := r.ComplexDeletions[di].Column
			if col == nil || (dc != nil && dc.Index < col.Index) {
				col = dc
			}
		}
		pos := cols.position(col)
		if pos < 0 {
			return nil, false, fmt.Errorf("column %s is not in the serialization header", columnName(col))
		}
		if pos <= last {
			return nil, false, fmt.Errorf("column %s: cells out of column order", columnName(col))
		}
		last = pos
		info := &cols.cols[pos]
		if info.complex {
			lastComplexDeleted = false
		}
		if di < len(r.ComplexDeletions) && cols.position(r.ComplexDeletions[di].Column) == pos {
			if !info.complex {
				return nil, false, fmt.Errorf("column %s: complex deletion on a simple column", columnName(col))
			}
			if !r.ComplexDeletions[di].Deletion.IsLive() {
				hasComplexDeletion, lastComplexDeleted = true, true
			}
			di++
		}
		n := 0
		for ci < len(r.Cells) && cols.position(r.Cells[ci].Column) == pos {
			ci++
			n++
		}
		if !info.complex && n != 1 {
			return nil, false, fmt.Errorf("column %s: %d cells for a simple column", columnName(col), n)
		}
		present = append(present, pos)
	}
	s.present = present
	if s.lastComplexFlag {
		// Cassandra 5.0's BTreeRow.hasComplexDeletion: the row's last
		// complex column decides (SerializerOptions.LastComplexDeletionFlag).
		hasComplexDeletion = lastComplexDeleted
	}
	return present, hasComplexDeletion, nil
}

func columnName(c *schema.Column) string {
	if c == nil {
		return "<nil>"
	}
	return c.Name
}

// appendSubset appends the column subset encoding of the present header
// positions among n header columns.
func appendSubset(dst []byte, present []int, n int) []byte {
	if n < largeSubsetThreshold {
		var bitmap uint64
		for _, p := range present {
			bitmap |= 1 << uint(p)
		}
		missing := ^bitmap
		if n < 64 {
			missing &= (1 << uint(n)) - 1
		}
		return vint.Append(dst, missing)
	}
	dst = vint.Append(dst, uint64(n-len(present)))
	if len(present) < n/2 {
		for _, p := range present {
			dst = vint.Append(dst, uint64(p))
		}
		return dst
	}
	j := 0
	for i := 0; i < n; i++ {
		if j < len(present) && present[j] == i {
			j++
			continue
		}
		dst = vint.Append(dst, uint64(i))
	}
	return dst
}

// appendColumns appends the column data of r in header order. It returns
// the number of columns counted for totalColumnsSet and of cells.
func (s *Serializer) appendColumns(dst []byte, r *mutation.Row, cols *columnList, hasComplexDeletion bool) ([]byte, int64, int64, error) {
	var columns, cells int64
	ci, di := 0, 0
	var err error
	for _, pos := range s.present {
		info := &cols.cols[pos]
		if !info.complex {
			c := &r.Cells[ci]
			ci++
			dst, err = s.appendCell(dst, c, info, r.Liveness)
			if err != nil {
				return dst, 0, 0, err
			}
			columns++
			cells++
			continue
		}
		del := mutation.Live
		if di < len(r.ComplexDeletions) && cols.position(r.ComplexDeletions[di].Column) == pos {
			del = r.ComplexDeletions[di].Deletion
			di++
		}
		if hasComplexDeletion {
			dst = s.enc.AppendDeletionTime(dst, del)
		}
		s.coll.deletion(del)
		n := 0
		for ci+n < len(r.Cells) && cols.position(r.Cells[ci+n].Column) == pos {
			n++
		}
		dst = vint.Append(dst, uint64(n))
		for k := 0; k < n; k++ {
			dst, err = s.appendCell(dst, &r.Cells[ci+k], info, r.Liveness)
			if err != nil {
				return dst, 0, 0, err
			}
		}
		ci += n
		if n > 0 {
			columns++
		}
		cells += int64(n)
	}
	return dst, columns, cells, nil
}

// appendCell appends one cell (layout.go) and records it in the collector.
func (s *Serializer) appendCell(dst []byte, c *mutation.Cell, info *colInfo, liveness mutation.LivenessInfo) ([]byte, error) {
	isDeleted := c.IsTombstone()
	isExpiring := c.TTL != mutation.NoTTL
	hasValue := len(c.Value) > 0
	useRowTimestamp := !liveness.IsEmpty() && c.Timestamp == liveness.Timestamp
	useRowTTL := isExpiring && liveness.IsExpiring() && c.TTL == liveness.TTL &&
		c.LocalDeletionTime == liveness.LocalExpirationTime

	var flags byte
	if isDeleted {
		flags |= cellIsDeleted
	}
	if isExpiring {
		flags |= cellIsExpiring
	}
	if !hasValue {
		flags |= cellHasEmptyValue
	}
	if useRowTimestamp {
		flags |= cellUseRowTimestamp
	}
	if useRowTTL {
		flags |= cellUseRowTTL
	}
	dst = append(dst, flags)
	if !useRowTimestamp {
		dst = s.enc.AppendTimestamp(dst, c.Timestamp)
	}
	if (isDeleted || isExpiring) && !useRowTTL {
		dst = s.enc.AppendLocalDeletionTime(dst, c.LocalDeletionTime)
	}
	if isExpiring && !useRowTTL {
		dst = s.enc.AppendTTL(dst, c.TTL)
	}
	if info.complex {
		if c.Path == nil {
			return dst, fmt.Errorf("column %s: element cell without a path", info.col.Name)
		}
		dst = vint.Append(dst, uint64(len(c.Path)))
		dst = append(dst, c.Path...)
	} else if c.Path != nil {
		return dst, fmt.Errorf("column %s: simple cell with a path", info.col.Name)
	}
	if hasValue {
		if info.fixed > 0 {
			if len(c.Value) != info.fixed {
				return dst, fmt.Errorf("column %s: value of %d bytes for a fixed-length type of %d", info.col.Name, len(c.Value), info.fixed)
			}
			dst = append(dst, c.Value...)
		} else {
			dst = vint.Append(dst, uint64(len(c.Value)))
			dst = append(dst, c.Value...)
		}
	}
	s.coll.cell(c)
	if info.col.Type.Kind == schema.KindCounter && hasValue && hasLegacyCounterShards(c.Value) {
		s.coll.LegacyCounters = true
	}
	return dst, nil
}

// WriteMarker writes a range tombstone marker.
func (s *Serializer) WriteMarker(m *mutation.RangeTombstoneMarker) error {
	start := s.pos() - s.partStart
	var first, second mutation.DeletionTime
	boundary := false
	open := false
	switch m.Kind {
	case mutation.InclStartBound, mutation.ExclStartBound:
		first, open = m.Open, true
	case mutation.InclEndBound, mutation.ExclEndBound:
		first = m.Close
	case mutation.ExclEndInclStartBoundary, mutation.InclEndExclStartBoundary:
		first, second, boundary, open = m.Close, m.Open, true, true
	default:
		return fmt.Errorf("range tombstone marker of kind %d", m.Kind)
	}
	if len(m.Clustering) > s.nClust {
		return fmt.Errorf("range tombstone bound has %d components, the table %d", len(m.Clustering), s.nClust)
	}
	b := s.out
	markStart := len(b)
	b = append(b, flagIsMarker, byte(m.Kind))
	b = binary.BigEndian.AppendUint16(b, uint16(len(m.Clustering)))
	var err error
	b, err = appendClusteringValues(b, m.Clustering, len(m.Clustering), s.clustFixed)
	if err != nil {
		return err
	}
	prefixEnd := len(b)
	sizeAt, b := reserveBodySize(b)
	b = vint.Append(b, uint64(start-s.prevStart))
	b = s.enc.AppendDeletionTime(b, first)
	if boundary {
		b = s.enc.AppendDeletionTime(b, second)
	}
	b = finishBodySize(b, sizeAt)
	end := start + int64(len(b)-markStart)
	openDel := mutation.Live
	if open {
		openDel = m.Open
	}
	s.blocks.Add(start, end, byte(m.Kind), b[markStart+2:prefixEnd], true, openDel)
	if err := s.commit(b); err != nil {
		return err
	}
	s.coll.clustering(m.Clustering)
	s.coll.prefix(m.Kind, m.Clustering)
	s.coll.deletion(first)
	if boundary {
		s.coll.deletion(second)
	}
	if err := s.coll.Overflow(); err != nil {
		return err
	}
	s.prevStart = start
	s.lastPos = end
	return nil
}

// hasLegacyCounterShards reports whether a counter context holds local or
// remote shards (pre-2.1 counters): a header entry >= 0 names a local shard,
// and shards beyond the header entries are remote.
func hasLegacyCounterShards(ctx []byte) bool {
	if len(ctx) < 2 {
		return false
	}
	n := int(int16(binary.BigEndian.Uint16(ctx)))
	if n < 0 {
		n = -n
	}
	headerLen := 2 + 2*n
	if headerLen > len(ctx) {
		return false
	}
	for i := 2; i < headerLen; i += 2 {
		if int16(binary.BigEndian.Uint16(ctx[i:])) >= 0 {
			return true
		}
	}
	return (len(ctx)-headerLen)/32 > n
}
