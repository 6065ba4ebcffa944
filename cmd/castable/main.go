// Command castable writes and reads Apache Cassandra and ScyllaDB SSTables of
// every version (castable versions lists them): write sstabledump JSON, CQL or CSV into
// SSTables, dump them as JSON, verify them, show their metadata and layout,
// convert between formats and codecs, and rescue damaged SSTables (scrub).
//
// This file only wires flags; the commands live in internal/cli.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	ucli "github.com/urfave/cli/v2"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

func main() {
	os.Exit(run(context.Background(), os.Args, &cli.Env{}))
}

// interruptible returns a context cancelled by the first SIGINT or SIGTERM,
// for the commands that write (they then remove their partial output and
// stop); a second signal ends the process at once.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // restore the default: the next signal kills
	}()
	return ctx, stop
}

var appDescription = `castable writes SSTables byte-identical to what Cassandra writes, through a
parallel chunked compression and checksum pipeline, and reads real Cassandra
SSTables back exactly. Data goes to standard output, and nothing else does:
messages, progress bars and summaries go to standard error.

Exit status:
   0  success
   1  a data problem: corruption, a checksum or digest mismatch, input that
      does not match the schema, an unreadable file
   2  a usage error: unknown flag, missing or conflicting arguments

Give an SSTable as the path of any of its components (` + example("dir", defaultVersion, 1, "", sstables.ComponentData) + `),
its prefix (` + example("dir", defaultVersion, 1, "", "") + `) or a directory holding it. 'castable versions' lists
the SSTable versions, what castable does with each and which Cassandra
releases read them.`

// run executes the command line and returns the exit status.
func run(ctx context.Context, args []string, env *cli.Env) int {
	stderr := env.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	stdout := env.Stdout
	if stdout == nil {
		stdout = os.Stdout
	}
	app := &ucli.App{
		Name:                      "castable",
		Usage:                     "write, read, verify and convert Cassandra and ScyllaDB SSTables of every version (" + allVersions + ")",
		Description:               appDescription,
		Writer:                    stdout,
		ErrWriter:                 stderr,
		DisableSliceFlagSeparator: true,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar and no summary line on stderr"},
		},
		Before: func(c *ucli.Context) error {
			env.Quiet = c.Bool("quiet")
			return nil
		},
		OnUsageError: func(_ *ucli.Context, err error, _ bool) error {
			return cli.Usagef("%v", err)
		},
		ExitErrHandler: func(*ucli.Context, error) {}, // run reports errors itself
		Commands: []*ucli.Command{
			writeCommand(ctx, env),
			dumpCommand(env),
			verifyCommand(env),
			queryCommand(env),
			rebuildCommand(env),
			metadataCommand(env),
			layoutCommand(env),
			convertCommand(ctx, env),
			scrubCommand(ctx, env),
			exportCommand(ctx, env),
			compactCommand(ctx, env),
			filterCommand(ctx, env),
			splitCommand(ctx, env),
			versionCommand(env),
			versionsCommand(env),
			genCSVCommand(env),
		},
	}
	for _, c := range app.Commands {
		c.OnUsageError = app.OnUsageError
		// --quiet works after the command name too ("castable write -q").
		c.Flags = append(c.Flags, &ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar and no summary line on stderr"})
		before := c.Before
		c.Before = func(cc *ucli.Context) error {
			if cc.Bool("quiet") {
				env.Quiet = true
			}
			if before != nil {
				return before(cc)
			}
			return nil
		}
	}
	err := app.RunContext(ctx, args)
	if err != nil && isUsageMessage(err.Error()) {
		err = cli.Usagef("%v", err)
	}
	if err != nil {
		prefix := "castable"
		if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
			prefix += " " + args[1]
		}
		fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
		var u *cli.UsageError
		if errors.As(err, &u) {
			fmt.Fprintf(stderr, "Run 'castable help' or 'castable help <command>' for usage.\n")
		}
	}
	return cli.ExitCode(err)
}

// isUsageMessage recognizes the command-line errors urfave/cli returns
// without calling OnUsageError (missing required flags, unknown commands).
func isUsageMessage(msg string) bool {
	return strings.HasPrefix(msg, "Required flag") || strings.HasPrefix(msg, "No help topic for")
}

