package bulk

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// SortedSink writes partition updates that arrive in token order into
// SSTables without a memtable, the counterpart of Cassandra's
// CQLSSTableWriter.sorted(): input already sorted (castable export, cqlsh
// COPY TO, a sort by token) needs no sorted index, only to be gathered.
// Updates are appended, copied, to a flat buffer in the order they come;
// when the buffer holds MemtableSize bytes it is handed to a background
// writer while a second buffer fills (memory is bounded by two buffers,
// whatever the input), and the buffers are reused, so the steady state
// allocates nothing. An update of the same partition as the one before it
// (a partition cut into several updates by the reader) is merged into it
// as a memtable merges; an update whose partition comes before the
// previous one in token order is an error.
//
// What it writes is what a MemtableSink writes for the same updates: each
// SSTable has the statistics (serialization header minima, columns) and
// the exact partition count of the data it holds, as a flush's does, so
// for data that fits one buffer the files are byte for byte those of a
// MemtableSink of the same size. The buffers fill with fewer bytes than a
// memtable's, so SSTables split at other points.
//
// It takes the updates INSERT statements make — CSV records (ReadCSV):
// cells, cell tombstones, row liveness and collection (complex) deletions.
// An update with a partition deletion, a row deletion or range tombstones
// is an error (a memtable purges what those shadow; this sink does not),
// as is one whose key or clustering values exceed Cassandra's 64 KiB limit.
//
// Apply is called from one goroutine; Close must be called once, at the
// end.
type SortedSink struct {
	ctx   context.Context
	table *schema.Table
	opts  SinkOptions
	part  dht.Partitioner
	perr  error
	now   int64 // the merge time, opts.Now in seconds

	cur  *sortedBuffer
	free chan *sortedBuffer // buffers the writer is done with
	writeQueue[*sortedBuffer]

	// The last partition applied, for the order check across buffers.
	lastToken dht.Token
	lastKey   []byte
	hasLast   bool

	applied int
}

