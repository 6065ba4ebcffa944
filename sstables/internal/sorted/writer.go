package sorted

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
	"github.com/castable-db/castable/sstables/version"
)

// IndexWriter is an index layout's part of writing an SSTable. Start is
// called once by NewWriter; EndPartition on the writer's goroutine for
// every partition; Finish once the partition sink has finished (its
// goroutine is done), Abort instead when the write fails.
type IndexWriter interface {
	// Start creates the layout's components in files and sets the
	// partition sink's index options (Index and Summary, or Indexer).
	Start(files *sstables.FileSet, sink *sstables.PartitionSinkOptions) error
	// EndPartition hands a finished partition to sink (EndPartition or
	// EndSimplePartition). p and its blocks are valid during the call
	// only.
	EndPartition(sink *sstables.PartitionSink, p *Partition) error
	// Finish completes the layout's components: it returns those written
	// whole now (Summary.db) and the byte count of the others.
	Finish(res *sstables.SinkResult) (comps []Component, written int64, err error)
	// Abort releases what Start took; the FileSet removes the files.
	Abort()
}

// Partition is a finished partition as the layouts index it.
type Partition struct {
	// Key is the serialized partition key; H1 and H2 its Murmur3 halves.
	Key    []byte
	H1, H2 uint64
	// Start is its Data.db position; HeaderLength the length of its
	// header (key, deletion, static row); Size its length including the
	// end-of-partition byte.
	Start, HeaderLength, Size int64
	// Deletion is the partition deletion.
	Deletion mutation.DeletionTime
	// Blocks are its row-index blocks (none for a partition of one block).
	Blocks []rows.Block
	// Cells is its cell count.
	Cells int64
}

// Component is a small component written whole at Finish.
type Component = sstables.ComponentBytes

// Writer writes one SSTable of the 3.x+ row format in any index layout. It
// implements sstables.Writer.
//
// The writer's goroutine serializes rows (package rows), cuts each
// partition's row-index blocks and feeds the Statistics.db collector; an
// sstables.PartitionSink does the rest on a second goroutine: the chunked
// DataWriter (compression, chunk checksums, digest by combine), the index
// layout's components, Filter.db, the key cardinality and the partition
// histograms. Nothing is allocated per row once the reused buffers have
// grown.
//
// The writer writes what it is given: it does not purge data shadowed by
// deletions of the same partition (Cassandra's memtable flush does; that is
// the flush/memtable step, mutation's purge helper). Partitions must come in
// the partitioner's order and rows and markers in clustering order; a
// partition out of order is an error.
type Writer struct {
	table *schema.Table
	part  dht.Partitioner
	// keyOrdered is part.PreservesOrder(): tokens refer to key bytes.
	keyOrdered bool
	opts       sstables.WriterOptions
	profile    version.Profile
	desc       sstables.Descriptor
	params     compress.Params
	header     *sstables.SerializationHeader
	coll       *rows.Collector
	ser        *rows.Serializer
	aux        *auxBuilders
	index      IndexWriter

	files *sstables.FileSet
	data  *sstables.DataWriter
	sink  *sstables.PartitionSink

	h1, h2    uint64 // Murmur3 halves of the current partition's key
	err       error
	inPart    bool
	finished  bool
	firstKey  []byte
	prevKey   []byte
	prevToken dht.Token
	parts     int64
	rows      int64
	cells     int64
	ended     Partition
}

// ErrWriterState reports an API misuse.
var ErrWriterState = errors.New("sstables: writer used out of order")

