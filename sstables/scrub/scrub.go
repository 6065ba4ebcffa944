// Package scrub rescues what can be read of a damaged SSTable into new
// SSTables, as Cassandra's sstablescrub (StandaloneScrubber, Scrubber) and
// scylla-sstable scrub do. It never changes its input.
//
// Scrub reads the input partition by partition, each one whole into memory
// and checked (mutation.Partition.Validate) before anything of it is
// written, so a partition that fails half-way leaves nothing behind. After
// damage it resyncs where Index.db places the next partition — the next
// entry after the damaged region whose partition decodes and carries the
// key the entry names — as Cassandra's Scrubber does by keeping its index
// position one partition ahead of its data position; the bytes in between
// are dropped and reported (offsets in the uncompressed Data.db, the
// partitions and keys Index.db places there). Without a usable Index.db
// the rest of the file after the first damage is lost, as for Cassandra.
//
// What is out of order is put in order: rows of a partition are sorted and
// rows with the same clustering merged (Cassandra's RowMergingSSTableIterator
// and OrderCheckerIterator, CASSANDRA-12144 and -12127), and a partition that
// does not sort after the one written before it is held back and written,
// with the others like it, sorted (and merged by key), to a second SSTable
// — what Cassandra's Scrubber does with its outOfOrder set. With
// ReinsertOverflowedTTL, expiring cells and row liveness whose local
// expiration time overflowed to a negative value (CASSANDRA-14092) get
// Cassandra's repair: expiration time 2038-01-19T03:14:06Z
// (Integer.MAX_VALUE − 1, MAX_DELETION_TIME) and timestamp + 1, TTL
// unchanged (FixNegativeLocalDeletionTimeIterator).
//
// Index.db and Filter.db check the scan: a partition whose Data.db key
// differs from the key Index.db gives for its offset takes Index.db's when
// Filter.db holds only that one (Cassandra's Scrubber retries with the
// index key on a mismatch), and is reported Suspect when Filter.db cannot
// tell; Index.db entries that the scan never found — by offset or by key —
// are reported lost (a Data.db cut at a partition boundary ends cleanly),
// unless Filter.db says no partition of their key was written.
//
// Chunk checksums: a compressed Data.db is read with every chunk's checksum
// verified, as Cassandra's scrub reads it, so a damaged chunk loses the
// partitions that touch it; an uncompressed one is read as Cassandra's read
// path reads it, without CRC.db, so that the partitions of a damaged
// 64 KiB chunk that still decode and validate are kept — those in a chunk
// whose CRC.db checksum fails are reported as Suspect.
package scrub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// Options configure Scrub. The zero value of every field means the default
// given in its comment.
type Options struct {
	// Dir is the directory the rescued SSTables are written to (required).
	// It must exist.
	Dir string
	// FS is the filesystem the input is read from and the output written
	// to; nil means the OS filesystem.
	FS sstables.FS
	// Table is the schema to decode with; nil means what the SSTable
	// records (the 3.x+ serialization header; an la SSTable without a
	// schema is read with its values as blobs).
	Table *schema.Table
	// Format is the version written; nil means the input's own, or for a
	// read-only version what the version table says it is written as
	// (version.Version.WriteAs: la for ka and lb).
	Format sstables.Format
	// Generation is the generation of the first SSTable written; the
	// SSTable of out-of-order partitions, when there is one, takes the
	// next. Required unless UUIDIdentifiers is set.
	Generation int
	// UUIDIdentifiers names the outputs with new UUID-based identifiers
	// (Cassandra 4.1+) instead of integer generations.
	UUIDIdentifiers bool
	// Compression is the codec and chunk length written; nil keeps the
	// input's (from CompressionInfo.db; uncompressed when it has none).
	Compression *compress.Params
	// ColumnIndexSize is column_index_size in bytes; 0 means the target
	// version's default.
	ColumnIndexSize int
	// ReinsertOverflowedTTL repairs overflowed expiration times
	// (CASSANDRA-14092) as Cassandra's scrub --reinsert-overflowed-ttl
	// does; see the package comment. Without it they are copied as they
	// are, and a partition holding one is dropped when the target (oa)
	// cannot store a negative time.
	ReinsertOverflowedTTL bool
	// CapDeletionTimes writes deletion and expiration times past
	// 2038-01-19 as that day into versions before oa (Cassandra's
	// expiration_date_overflow_policy CAP); by default a partition holding
	// one is dropped when the target cannot store it.
	CapDeletionTimes bool
	// Jobs is the number of goroutines compressing chunks; 0 means
	// runtime.GOMAXPROCS(0).
	Jobs int
	// Progress, when set, is called (from Scrub's goroutine) with the
	// number of uncompressed Data.db bytes read and of rows rescued since
	// its last call.
	Progress func(bytes, rows int64)
	// Now is the time in seconds since the epoch that merging duplicate
	// rows uses to tell expired cells; 0 means the current time.
	Now int64
}

