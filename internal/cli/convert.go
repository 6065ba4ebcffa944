package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/castable-db/castable/sstables/version"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// ConvertOptions configure Convert.
type ConvertOptions struct {
	// SSTables are the input SSTables, all of one table.
	SSTables []string
	// Out is the directory written to (created when missing).
	Out string
	// To is the target version (any writable one: la, ma … oa, da, ms,
	// mt); "" keeps each input's version (la for the read-only ka and lb).
	To string
	// Compression is the target codec; "" keeps each input's.
	Compression string
	// ChunkLengthKB is the target chunk length in KiB; 0 keeps each
	// input's.
	ChunkLengthKB int
	// Schema and Table give the table; needed for la inputs, whose files
	// do not record column types (without it values are copied as blobs).
	Schema, Table string
	// Generation is the generation of the first output; 0 means the next
	// free one in Out. Outputs take successive generations in input order.
	Generation int
	// UUIDIdentifiers names each output with a new UUID-based identifier
	// (Cassandra 4.1+) instead of an integer generation.
	UUIDIdentifiers bool
	// ColumnIndexSizeKB is the target's column_index_size in KiB; 0 means
	// the size the input's row index shows (InferColumnIndexSize), or the
	// target version's default when the input does not tell.
	ColumnIndexSizeKB int
	// CapDeletionTimes writes deletion and expiration times past
	// 2038-01-19 as that day into versions before oa (Cassandra's
	// expiration_date_overflow_policy CAP); by default they are an error
	// naming the partition.
	CapDeletionTimes bool
	// Jobs is the number of cores used: inputs are converted in parallel,
	// the rest of the cores compress chunks; 0 means all cores.
	Jobs int
	// ScyllaShadowable writes shadowable row deletions with ScyllaDB's mc
	// encoding (extended flag 0x80).
	ScyllaShadowable bool
	// ShadowableAsRegular lets an la target write shadowable row deletions
	// as regular ones instead of failing (2.2 has none).
	ShadowableAsRegular bool
	// HeaderAllColumns lists every table column in an mc target's
	// serialization header instead of only the columns that occur.
	HeaderAllColumns bool
	// OpaqueUnknownTypes reads a column whose type is a marshal class
	// castable does not know (in the serialization header or a --schema
	// custom type) as opaque length-prefixed bytes, written back as they were, instead
	// of failing (sstables.ReaderOptions.OpaqueUnknownTypes).
	OpaqueUnknownTypes bool
}

// Convert rewrites SSTables into another format, codec or chunk length
// (or the same, as a rewrite), streaming each input partition by partition
// and row by row from Reader.Scan into Writer.StartPartition / AppendRow /
// AppendMarker / EndPartition, so memory is bounded by a window of rows
// whatever the partition sizes. Every output appears atomically (temporary
// names, TOC.txt last); when any conversion fails, every output of the run
// is removed.
//
// Statistics.db values that do not follow from the data are carried over:
// repairedAt, the LCS level and the commit log intervals (replay position
// for la), and for la to la the ancestor generations. The mc serialization
// header keeps the input's encoding minima and column set when the input is
// mc, so an mc to mc rewrite reproduces Data.db; for an la input a first pass
// over the data finds them, as a flush of that data would, so mc -> la -> mc
// comes back to the same bytes.
func Convert(ctx context.Context, env *Env, opts ConvertOptions) ([]*sstables.WriteResult, error) {
	start := time.Now()
	descs, table, format, err := rewriteSetup("convert", opts.Out, opts.SSTables, opts.Schema, opts.Table, opts.To, opts.ColumnIndexSizeKB, opts.Compression, opts.ChunkLengthKB, opts.OpaqueUnknownTypes)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	gen := opts.Generation
	if gen == 0 && !opts.UUIDIdentifiers {
		if gen, err = sstables.NextGeneration(nil, opts.Out); err != nil {
			return nil, err
		}
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	parallel := min(jobs, len(descs))
	compressJobs := max(1, jobs/parallel)

	var inputBytes, inputLength int64
	for _, d := range descs {
		inputBytes += fileSize(d.Path(sstables.ComponentData))
		inputLength += dataLength(d)
	}
	// The bar counts uncompressed Data.db bytes, which the scans report.
	prog := newProgress(env, "convert", inputLength)
	results := make([]*sstables.WriteResult, len(descs))
	errs := make([]error, len(descs))
	sem := make(chan struct{}, parallel)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i, d := range descs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f := format
			if f == nil {
				f = keepVersion(d.Version)
			}
			g := gen + i
			if opts.UUIDIdentifiers {
				g = 0
			}
			res, err := convertOne(ctx, d, table, f, opts, g, compressJobs, prog)
			results[i], errs[i] = res, err
			if err != nil {
				cancel()
			}
			prog.addSSTables(1)
		}()
	}
	wg.Wait()
	prog.finish()
	var done []*sstables.WriteResult
	for _, r := range results {
		if r != nil {
			done = append(done, r)
		}
	}
	if err := firstError(errs); err != nil {
		if rerr := removeSSTables(done); rerr != nil {
			err = errors.Join(err, rerr)
		}
		if errors.Is(err, context.Canceled) {
			err = fmt.Errorf("interrupted; the SSTables of this run were removed")
		}
		return nil, err
	}
	var rows, partitions, output int64
	for _, r := range done {
		fmt.Fprintln(env.stdout(), r.Descriptor.Path(sstables.ComponentData))
		rows += r.Rows
		partitions += r.Partitions
		output += r.BytesWritten
	}
	d := time.Since(start)
	env.infof("castable convert: %d SSTables -> %d SSTables (%s) in %s: %s rows, %s partitions, input Data.db %s, output %s (ratio %.3f), %s, %s rows/s",
		len(descs), len(done), outputVersions(done), opts.Out, groupDigits(rows), groupDigits(partitions),
		humanBytes(inputBytes), humanBytes(output), ratio(output, inputBytes), roundDuration(d), groupDigits(perSecond(rows, d)))
	return done, nil
}

