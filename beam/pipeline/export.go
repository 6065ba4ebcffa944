package pipeline

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/sstables"
)

// The export pipeline (castable-beam export): the merged live rows of many
// SSTables of one table — several nodes' snapshots, overlapping, of any
// versions — as `castable export` shows them, split by token range over the
// workers, each range written as one or more files:
//
//	<Out>/range-NNN<ext>                one range's rows, in token order
//	<Out>/range-NNN-00001<ext> …        with MaxFileSize, more files
//	<Out>/castable-beam-export.json     what was exported, per range
//
// Stages: the inputs are listed; each SSTable's first and last tokens are
// read from Statistics.db or Summary.db; one stage plans the ranges (each
// with the SSTables whose tokens overlap it); each range is exported by one
// worker, which merges only those SSTables, each scanned from the range's
// start (table.Set over readers cut to the range), into export.Export; a
// last stage moves the files of the attempts that succeeded into place.
// Concatenated in range order, the files hold exactly the rows of one
// `castable export` of the same SSTables, in the same order.

// ExportOptions configure the export pipeline. Out, a schema (SchemaFile
// or Schema) and SSTables are required; the zero value of every other
// field means the default given in its comment.
type ExportOptions struct {
	// SchemaFile is the CQL schema (CREATE TYPE / CREATE TABLE), a path on
	// any Beam filesystem, read when the pipeline is built; Schema is its
	// text instead. Table picks one table of a schema declaring several.
	SchemaFile, Schema, Table string
	// SSTables are the inputs, SSTables of one table: directories (every
	// SSTable with a TOC.txt in them), globs of directories or of component
	// files, or component paths, on any Beam filesystem. An SSTable found
	// twice is read once.
	SSTables []string
	// Format is the output format; "" means export.Parquet.
	Format export.Format
	// Export holds the columns, writetime/ttl, tombstone, file size and
	// Parquet and CSV options, as for `castable export`; its Format,
	// Metadata and OnRows are set by the pipeline.
	Export export.Options
	// Now is the moment the export shows; the zero value means the time the
	// pipeline is built (one value for every worker).
	Now time.Time
	// Out is the output directory, a path on any Beam filesystem.
	Out string
	// Ranges splits the ring into this many equal token ranges
	// (dht.SplitRing), one unit of work and one file (or more) each; 0
	// means 1. Ring, instead, splits it at a cluster's tokens.
	Ranges int
	Ring   []Node
	// Lanes is the number of independent branches the ranges are dealt
	// to: Prism runs one bundle per stage at a time, so lanes are what
	// exports several ranges at once there. 0 means runtime.NumCPU() of
	// the machine that builds the pipeline, at most 8.
	Lanes int
	// LocalDir is the worker directory where files are written before
	// they are copied to a remote Out, and where remote SSTables are copied
	// to be read; "" means os.TempDir().
	LocalDir string
}

// ExportSummaryFile is the name of the summary the export writes in Out.
const ExportSummaryFile = "castable-beam-export.json"

// exportJob is what the export's workers need, resolved when the pipeline
// is built (exported fields: Beam serializes the functions as JSON).
type exportJob struct {
	SchemaText  string
	Table       string // "ks.table"
	Inputs      []string
	Format      string
	Columns     []string
	WriteTime   []string
	TTL         []string
	Tombstones  bool
	MaxFileSize int64
	Parquet     export.ParquetOptions
	CSV         export.CSVOptions
	NowNanos    int64
	Out         string
	Temp        string // <Out>/_temporary/<run id>
	LocalDir    string
	Ranges      int
	Ring        []Node
	Lanes       int
}

func (j *exportJob) now() time.Time { return time.Unix(0, j.NowNanos) }

// options is the export.Options of the job (Metadata and OnRows unset).
func (j *exportJob) options() export.Options {
	return export.Options{
		Format: export.Format(j.Format), Columns: j.Columns, WriteTime: j.WriteTime, TTL: j.TTL,
		IncludeTombstones: j.Tombstones, MaxFileSize: j.MaxFileSize, Parquet: j.Parquet, CSV: j.CSV,
	}
}

// ExportOutputs are the PCollections BuildExport returns.
type ExportOutputs struct {
	// Summary holds one string: the JSON of the ExportSummary, once every
	// file is in place.
	Summary beam.PCollection
}