// Report is what a scrub did to one SSTable.
type Report struct {
	// Input is the input's Data.db path.
	Input string `json:"input"`
	// Version is the input's version.
	Version string `json:"version"`
	// DataLength is the uncompressed length of the input's Data.db.
	DataLength int64 `json:"data_length"`
	// IndexEntries is the number of Index.db entries read (the resync
	// points); IndexError says why Index.db could not be read further.
	IndexEntries int    `json:"index_entries"`
	IndexError   string `json:"index_error,omitempty"`
	// Partitions and Rows count what was written (merged partitions once).
	Partitions int64 `json:"partitions"`
	Rows       int64 `json:"rows"`
	// LostPartitions counts the partitions dropped: those Index.db places
	// in the dropped byte ranges, and at least one for each range.
	LostPartitions int64 `json:"lost_partitions"`
	// LostBytes is the number of uncompressed Data.db bytes dropped.
	LostBytes int64 `json:"lost_bytes"`
	// Dropped are the byte ranges of Data.db that were not written.
	Dropped []Drop `json:"dropped,omitempty"`
	// Changed are the partitions written other than as they were read.
	Changed []Change `json:"changed,omitempty"`
	// Suspect are partitions kept that lie in an uncompressed chunk whose
	// CRC.db checksum fails: they decode and validate, but may hold the
	// damage.
	Suspect []Change `json:"suspect,omitempty"`
	// OutOfOrderPartitions counts the partitions written to the second
	// SSTable.
	OutOfOrderPartitions int `json:"out_of_order_partitions"`
	// FixedRows counts the rows whose overflowed TTLs were repaired.
	FixedRows int `json:"fixed_rows"`
	// RepairedAtCleared says the input was repaired and lost data, so the
	// outputs are marked unrepaired (as Cassandra's scrub marks them).
	RepairedAtCleared bool `json:"repaired_at_cleared,omitempty"`
	// Outputs are the Data.db paths written.
	Outputs []string `json:"outputs"`
	// Warnings are what the reader tolerated (sstables.Warning) and what
	// scrub noticed without dropping anything.
	Warnings []string `json:"warnings,omitempty"`
	// Results describe the SSTables written.
	Results []*sstables.WriteResult `json:"-"`
}

// Lost reports whether anything of the input was not written.
func (r *Report) Lost() bool { return r.LostPartitions > 0 || r.LostBytes > 0 }

// Drop is a byte range of the uncompressed Data.db that was not written.
type Drop struct {
	// Offset and End delimit the range [Offset, End).
	Offset int64 `json:"offset"`
	End    int64 `json:"end"`
	// Partitions is the number of partitions lost (see
	// Report.LostPartitions).
	Partitions int64 `json:"partitions"`
	// Keys are the keys of the partitions lost that are known (from the
	// partition header, or Index.db), at most MaxKeysPerDrop of them.
	Keys []string `json:"keys,omitempty"`
	// Reason is the error that stopped the decoding.
	Reason string `json:"reason"`
}

// MaxKeysPerDrop bounds Drop.Keys.
const MaxKeysPerDrop = 100

// Change is a partition written other than as it was read.
type Change struct {
	// Key is the partition key in CQL form.
	Key string `json:"key"`
	// Offset is the partition's offset in the uncompressed Data.db.
	Offset int64 `json:"offset"`
	// What says what changed.
	What string `json:"what"`
}

// indexEntry is a resync point: a partition's key and Data.db offset.
type indexEntry struct {
	key []byte
	pos int64
}

// scrubber is one scrub of one SSTable.
type scrubber struct {
	ctx    context.Context
	opts   Options
	desc   sstables.Descriptor
	r      sstables.Reader
	table  *schema.Table
	part   dht.Partitioner
	target sstables.Format
	now    int64
	rep    *Report
	dry    bool // count only; write nothing

	index      []indexEntry          // sorted by position, one per position
	filter     *sstables.BloomFilter // the input's Filter.db, nil when it does not read
	dataLength int64
	badChunks  []span // uncompressed chunks whose CRC.db checksum fails

	// prevKey/prevToken are the last partition written to the first
	// SSTable; outOfOrder are the partitions held back for the second.
	prevKey    []byte
	prevToken  dht.Token
	outOfOrder []*mutation.Partition

	// readStarts are the Data.db offsets of the partitions read whole (in
	// increasing order: reading only moves forward), seenKeys the hashes
	// of their keys: what tells, at the end, which Index.db entries the
	// scan never found.
	readStarts []int64
	seenKeys   map[uint64]struct{}

	gen      int
	writers  []sstables.Writer
	main     sstables.Writer
	params   compress.Params
	repaired bool // clear RepairedAt in the outputs
	reported int64
}

// span is [start, end) of the uncompressed Data.db.
type span struct{ start, end int64 }

