package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/castable-db/castable/bulk"
	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/klauspost/compress/s2"
)

func init() {
	register.DoFn3x1[context.Context, []byte, func(fileio.FileMetadata), error](&expandFn{})
	register.Emitter1[fileio.FileMetadata]()
	register.DoFn4x1[context.Context, fileio.ReadableFile, func(int, []byte), func(string), error](&parseFn{})
	register.Emitter2[int, []byte]()
	register.Emitter1[string]()
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(int, string), func(string), error](&writeFn{})
	register.Iter1[[]byte]()
	register.Emitter2[int, string]()
	register.DoFn4x1[context.Context, int, func(*string) bool, func(string), error](&finalizeFn{})
	register.DoFn4x1[context.Context, int, func(*string) bool, func(string), error](&summaryFn{})
	register.Iter1[string]()
}

// Metric names (namespace "castable"). Per-writer counters are named
// "<dir>[#slice]/<metric>".
const (
	metricNamespace = "castable"
	mInputFiles     = "input_files"
	mInputBytes     = "input_bytes"
	mInputRows      = "input_rows"
	mBadRecords     = "bad_records"
	mRows           = "rows"
	mPartitions     = "partitions"
	mBytes          = "bytes"
	mSSTables       = "sstables"
)

// writerName names writer w in metrics and messages.
func writerName(p *plan, w int) string {
	wr := p.writers[w]
	if p.nslices > 1 && p.ring != nil {
		return fmt.Sprintf("%s#%d", wr.Dir, wr.Index)
	}
	return wr.Dir
}

// expandFn lists the files of the globs and emits those of its lane: the
// sorted, deduplicated list dealt round-robin to the lanes. A glob that
// matches nothing is an error.
type expandFn struct {
	Globs []string
	Lane  int
	Lanes int
}

// ProcessElement runs once, on the lane's impulse.
func (fn *expandFn) ProcessElement(ctx context.Context, _ []byte, emit func(fileio.FileMetadata)) error {
	var all []string
	for _, g := range fn.Globs {
		fs, err := filesystem.New(ctx, g)
		if err != nil {
			return err
		}
		files, err := fs.List(ctx, g)
		fs.Close()
		if err != nil {
			return fmt.Errorf("input %s: %w", g, err)
		}
		if len(files) == 0 {
			return fmt.Errorf("input %s: no file matches", g)
		}
		all = append(all, files...)
	}
	sort.Strings(all)
	all = slices.Compact(all)
	for i, f := range all {
		if i%fn.Lanes != fn.Lane {
			continue
		}
		size := int64(-1)
		if fs, err := filesystem.New(ctx, f); err == nil {
			size, _ = fs.Size(ctx, f)
			fs.Close()
		}
		emit(fileio.FileMetadata{Path: f, Size: size})
	}
	return nil
}

// worker is what the functions of one worker build from the job once.
type worker struct {
	table  *schema.Table
	plan   *plan
	format sstables.Format
	params compress.Params
	now    time.Time
}

func (j *job) worker() (*worker, error) {
	_, table, err := loadTable(j.SchemaText, "schema", j.Table, j.Partitioner)
	if err != nil {
		return nil, err
	}
	p, err := newPlan(j.Plan)
	if err != nil {
		return nil, err
	}
	f, err := sstables.Lookup(j.Format)
	if err != nil {
		return nil, err
	}
	params, err := bulk.CompressionParams(table, j.Codec, j.ChunkKB)
	if err != nil {
		return nil, err
	}
	return &worker{table: table, plan: p, format: f, params: params, now: time.UnixMicro(j.NowMicros)}, nil
}

// badRecord is one line of bad-records.jsonl.
type badRecord struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Error  string `json:"error"`
	Record string `json:"record,omitempty"`
}

func (b badRecord) String() string {
	out, _ := json.Marshal(b)
	return string(out)
}

// Batching of the read stage: a writer's buffer is emitted when it holds
// batchBytes, and every buffer when they hold bufferedBytes together.
const (
	batchBytes    = 1 << 20
	bufferedBytes = 32 << 20
)

// parseFn reads one input file with castable's readers and emits, for each
// writer its partitions go to, batches of encoded partition updates.
type parseFn struct {
	Job job
	w   *worker
}

