// Command castable-beam writes SSTables from CSV, CQL or JSON inputs as an
// Apache Beam pipeline (package pipeline), on Prism locally or on Flink,
// Spark and Dataflow, and exports many SSTables' rows split by token range:
//
//	castable-beam [flags] [JSON globs...] [-- Beam pipeline options]
//	castable-beam export [flags] SSTABLE|DIR|GLOB... [-- Beam pipeline options]
//
// Everything after "--" goes to the Beam SDK's own flags (--endpoint,
// --environment_type, --project, --region, --worker_binary, …). When a
// runner starts this binary as an SDK worker (--worker), it runs Beam's
// worker harness instead.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/exec/optimized" // faster function calls
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"
	"github.com/castable-db/castable/beam/pipeline"
	"github.com/castable-db/castable/bulk"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/sstables/version"
	ucli "github.com/urfave/cli/v2"
)

func main() {
	if isWorker(os.Args[1:]) {
		// A runner started this binary as an SDK worker: Beam's harness
		// takes the Go flags it was given and runs until the job ends.
		flag.Parse()
		beam.Init()
		return
	}
	ours, beamArgs := splitArgs(os.Args)
	os.Exit(run(ours, beamArgs, os.Stdout, os.Stderr))
}

// isWorker reports whether the arguments are a worker's (--worker=true).
func isWorker(args []string) bool {
	for _, a := range args {
		if a == "--worker" || a == "-worker" || strings.HasPrefix(a, "--worker=") || strings.HasPrefix(a, "-worker=") {
			return !strings.HasSuffix(a, "=false")
		}
	}
	return false
}

// splitArgs cuts the command line at the first "--": castable-beam's
// arguments before it, Beam's after it.
func splitArgs(args []string) (ours, beamArgs []string) {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i], args[i+1:]
	}
	return args, nil
}

// usageError is a command-line mistake (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// run runs the command and returns its exit status: 0, 1 for a failed
// job or bad data, 2 for a usage error.
func run(args, beamArgs []string, stdout, stderr io.Writer) int {
	app := newApp(beamArgs, stdout, stderr)
	if len(args) > 1 && args[1] == exportCommand {
		app = newExportApp(beamArgs, stdout, stderr)
		args = append([]string{args[0] + " " + exportCommand}, args[2:]...)
	}
	err := app.Run(args)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "castable-beam:", err)
	var u *usageError
	if errors.As(err, &u) || pipeline.IsOptionError(err) {
		return 2
	}
	return 1
}