// Scrub reads the SSTable desc and writes what it can rescue to new
// SSTables in opts.Dir (see the package comment). It returns the report
// of what was dropped or changed; Report.Lost says whether anything was.
// An error means nothing usable could be written (the input does not open
// — its Statistics.db, say, is damaged —, the output cannot be written, or
// ctx was cancelled); the outputs of the call are then removed.
func Scrub(ctx context.Context, desc sstables.Descriptor, opts Options) (*Report, error) {
	if opts.Dir == "" {
		return nil, errors.New("scrub: Options need a Dir")
	}
	if opts.Generation <= 0 && !opts.UUIDIdentifiers {
		return nil, fmt.Errorf("scrub: Options need a Generation > 0 (got %d) or UUIDIdentifiers", opts.Generation)
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = sstables.OSFS
	}
	in, err := sstables.LookupVersion(desc.Version)
	if err != nil {
		return nil, err
	}
	target := opts.Format
	if target == nil {
		if target, err = keepVersion(desc.Version); err != nil {
			return nil, err
		}
	}
	rfs, compressed, params, err := readFS(fsys, desc)
	if err != nil {
		return nil, err
	}
	if opts.Compression != nil {
		params = *opts.Compression
	}
	var warnings sstables.WarningList
	chance := 1.0
	if !compressed {
		chance = -1 // as Cassandra's read path: CRC.db is checked apart
	}
	r, err := in.Open(desc, opts.Table, sstables.ReaderOptions{FS: rfs, CRCCheckChance: chance, Warn: warnings.Add})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s := &scrubber{
		ctx: ctx, opts: opts, desc: desc, r: r, table: r.Table(), part: r.Partitioner(), target: target,
		now: opts.Now, params: params, gen: opts.Generation,
		rep: &Report{Input: desc.Path(sstables.ComponentData), Version: desc.Version.String()},
	}
	if s.now == 0 {
		s.now = time.Now().Unix()
	}
	s.dataLength = dataLength(fsys, desc, compressed)
	s.rep.DataLength = s.dataLength
	s.loadIndex()
	s.filter, _ = sstables.ReadBloomFilter(fsys, desc)
	if !compressed {
		s.badChunks = badCRCChunks(fsys, desc, s.dataLength)
	}
	if st := r.Statistics(); st != nil && st.Stats.RepairedAt != 0 {
		// Cassandra marks the output unrepaired when partitions were
		// lost; whether any are is known only at the end, and the
		// repair time is written first: a first pass counts.
		dry := *s
		dry.dry = true
		dry.rep = &Report{}
		dry.opts.Progress = nil
		if err := dry.run(); err != nil {
			return nil, err
		}
		s.repaired = dry.rep.Lost()
		s.rep.RepairedAtCleared = s.repaired
	}
	err = s.run()
	if err == nil {
		err = s.finish()
	}
	if err != nil {
		for _, w := range s.writers {
			if aerr := w.Abort(); aerr != nil {
				err = errors.Join(err, aerr)
			}
		}
		return nil, err
	}
	for _, w := range warnings.Warnings() {
		s.rep.Warnings = append(s.rep.Warnings, w.String())
	}
	if s.opts.Progress != nil && s.dataLength > s.reported {
		s.opts.Progress(s.dataLength-s.reported, 0)
	}
	return s.rep, nil
}

// keepVersion is the format written for an input of version v without
// Options.Format.
func keepVersion(v version.Version) (sstables.Format, error) {
	return sstables.LookupVersion(v.WriteAs())
}

// readFS returns the filesystem to read desc through (padding a compressed
// Data.db cut short, see padFS), whether Data.db is compressed, and its
// compression parameters.
func readFS(fsys sstables.FS, desc sstables.Descriptor) (sstables.FS, bool, compress.Params, error) {
	var params compress.Params
	ci, err := sstables.ReadCompressionInfo(fsys, desc)
	if err != nil {
		if _, serr := fsys.Open(desc.Path(sstables.ComponentCompressionInfo)); serr != nil {
			return fsys, false, params, nil // uncompressed
		}
		return nil, false, params, err
	}
	if params, err = ci.Params(); err != nil {
		return nil, true, params, err
	}
	if len(ci.ChunkOffsets) == 0 {
		return fsys, true, params, nil
	}
	path := desc.Path(sstables.ComponentData)
	f, err := fsys.Open(path)
	if err != nil {
		return nil, true, params, err
	}
	size, err := f.Size()
	f.Close()
	if err != nil {
		return nil, true, params, err
	}
	// The last chunk needs a payload byte and its 4-byte checksum.
	if need := ci.ChunkOffsets[len(ci.ChunkOffsets)-1] + 5; size < need {
		return &padFS{FS: fsys, path: path, size: need}, true, params, nil
	}
	return fsys, true, params, nil
}

