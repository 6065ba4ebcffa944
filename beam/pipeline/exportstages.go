package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

func init() {
	register.DoFn3x1[context.Context, []byte, func(string), error](&listSSTablesFn{})
	register.DoFn3x1[context.Context, string, func(string), error](&boundsFn{})
	register.DoFn4x1[context.Context, int, func(*string) bool, func(int, string), error](&planFn{})
	register.DoFn4x1[context.Context, int, string, func(string), error](&exportRangeFn{})
	register.DoFn4x1[context.Context, int, func(*string) bool, func(string), error](&exportSummaryFn{})
	register.Function2x1[int, string, int](laneOf)
}

// Export metric names (namespace "castable").
const (
	mSSTablesRead = "sstables_read"
	mReadBytes    = "sstable_bytes_read"
	mTombstones   = "tombstones"
	mFiles        = "files"
)

// scanReadAhead is the number of Data.db chunks each scan loads ahead of
// the row decoder (what castable export uses).
const scanReadAhead = 2

// listSSTablesFn expands the inputs into the Data.db paths of their
// SSTables, sorted and deduplicated. An input that holds no SSTable is an
// error.
type listSSTablesFn struct {
	Inputs []string
}

// ProcessElement runs once, on the impulse.
func (fn *listSSTablesFn) ProcessElement(ctx context.Context, _ []byte, emit func(string)) error {
	var all []string
	for _, in := range fn.Inputs {
		found, err := listInput(ctx, in)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return fmt.Errorf("input %s: no SSTable (want directories of SSTables with their TOC.txt, globs of them, or component paths)", in)
		}
		all = append(all, found...)
	}
	sort.Strings(all)
	for _, p := range slices.Compact(all) {
		emit(p)
	}
	return nil
}

// hasGlob reports whether p holds a glob metacharacter.
func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// listInput returns the Data.db paths of the SSTables an input names.
func listInput(ctx context.Context, in string) ([]string, error) {
	if !isLocal(in) {
		return listRemote(ctx, in)
	}
	matches := []string{in}
	if hasGlob(in) {
		var err error
		if matches, err = filepath.Glob(in); err != nil {
			return nil, fmt.Errorf("input %s: %w", in, err)
		}
	}
	var out []string
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in, err)
		}
		if st.IsDir() {
			descs, err := sstables.ListSSTables(nil, m)
			if err != nil {
				return nil, fmt.Errorf("input %s: %w", in, err)
			}
			for _, d := range descs {
				out = append(out, d.Path(sstables.ComponentData))
			}
			continue
		}
		d, _, err := descriptorOf(m)
		if err != nil {
			if hasGlob(in) {
				continue // a glob may match other files next to the SSTables
			}
			return nil, fmt.Errorf("input %s: %w", in, err)
		}
		data := d.Path(sstables.ComponentData)
		if _, err := os.Stat(data); err != nil {
			return nil, fmt.Errorf("input %s: no Data.db: %w", in, err)
		}
		out = append(out, data)
	}
	return out, nil
}

// listRemote lists an input on a remote filesystem, which has no
// directories: the pattern's matches that are SSTable components, or when
// none is, the components under it as a prefix ("gs://b/snap/ks/t-1").
func listRemote(ctx context.Context, in string) ([]string, error) {
	fs, err := filesystem.New(ctx, in)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	collect := func(pattern string) ([]string, error) {
		files, err := fs.List(ctx, pattern)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in, err)
		}
		listed := map[string]bool{}
		for _, f := range files {
			listed[f] = true
		}
		var out []string
		for _, f := range files {
			_, c, temp, err := sstables.ParseDescriptor(path.Base(f))
			if err != nil || temp || c != sstables.ComponentTOC {
				continue
			}
			data := siblingPath(f, sstables.ComponentData)
			if !listed[data] {
				if _, err := fs.Size(ctx, data); err != nil {
					return nil, fmt.Errorf("input %s: %s has a TOC.txt but no Data.db: %w", in, f, err)
				}
			}
			out = append(out, data)
		}
		if len(out) == 0 {
			// Component paths without their TOC.txt in the pattern.
			for _, f := range files {
				if _, c, temp, err := sstables.ParseDescriptor(path.Base(f)); err == nil && !temp && c == sstables.ComponentData {
					out = append(out, f)
				}
			}
		}
		return out, nil
	}
	out, err := collect(in)
	if err != nil || len(out) > 0 {
		return out, err
	}
	return collect(strings.TrimSuffix(in, "/") + "/*")
}

