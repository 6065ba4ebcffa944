package la

import (
	"errors"
	"fmt"

	"github.com/castable-db/castable/checksummer"
	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

const (
	// defaultColumnIndexSize is column_index_size_in_kb's default (64 KiB).
	defaultColumnIndexSize = 64 << 10
	// defaultFPChance is bloom_filter_fp_chance's default.
	defaultFPChance = 0.01
	// outFlushSize is how many serialized bytes of a large partition are
	// kept before they are handed to the partition sink.
	outFlushSize = 256 << 10
	// outBatchSize is how many serialized bytes of finished partitions are
	// gathered before they are handed over.
	outBatchSize = 64 << 10
)

// Writer writes one la SSTable; it implements sstables.Writer.
//
// The writer's goroutine serializes partitions, builds their Index.db
// entries and collects Statistics.db (la layout); an sstables.PartitionSink
// does the rest on a second goroutine: the chunked DataWriter with Adler-32
// chunk checksums and digest, Index.db writes, Summary.db (with the la
// boundaries trailer), Filter.db (old hash order), the key cardinality and
// the partition histograms. Nothing is allocated per row once the reused
// buffers have grown (rows inside an open range tombstone are copied until
// it closes).
//
// Partitions must come in token order and rows and markers in clustering
// order. The writer applies what Cassandra 2.2's writer itself does (cells
// shadowed by a tombstone of the same partition are not written) but no
// memtable purging beyond that. Data the la format cannot hold is an error
// naming the partition (see Options for the degradations on offer).
type Writer struct {
	table *schema.Table
	part  dht.Partitioner
	// keyOrdered is part.PreservesOrder(): tokens refer to key bytes.
	keyOrdered bool
	opts       sstables.WriterOptions
	laOpts     Options
	desc       sstables.Descriptor
	params     compress.Params
	pw         *partitionWriter

	files   *sstables.FileSet
	data    *sstables.DataWriter
	sink    *sstables.PartitionSink
	summary *sstables.SummaryBuilder
	filter  *sstables.BloomFilter
	fp      float64

	entry     []byte
	h1, h2    uint64 // Murmur3 halves of the current partition's key
	err       error
	inPart    bool
	finished  bool
	partStart int64
	prevKey   []byte
	prevToken dht.Token
	parts     int64
	rows      int64
	cells     int64
}

// errWriterState reports an API misuse.
var errWriterState = errors.New("la: writer used out of order")

// NewWriter starts an la SSTable of table (see sstables.Format.NewWriter).
func NewWriter(table *schema.Table, opts sstables.WriterOptions, laOpts Options) (*Writer, error) {
	if table == nil {
		return nil, errors.New("la: NewWriter needs a table")
	}
	desc, err := opts.Descriptor(Version)
	if err != nil {
		return nil, err
	}
	if opts.FS == nil {
		opts.FS = sstables.OSFS
	}
	// ColumnIndexSize 0 means 64 KiB; a negative value stands for
	// column_index_size_in_kb: 0, where every atom closes a block.
	switch {
	case opts.ColumnIndexSize == 0:
		opts.ColumnIndexSize = defaultColumnIndexSize
	case opts.ColumnIndexSize < 0:
		opts.ColumnIndexSize = 0
	}
	var params compress.Params
	if opts.Compression != nil {
		params = *opts.Compression
	} else {
		var err error
		if params, err = compress.ParamsFromOptions(table.Options.Compression); err != nil {
			return nil, fmt.Errorf("la: table %s.%s: %w", table.Keyspace, table.Name, err)
		}
	}
	params = sstables.WithReleaseEncoder(params.WithDefaultChunkLength(compress.DefaultChunkLength), desc.Version)
	if params.Codec == compress.Zstd {
		return nil, fmt.Errorf("la: Cassandra 2.2 has no Zstd compressor")
	}
	if err := sstables.CheckTypes(Version, table); err != nil {
		return nil, fmt.Errorf("la: %w", err)
	}
	if err := checkTable(table); err != nil {
		return nil, err
	}
	part, err := sstables.WriterPartitioner(table)
	if err != nil {
		return nil, fmt.Errorf("la: %w", err)
	}
	w := &Writer{
		table:      table,
		part:       part,
		keyOrdered: part.PreservesOrder(),
		opts:       opts,
		laOpts:     laOpts,
		params:     params,
		desc:       desc,
		pw:         newPartitionWriter(table, opts.ShadowableAsRegular),
		fp:         table.Options.BloomFilterFPChance,
	}
	if w.fp == 0 {
		w.fp = defaultFPChance
	}
	w.pw.ci.blockSize = int64(opts.ColumnIndexSize)
	bounds := laOpts.SummaryBoundaries
	if bounds == nil {
		bounds = &sstables.SummaryBoundaries{}
	}
	b := *bounds
	b.DataCompressed = params.Codec != compress.None
	w.summary = sstables.NewSummaryBuilder(sstables.SummaryOptions{
		MinIndexInterval: table.Options.MinIndexInterval,
		ExpectedKeys:     opts.ExpectedPartitions,
		Boundaries:       &b,
	})
	if w.fp < 1 && opts.ExpectedPartitions > 0 {
		var err error
		if w.filter, err = sstables.NewBloomFilter(opts.ExpectedPartitions, w.fp, Version); err != nil {
			return nil, fmt.Errorf("la: %w", err)
		}
	}

	if w.files, err = sstables.NewFileSet(opts.FS, w.desc); err == nil {
		w.files.TOCOrder = opts.TOCOrder
	}
	if err != nil {
		return nil, err
	}
	dataFile, err := w.files.Create(sstables.ComponentData)
	if err != nil {
		w.files.Abort()
		return nil, err
	}
	indexFile, err := w.files.Create(sstables.ComponentIndex)
	if err != nil {
		w.files.Abort()
		return nil, err
	}
	w.data, err = sstables.NewDataWriter(dataFile, sstables.DataWriterOptions{
		Compression: params,
		Algorithm:   checksummer.Adler32,
		Jobs:        opts.Jobs,
		BufferedIO:  opts.BufferedIO,
		Path:        w.desc.Path(sstables.ComponentData),

		TrailingEmptyChunk: opts.TrailingEmptyChunk,
	})
	if err != nil {
		w.files.Abort()
		return nil, err
	}
	st := w.pw.stats
	w.sink = sstables.NewPartitionSink(sstables.PartitionSinkOptions{
		Data:           w.data,
		Index:          indexFile,
		Summary:        w.summary,
		Filter:         w.filter,
		KeepHashes:     w.fp < 1 && w.filter == nil,
		Cardinality:    st.hll,
		PartitionSizes: st.sizes,
		CellCounts:     st.cells,
		SimpleEntry:    appendSimpleIndexEntry,
	})
	return w, nil
}

// checkTable rejects tables whose layout la cannot hold.
func checkTable(t *schema.Table) error {
	l := layoutOf(t)
	compact := l.dense || !l.compound
	if compact && len(t.Regular) != 1 {
		return fmt.Errorf("la: table %s.%s: a COMPACT STORAGE table has exactly one value column, not %d", t.Keyspace, t.Name, len(t.Regular))
	}
	if l.dense && len(t.Static) > 0 {
		return fmt.Errorf("la: table %s.%s: a COMPACT STORAGE table with clustering columns has no static column", t.Keyspace, t.Name)
	}
	if !l.compound && !l.dense && l.rowClustering != 1 {
		return fmt.Errorf("la: table %s.%s: a COMPACT STORAGE table without clustering columns needs Cassandra 3.x's hidden clustering column", t.Keyspace, t.Name)
	}
	for _, c := range t.Columns() {
		if hasDuration(c.Type) {
			return fmt.Errorf("la: table %s.%s: column %s: Cassandra 2.2 has no duration type (it came in 3.10)", t.Keyspace, t.Name, c.Name)
		}
	}
	for _, c := range append(append([]*schema.Column{}, t.Static...), t.Regular...) {
		if len(c.Name) > maxShortLength {
			return fmt.Errorf("la: column name of %d bytes", len(c.Name))
		}
		if compact && c.Type.IsComplex() {
			return fmt.Errorf("la: table %s.%s: column %s: COMPACT STORAGE tables have no non-frozen collections", t.Keyspace, t.Name, c.Name)
		}
	}
	return nil
}

// hasDuration reports whether t is or holds the duration type.
func hasDuration(t *schema.Type) bool {
	if t.Kind == schema.KindDuration {
		return true
	}
	for _, p := range t.Params {
		if hasDuration(p) {
			return true
		}
	}
	return false
}

// DataSize implements sstables.DataSizer.
func (w *Writer) DataSize() (uncompressed, onDisk int64) {
	return w.sink.Position() + int64(len(w.pw.out)), w.data.FileOffset()
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return w.err
}

// flushOut hands the serialized bytes to the partition sink.
func (w *Writer) flushOut() error {
	if len(w.pw.out) == 0 {
		return nil
	}
	var err error
	if w.pw.out, err = w.sink.Submit(w.pw.out); err != nil {
		return w.fail(err)
	}
	return nil
}

// StartPartition implements sstables.Writer.
func (w *Writer) StartPartition(p *mutation.Partition) error {
	if w.err != nil {
		return w.err
	}
	if w.inPart || w.finished {
		return w.fail(fmt.Errorf("%w: StartPartition inside a partition or after Finish", errWriterState))
	}
	h1, h2 := dht.Murmur3Hash(p.Key)
	token := w.part.TokenFromHash(p.Key, h1)
	if w.parts > 0 && dht.ComparePartitions(w.prevToken, w.prevKey, token, p.Key) >= 0 {
		return w.fail(fmt.Errorf("la: partition %x (token %s) does not come after %x (token %s)", p.Key, w.part.String(token), w.prevKey, w.part.String(w.prevToken)))
	}
	w.partStart = w.sink.Position() + int64(len(w.pw.out))
	if err := w.pw.start(p); err != nil {
		return w.fail(err)
	}
	w.h1, w.h2 = h1, h2
	w.prevKey = append(w.prevKey[:0], p.Key...)
	w.prevToken = token
	if w.keyOrdered {
		w.prevToken = w.part.TokenFromHash(w.prevKey, h1) // of the copy: a key-ordered token refers to its key
	}
	w.inPart = true
	if !p.Static.IsEmpty() {
		w.rows++
		w.cells += int64(len(p.Static.Cells))
	}
	return nil
}

// AppendRow implements sstables.Writer.
func (w *Writer) AppendRow(r *mutation.Row) error {
	if w.err != nil {
		return w.err
	}
	if !w.inPart {
		return w.fail(fmt.Errorf("%w: AppendRow outside a partition", errWriterState))
	}
	if r.Clustering == nil && len(w.table.Clustering) > 0 {
		return w.fail(fmt.Errorf("la: partition %x: AppendRow with the static row", w.prevKey))
	}
	if err := w.pw.addRow(r, false); err != nil {
		return w.fail(err)
	}
	w.rows++
	w.cells += int64(len(r.Cells))
	if len(w.pw.out) >= outFlushSize {
		return w.flushOut()
	}
	return nil
}

// AppendMarker implements sstables.Writer.
func (w *Writer) AppendMarker(m *mutation.RangeTombstoneMarker) error {
	if w.err != nil {
		return w.err
	}
	if !w.inPart {
		return w.fail(fmt.Errorf("%w: AppendMarker outside a partition", errWriterState))
	}
	if err := w.pw.addMarker(m); err != nil {
		return w.fail(err)
	}
	if len(w.pw.out) >= outFlushSize {
		return w.flushOut()
	}
	return nil
}

// EndPartition implements sstables.Writer.
func (w *Writer) EndPartition() error {
	if w.err != nil {
		return w.err
	}
	if !w.inPart {
		return w.fail(fmt.Errorf("%w: EndPartition outside a partition", errWriterState))
	}
	blocks, size, err := w.pw.finish()
	if err != nil {
		return w.fail(err)
	}
	if promotedIndexSize(blocks) > 0 {
		w.entry = appendIndexEntry(w.entry[:0], w.prevKey, w.partStart, w.pw.deletion, blocks)
		err = w.sink.EndPartition(w.prevKey, w.h1, w.h2, w.entry, size, w.pw.stats.pCells)
	} else {
		// The sink builds the entry (appendSimpleIndexEntry).
		err = w.sink.EndSimplePartition(w.prevKey, w.h1, w.h2, w.partStart, size, w.pw.stats.pCells)
	}
	if err != nil {
		return w.fail(err)
	}
	w.parts++
	w.inPart = false
	// Small partitions are handed over in batches.
	if len(w.pw.out) >= outBatchSize {
		return w.flushOut()
	}
	return nil
}

// Append implements sstables.Writer.
func (w *Writer) Append(p *mutation.Partition) error {
	return sstables.AppendPieces(w, w.table, p, w.fail)
}

// Finish implements sstables.Writer.
func (w *Writer) Finish() (*sstables.WriteResult, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.inPart || w.finished {
		return nil, w.fail(fmt.Errorf("%w: Finish inside a partition or twice", errWriterState))
	}
	w.finished = true
	if w.parts == 0 {
		return nil, w.fail(errors.New("la: an SSTable needs at least one partition"))
	}
	sinkRes, err := w.sink.Finish(w.pw.out)
	w.pw.out = nil
	if err != nil {
		return nil, w.fail(err)
	}
	res, err := w.data.Finish()
	if err != nil {
		return nil, w.fail(err)
	}
	put := func(c sstables.Component, b []byte) error {
		if err := w.files.WriteComponent(c, b); err != nil {
			return w.fail(err)
		}
		return nil
	}
	dataComps, err := res.Components(sstables.ComponentDigestAdler32)
	if err != nil {
		return nil, w.fail(err)
	}
	for _, c := range dataComps {
		if err := put(c.Component, c.Bytes); err != nil {
			return nil, err
		}
	}
	sb, err := w.summary.AppendTo(nil)
	if err != nil {
		return nil, w.fail(err)
	}
	if err := put(sstables.ComponentSummary, sb); err != nil {
		return nil, err
	}
	if w.fp < 1 {
		if w.filter == nil {
			if w.filter, err = sstables.NewBloomFilter(w.parts, w.fp, Version); err != nil {
				return nil, w.fail(fmt.Errorf("la: %w", err))
			}
			for i := 0; i+1 < len(sinkRes.Hashes); i += 2 {
				w.filter.AddHash(sinkRes.Hashes[i], sinkRes.Hashes[i+1])
			}
		}
		if err := put(sstables.ComponentFilter, w.filter.AppendTo(nil)); err != nil {
			return nil, err
		}
	}
	stats := w.statistics(res)
	b, err := sstables.AppendStatistics(nil, stats, Version)
	if err != nil {
		return nil, w.fail(err)
	}
	if err := put(sstables.ComponentStatistics, b); err != nil {
		return nil, err
	}
	components, err := w.files.Commit()
	if err != nil {
		return nil, w.fail(err)
	}
	var total int64
	for _, c := range components {
		if f, err := w.opts.FS.Open(w.desc.Path(c)); err == nil {
			if n, err := f.Size(); err == nil {
				total += n
			}
			f.Close()
		}
	}
	return &sstables.WriteResult{
		Descriptor:   w.desc,
		Components:   components,
		Partitions:   w.parts,
		Rows:         w.rows,
		Cells:        w.cells,
		DataLength:   res.DataLength,
		DataFileSize: res.FileSize,
		BytesWritten: total,
		Digest:       res.Digest,
	}, nil
}

// statistics assembles Statistics.db.
func (w *Writer) statistics(res *sstables.DataResult) *sstables.Statistics {
	st := w.pw.stats.statistics()
	st.Partitioner, st.BloomFilterFPChance = w.part.Name(), w.fp
	md := w.opts.Metadata
	for _, a := range md.Ancestors {
		st.Ancestors = append(st.Ancestors, int32(a))
	}
	s := &st.Stats
	s.CommitLogUpperBound = replayPosition(md.CommitLogIntervals)
	s.CompressionRatio = res.CompressionRatio()
	if w.opts.ProfileFor(w.desc.Version).NoCompressionRatio {
		s.CompressionRatio = -1
	}
	s.Level = int32(md.Level)
	s.RepairedAt = md.RepairedAt
	return st
}

// replayPosition is la's single commit log position: the greatest upper
// bound of the intervals, or NONE. Reading gives the interval
// [NONE, position], as Cassandra 3.x reads pre-lb files.
func replayPosition(ivs []sstables.CommitLogInterval) sstables.CommitLogPosition {
	if len(ivs) == 0 {
		return sstables.CommitLogPositionNone
	}
	rp := ivs[0].Upper
	for _, iv := range ivs[1:] {
		u := iv.Upper
		if u.SegmentID > rp.SegmentID || (u.SegmentID == rp.SegmentID && u.Position > rp.Position) {
			rp = u
		}
	}
	return rp
}

// Abort implements sstables.Writer.
func (w *Writer) Abort() error {
	w.fail(errors.New("la: writer aborted"))
	if w.sink != nil {
		w.sink.Abort()
	}
	if w.data != nil {
		w.data.Abort()
	}
	if w.files == nil {
		return nil
	}
	return w.files.Abort()
}

var _ sstables.Writer = (*Writer)(nil)