// dataLength is the uncompressed length of desc's Data.db.
func dataLength(fsys sstables.FS, desc sstables.Descriptor, compressed bool) int64 {
	if compressed {
		if ci, err := sstables.ReadCompressionInfo(fsys, desc); err == nil {
			return ci.DataLength
		}
	}
	f, err := fsys.Open(desc.Path(sstables.ComponentData))
	if err != nil {
		return 0
	}
	defer f.Close()
	n, _ := f.Size()
	return n
}

// badCRCChunks returns the chunks of an uncompressed Data.db whose CRC.db
// checksum fails (none when there is no CRC.db or it does not read).
func badCRCChunks(fsys sstables.FS, desc sstables.Descriptor, length int64) []span {
	d, err := sstables.OpenData(fsys, desc, sstables.DataReaderOptions{})
	if err != nil {
		return nil
	}
	defer d.Close()
	crc := d.CRC()
	if crc == nil || crc.ChunkSize <= 0 {
		return nil
	}
	chunk := int64(crc.ChunkSize)
	var bad []span
	buf := make([]byte, chunk)
	for off := int64(0); off < length; off += chunk {
		n := min(chunk, length-off)
		if _, err := d.ReadAt(buf[:n], off); err != nil {
			bad = append(bad, span{off, off + n})
		}
	}
	return bad
}

// loadIndex reads the resync points from Index.db, as far as it decodes.
func (s *scrubber) loadIndex() {
	w, ok := s.r.(sstables.IndexWalker)
	if !ok {
		s.rep.IndexError = "the format has no Index.db to resync with"
		return
	}
	err := w.WalkIndex(func(e sstables.IndexEntryInfo) error {
		s.index = append(s.index, indexEntry{key: slices.Clone(e.Key), pos: e.Position})
		return nil
	})
	s.rep.IndexEntries = len(s.index)
	if err != nil {
		s.rep.IndexError = err.Error()
	}
	sort.SliceStable(s.index, func(i, j int) bool { return s.index[i].pos < s.index[j].pos })
	s.index = slices.CompactFunc(s.index, func(a, b indexEntry) bool { return a.pos == b.pos })
}

// after returns the index of the first resync point at or after pos
// (strictly after when exclusive).
func (s *scrubber) after(pos int64, exclusive bool) int {
	return sort.Search(len(s.index), func(i int) bool {
		if exclusive {
			return s.index[i].pos > pos
		}
		return s.index[i].pos >= pos
	})
}

// read is one partition read whole.
type read struct {
	p     *mutation.Partition
	start int64 // its Data.db offset; -1 when its header did not decode
	end   int64 // the offset after it when the scanner tells; else -1
	notes []string
	fixed int
	// suspect says why the partition may hold damage, if it may.
	suspect string
}

// positioner is a scanner that tells the Data.db offset of the next byte
// it decodes (the 3.x+ row format's).
type positioner interface{ Pos() int64 }

// readPartition reads the next partition of sc whole into memory.
func (s *scrubber) readPartition(sc sstables.Scanner) (*read, error) {
	h, err := sc.NextPartition()
	if err != nil {
		return nil, err
	}
	rd := &read{start: sc.Position(), end: -1}
	p := &mutation.Partition{Key: slices.Clone(h.Key), Deletion: h.Deletion, Static: cloneRow(&h.Static)}
	p.Token = s.part.Token(p.Key)
	for {
		row, m, err := sc.Next()
		if err != nil {
			return rd, err
		}
		if row == nil && m == nil {
			break
		}
		if row != nil {
			p.Rows = append(p.Rows, cloneRow(row))
		} else {
			p.Markers = append(p.Markers, cloneMarker(m))
		}
	}
	if ps, ok := sc.(positioner); ok {
		rd.end = ps.Pos()
	}
	rd.p = p
	return rd, nil
}