// oneArg returns the single positional argument of a command.
func oneArg(c *ucli.Context, what string) (string, error) {
	switch c.NArg() {
	case 0:
		return "", cli.Usagef("missing %s", what)
	case 1:
		return c.Args().First(), nil
	}
	return "", cli.Usagef("takes one %s, got %d arguments (%s); flags go before it", what, c.NArg(), strings.Join(c.Args().Slice(), " "))
}

func schemaFlags(required bool) []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "schema", Usage: "CQL schema `FILE` (CREATE TYPE / CREATE TABLE statements)", Required: required},
		&ucli.StringFlag{Name: "table", Usage: "the `TABLE` (or keyspace.table) of a schema declaring several"},
	}
}

// opaqueFlag is --opaque-unknown-types, of the commands that read
// SSTables (sstables.ReaderOptions.OpaqueUnknownTypes).
func opaqueFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "opaque-unknown-types", Usage: "read a column whose type is a marshal class castable does not know as opaque length-prefixed bytes (hex) instead of failing; right only for a variable-length class, a fixed-length one reads as damage"}
}

func compressionFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "compression", Usage: "`CODEC`: lz4, snappy, deflate, zstd or none"},
		&ucli.IntFlag{Name: "chunk-length-kb", Usage: "uncompressed chunk length in `KiB` (a power of two)"},
		&ucli.IntFlag{Name: "generation", Usage: "generation `N` of the first SSTable written (default: the next free one in --out)"},
		&ucli.BoolFlag{Name: "uuid-identifiers", Usage: "name SSTables with UUID-based identifiers (Cassandra 4.1+) instead of generations"},
		&ucli.IntFlag{Name: "column-index-size-kb", Usage: "column_index_size in `KiB`: rows of a partition are indexed in blocks of that size (default: the version's: 64 KiB, 16 KiB for Cassandra 5.0's BTI)"},
		&ucli.StringFlag{Name: "expiration-overflow-policy", Value: "reject", Usage: "`POLICY` for deletion and expiry times past 2038 in versions that cannot store them (all but " + unsignedTimeVersions + "): reject (an error naming the partition) or cap (to 2038-01-19, as Cassandra's CAP)"},
		&ucli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "`N` cores for compression (default: all)"},
	}
}

// overflowPolicy parses --expiration-overflow-policy: whether to cap.
func overflowPolicy(c *ucli.Context) (bool, error) {
	switch strings.ToLower(c.String("expiration-overflow-policy")) {
	case "", "reject":
		return false, nil
	case "cap", "cap_nowarn":
		return true, nil
	}
	return false, cli.Usagef("--expiration-overflow-policy %q: want reject or cap", c.String("expiration-overflow-policy"))
}