func newApp(beamArgs []string, stdout, stderr io.Writer) *ucli.App {
	return &ucli.App{
		Name:      "castable-beam",
		Usage:     "write SSTables from CSV, CQL or JSON as an Apache Beam pipeline, split by token range",
		ArgsUsage: "[JSON globs...] [-- Beam pipeline options]",
		Description: `Reads the input files with Beam's file IO (local paths, gs://, s3://),
parses each record with castable write's code, routes every row to the token
range (--ranges N) or the replica nodes (--ring FILE, --replication-factor RF)
that hold it, groups the rows of each, and writes sorted, sized SSTables
through a memtable, as castable write does, into

  OUT/<range-NNN or node>/<keyspace>/<table>-<id>/

ready for sstableloader or nodetool import, with a summary in
OUT/castable-beam.json. Runs on Prism (in this process) unless --runner says
otherwise; Beam's own options follow "--". 'castable-beam export --help'
describes the export of SSTables to Parquet, CSV or JSON Lines.

Example:
  castable-beam --schema ks.cql --csv 'rows/*.csv' --header --ranges 16 --out out
  castable-beam --schema ks.cql --csv 'gs://b/rows/*.csv' --ring ring.txt \
      --replication-factor 3 --out gs://b/sstables --runner dataflow -- \
      --project p --region europe-west1 --staging_location gs://b/staging`,
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "schema", Usage: "the CQL schema `FILE` (CREATE TABLE …), any Beam filesystem", Required: true},
			&ucli.StringFlag{Name: "table", Usage: "the table `[KS.]NAME` when the schema declares several"},
			&ucli.StringSliceFlag{Name: "csv", Usage: "CSV input `GLOB` (repeatable)"},
			&ucli.StringSliceFlag{Name: "cql", Usage: "CQL statements input `GLOB` (repeatable)"},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `DIR`, any Beam filesystem", Required: true},
			&ucli.StringFlag{Name: "format", Value: version.Default, Usage: "SSTable `VERSION`: " + version.Summarize(version.Select(version.Version.Writable))},
			&ucli.StringFlag{Name: "partitioner", Usage: "the cluster's partitioner `NAME`: " + strings.Join(dht.Names(), ", ") + " (default: the table's, Murmur3Partitioner)"},
			&ucli.StringFlag{Name: "compression", Usage: "`CODEC`: lz4, snappy, deflate, zstd or none"},
			&ucli.IntFlag{Name: "chunk-length-kb", Usage: "uncompressed chunk length in `KiB` (a power of two)"},
			&ucli.StringFlag{Name: "columns", Usage: "CSV: the `a,b,c` column of each field (default: the header, else cqlsh's order)"},
			&ucli.BoolFlag{Name: "header", Usage: "CSV: each file's first line names the columns"},
			&ucli.StringFlag{Name: "delimiter", Usage: "CSV: field delimiter `C` (default ,)"},
			&ucli.StringFlag{Name: "null-string", Usage: "CSV: the field `TEXT` meaning null (default: the empty field)"},
			&ucli.IntFlag{Name: "ttl", Usage: "CSV: time to live in `SECONDS`"},
			&ucli.Int64Flag{Name: "timestamp", Usage: "write time in `MICROSECONDS` of statements and rows without their own (default: now, one value for the job)"},
			&ucli.StringFlag{Name: "now", Usage: "clock for deletion and expiry times: `SECONDS` since the epoch or an RFC 3339 time"},
			&ucli.StringFlag{Name: "memtable-size", Value: "64MiB", Usage: "each writer flushes its memtable at `SIZE`"},
			&ucli.StringFlag{Name: "max-sstable-size", Usage: "start a new SSTable once Data.db passes `SIZE` (default: no cap)"},
			&ucli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: 1, Usage: "`N` compression goroutines per writer"},
			&ucli.IntFlag{Name: "ranges", Usage: "split the token space into `N` equal ranges, one output directory each (with --ring: N writers per node)"},
			&ucli.StringFlag{Name: "ring", Usage: "`FILE`: nodetool ring output, or JSON [{\"node\": ..., \"tokens\": [...]}]; one output directory per node"},
			&ucli.IntFlag{Name: "replication-factor", Aliases: []string{"rf"}, Usage: "with --ring: `RF` replicas per row (SimpleStrategy)"},
			&ucli.BoolFlag{Name: "generations", Usage: "name SSTables with integer generations (Cassandra < 4.1, ScyllaDB) instead of UUIDs"},
			&ucli.StringFlag{Name: "bad-records", Usage: "write records that do not fit the schema to `DIR`/bad-records.jsonl instead of failing"},
			&ucli.IntFlag{Name: "input-lanes", Usage: "`N` parallel branches reading the inputs (default: the cores here, at most 8)"},
			&ucli.BoolFlag{Name: "no-shuffle", Usage: "write the SSTables in the reading stage (one memtable per bundle, flushed into every range it holds rows of) instead of shuffling rows to one writer per range: no shuffle held in memory, more SSTables"},
			&ucli.StringFlag{Name: "local-dir", Usage: "worker `DIR` for SSTables before they are copied to a remote --out (default: the temp dir)"},
		}, runFlags()...),
		Action: func(c *ucli.Context) error {
			opts, err := options(c)
			if err != nil {
				return err
			}
			return runJob(c, beamArgs, stdout, stderr, "castable-beam", func(ctx context.Context, runner string) (*job, error) {
				sum, err := pipeline.Run(ctx, runner, opts)
				if err != nil {
					return nil, err
				}
				j := &job{rows: sum.Rows, report: func(w io.Writer) error { return pipeline.WriteReport(w, sum) }}
				for _, w := range sum.Writers {
					j.paths = append(j.paths, w.SSTables...)
				}
				return j, nil
			})
		},
	}
}

