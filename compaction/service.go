package compaction

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// ServiceOptions configure a Service. The zero value of each field means
// the default its comment gives.
type ServiceOptions struct {
	// Dir is the table's directory (required); FS its filesystem (nil: the
	// OS's, which must report modification times: sstables.ModTimeFS).
	Dir string
	FS  sstables.FS
	// Table is the table's schema (required).
	Table *schema.Table
	// Format is the version compactions write; nil means the newest among
	// their inputs.
	Format sstables.Format
	// Generations gives the outputs their generations; share it with the
	// flush.Service writing into Dir. Nil means a counter of the service's
	// own (then only the service may write into Dir).
	Generations *sstables.Generations
	// STCS are the size-tiered options (the table's compaction map;
	// ParseSTCSOptions); the zero value is Cassandra's defaults.
	STCS STCSOptions
	// MaxConcurrent is the number of compactions that run at once; 0 means
	// 1 (Cassandra's concurrent_compactors on small nodes).
	MaxConcurrent int
	// Interval is how often the service looks for work without being told
	// (Notify); 0 means 1 minute, as Cassandra's background check.
	Interval time.Duration
	// Now returns the time; nil means time.Now.
	Now func() time.Time
	// Jobs is the compression goroutines of one compaction; 0 means 1.
	Jobs int
	// OnCompacted is called after a compaction replaced its inputs.
	OnCompacted func(inputs []sstables.Descriptor, outputs []*sstables.WriteResult)
	// OnError is called when a compaction failed (its inputs stay); one
	// stopped by Close is not a failure.
	OnError func(inputs []sstables.Descriptor, err error)
}

// Service compacts one table's SSTables in the background, as an embedded
// node's compaction: Cassandra 3.11's size-tiered strategy picks what to
// compact, Compact merges it, and the swap from inputs to outputs is a
// transaction (the log Cassandra keeps, replayed by NewService), so that a
// crash at any moment leaves either the inputs or the outputs. Readers take
// a View (Acquire) and Release it: an SSTable compacted away stays
// readable, and on disk, until the last view holding it is released.
type Service struct {
	opts   ServiceOptions
	fsys   sstables.FS
	ctx    context.Context
	cancel context.CancelFunc
	wake   chan struct{}
	wg     sync.WaitGroup
	gens   *sstables.Generations
	// replayed is what NewService's replay did.
	replayed *ReplayReport

	mu      sync.Mutex
	live    []*entry          // the SSTables reads see, oldest first
	waiting map[*Txn][]*entry // replaced SSTables by the transaction that replaced them
	running int
	closed  bool
	err     error
	stats   ServiceStats
}

// ServiceStats are a service's running totals.
type ServiceStats struct {
	Compactions, Failures int64
	// InputBytes and OutputBytes are Data.db sizes on disk.
	InputBytes, OutputBytes int64
	Partitions, Rows        int64
	Elapsed                 time.Duration
}

// entry is one SSTable the service knows, with its readers' references.
type entry struct {
	desc       sstables.Descriptor
	reader     sstables.Reader
	refs       int  // views holding it
	compacting bool // taken by a running compaction
	obsolete   bool // replaced: gone once refs reach 0
	txn        *Txn // the committed transaction that replaced it
	info       SSTableInfo
}