func writeCommand(ctx context.Context, env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "write",
		Usage:     "write sstabledump JSON, CQL statements or CSV rows into SSTables",
		ArgsUsage: "[INPUT.json | -]",
		Description: `Reads data into a memtable and flushes it into an SSTable whenever it
reaches --memtable-size, so input of any size is written in bounded memory,
into one or more SSTables of successive generations. The Data.db path of every
SSTable written is printed on stdout.

Inputs (one of):
  INPUT.json | -   sstabledump JSON: an array or JSON Lines, as sstabledump
                   prints it (any options) or in castable's canonical form;
                   the timestamps are in the data
  --cql FILE|-     INSERT, UPDATE, DELETE and BATCH statements
  --csv FILE|-     CSV records, each written as an INSERT of its columns

Statements and CSV rows without USING TIMESTAMP all get one write time, the
time the run starts (or --timestamp), like a single client session; --now
sets the clock of deletion and expiry times. Compression, chunk length, bloom
filter and index options come from the schema's WITH clause, then
Cassandra's defaults; the flags override them.

Example:
  castable write --schema ks.cql --out data/ks/t dump.json
  castable write --schema ks.cql --csv rows.csv --header --out data/ks/t
  castable write --schema ks.cql --csv exported.csv --header --sorted --out data/ks/t
  castable write --schema ks.cql --format ` + for311.String() + ` --compression snappy --cql load.cql --out for-3.11`,
		Flags: append(append(schemaFlags(true),
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "`DIR` to write the SSTables into", Required: true},
			&ucli.StringFlag{Name: "format", Value: version.Default, Usage: "SSTable `VERSION`: " + writableVersions + " ('castable versions' says which Cassandra reads each)"},
			&ucli.StringFlag{Name: "partitioner", Usage: "the cluster's partitioner `NAME`, short or full class name: " + strings.Join(dht.Names(), ", ") + " (default Murmur3Partitioner)"},
			&ucli.StringFlag{Name: "cql", Usage: "read CQL statements from `FILE` (- for stdin)"},
			&ucli.StringFlag{Name: "csv", Usage: "read CSV records from `FILE` (- for stdin)"},
			&ucli.StringFlag{Name: "columns", Usage: "CSV: the `a,b,c` column of each field (default: the header, else cqlsh's order)"},
			&ucli.BoolFlag{Name: "header", Usage: "CSV: the first line names the columns"},
			&ucli.StringFlag{Name: "delimiter", Usage: "CSV: field delimiter `C` (default ,)"},
			&ucli.StringFlag{Name: "null-string", Usage: "CSV: the field `TEXT` meaning null (default: the empty field)"},
			&ucli.IntFlag{Name: "ttl", Usage: "CSV: time to live in `SECONDS` (default: the table's default_time_to_live)"},
			&ucli.Int64Flag{Name: "timestamp", Usage: "write time in `MICROSECONDS` of statements and rows without their own"},
			&ucli.StringFlag{Name: "now", Usage: "clock for deletion and expiry times: `SECONDS` since the epoch or an RFC 3339 time"},
			&ucli.BoolFlag{Name: "header-all-columns", Usage: "list every table column in the serialization header, not only those that occur (as ScyllaDB does)"},
			&ucli.BoolFlag{Name: "scylla-shadowable", Usage: "encode shadowable row deletions as ScyllaDB does (row flag 0x80)"},
			&ucli.BoolFlag{Name: "shadowable-as-regular", Usage: "write shadowable row deletions as regular ones where the version cannot store them (" + writable2x + ") instead of failing"},
			&ucli.BoolFlag{Name: "sorted", Usage: "CSV: the records are in token order (as castable export writes them): write them without a memtable, as CQLSSTableWriter.sorted() does; a partition out of order is an error"},
			&ucli.StringFlag{Name: "memtable-size", Value: "64MiB", Usage: "flush the memtable when it holds `SIZE` of memory (with --sorted: each of the two buffers)"},
			&ucli.StringFlag{Name: "max-sstable-size", Usage: "start a new SSTable once Data.db passes `SIZE` (default: no cap)"},
		), compressionFlags()...),
		Action: func(c *ucli.Context) error {
			opts := cli.WriteOptions{
				Schema: c.String("schema"), Table: c.String("table"), Out: c.String("out"),
				CQL: c.String("cql"), CSV: c.String("csv"), Format: c.String("format"), Partitioner: c.String("partitioner"),
				Compression: c.String("compression"), ChunkLengthKB: c.Int("chunk-length-kb"),
				Generation: c.Int("generation"), Jobs: c.Int("jobs"), Timestamp: c.Int64("timestamp"),
				HeaderAllColumns: c.Bool("header-all-columns"), ScyllaShadowable: c.Bool("scylla-shadowable"),
				ShadowableAsRegular: c.Bool("shadowable-as-regular"),
				UUIDIdentifiers:     c.Bool("uuid-identifiers"), ColumnIndexSizeKB: c.Int("column-index-size-kb"),
				Sorted: c.Bool("sorted"),
			}
			var err error
			if opts.CapDeletionTimes, err = overflowPolicy(c); err != nil {
				return err
			}
			switch c.NArg() {
			case 0:
			case 1:
				opts.Input = c.Args().First()
			default:
				return cli.Usagef("takes at most one input file, got %d arguments; flags go before it", c.NArg())
			}
			if opts.MemtableSize, err = parseSize(c.String("memtable-size")); err != nil {
				return cli.Usagef("--memtable-size: %v", err)
			}
			if opts.MaxSSTableSize, err = parseSize(c.String("max-sstable-size")); err != nil {
				return cli.Usagef("--max-sstable-size: %v", err)
			}
			if s := c.String("now"); s != "" {
				if opts.Now, err = parseNow(s); err != nil {
					return cli.Usagef("--now: %v", err)
				}
			}
			csv := cli.CSVOptions{Header: c.Bool("header"), TTL: c.Int("ttl")}
			if cols := c.String("columns"); cols != "" {
				for _, name := range strings.Split(cols, ",") {
					csv.Columns = append(csv.Columns, strings.TrimSpace(name))
				}
			}
			if d := c.String("delimiter"); d != "" {
				if d == `\t` {
					d = "\t"
				}
				r, size := utf8.DecodeRuneInString(d)
				if size != len(d) {
					return cli.Usagef("--delimiter %q: want one character", d)
				}
				csv.Delimiter = r
			}
			if c.IsSet("null-string") {
				csv.NullString, csv.NullStringSet = c.String("null-string"), true
			}
			opts.CSVOptions = csv
			ctx, stop := interruptible(ctx)
			defer stop()
			_, err = cli.Write(ctx, env, opts)
			return err
		},
	}
}