// job is what a finished pipeline reports to its command: the paths it
// wrote (on stdout), its rows and its report (on stderr).
type job struct {
	paths  []string
	rows   int64
	report func(io.Writer) error
}

// runJob parses the Beam options, runs the pipeline run starts on the
// --runner flag's runner (interrupted by SIGINT and SIGTERM), prints the
// paths it wrote and, unless --quiet, its report and rate as name.
func runJob(c *ucli.Context, beamArgs []string, stdout, stderr io.Writer, name string, run func(ctx context.Context, runner string) (*job, error)) error {
	if err := flag.CommandLine.Parse(beamArgs); err != nil {
		return usagef("Beam options: %v", err)
	}
	beam.Init()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	j, err := run(ctx, c.String("runner"))
	if err != nil {
		return err
	}
	for _, p := range j.paths {
		fmt.Fprintln(stdout, p)
	}
	if !c.Bool("quiet") {
		if err := j.report(stderr); err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		fmt.Fprintf(stderr, "%s: %d rows in %.1f s, %.0f rows/s\n", name, j.rows, secs, float64(j.rows)/secs)
	}
	return nil
}

// runFlags are the flags every castable-beam command takes last.
func runFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "runner", Value: "prism", Usage: "Beam `RUNNER`: prism, flink, spark, dataflow, universal"},
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no summary on stderr"},
	}
}

// options turns the flags into pipeline options.
func options(c *ucli.Context) (pipeline.Options, error) {
	o := pipeline.Options{
		SchemaFile: c.String("schema"), Table: c.String("table"), Out: c.String("out"),
		CSV: c.StringSlice("csv"), CQL: c.StringSlice("cql"), JSON: c.Args().Slice(),
		Format: c.String("format"), Partitioner: c.String("partitioner"),
		Compression: c.String("compression"), ChunkLengthKB: c.Int("chunk-length-kb"),
		Timestamp: c.Int64("timestamp"), Jobs: c.Int("jobs"), Ranges: c.Int("ranges"),
		ReplicationFactor: c.Int("replication-factor"), Generations: c.Bool("generations"),
		BadRecords: c.String("bad-records"), InputLanes: c.Int("input-lanes"), LocalDir: c.String("local-dir"), NoShuffle: c.Bool("no-shuffle"),
	}
	var err error
	if o.MemtableSize, err = parseSize(c.String("memtable-size")); err != nil {
		return o, usagef("--memtable-size: %v", err)
	}
	if o.MaxSSTableSize, err = parseSize(c.String("max-sstable-size")); err != nil {
		return o, usagef("--max-sstable-size: %v", err)
	}
	if s := c.String("now"); s != "" {
		if o.Now, err = parseNow(s); err != nil {
			return o, usagef("--now: %v", err)
		}
	}
	if f := c.String("ring"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return o, err
		}
		if o.Ring, err = pipeline.ParseRing(b); err != nil {
			return o, usagef("--ring %s: %v", f, err)
		}
	}
	csv := bulk.CSVOptions{Header: c.Bool("header"), TTL: c.Int("ttl")}
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
			return o, usagef("--delimiter %q: want one character", d)
		}
		csv.Delimiter = r
	}
	if c.IsSet("null-string") {
		csv.NullString, csv.NullStringSet = c.String("null-string"), true
	}
	o.CSVOptions = csv
	return o, nil
}

// parseSize parses a byte size: a number with an optional binary unit (B,
// K/KiB, M/MiB, G/GiB, T/TiB; KB, MB … are read as binary too).
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
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
	sh, ok := shift[strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q in %q (want B, KiB, MiB, GiB or TiB)", unit, s)
	}
	var v float64
	if _, err := fmt.Sscanf(num, "%g", &v); err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	return int64(v * float64(uint64(1)<<sh)), nil
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