// boundsFn reads where each SSTable's partitions lie on the ring.
type boundsFn struct{}

// ProcessElement describes one SSTable.
func (fn *boundsFn) ProcessElement(ctx context.Context, data string, emit func(string)) error {
	ref, err := readBounds(ctx, data)
	if err != nil {
		return err
	}
	b, err := json.Marshal(ref)
	if err != nil {
		return err
	}
	emit(string(b))
	return nil
}

// exportTask is one range to export, as planFn deals them out.
type exportTask struct {
	Index int
	Name  string
	// Left and Right bound the segment (token strings); Right is the
	// minimum token for the segment that ends the ring.
	Left, Right string
	Node        string
	Partitioner string
	// Rules4 says the merge reconciles with Cassandra 4.0's rules: the
	// newest input's release decides for every range, as it does for one
	// castable export of all the inputs.
	Rules4 bool
	// SSTables are the inputs whose tokens overlap the segment.
	SSTables []sstableRef
	// Ranges and Inputs count the job's ranges and input SSTables.
	Ranges, Inputs int
}

// planFn splits the ring and gives each range the SSTables that overlap
// it.
type planFn struct {
	Job exportJob
}

// ProcessElement runs once, on every SSTable's description.
func (fn *planFn) ProcessElement(ctx context.Context, _ int, refsIter func(*string) bool, emit func(int, string)) error {
	var refs []sstableRef
	var s string
	for refsIter(&s) {
		var r sstableRef
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			return err
		}
		refs = append(refs, r)
	}
	if len(refs) == 0 {
		return errors.New("no input SSTable")
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Data < refs[j].Data })
	for _, r := range refs[1:] {
		if r.Partitioner != refs[0].Partitioner {
			return fmt.Errorf("%s is ordered by %s, %s by %s: not one table", refs[0].Data, refs[0].Partitioner, r.Data, r.Partitioner)
		}
	}
	part, err := dht.Lookup(refs[0].Partitioner)
	if err != nil {
		return err
	}
	segs, err := exportSegments(part, fn.Job.Ranges, fn.Job.Ring)
	if err != nil {
		return err
	}
	type span struct{ first, last dht.Token }
	spans := make([]*span, len(refs))
	rules4 := false
	for i, r := range refs {
		rules4 = rules4 || r.Reconcile4
		if r.First == "" {
			continue
		}
		first, err1 := part.ParseToken(r.First)
		last, err2 := part.ParseToken(r.Last)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("%s: %w", r.Data, err)
		}
		spans[i] = &span{first, last}
	}
	width := max(3, len(strconv.Itoa(len(segs)-1)))
	for i, seg := range segs {
		t := exportTask{
			Index: i, Name: fmt.Sprintf("range-%0*d", width, i), Left: part.String(seg.Left), Right: part.String(seg.Right),
			Node: seg.Node, Partitioner: part.Name(), Rules4: rules4, Ranges: len(segs), Inputs: len(refs),
			SSTables: []sstableRef{},
		}
		for k, r := range refs {
			if spans[k] == nil || seg.overlaps(spans[k].first, spans[k].last) {
				t.SSTables = append(t.SSTables, r)
			}
		}
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		emit(i%fn.Job.Lanes, string(b))
	}
	return nil
}

// fileMove is one output file: where its worker wrote it and its final
// path.
type fileMove struct {
	From, To string
}

// rangeResult is what one range's worker exported.
type rangeResult struct {
	Index      int
	Summary    RangeSummary
	Moves      []fileMove
	Ranges     int
	Inputs     int
	Partition  string
	ReadBytes  int64
	Tombstones int64
}