func dumpCommand(env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "dump",
		Usage:     "print an SSTable as sstabledump JSON; several merged, as the database reads them",
		ArgsUsage: "SSTABLE...",
		Description: `Prints the partitions of an SSTable as Cassandra's sstabledump does (times
as ISO-8601), with -t as raw integers in strings, or with --canonical in the
canonical form that 'castable write' reads back losslessly. From Cassandra
3.0's versions on the schema is optional (the serialization header carries
the types; column names come from it too); ` + legacyCellVersions + ` without --schema show
values as hex blobs.

Several SSTables of one table (or a directory holding them) are dumped
merged, as the database reads them, and purged at --now of every deletion
and expired cell: only live data, what SELECT returns. --no-purge prints the
merged stream itself, tombstones and expired cells included. -k looks keys
up through every SSTable (newest first, behind their bloom filters).

Example:
  castable dump -k 42 -k 43 ` + example("data/ks/t", defaultVersion, 1, "", sstables.ComponentData) + `
  castable dump --canonical -l ` + example("data/ks/t", defaultVersion, 1, "", "") + ` > t.jsonl`,
		Flags: append(schemaFlags(false),
			&ucli.BoolFlag{Name: "t", Usage: "print times as raw integers (strings of digits)"},
			&ucli.BoolFlag{Name: "canonical", Usage: "print the canonical form (integer times, explicit cell timestamps and TTLs)"},
			&ucli.BoolFlag{Name: "l", Usage: "JSON Lines: one partition per line, no enclosing array"},
			&ucli.BoolFlag{Name: "e", Usage: "print the partition keys only"},
			&ucli.StringSliceFlag{Name: "k", Usage: "only partition `KEY` (string form, composite components joined by ':'); repeatable; looked up through the index"},
			&ucli.StringSliceFlag{Name: "x", Usage: "leave out partition `KEY`; repeatable"},
			&ucli.BoolFlag{Name: "no-purge", Usage: "several SSTables: the merged stream with its tombstones and expired cells"},
			&ucli.StringFlag{Name: "now", Usage: "several SSTables: the time of the merged view, `SECONDS` since the epoch or an RFC 3339 time (default: the clock)"},
			opaqueFlag(),
		),
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				return cli.Usagef("missing SSTable")
			}
			var now time.Time
			if s := c.String("now"); s != "" {
				var err error
				if now, err = parseNow(s); err != nil {
					return cli.Usagef("--now: %v", err)
				}
			}
			return cli.Dump(env, cli.DumpOptions{
				SSTable: c.Args().First(), SSTables: c.Args().Tail(), NoPurge: c.Bool("no-purge"), Now: now,
				Schema: c.String("schema"), Table: c.String("table"),
				RawTimestamps: c.Bool("t"), Canonical: c.Bool("canonical"), Lines: c.Bool("l"),
				KeysOnly: c.Bool("e"), Keys: c.StringSlice("k"), Exclude: c.StringSlice("x"),
				OpaqueUnknownTypes: c.Bool("opaque-unknown-types"),
			})
		},
	}
}

func verifyCommand(env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "verify",
		Usage:     "check every checksum, the digest and every component of SSTables",
		ArgsUsage: "SSTABLE...",
		Description: `Checks each SSTable completely: every Data.db chunk against its checksum
(CompressionInfo.db trailers or CRC.db), the whole-file digest, and that
Index.db, Summary.db, Filter.db, Statistics.db and the rows parse and agree.
Prints "OK <sstable>" on stdout for each sound one; for a damaged one a
message on stderr naming the file, component and offset. What is odd but
read by Cassandra and ScyllaDB anyway (a Summary.db TOC.txt lists that is
gone, Statistics.db components out of order, CRC.db checksums past the last
chunk...) is a "WARN file: component: what" line on stderr, which fails the
SSTable only with --strict. Exits 0 only when all are sound. A directory
stands for every SSTable in it.

Example:
  castable verify data/ks/t
  castable verify --strict ` + example("data/ks/t", defaultVersion, 1, "", sstables.ComponentData),
		Flags: append(schemaFlags(false),
			&ucli.BoolFlag{Name: "strict", Usage: "fail SSTables that have warnings, not only damaged ones"}, opaqueFlag()),
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				return cli.Usagef("missing SSTable")
			}
			return cli.Verify(env, cli.VerifyOptions{SSTables: c.Args().Slice(), Schema: c.String("schema"), Table: c.String("table"), Strict: c.Bool("strict"),
				OpaqueUnknownTypes: c.Bool("opaque-unknown-types")})
		},
	}
}