// check puts rd's rows in order, repairs overflowed TTLs when asked and
// returns why the partition cannot be written, if it cannot.
func (s *scrubber) check(rd *read) error {
	p, t := rd.p, s.table
	if err := s.ctx.Err(); err != nil {
		return err
	}
	sorted := true
	for i := 1; i < len(p.Rows); i++ {
		if mutation.CompareClusterings(t, p.Rows[i-1].Clustering, p.Rows[i].Clustering) >= 0 {
			sorted = false
			break
		}
	}
	if !sorted {
		slices.SortStableFunc(p.Rows, func(a, b mutation.Row) int { return mutation.CompareClusterings(t, a.Clustering, b.Clustering) })
		merged := p.Rows[:1]
		dups := 0
		for i := 1; i < len(p.Rows); i++ {
			last := &merged[len(merged)-1]
			if mutation.CompareClusterings(t, last.Clustering, p.Rows[i].Clustering) == 0 {
				if err := mutation.MergeRows(last, &p.Rows[i], s.now); err != nil {
					return fmt.Errorf("merging rows with the same clustering: %w", err)
				}
				dups++
				continue
			}
			merged = append(merged, p.Rows[i])
		}
		p.Rows = merged
		note := "rows out of order: sorted"
		if dups > 0 {
			note += fmt.Sprintf(", %d duplicate rows merged", dups)
		}
		rd.notes = append(rd.notes, note)
	}
	if s.opts.ReinsertOverflowedTTL {
		if fixOverflowedTTL(&p.Static) {
			rd.fixed++
		}
		for i := range p.Rows {
			if fixOverflowedTTL(&p.Rows[i]) {
				rd.fixed++
			}
		}
		if rd.fixed > 0 {
			rd.notes = append(rd.notes, fmt.Sprintf("overflowed TTL repaired in %d rows (expiration 2038-01-19T03:14:06Z, timestamp + 1)", rd.fixed))
		}
	}
	if err := p.Validate(t); err != nil {
		return fmt.Errorf("the partition decodes to invalid data: %w", err)
	}
	if s.opts.CapDeletionTimes && !s.target.Version().UIntDeletionTime() && p.CapDeletionTimes(mutation.MaxLegacyDeletionTime, true) {
		rd.notes = append(rd.notes, "deletion times past 2038-01-19T03:14:06Z capped to it (expiration_date_overflow_policy CAP)")
	}
	return s.fits(p)
}

// fixOverflowedTTL gives r's expiring liveness and cells whose expiration
// time overflowed (negative) Cassandra's repair: expiration time
// MaxLegacyDeletionTime, timestamp + 1 (so that the repaired cell wins
// over the damaged one wherever both are read), TTL kept.
func fixOverflowedTTL(r *mutation.Row) bool {
	fixed := false
	if l := &r.Liveness; !l.IsEmpty() && l.IsExpiring() && l.LocalExpirationTime < 0 {
		l.Timestamp++
		l.LocalExpirationTime = mutation.MaxLegacyDeletionTime
		fixed = true
	}
	for i := range r.Cells {
		if c := &r.Cells[i]; c.IsExpiring() && c.LocalDeletionTime < 0 {
			c.Timestamp++
			c.LocalDeletionTime = mutation.MaxLegacyDeletionTime
			fixed = true
		}
	}
	return fixed
}

// fits returns why the target version cannot store p, if it cannot.
func (s *scrubber) fits(p *mutation.Partition) error {
	v := s.target.Version()
	lo, hi := int64(-1<<31), mutation.MaxLegacyDeletionTime
	if v.UIntDeletionTime() {
		lo, hi = 0, mutation.MaxDeletionTime
	}
	var bad int64
	found := false
	chk := func(t int64) {
		if !found && t != mutation.NoDeletionTime && (t < lo || t > hi) {
			bad, found = t, true
		}
	}
	rowTimes := func(r *mutation.Row) {
		chk(r.Liveness.LocalExpirationTime)
		chk(r.Deletion.LocalDeletionTime)
		chk(r.ShadowableDeletion.LocalDeletionTime)
		for i := range r.Cells {
			chk(r.Cells[i].LocalDeletionTime)
		}
		for i := range r.ComplexDeletions {
			chk(r.ComplexDeletions[i].Deletion.LocalDeletionTime)
		}
	}
	chk(p.Deletion.LocalDeletionTime)
	rowTimes(&p.Static)
	for i := range p.Rows {
		rowTimes(&p.Rows[i])
	}
	for i := range p.Markers {
		chk(p.Markers[i].Open.LocalDeletionTime)
		chk(p.Markers[i].Close.LocalDeletionTime)
	}
	if found {
		hint := ""
		if bad < 0 {
			hint = " (an overflowed TTL, CASSANDRA-14092: --reinsert-overflowed-ttl repairs it)"
		}
		return fmt.Errorf("local deletion time %d does not fit version %s%s", bad, v, hint)
	}
	if v.LegacyCells() {
		for i := range p.Rows {
			if p.Rows[i].DeletionShadowable || !p.Rows[i].ShadowableDeletion.IsLive() {
				return fmt.Errorf("a shadowable row deletion, which version %s cannot store", v)
			}
		}
	}
	return nil
}

