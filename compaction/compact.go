package compaction

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
	"github.com/castable-db/castable/table"
)

// Options configure Compact. The zero value of each field means the
// default its comment gives.
type Options struct {
	// Out is the directory the outputs are written to (required).
	Out string
	// FS is the filesystem; nil means the OS's.
	FS sstables.FS
	// Format is the version written; nil means the newest version among
	// the inputs (what a node of that release writes).
	Format sstables.Format
	// Generation is the first output's generation; 0 means the next free
	// one in Out. UUIDIdentifiers names outputs with UUID-based
	// identifiers instead.
	Generation      int
	UUIDIdentifiers bool
	// MaxSSTableSize cuts the output into SSTables whose Data.db reaches
	// about this many bytes on disk (checked between partitions, as
	// Cassandra's MaxSSTableSizeWriter does, against the uncompressed
	// length scaled by the inputs' compression ratio, so that the cuts do
	// not depend on the compression pipeline's timing); 0 means one output.
	MaxSSTableSize int64
	// Now is the compaction time; the zero value means time.Now(). It
	// decides what has expired and, with the grace period, what may be
	// purged.
	Now time.Time
	// GCGraceSeconds is the table's gc_grace_seconds; negative means the
	// schema's (default 864000, ten days).
	GCGraceSeconds int64
	// NoPurge keeps every tombstone and expired cell.
	NoPurge bool
	// OnlyPurgeRepairedTombstones purges tombstones only when every input
	// is repaired (the table option of that name).
	OnlyPurgeRepairedTombstones bool
	// Overlapping are SSTables of the table outside the compaction: a
	// tombstone may shadow their data, so it is purged only when older
	// than everything the ones that may hold its partition hold (bloom
	// filter, then minimum timestamp), as Cassandra's controller checks.
	// Offline, the given inputs are taken to be the whole table.
	Overlapping []sstables.Reader
	// Compression is the outputs' codec and chunk length; nil means the
	// newest input's.
	Compression *compress.Params
	// ColumnIndexSize is the row index granularity in bytes; 0 means the
	// version's default.
	ColumnIndexSize int
	// HostID is the originating host id the outputs record (the node's
	// own); nil means the inputs' when they all name the same one. Commit
	// log intervals are carried over from the inputs of that host only, as
	// Cassandra's compaction does.
	HostID []byte
	// Level is the outputs' LCS level (0: size-tiered).
	Level int
	// Jobs is the number of goroutines compressing chunks; 0 means all
	// cores.
	Jobs int
	// Rules overrides the reconciliation rules (default: the release's of
	// the newest input; see table.Options).
	Rules *mutation.Rules
	// ReproduceLostComplexDeletions writes complex deletions as Cassandra
	// 5.0 does, losing those of a row whose last complex column has none
	// (sstables.WriterOptions.ReproduceLostComplexDeletions): for outputs
	// byte-identical to a 5.0 node's compaction. Off by default: castable
	// keeps them.
	ReproduceLostComplexDeletions bool
	// Progress, when set, is called after each partition written.
	Progress func(partitions int64)
	// Keep, when set, is asked about every partition (token and key)
	// before it is merged; one it refuses is left out (castable filter).
	Keep func(token dht.Token, key []byte) bool
	// Ranges, when set, route the output by token range: each range's
	// partitions go to SSTables of their own, in a directory of their own
	// below Out (RangeDir), each with its own generation sequence starting
	// at Generation (or the next free one there), each cut at
	// MaxSSTableSize; partitions outside every range are left out. The
	// ranges must not overlap (castable split). See route.go.
	Ranges []dht.Range
	// RangeDir names the directory of range i (relative to Out unless
	// absolute); nil means RangeDirName(i, len(Ranges)): range-000, ….
	RangeDir func(i int) string

	// nextGeneration, set by Service, gives each output its generation
	// (and tracks it in the service's transaction) instead of Generation.
	nextGeneration func(sstables.Format) (int, error)
	// copyAll purges every row through a copy, the reference the purge's
	// fast path (Purger.keepsAll) is checked against.
	copyAll bool
}

