package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/castable-db/castable/bulk"
	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// Defaults of WriteOptions.
const (
	// DefaultMemtableSize is the memtable memory at which write flushes.
	DefaultMemtableSize = bulk.DefaultMemtableSize
)

// WriteOptions configure Write. Exactly one input is given: JSON (Input),
// CQL statements (CQL) or CSV rows (CSV); "-" reads standard input.
type WriteOptions struct {
	// Schema is the CQL schema file (required); Table picks one of its
	// tables when it declares several.
	Schema, Table string
	// Out is the directory the SSTables are written to (created when
	// missing).
	Out string
	// Input is sstabledump JSON (an array or JSON Lines, canonical or as
	// sstabledump prints it).
	Input string
	// CQL is a file of INSERT, UPDATE and DELETE statements.
	CQL string
	// CSV is a file of rows, each written as an INSERT; see CSVOptions.
	CSV string
	// CSVOptions say how the CSV input is read.
	CSVOptions CSVOptions

	// Format is the SSTable version written (any writable one); "" means
	// version.Default (what Cassandra 4.x and 5.0 write by default).
	Format string
	// Partitioner is the partitioner's class name, full or short
	// ("ByteOrdered"); "" means Murmur3Partitioner.
	Partitioner string
	// Compression is the codec name (lz4, snappy, deflate, zstd, none);
	// "" means the schema's WITH compression, then Cassandra's default LZ4.
	Compression string
	// ChunkLengthKB is the uncompressed chunk length in KiB (a power of
	// two); 0 means the schema's, then 64.
	ChunkLengthKB int
	// Generation is the generation of the first SSTable written; 0 means
	// the next free one in Out.
	Generation int
	// UUIDIdentifiers names each SSTable with a UUID-based identifier
	// (Cassandra 4.1+'s uuid_sstable_identifiers_enabled) instead of an
	// integer generation.
	UUIDIdentifiers bool
	// ColumnIndexSizeKB is column_index_size in KiB: the row index cuts a
	// partition's rows into blocks of that size; 0 means the version's
	// default (64 KiB for the big versions).
	ColumnIndexSizeKB int
	// CapDeletionTimes writes local deletion and expiration times past
	// 2038-01-19 as that day (Cassandra's expiration_date_overflow_policy
	// CAP) in the versions before oa, which cannot store later ones; by
	// default such data is an error naming the partition (REJECT).
	CapDeletionTimes bool
	// HeaderAllColumns lists every table column in mc's serialization
	// header (as ScyllaDB does), not only those that occur.
	HeaderAllColumns bool
	// ScyllaShadowable writes shadowable row deletions with ScyllaDB's
	// encoding (mc row extended flag 0x80).
	ScyllaShadowable bool
	// ShadowableAsRegular lets la output write a shadowable row deletion
	// as a regular one instead of failing (2.2 has none).
	ShadowableAsRegular bool
	// Timestamp is the write time in µs of statements and CSV rows without
	// their own (USING TIMESTAMP); 0 means the time the run starts.
	Timestamp int64
	// Now is the clock of local deletion times and TTL expiry times (and of
	// reconciliation); the zero value means the instant of Timestamp.
	Now time.Time
	// MemtableSize is the memtable memory in bytes at which the data
	// gathered so far is flushed into an SSTable; 0 means 64 MiB.
	MemtableSize int64
	// MaxSSTableSize caps the Data.db size of each SSTable in bytes (the
	// next SSTable starts at the first partition past it); 0 means no cap.
	MaxSSTableSize int64
	// Jobs is the number of compression workers; 0 means one per core.
	Jobs int
	// Sorted says the CSV records are in token order (partitions in the
	// order of their tokens, as castable export writes them): they are
	// written without a memtable (bulk.SortedSink, Cassandra's
	// CQLSSTableWriter.sorted()), and a partition out of order is an
	// error. MemtableSize is then the size of each of its two buffers.
	Sorted bool
}

// WriteSummary is what Write did.
type WriteSummary struct {
	// Results describe the SSTables written, in generation order.
	Results []*sstables.WriteResult
	// InputRows counts the input's rows (JSON rows, CSV records, CQL
	// statements).
	InputRows int64
	// InputBytes is the size of the input read.
	InputBytes int64
	// Duration is the wall time of the whole command.
	Duration time.Duration
}

// Partitions, OutputBytes and DataBytes add up the results.
func (s *WriteSummary) totals() (partitions, rows, output, dataLen, dataFile int64) {
	for _, r := range s.Results {
		partitions += r.Partitions
		rows += r.Rows
		output += r.BytesWritten
		dataLen += r.DataLength
		dataFile += r.DataFileSize
	}
	return
}