func rebuildCommand(env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "rebuild",
		Usage:     "write back the Summary.db and Filter.db an SSTable lacks, rebuilt from Index.db; --filter: replace an undersized Filter.db",
		ArgsUsage: "SSTABLE...",
		Description: `Cassandra rebuilds a missing Summary.db and Filter.db from Index.db when it
opens an SSTable, and saves them; castable's readers rebuild them in memory
only (with a warning). rebuild writes them back, as a flush of the same data
writes them: the summary at min_index_interval (--min-index-interval, else
the --schema table's, else 128), the bloom filter with Statistics.db's
bloom_filter_fp_chance (none when it is 1). Existing components are never
modified: each new file is written under a temporary name, synced and
renamed; TOC.txt last, and only when it does not list them (its lines kept,
the new ones appended). With --filter an existing Filter.db that is not the
one a flush writes for the SSTable's partition count and fp chance is
replaced too, atomically (temporary name, fsync, rename): the repair for
the 16-byte filters that bulk writers sizing it for zero keys leave
(Cassandra's CQLSSTableWriter; castable verify warns about them); the keys
come from Index.db, or Data.db for BTI. Prints what it wrote, or
"complete". A directory stands for every SSTable in it.

Example:
  castable rebuild ` + example("data/ks/t", defaultVersion, 1, "", sstables.ComponentData) + `
  castable rebuild --dry-run data/ks/t
  castable rebuild --filter data/ks/t`,
		Flags: append(schemaFlags(false),
			&ucli.IntFlag{Name: "min-index-interval", Usage: "summary sampling interval `N` (default: the table's min_index_interval, or 128)"},
			&ucli.BoolFlag{Name: "dry-run", Usage: "print what would be written, write nothing"},
			&ucli.BoolFlag{Name: "filter", Usage: "also replace a Filter.db that is not the one a flush writes for the partition count (an undersized one)"}),
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				return cli.Usagef("missing SSTable")
			}
			return cli.Rebuild(env, cli.RebuildOptions{SSTables: c.Args().Slice(), Schema: c.String("schema"), Table: c.String("table"),
				MinIndexInterval: c.Int("min-index-interval"), DryRun: c.Bool("dry-run"), Filter: c.Bool("filter")})
		},
	}
}

func metadataCommand(env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "metadata",
		Usage:     "show an SSTable's metadata (Statistics, compression, summary, TOC)",
		ArgsUsage: "SSTABLE",
		Description: `Prints what sstablemetadata prints: partitioner, bloom filter chance,
minimum and maximum timestamps (raw and ISO-8601), local deletion times,
TTLs, compression (class, chunk length, ratio), estimated droppable
tombstones, level, repairedAt, commit log positions, the partition size and
cell count histograms as text bars, min/max clustering values, the
serialization header, Summary.db and TOC.txt. --json prints the same as one
JSON object.

Example:
  castable metadata --json ` + example("data/ks/t", defaultVersion, 1, "", sstables.ComponentData),
		Flags: append(schemaFlags(false), &ucli.BoolFlag{Name: "json", Usage: "print JSON"}, opaqueFlag()),
		Action: func(c *ucli.Context) error {
			path, err := oneArg(c, "SSTable")
			if err != nil {
				return err
			}
			return cli.Metadata(env, cli.MetadataOptions{SSTable: path, Schema: c.String("schema"), Table: c.String("table"), JSON: c.Bool("json"),
				OpaqueUnknownTypes: c.Bool("opaque-unknown-types")})
		},
	}
}

