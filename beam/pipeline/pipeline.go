// Package pipeline is castable's bulk SSTable writer as an Apache Beam
// pipeline: the same readers and memtable-and-flush code as `castable
// write` (package bulk), spread over the workers of any Beam runner — Prism
// locally, Flink, Spark or Google Cloud Dataflow through Beam's portable
// runners — with the output split by token range.
//
// The pipeline reads its inputs with Beam's file IO (any filesystem the Go
// SDK registers: local paths, gs://, s3:// …), turns each file's records
// into partition updates, routes each update to the writers of its token's
// range (one per range with Options.Ranges; one per replica node with
// Options.Ring), groups them, and feeds each writer's updates to a
// bulk.MemtableSink, so every SSTable is sorted and sized. A final stage
// moves the SSTables of the attempts that succeeded into place:
//
//	<Out>/<range-NNN or node>/<keyspace>/<table>-<id>/<SSTable components>
//	<Out>/castable-beam.json   what was written, per writer
//
// Build adds these stages to a caller's pipeline; Run builds a pipeline of
// its own, runs it and returns the summary.
package pipeline

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"runtime"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"   // gs:// inputs and outputs
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"    // s3://
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/castable-db/castable/bulk"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats" // every format, for sstables.Lookup
	"github.com/castable-db/castable/sstables/version"
)

// Options configure the pipeline. Out, one schema (SchemaFile or Schema)
// and one kind of input (CSV, CQL or JSON) are required; the zero value of
// every other field means the default given in its comment.
type Options struct {
	// SchemaFile is the CQL schema (CREATE TYPE / CREATE TABLE), a path on
	// any Beam filesystem, read when the pipeline is built.
	SchemaFile string
	// Schema is the schema's text, instead of SchemaFile.
	Schema string
	// Table picks one of the schema's tables ("table" or "ks.table") when
	// it declares several.
	Table string

	// CSV, CQL and JSON are the inputs: globs of CSV files, of files of
	// CQL statements, or of sstabledump JSON files; exactly one of the
	// three is given. Files ending in .gz are decompressed (Beam's
	// fileio.ReadAutoCompression). Each file is read whole by one worker.
	CSV, CQL, JSON []string
	// CSVOptions say how CSV files are read (every file alike: with
	// Header, each file starts with one).
	CSVOptions bulk.CSVOptions

	// Format is the SSTable version written (any that
	// sstables.Formats(true) lists); "" means version.Default, what
	// castable write writes (and what a 4.x or 5.0 cluster streams).
	Format string
	// Partitioner overrides the table's partitioner (short or full class
	// name); "" keeps the table's (Murmur3 by default).
	Partitioner string
	// Compression is the codec (lz4, snappy, deflate, zstd, none); "" means
	// the schema's WITH compression, then LZ4. ChunkLengthKB is the chunk
	// length in KiB; 0 means the schema's, then the version's default (16 KiB
	// from 4.0's versions on, 64 KiB before: version.Profile).
	Compression   string
	ChunkLengthKB int
	// Timestamp is the write time in µs of CQL statements and CSV records
	// without their own; 0 means the time the pipeline is built (one value
	// for every worker).
	Timestamp int64
	// Now is the clock of local deletion and expiry times; the zero value
	// means the instant of Timestamp.
	Now time.Time
	// MemtableSize is each writer's memtable size in bytes (a writer holds
	// up to two while one flushes); 0 means 64 MiB.
	MemtableSize int64
	// MaxSSTableSize caps each SSTable's Data.db size in bytes; 0 means no
	// cap (one SSTable per memtable flush).
	MaxSSTableSize int64
	// Jobs is the number of compression goroutines of each writer; 0
	// means 1 (the runner runs several writers at once).
	Jobs int

	// Out is the output directory, a path on any Beam filesystem.
	Out string
	// Ranges splits the partitioner's token space into this many equal
	// ranges (dht.SplitRing), one writer and one output directory
	// (range-000 …) each; 0 means 1. With Ring, each node's share is cut
	// into this many slices, one writer each (more parallelism per node).
	Ranges int
	// Ring, when set, aligns the output with a cluster's nodes: each row
	// goes to the directory of every node that replicates it
	// (SimpleStrategy with ReplicationFactor replicas). See ParseRing.
	Ring []Node
	// ReplicationFactor is the number of replicas per row with Ring; 0
	// means 1.
	ReplicationFactor int
	// Generations names SSTables with integer generations (what Cassandra
	// before 4.1 and ScyllaDB read) instead of UUID-based identifiers;
	// writers sharing a directory get disjoint blocks of 2^20.
	Generations bool

	// BadRecords, when set, is a directory (any Beam filesystem) where
	// records that do not match the schema are written as JSON lines
	// (bad-records.jsonl: file, line, error, record) instead of failing
	// the job.
	BadRecords string
	// InputLanes is the number of independent branches reading the input
	// files (files are dealt to them in turn): Prism runs one bundle per
	// stage at a time, so lanes are what reads several files at once
	// there; other runners also spread each lane's files over their
	// workers. 0 means runtime.NumCPU() of the machine that builds the
	// pipeline, at most 8.
	InputLanes int
	// LocalDir is the worker directory where SSTables are written before
	// they are copied to a remote Out; "" means os.TempDir(). Local Outs
	// are written in place.
	LocalDir string
	// NoShuffle writes the SSTables in the stage that reads the input, one
	// memtable per bundle flushed into one SSTable per writer its
	// partitions go to, instead of routing every row through a shuffle to
	// one writer per range: nothing is encoded, moved or decoded, at the
	// price of SSTables per bundle — each writer's directory holds one
	// SSTable per flush of every bundle that read rows of it. The bundles
	// a worker process runs at once share MemtableSize.
	NoShuffle bool
}