// Write reads data (sstabledump JSON, CQL statements or CSV rows) into a
// memtable, flushing it into an SSTable whenever it fills up, and prints
// the Data.db path of every SSTable written to stdout.
func Write(ctx context.Context, env *Env, opts WriteOptions) (*WriteSummary, error) {
	start := time.Now()
	inputs := 0
	for _, in := range []string{opts.Input, opts.CQL, opts.CSV} {
		if in != "" {
			inputs++
		}
	}
	switch {
	case opts.Schema == "":
		return nil, Usagef("write needs --schema FILE (the CREATE TABLE of the data)")
	case opts.Out == "":
		return nil, Usagef("write needs --out DIR")
	case inputs == 0:
		return nil, Usagef("write needs an input: a JSON file (or - for standard input), --cql FILE or --csv FILE")
	case inputs > 1:
		return nil, Usagef("write takes one input: a JSON file, --cql or --csv, not several")
	case opts.Generation < 0:
		return nil, Usagef("--generation must be positive")
	case opts.MemtableSize < 0 || opts.MaxSSTableSize < 0:
		return nil, Usagef("sizes must not be negative")
	}
	if opts.Input != "" && opts.Timestamp != 0 {
		return nil, Usagef("--timestamp applies to --cql and --csv input; JSON carries its own timestamps")
	}
	if opts.CSV == "" && (opts.CSVOptions.Given() || opts.Sorted) {
		return nil, Usagef("CSV options (--columns, --header, --delimiter, --null-string, --ttl, --sorted) need --csv")
	}
	sch, err := loadSchema(opts.Schema)
	if err != nil {
		return nil, err
	}
	table, err := pickTable(sch, opts.Schema, opts.Table)
	if err != nil {
		return nil, err
	}
	if err := setPartitioner(sch, opts.Partitioner); err != nil {
		return nil, err
	}
	format, err := writeFormat(opts.Format)
	if err != nil {
		return nil, err
	}
	cis, err := columnIndexSize(opts.ColumnIndexSizeKB)
	if err != nil {
		return nil, err
	}
	params, err := bulk.CompressionParams(table, opts.Compression, opts.ChunkLengthKB)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	gen := opts.Generation
	if gen == 0 {
		if gen, err = sstables.NextGeneration(nil, opts.Out); err != nil {
			return nil, err
		}
	}
	ts := opts.Timestamp
	if ts == 0 {
		ts = start.UnixMicro()
	}
	now := opts.Now
	if now.IsZero() {
		now = time.UnixMicro(ts)
	}

	in, size, closeIn, err := openInput(env, firstNonEmpty(opts.Input, opts.CQL, opts.CSV))
	if err != nil {
		return nil, err
	}
	defer closeIn()
	prog := newProgress(env, "write", size)
	counted := &countingReader{r: in, prog: prog}

	sinkOpts := bulk.SinkOptions{
		Format: format,
		Writer: sstables.WriterOptions{
			Dir:                 opts.Out,
			Generation:          gen,
			Compression:         &params,
			Jobs:                opts.Jobs,
			ColumnIndexSize:     cis,
			HeaderAllColumns:    opts.HeaderAllColumns,
			ScyllaShadowable:    opts.ScyllaShadowable,
			ShadowableAsRegular: opts.ShadowableAsRegular,
		},
		UUIDs:            opts.UUIDIdentifiers,
		CapDeletionTimes: opts.CapDeletionTimes,
		MemtableSize:     opts.MemtableSize,
		MaxSSTableSize:   opts.MaxSSTableSize,
		Verbatim:         opts.Input != "",
		Now:              now,
		OnFlushed:        func(r []*sstables.WriteResult) { prog.addSSTables(int64(len(r))) },
	}
	var sink interface {
		bulk.Sink
		Close(ok bool) ([]*sstables.WriteResult, error)
	}
	if opts.Sorted {
		sink = bulk.NewSortedSink(ctx, table, sinkOpts)
	} else {
		sink = bulk.NewMemtableSink(ctx, table, sinkOpts)
	}
	read := bulk.ReadOptions{Table: table, Timestamp: ts, Now: now, OnRows: prog.addRows}
	var rows int64
	switch {
	case opts.Input != "":
		read.Name = opts.Input
		rows, err = bulk.ReadJSON(counted, read, sink)
	case opts.CQL != "":
		read.Name, read.Schema = opts.CQL, sch
		rows, err = bulk.ReadCQL(counted, read, sink)
	default:
		read.Name, read.CSV = opts.CSV, opts.CSVOptions
		rows, err = bulk.ReadCSV(counted, read, sink)
	}
	results, ferr := sink.Close(err == nil)
	prog.finish()
	if err == nil || errors.Is(err, bulk.ErrStopped) && ferr != nil {
		err = ferr
	}
	sum := &WriteSummary{Results: results, InputRows: rows, InputBytes: counted.n, Duration: time.Since(start)}
	if err != nil {
		if ctx.Err() != nil {
			return sum, fmt.Errorf("interrupted after %s rows; the SSTables of this run were removed", groupDigits(rows))
		}
		return sum, err
	}
	for _, r := range results {
		fmt.Fprintln(env.stdout(), r.Descriptor.Path(sstables.ComponentData))
	}
	partitions, _, output, dataLen, dataFile := sum.totals()
	env.infof("castable write: %s rows, %s partitions -> %d SSTables (%s, %s) in %s: input %s, output %s, Data.db %s -> %s (ratio %.3f), %s, %s rows/s",
		groupDigits(rows), groupDigits(partitions), len(results), format.Version(), describeParams(params, format.Version()), opts.Out,
		humanBytes(counted.n), humanBytes(output), humanBytes(dataLen), humanBytes(dataFile), ratio(dataFile, dataLen),
		roundDuration(sum.Duration), groupDigits(perSecond(rows, sum.Duration)))
	return sum, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// openInput opens a file, or standard input for "-"; size is -1 when
// unknown.
func openInput(env *Env, path string) (r io.Reader, size int64, closeFn func(), err error) {
	if path == "-" {
		return env.stdin(), -1, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, err
	}
	size = -1
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return f, size, func() { f.Close() }, nil
}

// countingReader counts the bytes read and reports them to the progress
// bar.
type countingReader struct {
	r    io.Reader
	n    int64
	prog *progress
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.prog.setBytes(c.n)
	return n, err
}

// describeParams renders the compression settings version v is written
// with for the summary line: without a chunk length, the version's default
// (16 KiB from 4.0's versions on, 64 KiB before), as the writer takes it.
func describeParams(p compress.Params, v version.Version) string {
	if p.Codec == compress.None {
		return "uncompressed"
	}
	p = p.WithDefaultChunkLength(v.Profile().DefaultChunkLength)
	return fmt.Sprintf("%s, %d KiB chunks", p.Codec, p.ChunkLength>>10)
}