// NewWriter starts a version v SSTable of table whose index layout is
// index (see sstables.Format.NewWriter). opts.ColumnIndexSize defaults to
// the version's (Profile.DefaultColumnIndexSize).
func NewWriter(v version.Version, table *schema.Table, opts sstables.WriterOptions, index IndexWriter) (*Writer, error) {
	if table == nil {
		return nil, errors.New("sstables: NewWriter needs a table")
	}
	if err := sstables.CheckTypes(v, table); err != nil {
		return nil, fmt.Errorf("sstables: %w", err)
	}
	desc, err := opts.Descriptor(v)
	if err != nil {
		return nil, err
	}
	if opts.FS == nil {
		opts.FS = sstables.OSFS
	}
	profile := opts.ProfileFor(v)
	if opts.ColumnIndexSize <= 0 {
		opts.ColumnIndexSize = profile.DefaultColumnIndexSize
	}
	var params compress.Params
	if opts.Compression != nil {
		params = *opts.Compression
	} else {
		var err error
		if params, err = compress.ParamsFromOptions(table.Options.Compression); err != nil {
			return nil, fmt.Errorf("sstables: table %s.%s: %w", table.Keyspace, table.Name, err)
		}
	}
	params = sstables.WithReleaseEncoder(params.WithDefaultChunkLength(v.Profile().DefaultChunkLength), v)
	part, err := sstables.WriterPartitioner(table)
	if err != nil {
		return nil, fmt.Errorf("sstables: %w", err)
	}
	w := &Writer{
		table:      table,
		part:       part,
		keyOrdered: part.PreservesOrder(),
		opts:       opts,
		params:     params,
		desc:       desc,
		profile:    profile,
		index:      index,
	}
	static, regular, err := writerColumns(table, &opts)
	if err != nil {
		return nil, err
	}
	enc := sstables.DefaultEncodingStats
	if opts.Stats.Known {
		enc = sstables.EncodingStats{
			MinTimestamp: opts.Stats.MinTimestamp,
			MinTTL:       opts.Stats.MinTTL,
		}
	}
	enc.UnsignedDeletionTimes = v.UIntDeletionTime()
	if opts.Stats.Known {
		enc.SetMinLocalDeletionTime(opts.Stats.MinLocalDeletionTime)
	}
	style := schema.MarshalCassandra
	if profile.ScyllaTypeNames {
		style = schema.MarshalScylla
	}
	w.header = sstables.NewSerializationHeaderStyle(table, enc, static, regular, style)
	w.aux = newAuxBuilders(v, w.profile, table, &opts)
	w.coll = rows.NewCollector(table, w.header.ClusteringTypes, rows.CollectorOptions{
		WholePrefix:           v.HasAccurateMinMax() || v.HasImprovedMinMax(),
		DropTime:              w.aux.addDropTime,
		LiveDropTimes:         w.profile.SentinelTombstoneBin,
		LiveLivenessDropTimes: w.profile.SentinelCountsLiveness,
		UnsignedDeletionTimes: v.UIntDeletionTime(),
	})

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
	sinkOpts := sstables.PartitionSinkOptions{
		Filter:           w.aux.filter,
		KeepHashes:       w.aux.sizeFilter,
		Cardinality:      w.aux.hll,
		PartitionSizes:   w.aux.sizes,
		CellCounts:       w.aux.cells,
		DoubleCellCounts: w.profile.DoubleCellCounts,
	}
	if err := index.Start(w.files, &sinkOpts); err != nil {
		index.Abort()
		w.files.Abort()
		return nil, err
	}
	w.data, err = sstables.NewDataWriter(dataFile, sstables.DataWriterOptions{
		Compression:             params,
		WithMaxCompressedLength: v.HasMaxCompressedLength(),
		ScyllaOptions:           v.Scylla(),
		Jobs:                    opts.Jobs,
		BufferedIO:              opts.BufferedIO,
		TrailingEmptyChunk:      opts.TrailingEmptyChunk,
		Path:                    w.desc.Path(sstables.ComponentData),
	})
	if err != nil {
		index.Abort()
		w.files.Abort()
		return nil, err
	}
	sinkOpts.Data = w.data
	w.sink = sstables.NewPartitionSink(sinkOpts)
	w.ser = rows.NewSerializer(table, w.header, static, regular, rows.SerializerOptions{
		Version:          v,
		ScyllaShadowable: opts.ScyllaShadowable,
		BlockSize:        opts.ColumnIndexSize,
		Sink:             w.sink,
		Collector:        w.coll,

		LastComplexDeletionFlag: opts.ReproduceLostComplexDeletions,
	})
	return w, nil
}

// Header returns the serialization header the writer writes.
func (w *Writer) Header() *sstables.SerializationHeader { return w.header }

// Partitioner returns the partitioner the writer orders partitions by.
func (w *Writer) Partitioner() dht.Partitioner { return w.part }

// Descriptor returns the SSTable being written.
func (w *Writer) Descriptor() sstables.Descriptor { return w.desc }

