package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/scrub"
)

// ScrubOptions configure Scrub.
type ScrubOptions struct {
	// SSTables are the damaged SSTables (read only, never changed).
	SSTables []string
	// Out is the directory written to (created when missing); it must
	// not be an input's own directory.
	Out string
	// To is the version written; "" keeps each input's (la for ka and lb).
	To string
	// Compression and ChunkLengthKB change the codec and chunk length
	// written; "" and 0 keep each input's.
	Compression   string
	ChunkLengthKB int
	// Schema and Table give the table; needed for la inputs, whose files
	// do not record column types (without it values are copied as blobs).
	Schema, Table string
	// Generation is the generation of the first output; 0 means the next
	// free one in Out. Outputs take successive generations.
	Generation int
	// UUIDIdentifiers names the outputs with UUID-based identifiers.
	UUIDIdentifiers bool
	// ColumnIndexSizeKB is the target's column_index_size in KiB; 0 means
	// the target version's default.
	ColumnIndexSizeKB int
	// ReinsertOverflowedTTL repairs expiration times that overflowed to
	// negative values (CASSANDRA-14092) as Cassandra's
	// sstablescrub --reinsert-overflowed-ttl does.
	ReinsertOverflowedTTL bool
	// CapDeletionTimes caps deletion and expiration times past 2038-01-19
	// into versions before oa (Cassandra's CAP policy) instead of dropping
	// the partitions that hold them.
	CapDeletionTimes bool
	// Jobs is the number of cores compressing chunks; 0 means all.
	Jobs int
	// JSON prints the reports as a JSON array on stdout instead of the
	// Data.db paths written.
	JSON bool
}

// Scrub rescues what damaged SSTables still hold into new SSTables in
// Out (package sstables/scrub), one input after the other. For each input
// it prints, on stderr, every byte range it dropped (offsets in the
// uncompressed Data.db, the partitions and keys Index.db places there, the
// reason) and every partition it changed, then a summary line; on stdout the
// Data.db paths written, or with JSON the reports. It returns an error
// (exit status 1) when anything was lost or an input could not be scrubbed
// at all; the reports are returned either way.
func Scrub(ctx context.Context, env *Env, opts ScrubOptions) ([]*scrub.Report, error) {
	start := time.Now()
	descs, table, format, err := rewriteSetup("scrub", opts.Out, opts.SSTables, opts.Schema, opts.Table, opts.To, opts.ColumnIndexSizeKB, opts.Compression, opts.ChunkLengthKB, false)
	if err != nil {
		return nil, err
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return nil, err
	}
	for _, d := range descs {
		if in, err := filepath.Abs(d.Dir); err == nil && in == out {
			return nil, Usagef("--out %s is the directory of %s: scrub writes elsewhere, so that the damaged SSTable and its rescue are never read together", opts.Out, d)
		}
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
	var total int64
	for _, d := range descs {
		total += dataLength(d)
	}
	prog := newProgress(env, "scrub", total)
	var reports []*scrub.Report
	var failures []error
	var lost, partitions, rows int64
	outputs := 0
	for _, d := range descs {
		sopts := scrub.Options{
			Dir: opts.Out, Table: table, Format: format, Generation: gen, UUIDIdentifiers: opts.UUIDIdentifiers,
			ColumnIndexSize: opts.ColumnIndexSizeKB << 10, ReinsertOverflowedTTL: opts.ReinsertOverflowedTTL,
			CapDeletionTimes: opts.CapDeletionTimes, Jobs: opts.Jobs, Progress: func(b, r int64) { prog.addBytes(b); prog.addRows(r) },
		}
		if opts.Compression != "" || opts.ChunkLengthKB != 0 {
			params, err := convertParams(d, ConvertOptions{Compression: opts.Compression, ChunkLengthKB: opts.ChunkLengthKB})
			if err != nil {
				// The input's CompressionInfo.db is damaged: the flags
				// alone say what to write.
				c, _ := compress.ParseCodec(opts.Compression)
				params = compress.Params{Codec: c, ChunkLength: opts.ChunkLengthKB << 10}
			}
			sopts.Compression = &params
		}
		rep, err := scrub.Scrub(ctx, d, sopts)
		prog.addSSTables(1)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				prog.finish()
				return reports, fmt.Errorf("interrupted; the SSTables of the interrupted scrub were removed")
			}
			prog.clear()
			fmt.Fprintf(env.stderr(), "%s: cannot scrub: %v\n", d, err)
			failures = append(failures, fmt.Errorf("%s: %w", d, err))
			continue
		}
		reports = append(reports, rep)
		gen += len(rep.Results)
		outputs += len(rep.Results)
		lost += rep.LostPartitions
		partitions += rep.Partitions
		rows += rep.Rows
		prog.clear()
		printScrubReport(env, d, rep)
		if rep.Lost() {
			failures = append(failures, fmt.Errorf("%s: lost %d partitions (%d bytes of Data.db)", d, rep.LostPartitions, rep.LostBytes))
		}
	}
	prog.finish()
	if opts.JSON {
		if reports == nil {
			reports = []*scrub.Report{}
		}
		b, err := json.MarshalIndent(reports, "", "  ")
		if err != nil {
			return reports, err
		}
		fmt.Fprintf(env.stdout(), "%s\n", b)
	} else {
		for _, r := range reports {
			for _, p := range r.Outputs {
				fmt.Fprintln(env.stdout(), p)
			}
		}
	}
	status := "nothing lost"
	if lost > 0 {
		status = fmt.Sprintf("LOST %s partitions", groupDigits(lost))
	}
	env.infof("castable scrub: %d SSTables -> %d SSTables in %s: %s partitions, %s rows written, %s, %s",
		len(descs), outputs, opts.Out, groupDigits(partitions), groupDigits(rows), status, roundDuration(time.Since(start)))
	if len(failures) > 0 {
		return reports, &reportedError{err: fmt.Errorf("%d of %d SSTables lost data or could not be scrubbed", len(failures), len(descs)), first: failures[0]}
	}
	return reports, nil
}