// NewSortedSink returns a sink writing SSTables of table t from updates in
// token order; ctx bounds its writes. opts are a MemtableSink's
// (MemtableSize is the size of each of its two buffers; Verbatim does not
// apply).
func NewSortedSink(ctx context.Context, t *schema.Table, opts SinkOptions) *SortedSink {
	if opts.MemtableSize <= 0 {
		opts.MemtableSize = DefaultMemtableSize
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if opts.OnFlushed == nil {
		opts.OnFlushed = func([]*sstables.WriteResult) {}
	}
	part, err := dht.Lookup(t.Options.Partitioner)
	if err != nil {
		err = fmt.Errorf("table %s.%s: the partitioner of its schema options: %w", t.Keyspace, t.Name, err)
	}
	s := &SortedSink{ctx: ctx, table: t, opts: opts, part: part, perr: err, now: opts.Now.Unix(),
		free: make(chan *sortedBuffer, 2), writeQueue: newWriteQueue[*sortedBuffer]()}
	s.cur = newSortedBuffer(t, part)
	s.free <- newSortedBuffer(t, part)
	go s.writer()
	return s
}

// Apply appends a partition update (copied; the caller may reuse p). It
// returns ErrStopped once a write failed (Close reports why).
func (s *SortedSink) Apply(p *mutation.Partition, _ int) error {
	if s.failed.Load() {
		return ErrStopped
	}
	if s.perr != nil {
		return s.perr
	}
	if err := checkInsertOnly(p); err != nil {
		return err
	}
	if s.opts.CapDeletionTimes && !s.opts.Format.Version().UIntDeletionTime() {
		p.CapDeletionTimes(mutation.MaxLegacyDeletionTime, true)
	}
	token := s.part.Token(p.Key)
	same := false
	if s.hasLast {
		switch c := dht.ComparePartitions(token, p.Key, s.lastToken, s.lastKey); {
		case c < 0:
			return fmt.Errorf("partition %s comes before partition %s in token order (token %s < %s): input written with a sorted sink must be in token order",
				mutation.FormatKey(s.table, p.Key), mutation.FormatKey(s.table, s.lastKey), s.part.String(token), s.part.String(s.lastToken))
		case c == 0:
			same = true
		}
	}
	if !same {
		s.lastKey = append(s.lastKey[:0], p.Key...)
		s.lastToken = tokenOfCopy(s.part, token, s.lastKey)
		s.hasLast = true
	}
	b := s.cur
	if err := b.add(p, token, same && b.len() > 0, s.now); err != nil {
		return err
	}
	if s.applied++; s.applied&1023 == 0 {
		if err := s.ctx.Err(); err != nil {
			return err
		}
	}
	if b.size >= s.opts.MemtableSize {
		return s.rotate()
	}
	return nil
}

// checkInsertOnly rejects what a sorted sink does not take: deletions that
// shadow other data, and keys past Cassandra's limits.
func checkInsertOnly(p *mutation.Partition) error {
	switch {
	case !p.Deletion.IsLive():
		return errors.New("a partition deletion cannot be written without a memtable (the sorted sink takes inserts)")
	case len(p.Markers) > 0:
		return errors.New("range tombstones cannot be written without a memtable (the sorted sink takes inserts)")
	case len(p.Key) > maxKeyComponent:
		return fmt.Errorf("partition key of %d bytes exceeds Cassandra's 65535-byte limit", len(p.Key))
	case p.Static.Deletion != (mutation.DeletionTime{}) && !p.Static.Deletion.IsLive():
		return errors.New("a row deletion cannot be written without a memtable (the sorted sink takes inserts)")
	}
	for i := range p.Rows {
		r := &p.Rows[i]
		if !r.Deletion.IsLive() || !r.ShadowableDeletion.IsLive() {
			return errors.New("a row deletion cannot be written without a memtable (the sorted sink takes inserts)")
		}
		for j, v := range r.Clustering {
			if len(v) > maxKeyComponent {
				return fmt.Errorf("clustering value %d of %d bytes exceeds Cassandra's 65535-byte limit", j, len(v))
			}
		}
	}
	return nil
}

// maxKeyComponent is Cassandra's limit on a partition key and on each
// clustering value (FBUtilities.MAX_UNSIGNED_SHORT), as the memtable
// enforces it.
const maxKeyComponent = 0xFFFF

// rotate hands the full buffer to the writer and takes the other one.
func (s *SortedSink) rotate() error {
	select {
	case s.queue <- s.cur:
	case <-s.done:
		return ErrStopped
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
	select {
	case s.cur = <-s.free:
		return nil
	case <-s.done:
		return ErrStopped
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

// writer writes the buffers it receives, one at a time, and gives them
// back emptied.
func (s *SortedSink) writer() {
	defer close(s.done)
	gen := s.opts.Writer.Generation
	for b := range s.queue {
		if !s.failed.Load() {
			res, err := s.write(b, gen)
			gen += len(res)
			s.record(res, err)
			s.opts.OnFlushed(res)
		}
		b.reset()
		s.free <- b
	}
}

// Close writes what is left (when ok), waits for the writer and returns
// the SSTables written, in the order they were written; on failure it
// removes them, as MemtableSink.Close does.
func (s *SortedSink) Close(ok bool) ([]*sstables.WriteResult, error) {
	return s.close(s.ctx, s.cur, s.cur.len() > 0, ok)
}

// write writes the buffer as one SSTable of generation gen, as a flush
// writes a memtable (flush.Flush: the exact partition count, the data's
// statistics), or with a size cap as several (splitFlush).
func (s *SortedSink) write(b *sortedBuffer, gen int) ([]*sstables.WriteResult, error) {
	opts := flush.Options{Format: s.opts.Format, WriterOptions: s.opts.Writer}
	opts.Generation = gen
	if s.opts.UUIDs {
		opts.Generation = 0
	}
	stats := flush.WriterStats(b.stats)
	if s.opts.MaxSSTableSize > 0 {
		return writeSplit(s.ctx, s.table, opts, stats, b.ascend, s.opts.MaxSSTableSize, s.opts.UUIDs)
	}
	wopts := opts.WriterOptions
	if s.opts.UUIDs {
		wopts.UUID = sstables.NewUUIDID().String()
	}
	wopts.ExpectedPartitions = int64(b.len())
	wopts.Stats = stats
	w, err := opts.Format.NewWriter(s.table, wopts)
	if err != nil {
		return nil, fmt.Errorf("write into %s: %w", opts.Dir, err)
	}
	err = b.ascend(func(p *mutation.Partition) error { return w.Append(p) })
	if err == nil {
		err = s.ctx.Err()
	}
	var res *sstables.WriteResult
	if err == nil {
		res, err = w.Finish()
	}
	if err != nil {
		if aerr := w.Abort(); aerr != nil {
			err = errors.Join(err, fmt.Errorf("abort: %w", aerr))
		}
		if s.opts.UUIDs {
			return nil, fmt.Errorf("write into %s: %w", opts.Dir, err)
		}
		return nil, fmt.Errorf("write into %s generation %d: %w", opts.Dir, gen, err)
	}
	return []*sstables.WriteResult{res}, nil
}

// sortedBuffer holds partitions in the order they were applied, their
// parts in blocks that are kept and reused once the buffer is written, so
// that a buffer's memory stops growing after its first fill and nothing
// copied into it is ever moved.
type sortedBuffer struct {
	t      *schema.Table
	part   dht.Partitioner
	stats  *mutation.Stats
	parts  blocks[mutation.Partition]
	rows   blocks[mutation.Row]
	cells  blocks[mutation.Cell]
	cds    blocks[mutation.ComplexDeletion]
	clusts blocks[[]byte]
	data   blocks[byte]
	size   int64 // bytes held, for the flush threshold
	// lastRows is the last partition's rows while they are the run most
	// recently taken from rows, so that an update continuing the
	// partition extends them when its rows come next in the same block;
	// nil once a merge moved them.
	lastRows []mutation.Row
}

func newSortedBuffer(t *schema.Table, part dht.Partitioner) *sortedBuffer {
	return &sortedBuffer{t: t, part: part, stats: mutation.NewStats(t),
		parts: blocks[mutation.Partition]{n: 1024}, rows: blocks[mutation.Row]{n: 4096}, cells: blocks[mutation.Cell]{n: 8192},
		cds: blocks[mutation.ComplexDeletion]{n: 1024}, clusts: blocks[[]byte]{n: 8192}, data: blocks[byte]{n: 1 << 20}}
}

// reset empties the buffer, keeping its blocks.
func (b *sortedBuffer) reset() {
	b.parts.reset()
	b.rows.reset()
	b.cells.reset()
	b.cds.reset()
	b.clusts.reset()
	b.data.reset()
	b.stats = mutation.NewStats(b.t)
	b.size, b.lastRows = 0, nil
}

// len returns the number of partitions held.
func (b *sortedBuffer) len() int { return b.parts.taken }

// ascend calls fn with each partition in order.
func (b *sortedBuffer) ascend(fn func(*mutation.Partition) error) error {
	return b.parts.each(fn)
}

// Per-element sizes counted towards the flush threshold.
const (
	partitionSize = int64(unsafe.Sizeof(mutation.Partition{}))
	rowSize       = int64(unsafe.Sizeof(mutation.Row{}))
	cellSize      = int64(unsafe.Sizeof(mutation.Cell{}))
	cdSize        = int64(unsafe.Sizeof(mutation.ComplexDeletion{}))
	sliceSize     = int64(unsafe.Sizeof([]byte(nil)))
)

// add copies p, whose token is token, into the buffer: as a new
// partition, or, with merge, into the last one (the same partition).
func (b *sortedBuffer) add(p *mutation.Partition, token dht.Token, merge bool, now int64) error {
	b.stats.AddPartition(p)
	var cp *mutation.Partition
	var upd mutation.Partition // the update to merge into the last partition
	if merge {
		cp = &upd
	} else {
		// Copy straight into the partition's place in the buffer.
		cp = &b.parts.take(1)[0]
		cp.Key = b.copyBytes(p.Key)
		cp.Token = tokenOfCopy(b.part, token, cp.Key)
		cp.Markers = nil
		b.size += partitionSize
	}
	cp.Deletion = p.Deletion
	b.copyRow(&cp.Static, &p.Static)
	cp.Rows = nil
	follows := false
	if len(p.Rows) > 0 {
		cp.Rows = b.rows.take(len(p.Rows))
		follows = b.rows.follows
		for i := range p.Rows {
			b.copyRow(&cp.Rows[i], &p.Rows[i])
		}
		b.size += int64(len(p.Rows)) * rowSize
	}
	if !merge {
		b.lastRows = cp.Rows
		return nil
	}
	last := b.parts.last()
	switch {
	case len(cp.Rows) == 0:
	case len(last.Rows) == 0:
		last.Rows, cp.Rows = cp.Rows, nil
		b.lastRows = last.Rows
	case follows && sameRun(last.Rows, b.lastRows) &&
		mutation.CompareClusterings(b.t, last.Rows[len(last.Rows)-1].Clustering, cp.Rows[0].Clustering) < 0:
		// The update continues the partition (the reader cut it) and its
		// rows were taken right after the last ones, from the same block.
		last.Rows = unsafe.Slice(&last.Rows[0], len(last.Rows)+len(cp.Rows))
		cp.Rows = nil
		b.lastRows = last.Rows
	default:
		b.lastRows = nil // mutation.Merge puts the merged rows elsewhere
	}
	return mutation.Merge(b.t, last, cp, now)
}

// sameRun reports whether a and b are the same run of rows.
func sameRun(a, b []mutation.Row) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// tokenOfCopy returns the token of a copy of a key whose token is token:
// the same, but for a key-ordered partitioner, whose tokens refer to their
// key's bytes, the copy's own.
func tokenOfCopy(part dht.Partitioner, token dht.Token, key []byte) dht.Token {
	if part.PreservesOrder() {
		return part.Token(key)
	}
	return token
}

// copyRow copies src into dst, its cells, values, paths and clustering in
// the buffer's blocks.
func (b *sortedBuffer) copyRow(dst, src *mutation.Row) {
	*dst = *src
	if src.Clustering != nil {
		c := b.clusts.take(len(src.Clustering))
		for i, v := range src.Clustering {
			c[i] = b.copyBytes(v)
		}
		dst.Clustering = c
		b.size += int64(len(c)) * sliceSize
	}
	if len(src.Cells) > 0 {
		cells := b.cells.take(len(src.Cells))
		for i := range src.Cells {
			c := &cells[i]
			*c = src.Cells[i]
			c.Path, c.Value = b.copyBytes(c.Path), b.copyBytes(c.Value)
		}
		dst.Cells = cells
		b.size += int64(len(cells)) * cellSize
	}
	if len(src.ComplexDeletions) > 0 {
		cds := b.cds.take(len(src.ComplexDeletions))
		copy(cds, src.ComplexDeletions)
		dst.ComplexDeletions = cds
		b.size += int64(len(cds)) * cdSize
	}
}

// copyBytes copies v into the data blocks; nil stays nil (a null value is
// not an empty one).
func (b *sortedBuffer) copyBytes(v []byte) []byte {
	if v == nil {
		return nil
	}
	if len(v) == 0 {
		return emptyValue
	}
	d := b.data.take(len(v))
	copy(d, v)
	b.size += int64(len(v))
	return d
}

// blocks hands out runs of T from blocks of n elements that it keeps and
// reuses after reset; a run of more than an eighth of a block gets an
// allocation of its own. A run is never moved and its capacity ends with
// it, so appending to one never writes over the next.
type blocks[T any] struct {
	n       int   // elements a block
	blocks  [][]T // every block made, in the order they are used
	cur     int   // the block in use (len(blocks) when none is yet)
	used    int   // elements of blocks[cur] handed out
	taken   int   // runs handed out since reset
	lastB   int   // where the last run was taken, for last
	lastI   int
	lastLen int
	// follows says the last run taken directly follows the one taken
	// before it, in the same block.
	follows bool
}

// take returns a run of k elements (nil for 0), holding what they held
// before (the caller overwrites them).
func (s *blocks[T]) take(k int) []T {
	if k == 0 {
		return nil
	}
	s.taken++
	s.follows = false
	if k > s.n/8 {
		s.lastLen = 0 // what follows does not follow this
		return make([]T, k)
	}
	s.follows = s.cur < len(s.blocks) && s.used > 0 && s.used+k <= len(s.blocks[s.cur]) && s.lastB == s.cur && s.lastI+s.lastLen == s.used
	if s.cur == len(s.blocks) || s.used+k > len(s.blocks[s.cur]) {
		if s.cur < len(s.blocks) {
			s.cur++
		}
		if s.cur == len(s.blocks) {
			s.blocks = append(s.blocks, make([]T, s.n))
		}
		s.used = 0
	}
	r := s.blocks[s.cur][s.used : s.used+k : s.used+k]
	s.lastB, s.lastI, s.lastLen = s.cur, s.used, k
	s.used += k
	return r
}

// last returns the element of the last run taken (of one element: the
// partitions).
func (s *blocks[T]) last() *T { return &s.blocks[s.lastB][s.lastI] }

// each calls fn with every element handed out, in order (for runs of one
// element: the partitions, which are never big).
func (s *blocks[T]) each(fn func(*T) error) error {
	for i := 0; i <= s.cur && i < len(s.blocks); i++ {
		n := len(s.blocks[i])
		if i == s.cur {
			n = s.used
		}
		for j := range n {
			if err := fn(&s.blocks[i][j]); err != nil {
				return err
			}
		}
	}
	return nil
}

// reset forgets every run, keeping the blocks.
func (s *blocks[T]) reset() {
	s.cur, s.used, s.taken, s.lastLen, s.follows = 0, 0, 0, 0, false
}