// run reads the whole input, writing (or, dry, counting) what it rescues.
func (s *scrubber) run() error {
	sc, err := s.r.Scan()
	if err != nil {
		return err
	}
	defer func() {
		if sc != nil {
			sc.Close()
		}
	}()
	lastStart, lastEnd := int64(-1), int64(-1)
	for {
		rd, err := s.readPartition(sc)
		if err == io.EOF {
			break
		}
		if err == nil {
			s.matchIndex(rd)
			s.saw(rd)
			if cerr := s.check(rd); cerr != nil {
				if err := s.ctx.Err(); err != nil {
					return err
				}
				// It decoded but cannot be written: drop it alone and
				// go on from the partition after it.
				end := rd.end
				if end < 0 {
					end = rd.start + 1
					if i := s.after(rd.start, true); i < len(s.index) {
						end = s.index[i].pos
					}
				}
				s.drop(rd.start, end, [][]byte{rd.p.Key}, cerr)
				lastStart, lastEnd = rd.start, rd.end
				continue
			}
		}
		if err == nil {
			if err := s.accept(rd); err != nil {
				return err
			}
			lastStart, lastEnd = rd.start, rd.end
			continue
		}
		if cerr := s.ctx.Err(); cerr != nil {
			return cerr
		}
		// Damage: where did the partition that failed start?
		failStart, exact := int64(0), false
		var keys [][]byte
		switch {
		case rd != nil:
			failStart, exact = rd.start, true
			if rd.p != nil {
				keys = append(keys, rd.p.Key)
			}
		case lastEnd >= 0:
			failStart, exact = lastEnd, true
		case lastStart >= 0:
			if i := s.after(lastStart, true); i < len(s.index) {
				failStart = s.index[i].pos
			} else {
				failStart = lastStart + 1
			}
		}
		sc.Close()
		sc = nil
		next, nrd := s.resync(failStart, exact)
		end := s.dataLength
		if nrd != nil {
			end = nrd.start
		}
		s.drop(failStart, end, keys, err)
		if nrd == nil {
			break
		}
		s.saw(nrd)
		sc = next
		if err := s.accept(nrd); err != nil {
			return err
		}
		lastStart, lastEnd = nrd.start, nrd.end
	}
	s.unfound()
	return nil
}

// matchIndex compares the key of a partition read in sequence with the
// one Index.db gives for its offset. When they differ, one of the two is
// damaged: Filter.db, which holds every key the writer wrote, decides —
// a Data.db key it does not hold is replaced by Index.db's (Cassandra's
// Scrubber, on a mismatch, retries with the index key), and an Index.db
// key it does not hold is only a warning. When Filter.db cannot tell,
// Data.db's key is kept and the partition reported suspect.
func (s *scrubber) matchIndex(rd *read) {
	i := s.after(rd.start, false)
	if i >= len(s.index) || s.index[i].pos != rd.start || bytes.Equal(s.index[i].key, rd.p.Key) {
		return
	}
	e := s.index[i]
	dataKey, indexKey := mutation.FormatKey(s.table, rd.p.Key), mutation.FormatKey(s.table, e.key)
	inData, inIndex := true, true
	if s.filter != nil {
		inData, inIndex = s.filter.MightContain(rd.p.Key), s.filter.MightContain(e.key)
	}
	switch {
	case inIndex && !inData:
		rd.notes = append(rd.notes, fmt.Sprintf("partition key %s taken from Index.db: Data.db's %s is not in Filter.db (damaged)", indexKey, dataKey))
		rd.p.Key = slices.Clone(e.key)
		rd.p.Token = s.part.Token(rd.p.Key)
	case inData && !inIndex:
		s.rep.Warnings = append(s.rep.Warnings, fmt.Sprintf("%s: Index.db's key %s for the partition at Data.db offset %d is not in Filter.db (damaged); Data.db's %s kept", s.desc, indexKey, rd.start, dataKey))
	default:
		rd.suspect = fmt.Sprintf("Data.db and Index.db disagree on the key at this offset (Index.db: %s) and Filter.db cannot tell which is damaged; Data.db's kept", indexKey)
	}
}

// saw records a partition read whole.
func (s *scrubber) saw(rd *read) {
	if s.seenKeys == nil {
		s.seenKeys = map[uint64]struct{}{}
	}
	if n := len(s.readStarts); n == 0 || s.readStarts[n-1] < rd.start {
		s.readStarts = append(s.readStarts, rd.start)
	}
	s.seenKeys[keyHash(rd.p.Key)] = struct{}{}
}

// keyHash is FNV-1a of a key.
func keyHash(k []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range k {
		h ^= uint64(b)
		h *= 1099511628211
	}
	return h
}