func layoutCommand(env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "layout",
		Usage:     "show an SSTable's physical layout: chunks, partitions, index blocks",
		ArgsUsage: "SSTABLE",
		Description: `Prints the Data.db chunk table (index, file offset, stored size,
uncompressed range, ratio, checksum) and the partitions with their Data.db
and Index.db offsets and sizes; with -k, that partition's promoted index
blocks (first and last clustering, offset, width, open range tombstone).

Example:
  castable layout -k key1 ` + example("data/ks/t", defaultVersion, 1, "", sstables.ComponentData),
		Flags: append(schemaFlags(false), &ucli.StringFlag{Name: "k", Usage: "show partition `KEY` and its index blocks"}, opaqueFlag()),
		Action: func(c *ucli.Context) error {
			path, err := oneArg(c, "SSTable")
			if err != nil {
				return err
			}
			return cli.Layout(env, cli.LayoutOptions{SSTable: path, Schema: c.String("schema"), Table: c.String("table"), Key: c.String("k"),
				OpaqueUnknownTypes: c.Bool("opaque-unknown-types")})
		},
	}
}

func convertCommand(ctx context.Context, env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "convert",
		Usage:     "rewrite SSTables into another format, codec or chunk length",
		ArgsUsage: "SSTABLE...",
		Description: `Streams each input through a reader into a writer, row by row, so memory
stays bounded whatever the partition sizes; inputs are converted in parallel.
Converts between any two versions (` + writableVersions + `: upgrade and downgrade),
changes the codec or the chunk length, or rewrites in the same version (the
default without --to). Without --compression each input's compressor, its
options and chunk length are kept; without --column-index-size-kb, the
granularity the input's row index shows. Outputs appear atomically (temporary names,
TOC.txt last) and are all removed when any conversion fails. Carries over
the partitioner and every Statistics.db value that does not follow from the
data: repairedAt, pending repair, the level, the commit log positions, the
originating host id (and the compaction ancestors between 2.x versions). Data the target cannot hold is an error naming the partition, unless a
flag says how to degrade it. The Data.db path of every output is printed on
stdout.

Example:
  castable convert --to ` + version.Default + ` --schema ks.cql --out out ` + example("data/ks/t", version.OfFamily(version.Cells2x)[0].WriteAs(), 1, "", sstables.ComponentData) + `
  castable convert --to ` + for311.String() + ` --out for-3.11 ` + example("data/ks/t", from50, 0, "3gll_1kke_3qdyo2i4kzfpt3cqcy", sstables.ComponentData) + `
  castable convert --compression zstd --chunk-length-kb 16 --out out data/ks/t`,
		Flags: append(append(schemaFlags(false),
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "`DIR` to write into", Required: true},
			&ucli.StringFlag{Name: "to", Usage: "target `VERSION`: " + writableVersions + " (default: each input's own)"},
			&ucli.BoolFlag{Name: "scylla-shadowable", Usage: "encode shadowable row deletions as ScyllaDB does (row flag 0x80)"},
			&ucli.BoolFlag{Name: "shadowable-as-regular", Usage: "write shadowable row deletions as regular ones where the version cannot store them (" + writable2x + ") instead of failing"},
			&ucli.BoolFlag{Name: "header-all-columns", Usage: "list every table column in the serialization header, not only those that occur (as ScyllaDB does)"},
			opaqueFlag(),
		), compressionFlags()...),
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				return cli.Usagef("missing SSTable")
			}
			capTimes, err := overflowPolicy(c)
			if err != nil {
				return err
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			_, err = cli.Convert(ctx, env, cli.ConvertOptions{
				SSTables: c.Args().Slice(), Out: c.String("out"), To: c.String("to"),
				Compression: c.String("compression"), ChunkLengthKB: c.Int("chunk-length-kb"),
				Schema: c.String("schema"), Table: c.String("table"), Generation: c.Int("generation"),
				Jobs: c.Int("jobs"), ScyllaShadowable: c.Bool("scylla-shadowable"),
				ShadowableAsRegular: c.Bool("shadowable-as-regular"),
				HeaderAllColumns:    c.Bool("header-all-columns"),
				UUIDIdentifiers:     c.Bool("uuid-identifiers"), ColumnIndexSizeKB: c.Int("column-index-size-kb"),
				CapDeletionTimes: capTimes, OpaqueUnknownTypes: c.Bool("opaque-unknown-types"),
			})
			return err
		},
	}
}