// NewService replays the transactions a crash left in Dir (so that Dir
// holds either their inputs or their outputs), removes temporary files
// (sstables.CleanupTemporary), opens every SSTable of Dir and starts the
// background loop. Create it before the flush.Service of Dir, which must
// not clean the directory before the replay has run.
func NewService(ctx context.Context, opts ServiceOptions) (*Service, error) {
	if opts.Dir == "" || opts.Table == nil {
		return nil, errors.New("compaction: a service needs a directory and a table")
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = sstables.OSFS
	}
	if err := fsys.MkdirAll(opts.Dir); err != nil {
		return nil, err
	}
	replayed, err := ReplayTransactions(fsys, opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("compaction: replaying the transactions of %s: %w", opts.Dir, err)
	}
	if _, err := sstables.CleanupTemporary(fsys, opts.Dir); err != nil {
		return nil, fmt.Errorf("compaction: cleaning %s: %w", opts.Dir, err)
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 1
	}
	if opts.Interval <= 0 {
		opts.Interval = time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Jobs <= 0 {
		opts.Jobs = 1
	}
	gens := opts.Generations
	if gens == nil {
		var err error
		if gens, err = sstables.NewGenerations(fsys, opts.Dir); err != nil {
			return nil, err
		}
	}
	s := &Service{opts: opts, fsys: fsys, wake: make(chan struct{}, 1), gens: gens, replayed: replayed}
	descs, err := sstables.ListSSTables(fsys, opts.Dir)
	if err != nil {
		return nil, err
	}
	for _, d := range descs {
		if err := s.add(d); err != nil {
			s.closeReaders()
			return nil, err
		}
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.wg.Add(1)
	go s.loop()
	return s, nil
}

// Replayed returns what NewService found of interrupted transactions and
// did with them.
func (s *Service) Replayed() *ReplayReport { return s.replayed }

// Add makes a new SSTable of Dir (a flush's) part of the table and looks
// for work.
func (s *Service) Add(d sstables.Descriptor) error {
	if err := s.add(d); err != nil {
		return err
	}
	s.Notify()
	return nil
}

func (s *Service) add(d sstables.Descriptor) error {
	r, err := sstables.OpenAny(d, s.opts.Table, sstables.ReaderOptions{FS: s.fsys, ReadAhead: 2})
	if err != nil {
		return err
	}
	info, err := InfoOf(s.fsys, r)
	if err != nil {
		r.Close()
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		r.Close()
		return errors.New("compaction: service closed")
	}
	s.live = append(s.live, &entry{desc: d, reader: r, info: info})
	return nil
}

// InfoOf returns what the size-tiered strategy needs of an open SSTable.
func InfoOf(fsys sstables.FS, r sstables.Reader) (SSTableInfo, error) {
	d := r.Descriptor()
	info := SSTableInfo{Descriptor: d, Stats: &r.Statistics().Stats}
	if dr, ok := r.(sstables.DataFileReader); ok {
		info.DataSize = dr.DataFile().FileSize()
	}
	fsys = orOSFS(fsys)
	info.BytesOnDisk = info.DataSize
	if tr, ok := r.(sstables.TOCReader); ok && tr.TOC() != nil {
		info.BytesOnDisk = 0
		for _, c := range tr.TOC().Present {
			if f, err := fsys.Open(d.Path(c)); err == nil {
				if n, err := f.Size(); err == nil {
					info.BytesOnDisk += n
				}
				f.Close()
			}
		}
	}
	if t, err := sstables.ModTime(fsys, d.Path(sstables.ComponentData)); err == nil {
		info.Created = t
	}
	st := &r.Statistics().Stats
	if len(st.FirstKey) > 0 {
		p := r.Partitioner()
		info.First = Partition{Token: p.Token(st.FirstKey), Key: st.FirstKey}
		info.Last = Partition{Token: p.Token(st.LastKey), Key: st.LastKey}
	}
	return info, nil
}

func orOSFS(fsys sstables.FS) sstables.FS {
	if fsys == nil {
		return sstables.OSFS
	}
	return fsys
}

// View is a consistent set of a table's SSTables for reading: they stay
// open and on disk until Release, whatever compactions do meanwhile.
type View struct {
	s       *Service
	entries []*entry
	once    sync.Once
}

// Acquire returns the live SSTables as they are now.
func (s *Service) Acquire() *View {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := &View{s: s, entries: slices.Clone(s.live)}
	for _, e := range v.entries {
		e.refs++
	}
	return v
}

// Readers returns the view's SSTable readers (valid until Release).
func (v *View) Readers() []sstables.Reader {
	out := make([]sstables.Reader, len(v.entries))
	for i, e := range v.entries {
		out[i] = e.reader
	}
	return out
}

// Release gives the view's SSTables back; those compacted away meanwhile
// are closed and deleted when no view holds them any more.
func (v *View) Release() {
	v.once.Do(func() {
		v.s.mu.Lock()
		var done []*entry
		for _, e := range v.entries {
			e.refs--
			if e.obsolete && e.refs == 0 {
				done = append(done, e)
			}
		}
		v.s.mu.Unlock()
		v.s.tidy(done)
	})
}

// tidy closes and deletes replaced SSTables nobody reads, finishing their
// transactions once every SSTable they replaced is gone.
func (s *Service) tidy(done []*entry) {
	txns := map[*Txn]bool{}
	for _, e := range done {
		e.reader.Close()
		txns[e.txn] = true
	}
	for txn := range txns {
		s.mu.Lock()
		pending := false
		for _, e := range s.obsoleteOf(txn) {
			if e.refs > 0 {
				pending = true
			}
		}
		s.mu.Unlock()
		if pending {
			continue
		}
		if err := txn.Finish(); err != nil && s.opts.OnError != nil {
			s.opts.OnError(nil, fmt.Errorf("compaction: removing replaced SSTables: %w", err))
		}
		s.mu.Lock()
		delete(s.waiting, txn)
		s.mu.Unlock()
	}
}

// obsoleteOf lists the replaced entries txn still waits for (s.mu held);
// they are kept in a side list until their transaction finishes.
func (s *Service) obsoleteOf(txn *Txn) []*entry {
	return s.waiting[txn]
}

// Notify asks the service to look for work now.
func (s *Service) Notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Stats returns the service's totals.
func (s *Service) Stats() ServiceStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Idle waits until no compaction runs and none is due, or ctx ends.
func (s *Service) Idle(ctx context.Context) error {
	for {
		s.mu.Lock()
		busy := s.running > 0
		s.mu.Unlock()
		if !busy && s.next() == nil {
			return nil
		}
		s.Notify()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Close stops the loop, waits for running compactions and closes the
// readers no view holds.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	s.closeReaders()
	return nil
}

func (s *Service) closeReaders() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.live {
		if e.refs == 0 {
			e.reader.Close()
		}
	}
}

func (s *Service) loop() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.Interval)
	defer t.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		for {
			s.mu.Lock()
			if s.running >= s.opts.MaxConcurrent {
				s.mu.Unlock()
				break
			}
			s.mu.Unlock()
			job := s.take()
			if job == nil {
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.run(job)
				s.Notify()
			}()
		}
		select {
		case <-s.ctx.Done():
			return
		case <-s.wake:
		case <-t.C:
		}
	}
}