// Result is what a compaction did.
type Result struct {
	// Outputs are the SSTables written, in order.
	Outputs []*sstables.WriteResult
	// Expired are the inputs left out whole: every deletion in them is
	// purgeable and nothing they hold is newer than the data of the
	// others (Cassandra's fully expired SSTables). They are not read.
	Expired []sstables.Descriptor
	// InputBytes is the inputs' Data.db size on disk, InputLength their
	// uncompressed length (the expired ones included).
	InputBytes, InputLength int64
	// Partitions and Rows count what was written.
	Partitions, Rows int64
	// Ranges are the outputs of each of Options.Ranges, in that order.
	Ranges []RangeResult
	// EstimatedKeys is the key count the first output's bloom filter was
	// sized for.
	EstimatedKeys int64
	// Elapsed is the wall time.
	Elapsed time.Duration
}

// Compact merges inputs (SSTables of one table) into new SSTables written
// through the normal writers, with what Cassandra's compaction writer
// carries into them from the inputs (CompactionAwareWriter,
// SerializationHeader.make, MetadataCollector for compactions):
//
//   - the serialization header's encoding minima from the inputs'
//     Statistics.db (not from the rows written), its columns the union of
//     the inputs' headers;
//   - the bloom filter sized for the inputs' estimated key count (their
//     HyperLogLog sketches merged);
//   - repairedAt the inputs' least, their pending repair and transient
//     flag, the level given, the commit log intervals of the inputs
//     written by the output's host;
//   - the trailing empty Data.db chunk compaction's early open leaves, and
//     a hash-ordered release's TOC.txt order.
//
// Fully expired inputs are dropped unread (Result.Expired). Nothing is
// visible before an output is complete (temporary names, TOC.txt last);
// on error or cancellation every output is removed and the inputs are
// untouched. The inputs are never modified.
func Compact(ctx context.Context, inputs []sstables.Reader, t *schema.Table, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Out == "" {
		return nil, errors.New("compaction: Options need an Out directory")
	}
	if len(inputs) == 0 {
		return nil, errors.New("compaction: no input")
	}
	if t == nil {
		t = inputs[0].Table()
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	nowInSec := now.Unix()
	grace := opts.GCGraceSeconds
	if grace < 0 {
		grace = t.Options.GCGrace()
	}
	purger := &Purger{NowInSec: nowInSec, GCBefore: nowInSec - grace, Disabled: opts.NoPurge, copyAll: opts.copyAll}
	repaired := true
	for _, r := range inputs {
		if r.Statistics().Stats.RepairedAt == 0 {
			repaired = false
		}
	}
	if opts.OnlyPurgeRepairedTombstones && !repaired {
		purger.NoTombstonePurge = true
	}

	res := &Result{}
	for _, r := range inputs {
		if dr, ok := r.(sstables.DataFileReader); ok {
			res.InputBytes += dr.DataFile().FileSize()
			res.InputLength += dr.DataFile().Length()
		}
	}
	live := inputs
	if !purger.Disabled && !purger.NoTombstonePurge {
		var expired []sstables.Reader
		live, expired = fullyExpired(inputs, opts.Overlapping, purger.GCBefore)
		for _, r := range expired {
			res.Expired = append(res.Expired, r.Descriptor())
		}
	}
	if len(live) == 0 {
		res.Elapsed = time.Since(start)
		return res, nil
	}

	format := opts.Format
	if format == nil {
		newest := live[0]
		for _, r := range live[1:] {
			if versionIndex(r.Descriptor()) > versionIndex(newest.Descriptor()) {
				newest = r
			}
		}
		var err error
		if format, err = sstables.LookupVersion(newest.Descriptor().Version); err != nil {
			return nil, err
		}
	}
	set, err := table.NewSet(live, nil, table.Options{Table: t, Now: now, Rules: opts.Rules})
	if err != nil {
		return nil, err
	}
	wopts, err := writerOptions(inputs, live, set.Table(), format, opts)
	if err != nil {
		return nil, err
	}
	res.EstimatedKeys = wopts.ExpectedPartitions
	overlap := newOverlapChecker(opts.Overlapping)

	w, err := newRouter(ctx, format, set.Table(), wopts, opts, res)
	if err != nil {
		return nil, err
	}
	sc, err := set.ScanWith(table.ScanOptions{Keep: w.keep(opts.Keep)})
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	defer w.abort(false)
	if err := w.run(sc, purger, overlap); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// versionIndex orders versions as the version table lists them (oldest
// first).
func versionIndex(d sstables.Descriptor) int {
	for i, f := range sstables.Formats(false) {
		if f.Version() == d.Version {
			return i
		}
	}
	return -1
}

// fullyExpired splits the inputs into those to merge and those left out
// whole: an input whose newest local deletion time is before gcBefore
// (everything in it is a purgeable tombstone or expired) and whose newest
// timestamp is older than the oldest of every input (or overlapping
// SSTable) that still holds live data (CompactionController
// .getFullyExpiredSSTables).
func fullyExpired(inputs, overlapping []sstables.Reader, gcBefore int64) (live, expired []sstables.Reader) {
	minTS := int64(math.MaxInt64)
	for _, r := range overlapping {
		if s := &r.Statistics().Stats; s.MaxLocalDeletionTime >= gcBefore {
			minTS = min(minTS, s.MinTimestamp)
		}
	}
	var candidates []sstables.Reader
	for _, r := range inputs {
		if s := &r.Statistics().Stats; s.MaxLocalDeletionTime < gcBefore {
			candidates = append(candidates, r)
		} else {
			minTS = min(minTS, s.MinTimestamp)
		}
	}
	for _, r := range inputs {
		if slices.Contains(candidates, r) && r.Statistics().Stats.MaxTimestamp < minTS {
			expired = append(expired, r)
		} else {
			live = append(live, r)
		}
	}
	return live, expired
}

// writerOptions builds what every output shares. all are the inputs, live
// those merged.
func writerOptions(all, live []sstables.Reader, t *schema.Table, format sstables.Format, opts Options) (sstables.WriterOptions, error) {
	v := format.Version()
	w := sstables.WriterOptions{Dir: opts.Out, FS: opts.FS, Jobs: opts.Jobs, ColumnIndexSize: opts.ColumnIndexSize,
		TrailingEmptyChunk: true, ReproduceLostComplexDeletions: opts.ReproduceLostComplexDeletions}
	// Compression: the newest input's (the table's as it was last
	// written).
	params := opts.Compression
	if params == nil {
		newest := live[len(live)-1]
		for _, r := range live {
			if r.Descriptor().Generation > newest.Descriptor().Generation {
				newest = r
			}
		}
		p := compress.Params{}
		if dr, ok := newest.(sstables.DataFileReader); ok {
			if ci := dr.DataFile().CompressionInfo(); ci != nil {
				var err error
				if p, err = ci.Params(); err != nil {
					return w, err
				}
			}
		}
		params = &p
	}
	w.Compression = params

	// The serialization header: minima from the inputs' statistics,
	// columns the union of their headers (SerializationHeader.make).
	stats := sstables.DataStats{Known: true, MinTimestamp: math.MaxInt64, MinLocalDeletionTime: math.MaxInt64, MinTTL: math.MaxInt32}
	var cols []*schema.Column
	allColumns := false
	for _, r := range live {
		s := &r.Statistics().Stats
		stats.MinTimestamp = min(stats.MinTimestamp, s.MinTimestamp)
		stats.MinLocalDeletionTime = min(stats.MinLocalDeletionTime, s.MinLocalDeletionTime)
		stats.MinTTL = min(stats.MinTTL, s.MinTTL)
		h := r.Statistics().Header
		if h == nil {
			allColumns = true
			continue
		}
		for _, list := range [][]sstables.HeaderColumn{h.Static, h.Regular} {
			for _, hc := range list {
				if c := t.Column(hc.Name); c != nil && !slices.Contains(cols, c) {
					cols = append(cols, c)
				}
			}
		}
	}
	if !allColumns {
		slices.SortFunc(cols, func(a, b *schema.Column) int { return cmp.Compare(a.Index, b.Index) })
		stats.Columns = append([]*schema.Column{}, cols...)
	}
	w.Stats = stats.WithEpochs()

	// The key count the bloom filter is sized for.
	keys, before, err := approximateKeyCount(live, v.Profile())
	if err != nil {
		return w, err
	}
	if opts.MaxSSTableSize > 0 && len(opts.Ranges) == 0 {
		keys = perSSTableKeys(keys, before, live, opts.MaxSSTableSize)
	}
	w.ExpectedPartitions = keys

	// Metadata the compaction carries.
	host := opts.HostID
	if host == nil {
		for i, r := range all {
			id := r.Statistics().Stats.OriginatingHostID
			if i == 0 {
				host = id
			} else if !bytes.Equal(host, id) {
				host = nil
				break
			}
		}
	}
	m := sstables.Metadata{Level: opts.Level, OriginatingHostID: host, RepairedAt: math.MaxInt64}
	var intervals []sstables.CommitLogInterval
	for _, r := range all {
		s := &r.Statistics().Stats
		if host != nil && bytes.Equal(s.OriginatingHostID, host) {
			intervals = addIntervals(intervals, sstables.MetadataOf(r.Statistics(), r.Descriptor().Version).CommitLogIntervals)
		}
	}
	m.CommitLogIntervals = intervals
	for i, r := range live {
		s := &r.Statistics().Stats
		m.RepairedAt = min(m.RepairedAt, s.RepairedAt)
		if i == 0 {
			m.PendingRepair, m.IsTransient = s.PendingRepair, s.IsTransient
		} else if !bytes.Equal(m.PendingRepair, s.PendingRepair) {
			return w, fmt.Errorf("compaction: %s and %s await different repairs", live[0].Descriptor(), r.Descriptor())
		}
	}
	w.Metadata = m
	// A hash-ordered release lists TOC.txt in its JVM's order: the one
	// its inputs show (the newest's), when they are of the output version.
	if !v.Profile().OrderedTOC {
		for i := len(live) - 1; i >= 0; i-- {
			if tr, ok := live[i].(sstables.TOCReader); ok && live[i].Descriptor().Version == v {
				if toc := tr.TOC(); toc != nil {
					w.TOCOrder = toc.Listed
					break
				}
			}
		}
	}
	return w, nil
}

func statisticsOf(rs []sstables.Reader) []*sstables.Statistics {
	out := make([]*sstables.Statistics, len(rs))
	for i, r := range rs {
		out[i] = r.Statistics()
	}
	return out
}

// addIntervals adds ivs to set as Cassandra's IntervalSet.Builder does:
// intervals that overlap or touch become one.
func addIntervals(set []sstables.CommitLogInterval, ivs []sstables.CommitLogInterval) []sstables.CommitLogInterval {
	for _, iv := range ivs {
		set = append(set, iv)
	}
	slices.SortFunc(set, func(a, b sstables.CommitLogInterval) int { return comparePos(a.Lower, b.Lower) })
	out := set[:0]
	for _, iv := range set {
		if n := len(out); n > 0 && comparePos(out[n-1].Upper, iv.Lower) >= 0 {
			if comparePos(iv.Upper, out[n-1].Upper) > 0 {
				out[n-1].Upper = iv.Upper
			}
			continue
		}
		out = append(out, iv)
	}
	return out
}

func comparePos(a, b sstables.CommitLogPosition) int {
	if c := cmp.Compare(a.SegmentID, b.SegmentID); c != 0 {
		return c
	}
	return cmp.Compare(a.Position, b.Position)
}

// outputs writes the merged, purged stream into one SSTable after the
// other.
type outputs struct {
	ctx    context.Context
	format sstables.Format
	table  *schema.Table
	base   sstables.WriterOptions
	opts   Options
	res    *Result
	cur    sstables.Writer
	done   []*sstables.WriteResult
	gen    int
	// dir is the directory written to; partitions and rows count what
	// went into this sequence.
	dir              string
	partitions, rows int64
}

func (o *outputs) next() error {
	wo := o.base
	switch {
	case o.opts.nextGeneration != nil:
		g, err := o.opts.nextGeneration(o.format)
		if err != nil {
			return err
		}
		wo.Generation = g
	case o.opts.UUIDIdentifiers:
		wo.UUID = sstables.NewUUIDID().String()
	case o.gen == 0 && o.opts.Generation > 0:
		o.gen = o.opts.Generation
		wo.Generation = o.gen
	default:
		if o.gen == 0 {
			fsys := o.opts.FS
			if fsys == nil {
				fsys = sstables.OSFS
			}
			if err := fsys.MkdirAll(o.dir); err != nil {
				return err
			}
			g, err := sstables.NextGeneration(fsys, o.dir)
			if err != nil {
				return err
			}
			o.gen = g
		} else {
			o.gen++
		}
		wo.Generation = o.gen
	}
	w, err := o.format.NewWriter(o.table, wo)
	if err != nil {
		return err
	}
	o.cur = w
	return nil
}

func (o *outputs) finish() error {
	if o.cur == nil {
		return nil
	}
	r, err := o.cur.Finish()
	if err != nil {
		o.cur.Abort()
		o.cur = nil
		return err
	}
	o.cur = nil
	o.done = append(o.done, r)
	o.res.Outputs = append(o.res.Outputs, r)
	return nil
}

func removeSSTable(fsys sstables.FS, r *sstables.WriteResult) {
	if fsys == nil {
		fsys = sstables.OSFS
	}
	// TOC.txt first: the SSTable stops being visible before its parts go.
	fsys.Remove(r.Descriptor.Path(sstables.ComponentTOC))
	for _, c := range r.Components {
		if c != sstables.ComponentTOC {
			fsys.Remove(r.Descriptor.Path(c))
		}
	}
}

func (rt *router) run(sc *table.Scanner, p *Purger, overlap *overlapChecker) (err error) {
	defer func() {
		if err != nil {
			rt.abort(true)
		}
	}()
	var part mutation.Partition // outside the loop: the writer's interface call makes it escape
	var static mutation.Row
	var staticCells []mutation.Cell // the static row's cells, purged in a buffer of its own
	var row mutation.Row
	var marker mutation.RangeTombstoneMarker
	for {
		if err := rt.ctx.Err(); err != nil {
			return err
		}
		head, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		p.StartPartition(overlap.maxPurgeable(head))
		part = *head
		part.Deletion = p.PartitionDeletion(head.Deletion)
		static = head.Static
		static.Cells = append(staticCells[:0], head.Static.Cells...)
		staticCells = static.Cells
		if !static.IsEmpty() && !p.Row(&static) {
			static = mutation.NewRow(nil)
		}
		part.Static = static
		// The first row or marker that survives the purge decides whether
		// the partition is written at all.
		first, firstMarker, err := nextPurged(sc, p, &row, &marker)
		if err != nil {
			return err
		}
		if part.Deletion.IsLive() && part.Static.IsEmpty() && first == nil && firstMarker == nil {
			continue
		}
		o, err := rt.route(&part)
		if err != nil {
			return err
		}
		if err := o.cur.StartPartition(&part); err != nil {
			return err
		}
		for first != nil || firstMarker != nil {
			if first != nil {
				if err := o.cur.AppendRow(first); err != nil {
					return err
				}
				o.res.Rows++
				o.rows++
			} else if err := o.cur.AppendMarker(firstMarker); err != nil {
				return err
			}
			if first, firstMarker, err = nextPurged(sc, p, &row, &marker); err != nil {
				return err
			}
		}
		if err := o.cur.EndPartition(); err != nil {
			return err
		}
		o.res.Partitions++
		o.partitions++
		if o.opts.Progress != nil {
			o.opts.Progress(o.res.Partitions)
		}
	}
	return rt.finish()
}

// nextPurged returns the next merged unfiltered that survives the purge
// (the merged row itself when the purge leaves it alone, else a copy in
// row or marker), nil, nil at the partition's end; it is valid until the
// next call.
func nextPurged(sc *table.Scanner, p *Purger, row *mutation.Row, marker *mutation.RangeTombstoneMarker) (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
	for {
		r, m, err := sc.Next()
		if err != nil || (r == nil && m == nil) {
			return nil, nil, err
		}
		if r != nil {
			// Most rows have nothing to purge: they are written as the
			// merge left them, valid until the next sc.Next.
			if !p.copyAll && p.keepsAll(r) {
				if !r.IsEmpty() {
					return r, nil, nil
				}
				continue
			}
			cells := row.Cells[:0]
			*row = *r
			row.Cells = append(cells, r.Cells...)
			if len(r.ComplexDeletions) > 0 {
				row.ComplexDeletions = slices.Clone(r.ComplexDeletions)
			}
			if p.Row(row) {
				return row, nil, nil
			}
			continue
		}
		*marker = *m
		if mm := p.Marker(marker); mm != nil {
			return nil, mm, nil
		}
	}
}

// overlapChecker answers, per partition, the timestamp below which a
// tombstone shadows nothing outside the compaction.
type overlapChecker struct {
	readers []sstables.Reader
}

func newOverlapChecker(rs []sstables.Reader) *overlapChecker { return &overlapChecker{readers: rs} }

func (c *overlapChecker) maxPurgeable(p *mutation.Partition) int64 {
	bound := NoOverlap
	for _, r := range c.readers {
		if sstables.MayContain(r, p.Key) {
			bound = min(bound, r.Statistics().Stats.MinTimestamp)
		}
	}
	return bound
}

// approximateKeyCount is the key count CompactionAwareWriter sizes the
// output's bloom filter for: getApproximateKeyCount over the non-expired
// inputs in the order given (Cassandra's is its transaction's; only
// sketches of a few thousand keys, still sparse, merge differently in
// another order), with the rules of the release that writes the output.
// An SSTable that cannot tell its estimatedKeys() counts 0 in the fallback.
// before is the sum of the inputs' estimatedKeys().
func approximateKeyCount(live []sstables.Reader, p version.Profile) (keys, before int64, err error) {
	rules := sstables.KeyCountCassandra311
	if p.KeyCount50 {
		rules = sstables.KeyCountCassandra50
	}
	in := make([]sstables.KeyCountInput, len(live))
	for i, r := range live {
		in[i] = sstables.KeyCountInput{Path: r.Descriptor().Path(sstables.ComponentStatistics), Statistics: r.Statistics()}
		if e, ok := r.(sstables.KeyEstimator); ok {
			n, err := e.EstimatedKeys()
			if err != nil {
				return 0, 0, err
			}
			in[i].EstimatedKeys = n
			before += n
		}
	}
	n, err := sstables.ApproximateKeyCount(rules, in)
	if err != nil {
		return 0, 0, err
	}
	// 0 is the writer's "size it at Finish"; an estimate below 1 (which
	// inputs holding keys never give) is sized for one key.
	return max(n, 1), before, nil
}

// perSSTableKeys is MaxSSTableSizeWriter's key count per output (3.11 and
// 5.0 alike): the data expected, the inputs' Data.db bytes on disk scaled
// by the estimated compaction ratio (keys over the inputs' summed
// estimatedKeys(), at least 1), rounded as Math.round, makes
// max(1, size / maxSSTableSize) SSTables, and each is sized for keys
// divided by that count.
func perSSTableKeys(keys, before int64, live []sstables.Reader, maxSize int64) int64 {
	var onDisk int64
	for _, r := range live {
		if dr, ok := r.(sstables.DataFileReader); ok {
			onDisk += dr.DataFile().FileSize()
		}
	}
	ratio := float64(keys) / float64(max(before, 1))
	total := int64(math.Floor(ratio*float64(onDisk) + 0.5))
	n := max(1, total/maxSize)
	return max(1, keys/n)
}