// keepVersion returns the format convert writes for an input of version v
// without --to: v itself, or for a read-only version what the table says it
// is written as (v.WriteAs).
func keepVersion(v version.Version) sstables.Format {
	f, _ := sstables.LookupVersion(v.WriteAs())
	return f
}

// outputVersions lists the versions of the SSTables written.
func outputVersions(rs []*sstables.WriteResult) string {
	var names []string
	for _, r := range rs {
		if n := r.Descriptor.Version.String(); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// firstError returns the first non-nil error that is not a cancellation
// caused by another failure, else the first error.
func firstError(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// convertOne streams one SSTable into a new one of generation gen.
func convertOne(ctx context.Context, desc sstables.Descriptor, table *schema.Table, format sstables.Format, opts ConvertOptions, gen, jobs int, prog *progress) (res *sstables.WriteResult, err error) {
	r, err := openSSTable(desc, table, opts.OpaqueUnknownTypes)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	params, err := convertParams(desc, opts)
	if err != nil {
		return nil, err
	}
	wopts := sstables.WriterOptions{
		Dir:                 opts.Out,
		Generation:          gen,
		Compression:         &params,
		Jobs:                jobs,
		ColumnIndexSize:     opts.ColumnIndexSizeKB << 10,
		ScyllaShadowable:    opts.ScyllaShadowable,
		HeaderAllColumns:    opts.HeaderAllColumns,
		ShadowableAsRegular: opts.ShadowableAsRegular,
	}
	if gen == 0 {
		wopts.UUID = sstables.NewUUIDID().String()
	}
	sstables.CarryOver(r, &wopts)
	if wopts.ColumnIndexSize == 0 {
		// The granularity the input's row index shows.
		if ci, ok := r.(columnIndexInferrer); ok {
			def := format.Version().Profile().DefaultColumnIndexSize
			size, exact, err := ci.InferColumnIndexSize(def)
			if err != nil {
				return nil, err
			}
			if exact {
				wopts.ColumnIndexSize = size
			}
		}
	}
	capTimes := opts.CapDeletionTimes && !format.Version().UIntDeletionTime()
	if !wopts.Stats.Known && !format.Version().LegacyCells() {
		// An input without mc's serialization header (la): take the
		// minima and the columns from the data, as a flush of that data
		// would, with a first pass over it.
		if wopts.Stats, err = scanStats(r); err != nil {
			return nil, err
		}
	}
	w, err := format.NewWriter(r.Table(), wopts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", desc, err)
	}
	defer func() {
		if err != nil {
			if aerr := w.Abort(); aerr != nil {
				err = errors.Join(err, aerr)
			}
		}
	}()
	sc, err := r.Scan()
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	var lastPos int64
	for n := 0; ; n++ {
		p, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		pos := sc.Position()
		prog.addBytes(pos - lastPos)
		lastPos = pos
		if capTimes {
			p.CapDeletionTimes(mutation.MaxLegacyDeletionTime, false)
		}
		if err := w.StartPartition(p); err != nil {
			return nil, partitionError(desc, r.Table(), p.Key, err)
		}
		var rows int64
		for {
			row, marker, err := sc.Next()
			if err != nil {
				return nil, err
			}
			if row == nil && marker == nil {
				break
			}
			if row != nil {
				rows++
				if capTimes {
					row.CapDeletionTimes(mutation.MaxLegacyDeletionTime)
				}
				err = w.AppendRow(row)
			} else {
				if capTimes {
					marker.CapDeletionTimes(mutation.MaxLegacyDeletionTime)
				}
				err = w.AppendMarker(marker)
			}
			if err != nil {
				return nil, partitionError(desc, r.Table(), p.Key, err)
			}
		}
		if err := w.EndPartition(); err != nil {
			return nil, partitionError(desc, r.Table(), p.Key, err)
		}
		prog.addRows(rows)
	}
	res, err = w.Finish()
	if err != nil {
		return nil, err
	}
	return res, nil
}

// columnIndexInferrer is a reader that can tell the column index size its
// SSTable was written with (the BIG format's InferColumnIndexSize).
type columnIndexInferrer interface {
	InferColumnIndexSize(def int) (size int, exact bool, err error)
}

// scanStats reads r once and returns the statistics a memtable holding its
// data would report: the encoding minima and the columns that occur.
func scanStats(r sstables.Reader) (sstables.DataStats, error) {
	stats := mutation.NewStats(r.Table())
	sc, err := r.Scan()
	if err != nil {
		return sstables.DataStats{}, err
	}
	defer sc.Close()
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			return sstables.DataStats{}, err
		}
		stats.AddPartition(p) // partition deletion and static row
		for {
			row, marker, err := sc.Next()
			if err != nil {
				return sstables.DataStats{}, err
			}
			if row == nil && marker == nil {
				break
			}
			if row != nil {
				stats.AddRow(row)
			} else {
				stats.AddMarker(marker)
			}
		}
	}
	return flush.WriterStats(stats), nil
}

// dataLength is the uncompressed length of desc's Data.db (its size when
// uncompressed or when CompressionInfo.db does not read).
func dataLength(desc sstables.Descriptor) int64 {
	if fileExists(desc.Path(sstables.ComponentCompressionInfo)) {
		if ci, err := sstables.ReadCompressionInfo(nil, desc); err == nil {
			return ci.DataLength
		}
	}
	return fileSize(desc.Path(sstables.ComponentData))
}

// partitionError names the input and the partition an error happened in.
func partitionError(desc sstables.Descriptor, t *schema.Table, key []byte, err error) error {
	return fmt.Errorf("%s: partition %s: %w", desc, formatKeyOrHex(t, key), err)
}

// convertParams resolves the target compression: the flags over the
// input's own settings.
func convertParams(desc sstables.Descriptor, opts ConvertOptions) (compress.Params, error) {
	var p compress.Params
	if fileExists(desc.Path(sstables.ComponentCompressionInfo)) {
		ci, err := sstables.ReadCompressionInfo(nil, desc)
		if err != nil {
			return p, err
		}
		if p, err = ci.Params(); err != nil {
			return p, err
		}
	}
	if opts.Compression != "" {
		c, _ := compress.ParseCodec(opts.Compression)
		if c != p.Codec {
			p = compress.Params{Codec: c, ChunkLength: p.ChunkLength}
		}
	}
	if opts.ChunkLengthKB != 0 {
		p.ChunkLength = opts.ChunkLengthKB << 10
	}
	return p, nil
}

// rewriteSetup checks and resolves what convert and scrub, which both
// rewrite SSTables, take alike: --out, the inputs, the schema and table, the
// target version (nil Format: each input's own), the column index size, the
// codec and the chunk length.
func rewriteSetup(cmd, out string, inputs []string, schemaPath, tableName, to string, columnIndexKB int, codec string, chunkKB int, opaque bool) ([]sstables.Descriptor, *schema.Table, sstables.Format, error) {
	if out == "" {
		return nil, nil, nil, Usagef("%s needs --out DIR", cmd)
	}
	descs, err := resolveSSTables(inputs)
	if err != nil {
		return nil, nil, nil, err
	}
	table, err := loadTableTypes(schemaPath, tableName, opaque)
	if err != nil {
		return nil, nil, nil, err
	}
	var format sstables.Format
	if to != "" {
		if format, err = writeFormat(to); err != nil {
			return nil, nil, nil, err
		}
	}
	if _, err := columnIndexSize(columnIndexKB); err != nil {
		return nil, nil, nil, err
	}
	if codec != "" {
		if _, err := compress.ParseCodec(codec); err != nil {
			return nil, nil, nil, Usagef("--compression: %v", err)
		}
	}
	if k := chunkKB; k < 0 || k&(k-1) != 0 || k > 1<<20 {
		return nil, nil, nil, Usagef("--chunk-length-kb %d: want a power of two between 1 and 1048576", k)
	}
	return descs, table, format, nil
}