// exportRangeFn exports one range: the SSTables that overlap it, each
// scanned within the range only, merged into the rows of the range's
// files.
type exportRangeFn struct {
	Job   exportJob
	table *schema.Table
}

// Setup parses the schema.
func (fn *exportRangeFn) Setup() error {
	_, t, err := loadTable(fn.Job.SchemaText, "schema", fn.Job.Table, "")
	fn.table = t
	return err
}

// ProcessElement exports one range.
func (fn *exportRangeFn) ProcessElement(ctx context.Context, _ int, taskText string, emit func(string)) (err error) {
	var task exportTask
	if err := json.Unmarshal([]byte(taskText), &task); err != nil {
		return err
	}
	part, err := dht.Lookup(task.Partitioner)
	if err != nil {
		return err
	}
	var seg segment
	if seg.Left, err = part.ParseToken(task.Left); err != nil {
		return err
	}
	if seg.Right, err = part.ParseToken(task.Right); err != nil {
		return err
	}
	seg.Node = task.Node
	rng := seg.rangeOf().Format(part)
	j := &fn.Job
	now := j.now()
	tab := sstables.WithPartitioner(fn.table, part)

	// Remote SSTables are copied to the worker first (the readers need
	// random access); local ones are read in place.
	var scratch string
	defer func() {
		if scratch != "" {
			os.RemoveAll(scratch)
		}
	}()
	newScratch := func() (string, error) {
		if scratch == "" {
			d, err := os.MkdirTemp(j.LocalDir, "castable-beam-export-")
			if err != nil {
				return "", err
			}
			scratch = d
		}
		return scratch, nil
	}

	var readers []sstables.Reader
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	var readBytes int64
	for _, ref := range task.SSTables {
		desc, _, err := descriptorOf(ref.Data)
		if err != nil {
			return err
		}
		if !isLocal(ref.Data) {
			dir, err := newScratch()
			if err != nil {
				return err
			}
			if desc, err = fetchSSTable(ctx, ref.Data, dir); err != nil {
				return fmt.Errorf("range %s: %w", task.Name, err)
			}
		}
		r, err := sstables.OpenAny(desc, tab, sstables.ReaderOptions{ReadAhead: scanReadAhead})
		if err != nil {
			return fmt.Errorf("range %s: %w", task.Name, err)
		}
		readers = append(readers, newRangeReader(r, seg, localSummary(desc)))
		if ref.Size > 0 {
			readBytes += ref.Size
		}
	}
	rules := mutation.Rules3
	if task.Rules4 {
		rules = mutation.Rules4
	}
	topts := table.Options{Table: tab, Now: now, Rules: &rules}
	var set *table.Set
	if len(readers) > 0 {
		set, err = table.NewSet(readers, nil, topts)
	} else {
		// No SSTable reaches the range: its files hold no row.
		set, err = table.NewSet(nil, memtable.New(tab, memtable.Options{}).Freeze(), topts)
	}
	if err != nil {
		return fmt.Errorf("range %s: %w", task.Name, err)
	}
	defer set.Close()
	sc, err := set.Scan()
	if err != nil {
		return fmt.Errorf("range %s: %w", task.Name, err)
	}
	defer sc.Close()
	view := export.NewView(sc, set.Table(), export.ViewOptions{Now: now, Tombstones: j.Tombstones})

	eo := j.options()
	eo.Metadata = map[string]string{
		"castable.table":       j.Table,
		"castable.now":         now.UTC().Format(time.RFC3339),
		"castable.token_range": rng,
	}
	rows := beam.NewCounter(metricNamespace, mRows)
	eo.OnRows = func(n int64) { rows.Inc(ctx, n) }

	// Files are written under the attempt's own directory (local Out) or
	// in the worker's scratch directory (remote Out, uploaded after), and
	// moved into place by the last stage.
	attempt := joinPath(j.Temp, sstables.NewUUIDID().String())
	writeDir := attempt
	if !isLocal(j.Out) {
		if writeDir, err = newScratch(); err != nil {
			return err
		}
	} else if err := os.MkdirAll(attempt, 0o755); err != nil {
		return err
	}
	ext := export.Format(j.Format).Extension()
	var names []string
	create := func(i int) (io.WriteCloser, error) {
		name := task.Name + ext
		if j.MaxFileSize > 0 {
			name = fmt.Sprintf("%s-%05d%s", task.Name, i, ext)
		}
		f, err := os.OpenFile(filepath.Join(writeDir, name), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, err
		}
		names = append(names, name)
		return &syncCloser{f}, nil
	}
	sum, err := export.Export(ctx, view, eo, create)
	if err != nil {
		for _, n := range names {
			os.Remove(filepath.Join(writeDir, n))
		}
		return fmt.Errorf("range %s %s: %w", task.Name, rng, err)
	}
	res := rangeResult{
		Index: task.Index, Ranges: task.Ranges, Inputs: task.Inputs, Partition: task.Partitioner, ReadBytes: readBytes,
		Summary: RangeSummary{Name: task.Name, Range: rng, Node: task.Node, SSTables: []string{}, Files: []string{},
			Rows: sum.Rows, Tombstones: sum.Tombstones, Bytes: sum.Bytes},
	}
	for _, ref := range task.SSTables {
		res.Summary.SSTables = append(res.Summary.SSTables, ref.Data)
	}
	for _, n := range names {
		from := joinPath(attempt, n)
		if !isLocal(j.Out) {
			if err := uploadFile(ctx, filepath.Join(writeDir, n), from); err != nil {
				return fmt.Errorf("range %s: %w", task.Name, err)
			}
		}
		to := joinPath(j.Out, n)
		res.Moves = append(res.Moves, fileMove{From: from, To: to})
		res.Summary.Files = append(res.Summary.Files, to)
	}
	beam.NewCounter(metricNamespace, mSSTablesRead).Inc(ctx, int64(len(task.SSTables)))
	beam.NewCounter(metricNamespace, mReadBytes).Inc(ctx, readBytes)
	beam.NewCounter(metricNamespace, mTombstones).Inc(ctx, sum.Tombstones)
	beam.NewCounter(metricNamespace, mFiles).Inc(ctx, int64(sum.Files))
	beam.NewCounter(metricNamespace, mBytes).Inc(ctx, sum.Bytes)
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	emit(string(b))
	return nil
}