// job is what the workers need, resolved when the pipeline is built. Beam
// serializes the functions that carry it as JSON (exported fields).
type job struct {
	SchemaText  string
	Table       string // "ks.table"
	Partitioner string // the effective class name
	Kind        bulk.Kind
	CSV         bulk.CSVOptions
	Timestamp   int64
	NowMicros   int64
	Format      string
	Codec       string
	ChunkKB     int
	Memtable    int64
	MaxSSTable  int64
	Jobs        int
	Out         string
	Temp        string // <Out>/_temporary/<run id>
	LocalDir    string
	Plan        planSpec
	Generations bool
	BadRecords  bool
	TableDir    string // "<table>-<id>"
	NoShuffle   bool
}

// SummaryFile is the name of the summary the pipeline writes in Out.
const SummaryFile = "castable-beam.json"

// tempDirName is the directory of Out where attempts write before the
// final stage moves their SSTables into place.
const tempDirName = "_temporary"

// Outputs are the PCollections Build returns.
type Outputs struct {
	// Summary holds one string: the JSON of the Summary, once every
	// SSTable is in place.
	Summary beam.PCollection
	// BadRecords are the bad records as JSON lines (empty unless
	// Options.BadRecords is set).
	BadRecords beam.PCollection
}

// Build adds the bulk write to the pipeline of s. It reads the schema and
// checks every option first: errors are returned, nothing is added.
func Build(s beam.Scope, opts Options) (*Outputs, error) {
	j, err := resolve(context.Background(), opts)
	if err != nil {
		return nil, err
	}
	lanes := opts.InputLanes
	if lanes <= 0 {
		lanes = min(runtime.NumCPU(), 8)
	}
	globs := firstNonEmpty(opts.CSV, opts.CQL, opts.JSON)
	s = s.Scope("castable")

	var keyed, bad []beam.PCollection
	for lane := range lanes {
		ls := s.Scope(fmt.Sprintf("lane%d", lane))
		files := beam.ParDo(ls, &expandFn{Globs: globs, Lane: lane, Lanes: lanes}, beam.Impulse(ls))
		files = beam.Reshuffle(ls, files)
		readable := fileio.ReadMatches(ls, files, fileio.ReadAutoCompression(), fileio.ReadDirectorySkip())
		var k, b beam.PCollection
		if j.NoShuffle {
			// The readers write the SSTables: k holds their descriptions.
			k, b = beam.ParDo2(ls, &directFn{Job: j}, readable)
		} else {
			k, b = beam.ParDo2(ls, &parseFn{Job: j}, readable)
		}
		keyed, bad = append(keyed, k), append(bad, b)
	}
	var written beam.PCollection
	if j.NoShuffle {
		written = beam.Flatten(s, keyed...)
	} else {
		grouped := beam.GroupByKey(s, beam.Flatten(s, keyed...))
		var badWrites beam.PCollection
		written, badWrites = beam.ParDo2(s, &writeFn{Job: j}, grouped)
		bad = append(bad, badWrites)
	}
	summaries := beam.ParDo(s, &finalizeFn{Job: j}, beam.GroupByKey(s, written))
	summary := beam.ParDo(s, &summaryFn{Job: j}, beam.GroupByKey(s, beam.AddFixedKey(s, summaries)))

	badAll := beam.Flatten(s, bad...)
	if opts.BadRecords != "" {
		textio.Write(s, strings.TrimSuffix(opts.BadRecords, "/")+"/bad-records.jsonl", badAll)
	}
	return &Outputs{Summary: summary, BadRecords: badAll}, nil
}