// writerColumns returns the static and regular columns of the
// serialization header: every table column with HeaderAllColumns or when
// Stats.Columns is nil, else the listed ones, in canonical order.
func writerColumns(table *schema.Table, opts *sstables.WriterOptions) (static, regular []*schema.Column, err error) {
	if opts.HeaderAllColumns || opts.Stats.Columns == nil {
		return table.Static, table.Regular, nil
	}
	seen := map[*schema.Column]bool{}
	for _, c := range opts.Stats.Columns {
		if c == nil || seen[c] {
			continue
		}
		seen[c] = true
		tc := table.Column(c.Name)
		if tc == nil || tc.Kind != c.Kind {
			return nil, nil, fmt.Errorf("sstables: Stats.Columns names column %s, which is not a static or regular column of %s.%s", c.Name, table.Keyspace, table.Name)
		}
		switch tc.Kind {
		case schema.Static:
			static = append(static, tc)
		case schema.Regular:
			regular = append(regular, tc)
		default:
			return nil, nil, fmt.Errorf("sstables: Stats.Columns names key column %s", c.Name)
		}
	}
	byIndex := func(cols []*schema.Column) {
		sort.Slice(cols, func(i, j int) bool { return cols[i].Index < cols[j].Index })
	}
	byIndex(static)
	byIndex(regular)
	return static, regular, nil
}

// DataSize implements sstables.DataSizer: uncompressed is the bytes
// serialized so far (a partition boundary's exact position, whatever the
// partition sink and the compression pipeline have reached).
func (w *Writer) DataSize() (uncompressed, onDisk int64) {
	return w.ser.Position(), w.data.FileOffset()
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return w.err
}

// StartPartition implements sstables.Writer.
func (w *Writer) StartPartition(p *mutation.Partition) error {
	if w.err != nil {
		return w.err
	}
	if w.inPart || w.finished {
		return w.fail(fmt.Errorf("%w: StartPartition inside a partition or after Finish", ErrWriterState))
	}
	h1, h2 := dht.Murmur3Hash(p.Key)
	token := w.part.TokenFromHash(p.Key, h1)
	if w.parts > 0 && dht.ComparePartitions(w.prevToken, w.prevKey, token, p.Key) >= 0 {
		return w.fail(fmt.Errorf("sstables: partition %s (token %s) does not come after %s (token %s)", sstables.ShortHex(p.Key), w.part.String(token), sstables.ShortHex(w.prevKey), w.part.String(w.prevToken)))
	}
	if err := w.ser.StartPartition(p.Key, p.Deletion, &p.Static); err != nil {
		return w.fail(fmt.Errorf("sstables: partition %s: %w", sstables.ShortHex(p.Key), err))
	}
	w.h1, w.h2 = h1, h2
	if w.parts == 0 {
		w.firstKey = append(w.firstKey[:0], p.Key...)
	}
	w.prevKey = append(w.prevKey[:0], p.Key...)
	w.prevToken = token
	if w.keyOrdered {
		w.prevToken = w.part.TokenFromHash(w.prevKey, h1) // of the copy: a key-ordered token refers to its key
	}
	w.inPart = true
	if !rows.RowIsEmpty(&p.Static) {
		w.rows++
	}
	return nil
}

// AppendRow implements sstables.Writer.
func (w *Writer) AppendRow(r *mutation.Row) error {
	if w.err != nil {
		return w.err
	}
	if !w.inPart {
		return w.fail(fmt.Errorf("%w: AppendRow outside a partition", ErrWriterState))
	}
	if err := w.ser.WriteRow(r); err != nil {
		return w.fail(fmt.Errorf("sstables: partition %s: row: %w", sstables.ShortHex(w.prevKey), err))
	}
	w.rows++
	return nil
}

// AppendMarker implements sstables.Writer.
func (w *Writer) AppendMarker(m *mutation.RangeTombstoneMarker) error {
	if w.err != nil {
		return w.err
	}
	if !w.inPart {
		return w.fail(fmt.Errorf("%w: AppendMarker outside a partition", ErrWriterState))
	}
	if err := w.ser.WriteMarker(m); err != nil {
		return w.fail(fmt.Errorf("sstables: partition %s: range tombstone marker: %w", sstables.ShortHex(w.prevKey), err))
	}
	return nil
}