// Setup builds the worker state.
func (fn *parseFn) Setup() error {
	w, err := fn.Job.worker()
	fn.w = w
	return err
}

// router is the sink of one file: it encodes each update into the buffer
// of each of its writers.
type router struct {
	ctx      context.Context
	plan     *plan
	source   string
	bufs     map[int]*batchWriter
	buffered int
	emit     func(int, []byte)
}

func (r *router) Apply(p *mutation.Partition, line int) error {
	// Readers need not set tokens (the memtable computes its own).
	for _, w := range r.plan.writersOf(r.plan.part.Token(p.Key)) {
		b := r.bufs[w]
		if b == nil {
			b = newBatchWriter(r.source, 64<<10)
			r.bufs[w] = b
		}
		before := len(b.buf)
		b.add(p, line)
		r.buffered += len(b.buf) - before
		if len(b.buf) >= batchBytes {
			r.flush(w)
		}
	}
	if r.buffered >= bufferedBytes {
		r.flushAll()
	}
	return nil
}

func (r *router) flush(w int) {
	b := r.bufs[w]
	if b == nil || b.n == 0 {
		return
	}
	r.buffered -= len(b.buf)
	r.emit(w, s2.Encode(nil, b.buf))
	delete(r.bufs, w)
}

func (r *router) flushAll() {
	keys := make([]int, 0, len(r.bufs))
	for w := range r.bufs {
		keys = append(keys, w)
	}
	sort.Ints(keys)
	for _, w := range keys {
		r.flush(w)
	}
}

