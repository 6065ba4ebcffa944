package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/castable-db/castable/beam/pipeline"
	"github.com/castable-db/castable/export"
	ucli "github.com/urfave/cli/v2"
)

// exportCommand is the name of the export mode: `castable-beam export …`.
const exportCommand = "export"

func newExportApp(beamArgs []string, stdout, stderr io.Writer) *ucli.App {
	return &ucli.App{
		Name:      "castable-beam export",
		Usage:     "export the live rows of many SSTables of one table as Parquet, CSV or JSON Lines, split by token range, as an Apache Beam pipeline",
		ArgsUsage: "SSTABLE|DIR|GLOB... [-- Beam pipeline options]",
		Description: `Reads the SSTables of one table — several nodes' snapshots, overlapping,
of any versions — and writes what castable export writes from all of them
(the rows SELECT * returns at --now), split into token ranges (--ranges N, or
a --ring file's ranges). Each range is one unit of work: its worker opens only
the SSTables whose first and last tokens overlap it, scans each from the
range's start (Summary.db), merges them and writes

  OUT/range-NNN.parquet      (.csv, .jsonl; with --max-file-size range-NNN-00000…)

atomically, with a summary in OUT/castable-beam-export.json. Concatenated in
range order, the files hold exactly the rows of one castable export of the
same SSTables. Runs on Prism (in this process) unless --runner says
otherwise; Beam's own options follow "--".

Example:
  castable-beam export --schema ks.cql --ranges 16 --out out 'snapshots/*/ks/t-*'
  castable-beam export --schema gs://b/ks.cql --ring ring.txt --to parquet \
      --out gs://b/export 'gs://b/snap/*/ks/t-*/*-TOC.txt' --runner dataflow -- \
      --project p --region europe-west1 --staging_location gs://b/staging`,
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "schema", Usage: "the CQL schema `FILE` (CREATE TABLE …), any Beam filesystem (required)"},
			&ucli.StringFlag{Name: "table", Usage: "the table `[KS.]NAME` when the schema declares several"},
			&ucli.StringFlag{Name: "to", Value: "parquet", Usage: "output `FORMAT`: parquet, csv or jsonl"},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `DIR`, any Beam filesystem (required)"},
			&ucli.IntFlag{Name: "ranges", Usage: "split the ring into `N` equal token ranges, one file (or more) each (default 1)"},
			&ucli.StringFlag{Name: "ring", Usage: "`FILE`: split at a cluster's tokens instead — nodetool ring output, or JSON [{\"node\": ..., \"tokens\": [...]}]"},
			&ucli.IntFlag{Name: "lanes", Usage: "`N` parallel branches the ranges are dealt to (default: the cores here, at most 8)"},
			&ucli.StringFlag{Name: "now", Usage: "the moment shown: `SECONDS` since the epoch or an RFC 3339 time (default: now, one value for the job)"},
			&ucli.StringFlag{Name: "columns", Usage: "export only the `a,b,c` columns, in that order; writetime(c) and ttl(c) may be among them"},
			&ucli.StringSliceFlag{Name: "writetime", Usage: "add a writetime(`COL`) column (repeatable)"},
			&ucli.StringSliceFlag{Name: "ttl", Usage: "add a ttl(`COL`) column (repeatable)"},
			&ucli.BoolFlag{Name: "include-tombstones", Usage: "an audit view: also one row per deletion still held (see castable export)"},
			&ucli.StringFlag{Name: "max-file-size", Usage: "start a new file of the range once one reaches `SIZE` (default: one file a range)"},
			&ucli.StringFlag{Name: "compression", Usage: "Parquet page `CODEC`: snappy (default), zstd or none"},
			&ucli.StringFlag{Name: "row-group-size", Usage: "Parquet: close a row group at `SIZE` of uncompressed values (default 32MiB)"},
			&ucli.BoolFlag{Name: "no-header", Usage: "CSV: no header line"},
			&ucli.StringFlag{Name: "delimiter", Usage: "CSV: field delimiter `C` (default ,)"},
			&ucli.StringFlag{Name: "null-string", Usage: "CSV: the `TEXT` of a null (default: the empty field)"},
			&ucli.StringFlag{Name: "local-dir", Usage: "worker `DIR` for remote SSTables and for files before they are copied to a remote --out (default: the temp dir)"},
		}, runFlags()...),
		Action: func(c *ucli.Context) error {
			opts, err := exportOptions(c)
			if err != nil {
				return err
			}
			return runJob(c, beamArgs, stdout, stderr, "castable-beam export", func(ctx context.Context, runner string) (*job, error) {
				sum, err := pipeline.RunExport(ctx, runner, opts)
				if err != nil {
					return nil, err
				}
				j := &job{rows: sum.Rows, report: func(w io.Writer) error { return pipeline.WriteExportReport(w, sum) }}
				for _, r := range sum.Ranges {
					j.paths = append(j.paths, r.Files...)
				}
				return j, nil
			})
		},
	}
}

// exportOptions turns the flags into export pipeline options.
func exportOptions(c *ucli.Context) (pipeline.ExportOptions, error) {
	o := pipeline.ExportOptions{
		SchemaFile: c.String("schema"), Table: c.String("table"), SSTables: c.Args().Slice(), Out: c.String("out"),
		Ranges: c.Int("ranges"), Lanes: c.Int("lanes"), LocalDir: c.String("local-dir"),
		Export: export.Options{
			WriteTime: c.StringSlice("writetime"), TTL: c.StringSlice("ttl"), IncludeTombstones: c.Bool("include-tombstones"),
			Parquet: export.ParquetOptions{Compression: strings.ToLower(c.String("compression"))},
			CSV:     export.CSVOptions{NoHeader: c.Bool("no-header"), NullString: c.String("null-string")},
		},
	}
	switch {
	case o.SchemaFile == "":
		return o, usagef("export needs --schema FILE")
	case o.Out == "":
		return o, usagef("export needs --out DIR")
	case len(o.SSTables) == 0:
		return o, usagef("export needs SSTables: directories, globs or component paths")
	}
	f, err := export.ParseFormat(c.String("to"))
	if err != nil {
		return o, usagef("--to: %v", err)
	}
	o.Format = f
	if c.IsSet("columns") {
		for _, name := range strings.Split(c.String("columns"), ",") {
			if name = strings.TrimSpace(name); name != "" {
				o.Export.Columns = append(o.Export.Columns, name)
			}
		}
	}
	if s := c.String("now"); s != "" {
		if o.Now, err = parseNow(s); err != nil {
			return o, usagef("--now: %v", err)
		}
	}
	if o.Export.MaxFileSize, err = parseSize(c.String("max-file-size")); err != nil {
		return o, usagef("--max-file-size: %v", err)
	}
	if o.Export.Parquet.RowGroupSize, err = parseSize(c.String("row-group-size")); err != nil {
		return o, usagef("--row-group-size: %v", err)
	}
	if d := c.String("delimiter"); d != "" {
		if d == `\t` {
			d = "\t"
		}
		if len(d) != 1 {
			return o, usagef("--delimiter %q: want one ASCII character", d)
		}
		o.Export.CSV.Delimiter = d[0]
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
	return o, nil
}