// resolve checks the options and turns them into the job the workers run.
func resolve(ctx context.Context, o Options) (job, error) {
	var j job
	kinds := 0
	for _, in := range [][]string{o.CSV, o.CQL, o.JSON} {
		if len(in) > 0 {
			kinds++
		}
	}
	switch {
	case o.Out == "":
		return j, optionErrorf("the pipeline needs an output directory (--out)")
	case o.SchemaFile == "" && o.Schema == "":
		return j, optionErrorf("the pipeline needs a schema (--schema FILE)")
	case o.SchemaFile != "" && o.Schema != "":
		return j, optionErrorf("give the schema as a file or as text, not both")
	case kinds == 0:
		return j, optionErrorf("the pipeline needs inputs: --csv, --cql or JSON globs")
	case kinds > 1:
		return j, optionErrorf("the pipeline takes one kind of input (CSV, CQL or JSON), not several")
	case len(o.CSV) == 0 && o.CSVOptions.Given():
		return j, optionErrorf("CSV options (--columns, --header, --delimiter, --null-string, --ttl) need --csv")
	case len(o.JSON) > 0 && o.Timestamp != 0:
		return j, optionErrorf("--timestamp applies to --cql and --csv input; JSON carries its own timestamps")
	case o.Ranges < 0 || o.ReplicationFactor < 0 || o.MemtableSize < 0 || o.MaxSSTableSize < 0 || o.Jobs < 0 || o.InputLanes < 0:
		return j, optionErrorf("counts and sizes must not be negative")
	case o.ReplicationFactor > 1 && len(o.Ring) == 0:
		return j, optionErrorf("--replication-factor needs --ring")
	}
	for _, g := range append(append(append([]string(nil), o.CSV...), o.CQL...), o.JSON...) {
		if strings.TrimSpace(g) == "" {
			return j, optionErrorf("an empty input glob")
		}
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
	_, table, err := loadTable(text, name, o.Table, o.Partitioner)
	if err != nil {
		return j, err
	}
	format, err := writeFormat(o.Format)
	if err != nil {
		return j, err
	}
	if _, err := bulk.CompressionParams(table, o.Compression, o.ChunkLengthKB); err != nil {
		return j, err
	}
	part, err := dht.Lookup(table.Options.Partitioner)
	if err != nil { // loadTable checked it; this is not reached
		return j, fmt.Errorf("table %s.%s: %w", table.Keyspace, table.Name, err)
	}
	j = job{
		SchemaText: text, Table: table.Keyspace + "." + table.Name, Partitioner: part.Name(),
		CSV: o.CSVOptions, Timestamp: o.Timestamp, Format: format.Version().String(),
		Codec: o.Compression, ChunkKB: o.ChunkLengthKB, Memtable: o.MemtableSize, MaxSSTable: o.MaxSSTableSize, Jobs: o.Jobs,
		Out: strings.TrimSuffix(o.Out, "/"), LocalDir: o.LocalDir, Generations: o.Generations, BadRecords: o.BadRecords != "",
		TableDir: table.Name + "-" + tableID(table), NoShuffle: o.NoShuffle,
	}
	switch {
	case len(o.CSV) > 0:
		j.Kind = bulk.CSV
	case len(o.CQL) > 0:
		j.Kind = bulk.CQL
	default:
		j.Kind = bulk.JSON
	}
	if j.Jobs == 0 {
		j.Jobs = 1
	}
	if j.Timestamp == 0 && j.Kind != bulk.JSON {
		j.Timestamp = time.Now().UnixMicro()
	}
	now := o.Now
	if now.IsZero() {
		if j.Timestamp != 0 {
			now = time.UnixMicro(j.Timestamp)
		} else {
			now = time.Now()
		}
	}
	j.NowMicros = now.UnixMicro()
	j.Temp = j.Out + "/" + tempDirName + "/" + sstables.NewUUIDID().String()
	j.Plan = planSpec{Partitioner: j.Partitioner, Slices: max(o.Ranges, 1), Ring: o.Ring, RF: max(o.ReplicationFactor, 1)}
	if _, err := newPlan(j.Plan); err != nil {
		return j, &OptionError{Msg: err.Error()}
	}
	// CSV options that cannot fit the table fail now, not on a worker.
	if j.Kind == bulk.CSV && !o.CSVOptions.Header {
		if _, err := bulk.ReadCSV(strings.NewReader(""), bulk.ReadOptions{Table: table, CSV: o.CSVOptions, Timestamp: 1}, discard{}); err != nil {
			return j, err
		}
	}
	return j, nil
}

// OptionError reports options that cannot work (castable-beam exits 2).
type OptionError struct{ Msg string }

// Error implements error.
func (e *OptionError) Error() string { return e.Msg }

func optionErrorf(format string, args ...any) error {
	return &OptionError{Msg: fmt.Sprintf(format, args...)}
}

// IsOptionError reports whether err is about the options rather than the
// data: an OptionError or a bulk.OptionError.
func IsOptionError(err error) bool {
	var o *OptionError
	var b *bulk.OptionError
	return errors.As(err, &o) || errors.As(err, &b)
}

// loadTable parses a schema and picks its table, with the partitioner
// override applied to every table.
func loadTable(text, name, pick, partitioner string) (*cql.Schema, *schema.Table, error) {
	sch, err := cql.ParseSchema(text)
	if err != nil {
		return nil, nil, fmt.Errorf("schema %s: %w", name, err)
	}
	var t *schema.Table
	switch {
	case pick != "":
		if t = sch.Table(pick); t == nil {
			return nil, nil, optionErrorf("schema %s: no table %q", name, pick)
		}
	case len(sch.Tables) == 1:
		t = sch.Tables[0]
	case len(sch.Tables) == 0:
		return nil, nil, optionErrorf("schema %s: declares no table (want a CREATE TABLE statement)", name)
	default:
		return nil, nil, optionErrorf("schema %s: declares %d tables; choose one with --table", name, len(sch.Tables))
	}
	if partitioner != "" {
		p, err := dht.Lookup(partitioner)
		if err != nil {
			return nil, nil, optionErrorf("--partitioner: %v", err)
		}
		for _, tt := range sch.Tables {
			tt.Options.Partitioner = p.Name()
		}
	} else if _, err := dht.Lookup(t.Options.Partitioner); err != nil {
		return nil, nil, fmt.Errorf("table %s.%s: %w", t.Keyspace, t.Name, err)
	}
	return sch, t, nil
}

// writeFormat returns the writable format of a version name.
func writeFormat(name string) (sstables.Format, error) {
	if name == "" {
		name = version.Default
	}
	f, err := sstables.Lookup(strings.ToLower(name))
	if err != nil {
		return nil, optionErrorf("--format: %v", err)
	}
	if !f.Version().Writable() {
		var names []string
		for _, w := range sstables.Formats(true) {
			names = append(names, w.Version().String())
		}
		return nil, optionErrorf("--format: castable does not write %s (%s); writable: %s", f.Version(), f.Version().Release(), strings.Join(names, ", "))
	}
	return f, nil
}

// tableID is the 32 hex digits after the table's name in its output
// directory: a name-based (MD5, version 3) UUID of the keyspace and table
// names, as Cassandra derives the ids of its system tables. sstableloader
// and Cassandra's descriptor parser take the table's name from the text
// before the first '-', so any id is accepted; this one is the same for
// every run and worker.
func tableID(t *schema.Table) string {
	sum := md5.Sum([]byte(t.Keyspace + t.Name))
	sum[6] = sum[6]&0x0f | 0x30
	sum[8] = sum[8]&0x3f | 0x80
	return hex.EncodeToString(sum[:])
}

func firstNonEmpty(lists ...[]string) []string {
	for _, l := range lists {
		if len(l) > 0 {
			return l
		}
	}
	return nil
}

// readFile reads a small file from any Beam filesystem.
func readFile(ctx context.Context, name string, limit int64) ([]byte, error) {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return b, nil
}

// isLocal reports whether a path is on the local filesystem (no scheme).
func isLocal(p string) bool { return !strings.Contains(p, "://") }

// joinPath joins path elements of a local or remote path.
func joinPath(elem ...string) string {
	if len(elem) > 0 && !isLocal(elem[0]) {
		i := strings.Index(elem[0], "://") + 3
		return elem[0][:i] + path.Join(append([]string{elem[0][i:]}, elem[1:]...)...)
	}
	return path.Join(elem...)
}

// discard is a sink that drops everything.
type discard struct{}

func (discard) Apply(*mutation.Partition, int) error { return nil }

// Summary is what the pipeline wrote, as SummaryFile holds it.
type Summary struct {
	// Out is the output directory; Format the SSTable version.
	Out    string `json:"out"`
	Format string `json:"format"`
	// Partitioner is the partitioner's class name.
	Partitioner string `json:"partitioner"`
	// Writers has one entry per writer (range, or node and slice).
	Writers []WriterSummary `json:"writers"`
	// Totals over the writers.
	SSTables   int   `json:"sstables"`
	Partitions int64 `json:"partitions"`
	Rows       int64 `json:"rows"`
	Bytes      int64 `json:"bytes"`
	// Counters are the pipeline's Beam counters by name (namespace
	// "castable"), when the runner reports metrics; Run fills them in.
	Counters map[string]int64 `json:"counters,omitempty"`
}

// WriterSummary is what one writer wrote.
type WriterSummary struct {
	// Dir is the output subdirectory ("range-003" or a node), Index the
	// writer's slice within it.
	Dir   string `json:"dir"`
	Index int    `json:"index"`
	// Ranges are the token ranges it holds, as "(left, right]".
	Ranges []string `json:"ranges"`
	Slice  string   `json:"slice,omitempty"`
	// SSTables are the Data.db paths written.
	SSTables   []string `json:"sstables"`
	Partitions int64    `json:"partitions"`
	Rows       int64    `json:"rows"`
	// Bytes is the size of every component; DataBytes Data.db's
	// uncompressed length.
	Bytes     int64 `json:"bytes"`
	DataBytes int64 `json:"data_bytes"`
}