// localSummary parses an SSTable's Summary.db for the range reader's
// seek, or returns nil when it has none (BTI) or it does not parse (the
// scan then starts at the first partition).
func localSummary(d sstables.Descriptor) *sstables.Summary {
	p := d.Path(sstables.ComponentSummary)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	s, err := sstables.ParseSummary(b, p, sstables.SummaryReadOptions{})
	if err != nil {
		return nil
	}
	return s
}

// fetchSSTable copies the components of the remote SSTable whose Data.db
// is data into dir and returns its local descriptor.
func fetchSSTable(ctx context.Context, data, dir string) (sstables.Descriptor, error) {
	d, prefix, err := descriptorOf(data)
	if err != nil {
		return d, err
	}
	fs, err := filesystem.New(ctx, data)
	if err != nil {
		return d, err
	}
	defer fs.Close()
	remotePrefix := strings.TrimSuffix(data, string(sstables.ComponentData))
	files, err := fs.List(ctx, remotePrefix+"*")
	if err != nil {
		return d, fmt.Errorf("list %s*: %w", remotePrefix, err)
	}
	for _, f := range files {
		name := path.Base(f)
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		if err := downloadFile(ctx, fs, f, filepath.Join(dir, name)); err != nil {
			return d, err
		}
	}
	d.Dir = dir
	return d, nil
}

func downloadFile(ctx context.Context, fs filesystem.Interface, from, to string) error {
	r, err := fs.OpenRead(ctx, from)
	if err != nil {
		return fmt.Errorf("read %s: %w", from, err)
	}
	defer r.Close()
	f, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("copy %s: %w", from, err)
	}
	return f.Close()
}