// next returns the SSTables the strategy would compact now (nil: none).
func (s *Service) next() []*entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	infos := make([]SSTableInfo, len(s.live))
	for i, e := range s.live {
		infos[i] = e.info
		infos[i].Compacting = e.compacting
	}
	now := s.opts.Now()
	picked := s.opts.STCS.NextBackground(Background{SSTables: infos, GCBefore: now.Unix() - s.opts.Table.Options.GCGrace(), Now: now})
	var out []*entry
	for _, p := range picked {
		for _, e := range s.live {
			if e.desc == p.Descriptor {
				out = append(out, e)
			}
		}
	}
	return out
}

// take picks the next compaction and marks its inputs taken.
func (s *Service) take() []*entry {
	job := s.next()
	if len(job) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range job {
		if e.compacting || e.obsolete {
			return nil
		}
	}
	for _, e := range job {
		e.compacting = true
	}
	s.running++
	return job
}

func (s *Service) run(job []*entry) {
	inputs := make([]sstables.Reader, len(job))
	descs := make([]sstables.Descriptor, len(job))
	for i, e := range job {
		inputs[i], descs[i] = e.reader, e.desc
	}
	outputs, res, err := s.compact(inputs)
	s.mu.Lock()
	s.running--
	if err != nil {
		for _, e := range job {
			e.compacting = false
		}
		stopping := s.ctx.Err() != nil
		if !stopping {
			s.stats.Failures++
		}
		s.mu.Unlock()
		if s.opts.OnError != nil && !stopping {
			s.opts.OnError(descs, err)
		}
		return
	}
	s.stats.Compactions++
	s.stats.InputBytes += res.InputBytes
	s.stats.Partitions += res.Partitions
	s.stats.Rows += res.Rows
	s.stats.Elapsed += res.Elapsed
	for _, o := range res.Outputs {
		s.stats.OutputBytes += o.DataFileSize
	}
	s.mu.Unlock()
	if s.opts.OnCompacted != nil {
		s.opts.OnCompacted(descs, outputs)
	}
}