// countingReader counts the bytes read.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ProcessElement reads one file.
func (fn *parseFn) ProcessElement(ctx context.Context, f fileio.ReadableFile, emit func(int, []byte), bad func(string)) error {
	name := f.Metadata.Path
	rc, err := f.Open(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	in := &countingReader{r: rc}
	opts, err := fn.w.readOptions(ctx, &fn.Job, name, bad)
	if err != nil {
		return err
	}
	r := &router{ctx: ctx, plan: fn.w.plan, source: name, bufs: map[int]*batchWriter{}, emit: emit}
	_, err = bulk.Read(fn.Job.Kind, in, opts, r)
	beam.NewCounter(metricNamespace, mInputBytes).Inc(ctx, in.n)
	beam.NewCounter(metricNamespace, mInputFiles).Inc(ctx, 1)
	if err != nil {
		return err
	}
	r.flushAll()
	return nil
}

// sstableInfo is one SSTable a writer finished, on its way to the final
// stage.
type sstableInfo struct {
	// From is the directory holding the components now (under the run's
	// temporary directory), To the final one.
	From, To string
	Prefix   string // "nb-3gw7_0ncw_4ss0w2ubwqhq7m7kxw-big-"
	// ToPrefix, when set, is the prefix the final stage renames the
	// components to (an integer generation).
	ToPrefix   string
	Components []string
	Partitions int64
	Rows       int64
	Bytes      int64
	DataBytes  int64
}

// writeFn writes one writer's partitions: every batch routed to it, into a
// memtable flushed into SSTables as it fills, then copies them next to the
// output (the run's temporary directory) for the final stage to move.
type writeFn struct {
	Job job
	w   *worker
}

// Setup builds the worker state.
func (fn *writeFn) Setup() error {
	w, err := fn.Job.worker()
	fn.w = w
	return err
}

// generationBlock spaces apart the integer generations of writers that
// share a directory.
const generationBlock = 1 << 20

// ProcessElement writes the SSTables of writer wi.
func (fn *writeFn) ProcessElement(ctx context.Context, wi int, batches func(*[]byte) bool, emit func(int, string), bad func(string)) (err error) {
	p := fn.w.plan
	if wi < 0 || wi >= len(p.writers) {
		return fmt.Errorf("writer %d: the job has %d writers", wi, len(p.writers))
	}
	wr := p.writers[wi]
	name := writerName(p, wi)
	attempt := sstables.NewUUIDID().String()
	rel := []string{attempt, wr.Dir, fn.w.table.Keyspace, fn.Job.TableDir}
	from := joinPath(append([]string{fn.Job.Temp}, rel...)...)
	to := joinPath(fn.Job.Out, wr.Dir, fn.w.table.Keyspace, fn.Job.TableDir)
	local := from
	if !isLocal(fn.Job.Out) {
		if local, err = os.MkdirTemp(fn.Job.LocalDir, "castable-beam-"); err != nil {
			return err
		}
		defer os.RemoveAll(local)
	}
	if err := os.MkdirAll(local, 0o755); err != nil {
		return err
	}
	counter := func(m string) beam.Counter { return beam.NewCounter(metricNamespace, name+"/"+m) }
	sink := bulk.NewMemtableSink(ctx, fn.w.table, bulk.SinkOptions{
		Format: fn.w.format,
		Writer: sstables.WriterOptions{
			Dir: local, Generation: 1 + wr.Index*generationBlock, Compression: &fn.w.params, Jobs: fn.Job.Jobs,
		},
		UUIDs:          !fn.Job.Generations,
		MemtableSize:   fn.Job.Memtable,
		MaxSSTableSize: fn.Job.MaxSSTable,
		Verbatim:       fn.Job.Kind == bulk.JSON,
		Now:            fn.w.now,
		OnFlushed: func(rs []*sstables.WriteResult) {
			for _, r := range rs {
				counter(mSSTables).Inc(ctx, 1)
				counter(mRows).Inc(ctx, r.Rows)
				counter(mPartitions).Inc(ctx, r.Partitions)
				counter(mBytes).Inc(ctx, r.BytesWritten)
			}
		},
	})
	applyErr := fn.apply(ctx, wi, batches, sink, bad)
	results, err := sink.Close(applyErr == nil)
	if applyErr != nil && (err == nil || errors.Is(err, bulk.ErrStopped)) {
		err = applyErr
	}
	if err != nil {
		return fmt.Errorf("writer %s: %w", name, err)
	}
	for _, r := range results {
		d := r.Descriptor
		prefix := strings.TrimSuffix(filepath.Base(d.Path(sstables.ComponentData)), string(sstables.ComponentData))
		info := sstableInfo{From: from, To: to, Prefix: prefix, Partitions: r.Partitions, Rows: r.Rows, Bytes: r.BytesWritten, DataBytes: r.DataLength}
		for _, c := range r.Components {
			info.Components = append(info.Components, string(c))
		}
		if !isLocal(fn.Job.Out) {
			if err := upload(ctx, local, from, prefix, info.Components); err != nil {
				return fmt.Errorf("writer %s: %w", name, err)
			}
		}
		b, _ := json.Marshal(info)
		emit(wi, string(b))
	}
	return nil
}

// apply feeds every batch of a writer to its sink. A partition the sink
// refuses is named by the input file and line it came from.
func (fn *writeFn) apply(ctx context.Context, wi int, batches func(*[]byte) bool, sink *bulk.MemtableSink, bad func(string)) error {
	var packed, batch []byte
	for batches(&packed) {
		var err error
		// The memtable copies what it keeps, so one buffer serves every
		// batch.
		if batch, err = s2.Decode(batch[:cap(batch)], packed); err != nil {
			return fmt.Errorf("%w: %v", errWire, err)
		}
		r, err := newBatchReader(fn.w.table, fn.w.plan.part, batch)
		if err != nil {
			return err
		}
		for {
			p, line, ok := r.next()
			if !ok {
				break
			}
			if !fn.w.plan.holds(wi, p.Token) {
				return fmt.Errorf("%s:%d: partition %s was routed to the wrong writer", r.source, line, mutation.FormatKey(fn.w.table, p.Key))
			}
			err := sink.Apply(p, line)
			if err == nil {
				continue
			}
			if errors.Is(err, bulk.ErrStopped) || ctx.Err() != nil {
				return err
			}
			loc := fmt.Sprintf("%s:%d", r.source, line)
			if line == 0 {
				loc = r.source
			}
			located := fmt.Errorf("%s: partition %s: %w", loc, mutation.FormatKey(fn.w.table, p.Key), err)
			if !fn.Job.BadRecords {
				return located
			}
			beam.NewCounter(metricNamespace, mBadRecords).Inc(ctx, 1)
			bad(badRecord{File: r.source, Line: line, Error: located.Error()}.String())
		}
		if r.err != nil {
			return r.err
		}
	}
	return nil
}

// upload copies an SSTable's components to a remote directory, TOC.txt
// last.
func upload(ctx context.Context, local, dir, prefix string, components []string) error {
	fs, err := filesystem.New(ctx, dir)
	if err != nil {
		return err
	}
	defer fs.Close()
	for _, c := range tocLast(components) {
		f, err := os.Open(filepath.Join(local, prefix+c))
		if err != nil {
			return err
		}
		w, err := fs.OpenWrite(ctx, joinPath(dir, prefix+c))
		if err == nil {
			_, err = io.Copy(w, f)
			if cerr := w.Close(); err == nil {
				err = cerr
			}
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("upload %s: %w", joinPath(dir, prefix+c), err)
		}
	}
	return nil
}

// tocLast orders components with TOC.txt at the end, so that an SSTable
// looks complete only once every other component is there.
func tocLast(components []string) []string {
	out := make([]string, 0, len(components))
	toc := false
	for _, c := range components {
		if c == string(sstables.ComponentTOC) {
			toc = true
			continue
		}
		out = append(out, c)
	}
	if toc {
		out = append(out, string(sstables.ComponentTOC))
	}
	return out
}

// finalizeFn moves the SSTables of one writer's successful attempt from
// the temporary directory into place and emits the writer's summary.
// Beam hands it only what committed bundles emitted, so a retried
// attempt's SSTables never reach the output.
type finalizeFn struct {
	Job job
	w   *worker
}

// Setup builds the worker state.
func (fn *finalizeFn) Setup() error {
	w, err := fn.Job.worker()
	fn.w = w
	return err
}

// ProcessElement finalizes writer wi.
func (fn *finalizeFn) ProcessElement(ctx context.Context, wi int, infos func(*string) bool, emit func(string)) error {
	p := fn.w.plan
	ws := writerSummary(p, wi)
	var all []sstableInfo
	var s string
	for infos(&s) {
		var info sstableInfo
		if err := json.Unmarshal([]byte(s), &info); err != nil {
			return err
		}
		all = append(all, info)
	}
	if fn.Job.NoShuffle && fn.Job.Generations {
		// The bundles wrote UUID-named SSTables: the writer's get the
		// integer generations of its block, in a fixed order (a retried
		// final stage names them alike).
		sort.Slice(all, func(i, k int) bool { return all[i].Prefix < all[k].Prefix })
		for k := range all {
			to, err := renamedPrefix(all[k].Prefix, 1+p.writers[wi].Index*generationBlock+k)
			if err != nil {
				return err
			}
			all[k].ToPrefix = to
		}
	}
	for _, info := range all {
		if err := move(ctx, info); err != nil {
			return err
		}
		ws.SSTables = append(ws.SSTables, joinPath(info.To, info.finalPrefix()+string(sstables.ComponentData)))
		ws.Partitions += info.Partitions
		ws.Rows += info.Rows
		ws.Bytes += info.Bytes
		ws.DataBytes += info.DataBytes
	}
	sort.Strings(ws.SSTables)
	b, err := json.Marshal(ws)
	if err != nil {
		return err
	}
	emit(string(b))
	return nil
}

// renamedPrefix is an SSTable's component name prefix with the integer
// generation gen instead of its identifier. No component holds its own
// name or generation (TOC.txt lists the components without their prefix),
// so renaming the files renames the SSTable.
func renamedPrefix(prefix string, gen int) (string, error) {
	d, _, _, err := sstables.ParseDescriptor(prefix + string(sstables.ComponentData))
	if err != nil {
		return "", err
	}
	d.UUID, d.Generation = "", gen
	return strings.TrimSuffix(d.Filename(sstables.ComponentData), string(sstables.ComponentData)), nil
}

func writerSummary(p *plan, wi int) WriterSummary {
	wr := p.writers[wi]
	ws := WriterSummary{Dir: wr.Dir, Index: wr.Index, SSTables: []string{}}
	for _, r := range wr.Ranges {
		ws.Ranges = append(ws.Ranges, r.Format(p.part))
	}
	if wr.Slice != nil {
		ws.Slice = wr.Slice.Format(p.part)
	}
	return ws
}

// finalPrefix is the component name prefix the SSTable ends with.
func (s sstableInfo) finalPrefix() string {
	if s.ToPrefix != "" {
		return s.ToPrefix
	}
	return s.Prefix
}

// move renames an SSTable's components into place, TOC.txt last. A
// component already moved (a retried attempt of the final stage) is
// skipped.
func move(ctx context.Context, info sstableInfo) error {
	if isLocal(info.To) {
		if err := os.MkdirAll(info.To, 0o755); err != nil {
			return err
		}
		for _, c := range tocLast(info.Components) {
			from, to := filepath.Join(info.From, info.Prefix+c), filepath.Join(info.To, info.finalPrefix()+c)
			if err := os.Rename(from, to); err != nil {
				if _, serr := os.Stat(to); errors.Is(err, os.ErrNotExist) && serr == nil {
					continue // moved by an earlier attempt of this stage
				}
				return err
			}
		}
		return nil
	}
	fs, err := filesystem.New(ctx, info.To)
	if err != nil {
		return err
	}
	defer fs.Close()
	for _, c := range tocLast(info.Components) {
		from, to := joinPath(info.From, info.Prefix+c), joinPath(info.To, info.finalPrefix()+c)
		if err := filesystem.Rename(ctx, fs, from, to); err != nil {
			if _, serr := fs.Size(ctx, from); serr != nil {
				if _, derr := fs.Size(ctx, to); derr == nil {
					continue // moved by an earlier attempt of this stage
				}
			}
			return err
		}
	}
	return nil
}

// summaryFn gathers the writers' summaries, writes SummaryFile and removes
// the run's temporary directory (what failed attempts left there too).
type summaryFn struct {
	Job job
	w   *worker
}

// Setup builds the worker state.
func (fn *summaryFn) Setup() error {
	w, err := fn.Job.worker()
	fn.w = w
	return err
}

// ProcessElement runs once, on every writer's summary.
func (fn *summaryFn) ProcessElement(ctx context.Context, _ int, sums func(*string) bool, emit func(string)) error {
	p := fn.w.plan
	sum := Summary{Out: fn.Job.Out, Format: fn.Job.Format, Partitioner: fn.Job.Partitioner}
	byWriter := map[string]WriterSummary{}
	var s string
	for sums(&s) {
		var ws WriterSummary
		if err := json.Unmarshal([]byte(s), &ws); err != nil {
			return err
		}
		byWriter[fmt.Sprintf("%s#%d", ws.Dir, ws.Index)] = ws
	}
	for wi := range p.writers {
		ws, ok := byWriter[fmt.Sprintf("%s#%d", p.writers[wi].Dir, p.writers[wi].Index)]
		if !ok {
			ws = writerSummary(p, wi) // a writer that received no row
		}
		sum.Writers = append(sum.Writers, ws)
		sum.SSTables += len(ws.SSTables)
		sum.Partitions += ws.Partitions
		sum.Rows += ws.Rows
		sum.Bytes += ws.Bytes
	}
	if err := removeTemp(ctx, fn.Job.Out, fn.Job.Temp, 5); err != nil {
		return err
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	fs, err := filesystem.New(ctx, fn.Job.Out)
	if err != nil {
		return err
	}
	defer fs.Close()
	if err := filesystem.Write(ctx, fs, joinPath(fn.Job.Out, SummaryFile), b); err != nil {
		return err
	}
	emit(string(b))
	return nil
}

// removeTemp deletes the run's temporary directory, and the temporary root
// when nothing else is in it; on a remote filesystem, which has files
// only, the files depth levels below it.
func removeTemp(ctx context.Context, out, temp string, depth int) error {
	if isLocal(temp) {
		if err := os.RemoveAll(temp); err != nil {
			return err
		}
		_ = os.Remove(filepath.Dir(temp)) // fails while other runs use it
		return nil
	}
	fs, err := filesystem.New(ctx, temp)
	if err != nil {
		return err
	}
	defer fs.Close()
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		return nil // nothing to do on a filesystem that cannot remove
	}
	// The write's attempt/dir/keyspace/table-id/component, the export's
	// attempt/file.
	files, err := fs.List(ctx, joinPath(append([]string{temp}, slices.Repeat([]string{"*"}, depth)...)...))
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := rm.Remove(ctx, f); err != nil {
			return fmt.Errorf("remove %s: %w", f, err)
		}
	}
	return nil
}