// BuildExport adds the export to the pipeline of s. It reads the schema
// and checks every option first: errors are returned, nothing is added.
func BuildExport(s beam.Scope, opts ExportOptions) (*ExportOutputs, error) {
	j, err := resolveExport(context.Background(), opts)
	if err != nil {
		return nil, err
	}
	s = s.Scope("castable-export")
	paths := beam.ParDo(s, &listSSTablesFn{Inputs: j.Inputs}, beam.Impulse(s))
	refs := beam.ParDo(s, &boundsFn{}, beam.Reshuffle(s, paths))
	tasks := beam.ParDo(s, &planFn{Job: j}, beam.GroupByKey(s, beam.AddFixedKey(s, refs)))
	var done []beam.PCollection
	for lane, ts := range beam.Partition(s, j.Lanes, laneOf, tasks) {
		ls := s.Scope(fmt.Sprintf("lane%d", lane))
		done = append(done, beam.ParDo(ls, &exportRangeFn{Job: j}, beam.Reshuffle(ls, ts)))
	}
	all := beam.Flatten(s, done...)
	summary := beam.ParDo(s, &exportSummaryFn{Job: j}, beam.GroupByKey(s, beam.AddFixedKey(s, all)))
	return &ExportOutputs{Summary: summary}, nil
}

// laneOf is the lane of a planned range (the key planFn gives it).
func laneOf(lane int, _ string) int { return lane }