// compact runs one compaction as a transaction: outputs tracked before
// they are written, inputs marked obsolete, commit, the live set swapped,
// and the inputs deleted once no view holds them.
func (s *Service) compact(inputs []sstables.Reader) ([]*sstables.WriteResult, *Result, error) {
	txn, err := BeginTransaction(s.fsys, s.opts.Dir, OpCompaction, TxnOptions{})
	if err != nil {
		return nil, nil, err
	}
	gens := &trackingGenerations{s: s, txn: txn}
	res, err := Compact(s.ctx, inputs, s.opts.Table, Options{Out: s.opts.Dir, FS: s.fsys, Format: s.opts.Format,
		Now: s.opts.Now(), GCGraceSeconds: -1, Jobs: s.opts.Jobs, nextGeneration: gens.next})
	if err == nil {
		err = gens.err
	}
	if err == nil {
		for _, r := range inputs {
			if err = txn.Obsolete(r.Descriptor()); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = txn.Commit()
	}
	if err != nil {
		if !errors.Is(err, ErrCommitUnknown) {
			// The outputs go (Finish deletes what the transaction tracked
			// as new), the inputs stay.
			txn.Abort()
			txn.Finish()
		}
		return nil, nil, err
	}
	// Committed: the outputs replace the inputs for new views.
	var added []*entry
	for _, o := range res.Outputs {
		r, err := sstables.OpenAny(o.Descriptor, s.opts.Table, sstables.ReaderOptions{FS: s.fsys, ReadAhead: 2})
		if err != nil {
			return nil, nil, fmt.Errorf("compaction: opening its output %s: %w", o.Descriptor, err)
		}
		info, err := InfoOf(s.fsys, r)
		if err != nil {
			r.Close()
			return nil, nil, err
		}
		added = append(added, &entry{desc: o.Descriptor, reader: r, info: info})
	}
	s.mu.Lock()
	var replaced, done []*entry
	keep := s.live[:0:0]
	for _, e := range s.live {
		if slices.ContainsFunc(inputs, func(r sstables.Reader) bool { return r == e.reader }) {
			e.obsolete, e.compacting, e.txn = true, false, txn
			replaced = append(replaced, e)
			if e.refs == 0 {
				done = append(done, e)
			}
			continue
		}
		keep = append(keep, e)
	}
	s.live = append(keep, added...)
	if s.waiting == nil {
		s.waiting = map[*Txn][]*entry{}
	}
	s.waiting[txn] = replaced
	s.mu.Unlock()
	if len(done) > 0 {
		s.tidy(done)
	}
	return res.Outputs, res, nil
}

// trackingGenerations hands the compaction its output generations, each
// one tracked as new in the transaction before the output is written.
type trackingGenerations struct {
	s   *Service
	txn *Txn
	err error
}

func (g *trackingGenerations) next(format sstables.Format) (int, error) {
	n := g.s.gens.Next()
	d := sstables.Descriptor{Dir: g.s.opts.Dir, Version: format.Version(), Generation: n}
	if err := g.txn.TrackNew(d); err != nil {
		g.err = err
		return 0, err
	}
	return n, nil
}