// printScrubReport writes what the scrub of desc dropped and changed to
// stderr: every drop and change, whatever --quiet says, since it is the
// account of the user's data.
func printScrubReport(env *Env, desc sstables.Descriptor, r *scrub.Report) {
	w := env.stderr()
	for _, d := range r.Dropped {
		keys := ""
		if len(d.Keys) > 0 {
			keys = " (" + strings.Join(d.Keys, ", ")
			if int64(len(d.Keys)) < d.Partitions {
				keys += ", …"
			}
			keys += ")"
		}
		fmt.Fprintf(w, "%s: DROPPED Data.db [%d, %d) (%s): %d partitions%s: %s\n",
			desc, d.Offset, d.End, humanBytes(d.End-d.Offset), d.Partitions, keys, d.Reason)
	}
	for _, c := range r.Changed {
		fmt.Fprintf(w, "%s: CHANGED partition %s at %d: %s\n", desc, c.Key, c.Offset, c.What)
	}
	for _, c := range r.Suspect {
		fmt.Fprintf(w, "%s: SUSPECT partition %s at %d: %s\n", desc, c.Key, c.Offset, c.What)
	}
	if r.IndexError != "" {
		fmt.Fprintf(w, "%s: WARN Index.db read only to entry %d (resync points after it unknown): %s\n", desc, r.IndexEntries, r.IndexError)
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(w, "WARN %s\n", s)
	}
	if r.RepairedAtCleared {
		fmt.Fprintf(w, "%s: the outputs are marked unrepaired (repairedAt 0): the input was repaired and lost data\n", desc)
	}
	if env.Quiet {
		return
	}
	fmt.Fprintf(w, "%s: %s partitions, %s rows written to %d SSTables; %s partitions (%s of Data.db) lost; %d changed, %d out of order, %d rows with overflowed TTLs repaired\n",
		desc, groupDigits(r.Partitions), groupDigits(r.Rows), len(r.Outputs), groupDigits(r.LostPartitions), humanBytes(r.LostBytes),
		len(r.Changed), r.OutOfOrderPartitions, r.FixedRows)
}
