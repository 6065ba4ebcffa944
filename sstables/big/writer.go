package big

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

// Writer writes one mc SSTable. It implements sstables.Writer.
//
// The writer's goroutine serializes rows and builds each partition's
// Index.db entry (with its promoted index) and the Statistics.db
// collector's values; an sstables.PartitionSink does the rest on a second
// goroutine: the chunked DataWriter (compression, chunk checksums, digest by
// combine), Index.db writes, Summary.db, Filter.db, the key cardinality and
// the partition histograms. Nothing is allocated per row once the reused
// buffers have grown.
//
// The writer writes what it is given: it does not purge data shadowed by
// deletions of the same partition (Cassandra's memtable flush does; that is
// the flush/memtable step, mutation's purge helper). Partitions must come in
// token order and rows and markers in clustering order; a partition out of
// order is an error.
type Writer struct {
	table *schema.Table
	part  dht.Partitioner
	// keyOrdered is part.PreservesOrder(): tokens refer to key bytes.
	keyOrdered bool
	opts       sstables.WriterOptions
	profile    version.Profile
	desc       sstables.Descriptor
	params     compress.Params
	header     *Header
	coll       *rows.Collector
	ser        *rows.Serializer
	aux        *auxBuilders

	files *sstables.FileSet
	data  *sstables.DataWriter
	sink  *sstables.PartitionSink

	entry     []byte
	h1, h2    uint64 // Murmur3 halves of the current partition's key
	err       error
	inPart    bool
	finished  bool
	key       []byte
	firstKey  []byte
	prevKey   []byte
	prevToken dht.Token
	parts     int64
	rows      int64
	cells     int64
}

// errWriterState reports an API misuse.
var errWriterState = errors.New("sstables: writer used out of order")

// NewWriter starts a version v SSTable of table (see
// sstables.Format.NewWriter).
func NewWriter(v version.Version, table *schema.Table, opts sstables.WriterOptions) (*Writer, error) {
	if table == nil {
		return nil, errors.New("sstables: NewWriter needs a table")
	}
	desc, err := opts.Descriptor(v)
	if err != nil {
		return nil, err
	}
	if !isBigVersion(v) {
		return nil, fmt.Errorf("sstables: the BIG format does not write version %s", v)
	}
	if opts.FS == nil {
		opts.FS = sstables.OSFS
	}
	if opts.ColumnIndexSize <= 0 {
		opts.ColumnIndexSize = defaultColumnIndexSize
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
	params = params.WithDefaultChunkLength(v.Profile().DefaultChunkLength)
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
	w.header = sstables.NewSerializationHeader(table, enc, static, regular)
	w.profile = opts.ProfileFor(v)
	w.aux = newAuxBuilders(v, w.profile, table, &opts)
	w.coll = rows.NewCollector(table, w.header.ClusteringTypes, rows.CollectorOptions{
		WholePrefix:           v.HasAccurateMinMax() || v.HasImprovedMinMax(),
		DropTime:              w.aux.addDropTime,
		LiveDropTimes:         w.profile.SentinelTombstoneBin,
		LiveLivenessDropTimes: w.profile.SentinelCountsLiveness,
		UnsignedDeletionTimes: v.UIntDeletionTime(),
	})

	if w.files, err = sstables.NewFileSet(opts.FS, w.desc); err != nil {
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
		Compression:             params,
		WithMaxCompressedLength: v.HasMaxCompressedLength(),
		Jobs:                    opts.Jobs,
		BufferedIO:              opts.BufferedIO,
		Path:                    w.desc.Path(sstables.ComponentData),
	})
	if err != nil {
		w.files.Abort()
		return nil, err
	}
	w.sink = sstables.NewPartitionSink(sstables.PartitionSinkOptions{
		Data:             w.data,
		Index:            indexFile,
		Summary:          w.aux.summary,
		Filter:           w.aux.filter,
		KeepHashes:       w.aux.sizeFilter,
		Cardinality:      w.aux.hll,
		PartitionSizes:   w.aux.sizes,
		CellCounts:       w.aux.cells,
		DoubleCellCounts: w.profile.DoubleCellCounts,
		SimpleEntry:      appendSimpleIndexEntry,
	})
	w.ser = rows.NewSerializer(table, w.header, static, regular, rows.SerializerOptions{
		Version:          v,
		ScyllaShadowable: opts.ScyllaShadowable,
		BlockSize:        opts.ColumnIndexSize,
		Sink:             w.sink,
		Collector:        w.coll,
	})
	return w, nil
}

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
		return w.fail(fmt.Errorf("%w: StartPartition inside a partition or after Finish", errWriterState))
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
		return w.fail(fmt.Errorf("%w: AppendRow outside a partition", errWriterState))
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
		return w.fail(fmt.Errorf("%w: AppendMarker outside a partition", errWriterState))
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
		return w.fail(fmt.Errorf("%w: EndPartition outside a partition", errWriterState))
	}
	size, blocks, err := w.ser.FinishPartition()
	if err != nil {
		return w.fail(err)
	}
	cells := w.ser.Cells()
	if len(blocks) > 0 {
		w.entry = appendIndexEntry(w.entry[:0], w.prevKey, w.ser.PartitionStart(), w.ser.HeaderLength(), w.ser.Deletion(), blocks, w.desc.Version)
		err = w.sink.EndPartition(w.prevKey, w.h1, w.h2, w.entry, size, cells)
	} else {
		// The sink builds the entry (appendSimpleIndexEntry).
		err = w.sink.EndSimplePartition(w.prevKey, w.h1, w.h2, w.ser.PartitionStart(), size, cells)
	}
	if err != nil {
		return w.fail(err)
	}
	w.cells += cells
	w.parts++
	w.inPart = false
	return nil
}