// unfound drops the Index.db entries that the scan never found — a
// partition neither read at the entry's offset nor by the entry's key,
// nor inside a dropped range (a Data.db cut at a partition boundary ends
// cleanly, and only Index.db knows what followed). An entry damaged in
// its key or in its offset alone still matches by the other, and one
// whose key is empty or not in Filter.db names no partition that was
// written.
func (s *scrubber) unfound() {
	inDrop := func(pos int64) bool {
		for _, d := range s.rep.Dropped {
			if d.Offset <= pos && pos < d.End {
				return true
			}
		}
		return false
	}
	damaged := 0
	found := func(e indexEntry) bool {
		if _, ok := slices.BinarySearch(s.readStarts, e.pos); ok {
			return true
		}
		if _, ok := s.seenKeys[keyHash(e.key)]; ok {
			return true
		}
		if inDrop(e.pos) {
			return true
		}
		if len(e.key) == 0 || s.filter != nil && !s.filter.MightContain(e.key) {
			// No partition of that key was written (no partition key
			// is empty): the entry is damaged (a flipped key length
			// desyncs the entries after it), not a partition lost.
			damaged++
			return true
		}
		return false
	}
	defer func() {
		if damaged > 0 {
			s.rep.Warnings = append(s.rep.Warnings, fmt.Sprintf("%s: %d Index.db entries name keys Filter.db does not hold (damaged entries, not partitions lost)", s.desc, damaged))
		}
	}()
	for i := 0; i < len(s.index); {
		if found(s.index[i]) {
			i++
			continue
		}
		j := i
		for j < len(s.index) && !found(s.index[j]) {
			j++
		}
		start := min(s.index[i].pos, s.dataLength)
		end := s.dataLength
		if j < len(s.index) {
			end = min(s.index[j].pos, s.dataLength)
		}
		d := Drop{Offset: start, End: max(start, end), Partitions: int64(j - i),
			Reason: fmt.Sprintf("Index.db places %d partitions from Data.db offset %d on that the scan never found (Data.db is %d bytes: cut short, or damaged so that a partition before them swallowed them)", j-i, s.index[i].pos, s.dataLength)}
		for k := i; k < j && len(d.Keys) < MaxKeysPerDrop; k++ {
			d.Keys = append(d.Keys, mutation.FormatKey(s.table, s.index[k].key))
		}
		s.rep.Dropped = append(s.rep.Dropped, d)
		s.rep.LostPartitions += d.Partitions
		s.rep.LostBytes += d.End - d.Offset
		i = j
	}
}

// resync returns a scanner positioned after the first partition it can
// read at a resync point after failStart (at it, unless exact), and that
// partition; nil when there is none.
func (s *scrubber) resync(failStart int64, exact bool) (sstables.Scanner, *read) {
	ps, ok := s.r.(sstables.PositionScanner)
	if !ok {
		return nil, nil
	}
	for i := s.after(failStart, exact); i < len(s.index); i++ {
		e := s.index[i]
		if e.pos >= s.dataLength || s.ctx.Err() != nil {
			return nil, nil
		}
		sc, err := ps.ScanAt(e.pos)
		if err != nil {
			continue
		}
		rd, err := s.readPartition(sc)
		if err == nil && rd.start == e.pos && bytes.Equal(rd.p.Key, e.key) && s.check(rd) == nil {
			return sc, rd
		}
		sc.Close()
	}
	return nil, nil
}

// drop records that [start, end) of Data.db is lost because of err.
func (s *scrubber) drop(start, end int64, keys [][]byte, err error) {
	if end < start {
		end = start
	}
	d := Drop{Offset: start, End: end, Reason: err.Error()}
	seen := map[string]bool{}
	addKey := func(k []byte) {
		if len(d.Keys) < MaxKeysPerDrop && !seen[string(k)] {
			seen[string(k)] = true
			d.Keys = append(d.Keys, mutation.FormatKey(s.table, k))
		}
	}
	for _, k := range keys {
		addKey(k)
	}
	for i := s.after(start, false); i < len(s.index) && s.index[i].pos < end; i++ {
		d.Partitions++
		addKey(s.index[i].key)
	}
	if d.Partitions == 0 && (end > start || len(keys) > 0) {
		d.Partitions = 1
	}
	s.rep.Dropped = append(s.rep.Dropped, d)
	s.rep.LostPartitions += d.Partitions
	s.rep.LostBytes += end - start
}

// accept writes a partition that read and checked, or holds it back when
// it is out of order.
func (s *scrubber) accept(rd *read) error {
	p := rd.p
	key := mutation.FormatKey(s.table, p.Key)
	for _, n := range rd.notes {
		s.rep.Changed = append(s.rep.Changed, Change{Key: key, Offset: rd.start, What: n})
	}
	s.rep.FixedRows += rd.fixed
	if rd.suspect != "" {
		s.rep.Suspect = append(s.rep.Suspect, Change{Key: key, Offset: rd.start, What: rd.suspect})
	} else if s.inBadChunk(rd) {
		s.rep.Suspect = append(s.rep.Suspect, Change{Key: key, Offset: rd.start, What: "kept from an uncompressed chunk whose CRC.db checksum fails"})
	}
	if s.opts.Progress != nil {
		s.opts.Progress(max(0, rd.start-s.reported), int64(len(p.Rows)))
		s.reported = max(s.reported, rd.start)
	}
	if s.prevKey != nil && dht.ComparePartitions(s.prevToken, s.prevKey, p.Token, p.Key) >= 0 {
		s.rep.OutOfOrderPartitions++
		s.rep.Changed = append(s.rep.Changed, Change{Key: key, Offset: rd.start,
			What: fmt.Sprintf("out of order (after %s): written, in order, to the second SSTable", mutation.FormatKey(s.table, s.prevKey))})
		if !s.dry {
			s.outOfOrder = append(s.outOfOrder, p)
		}
		return nil
	}
	s.prevKey, s.prevToken = p.Key, p.Token
	s.rep.Partitions++
	s.rep.Rows += int64(len(p.Rows))
	if s.dry {
		return nil
	}
	if s.main == nil {
		w, err := s.newWriter()
		if err != nil {
			return err
		}
		s.main = w
	}
	if err := s.main.Append(p); err != nil {
		return fmt.Errorf("%s: writing partition %s: %w", s.desc, key, err)
	}
	return nil
}