// uploadFile copies a local file to a path on a Beam filesystem.
func uploadFile(ctx context.Context, local, to string) error {
	fs, err := filesystem.New(ctx, to)
	if err != nil {
		return err
	}
	defer fs.Close()
	f, err := os.Open(local)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := fs.OpenWrite(ctx, to)
	if err != nil {
		return fmt.Errorf("upload %s: %w", to, err)
	}
	_, err = io.Copy(w, f)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("upload %s: %w", to, err)
	}
	return nil
}

// syncCloser is an output file synced on Close.
type syncCloser struct{ f *os.File }

func (s *syncCloser) Write(p []byte) (int, error) { return s.f.Write(p) }

func (s *syncCloser) Close() error {
	err := s.f.Sync()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// exportSummaryFn moves every range's files into place, writes the
// summary and removes the run's temporary directory. Beam hands it only
// what committed bundles emitted, so a retried attempt's files never reach
// the output.
type exportSummaryFn struct {
	Job exportJob
}

// ProcessElement runs once, on every range's result.
func (fn *exportSummaryFn) ProcessElement(ctx context.Context, _ int, results func(*string) bool, emit func(string)) error {
	var rs []rangeResult
	var s string
	for results(&s) {
		var r rangeResult
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			return err
		}
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, k int) bool { return rs[i].Index < rs[k].Index })
	if len(rs) == 0 {
		return errors.New("no range of the export finished")
	}
	if len(rs) != rs[0].Ranges {
		return fmt.Errorf("the export planned %d ranges but %d finished", rs[0].Ranges, len(rs))
	}
	j := &fn.Job
	sum := ExportSummary{Out: j.Out, Format: j.Format, Table: j.Table, Partitioner: rs[0].Partition,
		Now: j.now().UTC().Format(time.RFC3339Nano), SSTables: rs[0].Inputs}
	for i, r := range rs {
		if r.Index != i {
			return fmt.Errorf("range %d is missing from the export's results", i)
		}
		for _, m := range r.Moves {
			if err := moveFile(ctx, m.From, m.To); err != nil {
				return err
			}
		}
		sum.Ranges = append(sum.Ranges, r.Summary)
		sum.SSTablesRead += len(r.Summary.SSTables)
		sum.Rows += r.Summary.Rows
		sum.Tombstones += r.Summary.Tombstones
		sum.Files += len(r.Summary.Files)
		sum.Bytes += r.Summary.Bytes
	}
	if err := removeTemp(ctx, j.Out, j.Temp, 2); err != nil {
		return err
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	fs, err := filesystem.New(ctx, j.Out)
	if err != nil {
		return err
	}
	defer fs.Close()
	if err := filesystem.Write(ctx, fs, joinPath(j.Out, ExportSummaryFile), b); err != nil {
		return err
	}
	emit(string(b))
	return nil
}

// moveFile renames a file into place; a file an earlier attempt of the
// stage moved already is skipped.
func moveFile(ctx context.Context, from, to string) error {
	if isLocal(to) {
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.Rename(from, to); err != nil {
			if _, serr := os.Stat(to); errors.Is(err, os.ErrNotExist) && serr == nil {
				return nil
			}
			return err
		}
		return nil
	}
	fs, err := filesystem.New(ctx, to)
	if err != nil {
		return err
	}
	defer fs.Close()
	if err := filesystem.Rename(ctx, fs, from, to); err != nil {
		if _, serr := fs.Size(ctx, from); serr != nil {
			if _, derr := fs.Size(ctx, to); derr == nil {
				return nil
			}
		}
		return err
	}
	return nil
}

// fileSize is the size of a file on any Beam filesystem.
func fileSize(ctx context.Context, p string) (int64, error) {
	fs, err := filesystem.New(ctx, p)
	if err != nil {
		return 0, err
	}
	defer fs.Close()
	return fs.Size(ctx, p)
}