// EndPartition implements sstables.Writer.
func (w *Writer) EndPartition() error {
	if w.err != nil {
		return w.err
	}
	if !w.inPart {
		return w.fail(fmt.Errorf("%w: EndPartition outside a partition", ErrWriterState))
	}
	size, blocks, err := w.ser.FinishPartition()
	if err != nil {
		return w.fail(err)
	}
	cells := w.ser.Cells()
	w.ended = Partition{
		Key: w.prevKey, H1: w.h1, H2: w.h2,
		Start: w.ser.PartitionStart(), HeaderLength: w.ser.HeaderLength(), Size: size,
		Deletion: w.ser.Deletion(), Blocks: blocks, Cells: cells,
	}
	if err := w.index.EndPartition(w.sink, &w.ended); err != nil {
		return w.fail(err)
	}
	w.cells += cells
	w.parts++
	w.inPart = false
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
		return nil, w.fail(fmt.Errorf("%w: Finish inside a partition or twice", ErrWriterState))
	}
	w.finished = true
	if w.parts == 0 {
		return nil, w.fail(errors.New("sstables: an SSTable needs at least one partition"))
	}
	sinkRes, err := w.sink.Finish(w.ser.TakeOut())
	if err != nil {
		return nil, w.fail(err)
	}
	res, err := w.data.Finish()
	if err != nil {
		return nil, w.fail(err)
	}
	comps, err := res.Components(sstables.ComponentDigestCRC32)
	if err != nil {
		return nil, w.fail(err)
	}
	indexComps, indexBytes, err := w.index.Finish(sinkRes)
	if err != nil {
		return nil, w.fail(err)
	}
	comps = append(comps, indexComps...)
	filter, err := w.aux.finish(sinkRes.Hashes)
	if err != nil {
		return nil, w.fail(err)
	}
	comps = append(comps, filter...)
	stats := w.statistics(res)
	sb, err := sstables.AppendStatistics(nil, stats, w.desc.Version)
	if err != nil {
		return nil, w.fail(err)
	}
	comps = append(comps, Component{Component: sstables.ComponentStatistics, Bytes: sb})
	total := res.FileSize + indexBytes
	for _, c := range comps {
		if err := w.files.WriteComponent(c.Component, c.Bytes); err != nil {
			return nil, w.fail(err)
		}
		total += int64(len(c.Bytes))
	}
	components, err := w.files.Commit()
	if err != nil {
		return nil, w.fail(err)
	}
	total += int64(len(sstables.AppendOrderedTOC(nil, components, w.files.TOCOrder, w.desc.Version)))
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

// statistics assembles Statistics.db in the form of the version written.
func (w *Writer) statistics(res *sstables.DataResult) *sstables.Statistics {
	v := w.desc.Version
	c := w.coll
	st := &sstables.Statistics{
		Partitioner:         w.part.Name(),
		BloomFilterFPChance: w.aux.fpChance,
		Cardinality:         w.aux.cardinality(),
		Header:              w.header,
	}
	s := &st.Stats
	s.PartitionSizes, s.CellsPerPartition = w.aux.sizes, w.aux.cells
	s.MinTimestamp, s.MaxTimestamp = c.Timestamps()
	s.MinLocalDeletionTime, s.MaxLocalDeletionTime = c.LocalDeletionTimes()
	s.MinTTL, s.MaxTTL = c.TTLs()
	s.CompressionRatio = res.CompressionRatio()
	switch {
	case w.profile.NoCompressionRatio:
		s.CompressionRatio = -1
	case w.profile.ScyllaCompressionRatio && v.Scylla() && res.CompressionInfo != nil:
		s.CompressionRatio = scyllaCompressionRatio(res.CompressionInfo)
	case w.profile.NaNCompressionRatio && v.Scylla(): // a ScyllaDB habit, not carried into Cassandra's versions
		s.CompressionRatio = math.NaN()
	}
	s.TombstoneDropTimes = w.aux.tombstoneHistogram()
	if v.UIntDeletionTime() {
		// Cassandra 5.0 sizes the STATS component for 16-byte tombstone
		// bins (TombstoneHistogram.HistogramSerializer.serializedSize)
		// but writes 12 (a long point, an int count), and writes the
		// whole buffer it sized: 4 zero bytes per bin follow the last
		// field, inside the component's checksum.
		points, _ := s.TombstoneDropTimes.Bins()
		s.Padding = 4 * len(points)
	}
	m := &w.opts.Metadata
	s.Level = int32(m.Level)
	s.RepairedAt = m.RepairedAt
	if v.HasLegacyMinMax() {
		if v.HasAccurateMinMax() {
			s.MinClusteringValues, s.MaxClusteringValues = wholePrefixValues(c)
		} else {
			s.MinClusteringValues, s.MaxClusteringValues = c.ClusteringBounds()
		}
	}
	if v.HasImprovedMinMax() || v.HasTrailingImprovedMinMax() {
		s.CoveredClustering = coveredClustering(c, w.header.ClusteringTypes)
	}
	s.HasLegacyCounterShards = c.LegacyCounters
	s.TotalColumnsSet, s.TotalRows = c.TotalColumnsSet, c.TotalRows
	s.CommitLogIntervals = m.CommitLogIntervals
	s.CommitLogLowerBound, s.CommitLogUpperBound = commitLogBounds(s.CommitLogIntervals)
	if len(s.CommitLogIntervals) == 0 && w.profile.ZeroCommitLogBounds && v.Scylla() {
		s.CommitLogLowerBound, s.CommitLogUpperBound = sstables.CommitLogPosition{}, sstables.CommitLogPosition{}
	}
	s.PendingRepair = m.PendingRepair
	s.IsTransient = m.IsTransient
	s.OriginatingHostID = m.OriginatingHostID
	s.HasPartitionLevelDeletions = c.HasPartitionDeletion
	if v.HasKeyRange() {
		s.FirstKey, s.LastKey = w.firstKey, w.prevKey
	}
	s.TokenSpaceCoverage = math.NaN()
	if m.TokenSpaceCoverage != 0 {
		s.TokenSpaceCoverage = m.TokenSpaceCoverage
	}
	return st
}