// inBadChunk reports whether rd lies in an uncompressed chunk whose CRC.db
// checksum fails.
func (s *scrubber) inBadChunk(rd *read) bool {
	end := rd.end
	if end < 0 {
		end = rd.start + 1
		if i := s.after(rd.start, true); i < len(s.index) {
			end = s.index[i].pos
		}
	}
	for _, c := range s.badChunks {
		if c.start < end && rd.start < c.end {
			return true
		}
	}
	return false
}

// newWriter starts the next output SSTable.
func (s *scrubber) newWriter() (sstables.Writer, error) {
	params := s.params
	wopts := sstables.WriterOptions{
		Dir:             s.opts.Dir,
		FS:              s.opts.FS,
		Generation:      s.gen,
		Compression:     &params,
		Jobs:            s.opts.Jobs,
		ColumnIndexSize: s.opts.ColumnIndexSize,
		// A ScyllaDB shadowable deletion keeps ScyllaDB's encoding
		// (Cassandra's kind keeps its own either way).
		ScyllaShadowable: true,
	}
	if s.opts.UUIDIdentifiers {
		wopts.Generation = 0
		wopts.UUID = sstables.NewUUIDID().String()
	} else {
		s.gen++
	}
	sstables.CarryOver(s.r, &wopts)
	wopts.ExpectedPartitions = 0 // what is written, not what the input held
	if s.repaired {
		wopts.Metadata.RepairedAt = 0
	}
	w, err := s.target.NewWriter(s.table, wopts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.desc, err)
	}
	s.writers = append(s.writers, w)
	return w, nil
}

// finish writes the held-back partitions, sorted and merged by key, to
// the second SSTable and finishes the outputs.
func (s *scrubber) finish() error {
	var w2 sstables.Writer
	if len(s.outOfOrder) > 0 {
		ps := s.outOfOrder
		slices.SortStableFunc(ps, func(a, b *mutation.Partition) int {
			return dht.ComparePartitions(a.Token, a.Key, b.Token, b.Key)
		})
		merged := ps[:1]
		for _, p := range ps[1:] {
			last := merged[len(merged)-1]
			if bytes.Equal(last.Key, p.Key) {
				if err := mutation.Merge(s.table, last, p, s.now); err != nil {
					return fmt.Errorf("%s: merging partition %s: %w", s.desc, mutation.FormatKey(s.table, p.Key), err)
				}
				continue
			}
			merged = append(merged, p)
		}
		var err error
		if w2, err = s.newWriter(); err != nil {
			return err
		}
		for _, p := range merged {
			if err := w2.Append(p); err != nil {
				return fmt.Errorf("%s: writing out-of-order partition %s: %w", s.desc, mutation.FormatKey(s.table, p.Key), err)
			}
			s.rep.Partitions++
			s.rep.Rows += int64(len(p.Rows))
		}
	}
	for _, w := range []sstables.Writer{s.main, w2} {
		if w == nil {
			continue
		}
		res, err := w.Finish()
		if err != nil {
			return err
		}
		s.rep.Results = append(s.rep.Results, res)
		s.rep.Outputs = append(s.rep.Outputs, res.Descriptor.Path(sstables.ComponentData))
	}
	return nil
}

// cloneRow deep-copies r (scanners reuse what they return).
func cloneRow(r *mutation.Row) mutation.Row {
	c := *r
	c.Clustering = cloneClustering(r.Clustering)
	if r.Cells != nil {
		c.Cells = make([]mutation.Cell, len(r.Cells))
		for i, cell := range r.Cells {
			cell.Path = cloneBytes(cell.Path)
			cell.Value = cloneBytes(cell.Value)
			c.Cells[i] = cell
		}
	}
	c.ComplexDeletions = slices.Clone(r.ComplexDeletions)
	return c
}

func cloneMarker(m *mutation.RangeTombstoneMarker) mutation.RangeTombstoneMarker {
	c := *m
	c.Clustering = cloneClustering(m.Clustering)
	return c
}

func cloneClustering(c mutation.Clustering) mutation.Clustering {
	if c == nil {
		return nil
	}
	out := make(mutation.Clustering, len(c))
	for i, v := range c {
		out[i] = cloneBytes(v)
	}
	return out
}

// cloneBytes copies b, keeping nil and empty apart.
func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}