// resolveExport checks the options and turns them into the job.
func resolveExport(ctx context.Context, o ExportOptions) (exportJob, error) {
	var j exportJob
	switch {
	case o.Out == "":
		return j, optionErrorf("the export needs an output directory (--out)")
	case o.SchemaFile == "" && o.Schema == "":
		return j, optionErrorf("the export needs the table's schema (--schema FILE)")
	case o.SchemaFile != "" && o.Schema != "":
		return j, optionErrorf("give the schema as a file or as text, not both")
	case len(o.SSTables) == 0:
		return j, optionErrorf("the export needs SSTables: directories, globs or component paths")
	case o.Ranges < 0 || o.Lanes < 0 || o.Export.MaxFileSize < 0:
		return j, optionErrorf("counts and sizes must not be negative")
	case o.Ranges > 0 && len(o.Ring) > 0:
		return j, optionErrorf("split the ring either into --ranges or at a --ring's tokens, not both")
	}
	for _, in := range o.SSTables {
		if strings.TrimSpace(in) == "" {
			return j, optionErrorf("an empty SSTable path")
		}
	}
	format := o.Format
	if format == "" {
		format = export.Parquet
	}
	if _, err := export.ParseFormat(string(format)); err != nil {
		return j, optionErrorf("--to: %v", err)
	}
	eo := o.Export
	if format != export.Parquet && (eo.Parquet != export.ParquetOptions{}) {
		return j, optionErrorf("--compression and --row-group-size apply to --to parquet")
	}
	if format != export.CSV && (eo.CSV != export.CSVOptions{}) {
		return j, optionErrorf("--no-header, --delimiter and --null-string apply to --to csv")
	}
	switch eo.Parquet.Compression {
	case "", export.Snappy, export.Zstd, export.None:
	default:
		return j, optionErrorf("--compression %q: want snappy, zstd or none", eo.Parquet.Compression)
	}
	if d := eo.CSV.Delimiter; d != 0 && (d >= 0x80 || d == '"' || d == '\n' || d == '\r') {
		return j, optionErrorf("--delimiter %q cannot separate CSV fields", d)
	}
	text := o.Schema
	if o.SchemaFile != "" {
		b, err := readFile(ctx, o.SchemaFile, 16<<20)
		if err != nil {
			return j, fmt.Errorf("schema: %w", err)
		}
		text = string(b)
	}
	name := o.SchemaFile
	if name == "" {
		name = "schema"
	}
	_, table, err := loadTable(text, name, o.Table, "")
	if err != nil {
		return j, err
	}
	eo.Format = format
	if _, err := export.Columns(table, eo); err != nil {
		return j, optionErrorf("%v", err)
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	lanes := o.Lanes
	if lanes <= 0 {
		lanes = min(runtime.NumCPU(), 8)
	}
	out := strings.TrimSuffix(o.Out, "/")
	j = exportJob{
		SchemaText: text, Table: table.Keyspace + "." + table.Name, Inputs: o.SSTables, Format: string(format),
		Columns: eo.Columns, WriteTime: eo.WriteTime, TTL: eo.TTL, Tombstones: eo.IncludeTombstones,
		MaxFileSize: eo.MaxFileSize, Parquet: eo.Parquet, CSV: eo.CSV, NowNanos: now.UnixNano(),
		Out: out, Temp: out + "/" + tempDirName + "/" + sstables.NewUUIDID().String(), LocalDir: o.LocalDir,
		Ranges: max(o.Ranges, 1), Ring: o.Ring, Lanes: lanes,
	}
	return j, nil
}

// RunExport builds a pipeline of the export alone, runs it on runner (as
// Run does), waits for it and returns the summary the pipeline wrote, with
// the Beam counters when the runner reports them.
func RunExport(ctx context.Context, runner string, opts ExportOptions) (*ExportSummary, error) {
	var sum ExportSummary
	counters, err := runPipeline(ctx, runner, func(s beam.Scope) error {
		_, err := BuildExport(s, opts)
		return err
	}, joinPath(trimSlash(opts.Out), ExportSummaryFile), &sum)
	if err != nil {
		return nil, err
	}
	sum.Counters = counters
	return &sum, nil
}

// ExportSummary is what the export wrote, as ExportSummaryFile holds it.
type ExportSummary struct {
	// Out is the output directory, Format the output format, Table the
	// table ("ks.table"), Partitioner the SSTables' partitioner and Now
	// the moment shown (RFC 3339).
	Out         string `json:"out"`
	Format      string `json:"format"`
	Table       string `json:"table"`
	Partitioner string `json:"partitioner"`
	Now         string `json:"now"`
	// Ranges has one entry per token range, in token order.
	Ranges []RangeSummary `json:"ranges"`
	// Totals: SSTables is the number of input SSTables, SSTablesRead the
	// sum over the ranges of the SSTables each read.
	SSTables     int   `json:"sstables"`
	SSTablesRead int   `json:"sstables_read"`
	Rows         int64 `json:"rows"`
	Tombstones   int64 `json:"tombstones"`
	Files        int   `json:"files"`
	Bytes        int64 `json:"bytes"`
	// Counters are the pipeline's Beam counters by name (namespace
	// "castable"), when the runner reports metrics; RunExport fills them in.
	Counters map[string]int64 `json:"counters,omitempty"`
}

// RangeSummary is what one range's worker exported.
type RangeSummary struct {
	// Name is the files' name ("range-003"), Range the token range as
	// "(left, right]" (right the minimum token for the range that ends the
	// ring), Node the node whose token ends it (with a ring).
	Name  string `json:"name"`
	Range string `json:"range"`
	Node  string `json:"node,omitempty"`
	// SSTables are the Data.db paths of the SSTables read (those whose
	// tokens overlap the range).
	SSTables []string `json:"sstables"`
	// Files are the paths written, Bytes their total size.
	Files      []string `json:"files"`
	Rows       int64    `json:"rows"`
	Tombstones int64    `json:"tombstones"`
	Bytes      int64    `json:"bytes"`
}

// WriteExportReport prints sum for people: one line per range and the
// totals.
func WriteExportReport(w io.Writer, sum *ExportSummary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %-48s %9s %12s %6s %14s\n", "range", "tokens", "sstables", "rows", "files", "bytes")
	for _, r := range sum.Ranges {
		fmt.Fprintf(&b, "%-12s %-48s %9d %12d %6d %14d\n", r.Name, r.Range, len(r.SSTables), r.Rows, len(r.Files), r.Bytes)
	}
	fmt.Fprintf(&b, "%-12s %-48s %9d %12d %6d %14d\n", "total", fmt.Sprintf("%d SSTables in", sum.SSTables), sum.SSTablesRead, sum.Rows, sum.Files, sum.Bytes)
	if sum.Tombstones > 0 {
		fmt.Fprintf(&b, "%d of the rows are tombstones\n", sum.Tombstones)
	}
	fmt.Fprintf(&b, "%s of %s at %s, %s; summary in %s\n", sum.Format, sum.Table, sum.Now, sum.Partitioner, joinPath(sum.Out, ExportSummaryFile))
	_, err := io.WriteString(w, b.String())
	return err
}