func scrubCommand(ctx context.Context, env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "scrub",
		Usage:     "rescue what damaged SSTables still hold into new SSTables",
		ArgsUsage: "SSTABLE...",
		Description: `Modelled on Cassandra's sstablescrub and scylla-sstable scrub. Never
changes its input. Reads each SSTable partition by partition, each checked
whole before it is written; after damage it resyncs where Index.db places
the next partition that decodes, and drops what it cannot decode. Rows out
of order are sorted (duplicates merged); partitions out of order go, sorted,
to a second SSTable, as Cassandra's scrub writes them. With
--reinsert-overflowed-ttl, expiration times that overflowed to 1901
(CASSANDRA-14092) get Cassandra's repair: 2038-01-19T03:14:06Z, timestamp + 1.
Writes the input's version (or --to) through the normal writers (temporary
names, TOC.txt last). Every dropped byte range (uncompressed Data.db
offsets, partitions and keys), changed and suspect partition is printed on
stderr; the Data.db paths written on stdout, or with --json the reports.
Exits 1 when anything was lost, 0 otherwise.

Example:
  castable scrub --out rescued ` + example("data/ks/t", defaultVersion, 5, "", sstables.ComponentData) + `
  castable scrub --reinsert-overflowed-ttl --to ` + from50.String() + ` --json --out rescued data/ks/t`,
		Flags: append(append(schemaFlags(false),
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "`DIR` to write into (not the input's)", Required: true},
			&ucli.StringFlag{Name: "to", Usage: "target `VERSION`: " + writableVersions + " (default: each input's own)"},
			&ucli.BoolFlag{Name: "reinsert-overflowed-ttl", Usage: "repair expiration times that overflowed to negative values (CASSANDRA-14092) as Cassandra's scrub does"},
			&ucli.BoolFlag{Name: "json", Usage: "print the reports as JSON on stdout"},
		), compressionFlags()...),
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				return cli.Usagef("missing SSTable")
			}
			capTimes, err := overflowPolicy(c)
			if err != nil {
				return err
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			_, err = cli.Scrub(ctx, env, cli.ScrubOptions{
				SSTables: c.Args().Slice(), Out: c.String("out"), To: c.String("to"),
				Compression: c.String("compression"), ChunkLengthKB: c.Int("chunk-length-kb"),
				Schema: c.String("schema"), Table: c.String("table"), Generation: c.Int("generation"),
				UUIDIdentifiers: c.Bool("uuid-identifiers"), ColumnIndexSizeKB: c.Int("column-index-size-kb"),
				ReinsertOverflowedTTL: c.Bool("reinsert-overflowed-ttl"), CapDeletionTimes: capTimes,
				Jobs: c.Int("jobs"), JSON: c.Bool("json"),
			})
			return err
		},
	}
}

func versionCommand(env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:  "version",
		Usage: "print castable's version",
		Description: `Prints the module version, the VCS revision it was built from, the Go
version and the build tags that select the C libraries.

Example:
  castable version`,
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return cli.Usagef("version takes no arguments")
			}
			return cli.Version(env)
		},
	}
}

func genCSVCommand(env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:   "gen-csv",
		Hidden: true,
		Usage:  "generate CSV rows for (pk int, ck int, v text) benchmarks",
		Flags: []ucli.Flag{
			&ucli.Int64Flag{Name: "rows", Value: 1_000_000, Usage: "`N` rows"},
			&ucli.IntFlag{Name: "rows-per-partition", Value: 100, Usage: "`N` rows per partition"},
		},
		Action: func(c *ucli.Context) error {
			return cli.GenerateCSV(env, c.Int64("rows"), c.Int("rows-per-partition"))
		},
	}
}

// parseSize parses a byte size: a number with an optional unit (B, K/KiB,
// M/MiB, G/GiB; KB, MB, GB are taken as binary units too).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.ToUpper(strings.TrimSpace(s[i:]))
	}
	var mult float64
	switch strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I") {
	case "":
		mult = 1
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	case "T":
		mult = 1 << 40
	default:
		return 0, fmt.Errorf("unknown unit %q in %q (want B, KiB, MiB, GiB or TiB)", unit, s)
	}
	var v float64
	if _, err := fmt.Sscanf(num, "%g", &v); err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	return int64(v * mult), nil
}

// parseNow parses --now: seconds since the epoch or an RFC 3339 time.
func parseNow(s string) (time.Time, error) {
	var secs int64
	if _, err := fmt.Sscanf(s, "%d", &secs); err == nil && fmt.Sprint(secs) == s {
		return time.Unix(secs, 0), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither seconds since the epoch nor an RFC 3339 time", s)
	}
	return t, nil
}