// wholePrefixValues returns the legacy min/max lists of md and later: the
// values of the smallest and largest clustering prefix written (a bound's
// own values; empty lists when nothing was written).
func wholePrefixValues(c *rows.Collector) (minVals, maxVals [][]byte) {
	_, minP, _, maxP, ok := c.PrefixBounds()
	if !ok {
		return nil, nil
	}
	return minP, maxP
}

// coveredClustering returns 5.0's covered clustering slice: from the
// smallest prefix written, as a start bound (a row's clustering becomes an
// inclusive start), to the largest, as an end bound. With nothing written
// it runs from the exclusive start of nothing to the exclusive end of
// nothing (Cassandra's MAX_START … MIN_END).
func coveredClustering(c *rows.Collector, types []*schema.Type) *sstables.ClusteringSlice {
	cs := &sstables.ClusteringSlice{}
	for _, t := range types {
		cs.Types = append(cs.Types, t.MarshalName())
	}
	minK, minP, maxK, maxP, ok := c.PrefixBounds()
	if !ok {
		cs.Start.Kind, cs.End.Kind = mutation.ExclStartBound, mutation.ExclEndBound
		return cs
	}
	if minK == mutation.ClusteringKind {
		minK = mutation.InclStartBound
	}
	if maxK == mutation.ClusteringKind {
		maxK = mutation.InclEndBound
	}
	cs.Start = sstables.ClusteringBound{Kind: minK, Values: minP}
	cs.End = sstables.ClusteringBound{Kind: maxK, Values: maxP}
	return cs
}

func commitLogBounds(ivs []sstables.CommitLogInterval) (lower, upper sstables.CommitLogPosition) {
	if len(ivs) == 0 {
		return sstables.CommitLogPositionNone, sstables.CommitLogPositionNone
	}
	lower, upper = ivs[0].Lower, ivs[0].Upper
	for _, iv := range ivs[1:] {
		if comparePos(iv.Lower, lower) < 0 {
			lower = iv.Lower
		}
		if comparePos(iv.Upper, upper) > 0 {
			upper = iv.Upper
		}
	}
	return lower, upper
}

func comparePos(a, b sstables.CommitLogPosition) int {
	switch {
	case a.SegmentID != b.SegmentID:
		if a.SegmentID < b.SegmentID {
			return -1
		}
		return 1
	case a.Position < b.Position:
		return -1
	case a.Position > b.Position:
		return 1
	}
	return 0
}

// Abort implements sstables.Writer.
func (w *Writer) Abort() error {
	w.fail(errors.New("sstables: writer aborted"))
	if w.sink != nil {
		w.sink.Abort()
	}
	if w.data != nil {
		w.data.Abort()
	}
	if w.index != nil {
		w.index.Abort()
	}
	if w.files == nil {
		return nil
	}
	return w.files.Abort()
}

var _ sstables.Writer = (*Writer)(nil)

// scyllaCompressionRatio is the compression ratio as ScyllaDB's ms and mt
// files store it: taken before the last chunk is flushed, the compressed
// bytes (with checksums) before the last chunk over the uncompressed
// bytes before it; NaN (0/0) for one chunk or none.
func scyllaCompressionRatio(ci *sstables.CompressionInfo) float64 {
	n := len(ci.ChunkOffsets)
	if n <= 1 {
		return math.NaN()
	}
	return float64(ci.ChunkOffsets[n-1]) / float64(int64(n-1)*int64(ci.ChunkLength))
}