// Append implements sstables.Writer.
func (w *Writer) Append(p *mutation.Partition) error {
	if err := w.StartPartition(p); err != nil {
		return err
	}
	if len(p.Markers) == 0 {
		// Rows only: no merge with markers to do.
		for i := range p.Rows {
			if err := w.AppendRow(&p.Rows[i]); err != nil {
				return err
			}
		}
		return w.EndPartition()
	}
	err := p.Unfiltered(w.table, func(r *mutation.Row, m *mutation.RangeTombstoneMarker) error {
		if r != nil {
			return w.AppendRow(r)
		}
		return w.AppendMarker(m)
	})
	if err != nil {
		return w.fail(err)
	}
	return w.EndPartition()
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
	var comps []componentBytes
	digest := sstables.AppendDigest(nil, res.Digest)
	comps = append(comps, componentBytes{sstables.ComponentDigestCRC32, digest})
	if res.CompressionInfo != nil {
		b, err := res.CompressionInfo.AppendTo(nil)
		if err != nil {
			return nil, w.fail(err)
		}
		comps = append(comps, componentBytes{sstables.ComponentCompressionInfo, b})
	} else if res.CRC != nil {
		comps = append(comps, componentBytes{sstables.ComponentCRC, res.CRC.AppendTo(nil)})
	}
	aux, err := w.aux.finish(sinkRes.Hashes)
	if err != nil {
		return nil, w.fail(err)
	}
	comps = append(comps, aux...)
	stats := w.statistics(res)
	sb, err := sstables.AppendStatistics(nil, stats, w.desc.Version)
	if err != nil {
		return nil, w.fail(err)
	}
	comps = append(comps, componentBytes{sstables.ComponentStatistics, sb})
	total := res.FileSize + sinkRes.IndexLength
	for _, c := range comps {
		if err := w.files.WriteComponent(c.component, c.bytes); err != nil {
			return nil, w.fail(err)
		}
		total += int64(len(c.bytes))
	}
	components, err := w.files.Commit()
	if err != nil {
		return nil, w.fail(err)
	}
	total += int64(len(sstables.AppendVersionTOC(nil, components, w.desc.Version)))
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

// componentBytes is a small component written at Finish.
type componentBytes struct {
	component sstables.Component
	bytes     []byte
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
	if w.profile.NoCompressionRatio {
		s.CompressionRatio = -1
	}
	s.TombstoneDropTimes = w.aux.tombstoneHistogram()
	s.Level = int32(w.opts.Metadata.Level)
	s.RepairedAt = w.opts.Metadata.RepairedAt
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
	s.CommitLogIntervals = w.opts.Metadata.CommitLogIntervals
	s.CommitLogLowerBound, s.CommitLogUpperBound = commitLogBounds(s.CommitLogIntervals)
	s.PendingRepair = w.opts.Metadata.PendingRepair
	s.IsTransient = w.opts.Metadata.IsTransient
	s.OriginatingHostID = w.opts.Metadata.OriginatingHostID
	s.HasPartitionLevelDeletions = c.HasPartitionDeletion
	if v.HasKeyRange() {
		s.FirstKey, s.LastKey = w.firstKey, w.prevKey
	}
	s.TokenSpaceCoverage = math.NaN()
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
	if w.files == nil {
		return nil
	}
	return w.files.Abort()
}

var _ sstables.Writer = (*Writer)(nil)
