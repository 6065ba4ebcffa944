package main

import (
	"context"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/internal/cli"
)

// splitList splits a comma-separated flag value, keeping commas inside
// parentheses ("writetime(v)" never holds one, but a quoted name might).
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func exportCommand(ctx context.Context, env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "export",
		Usage:     "write the live rows of a table's SSTables (what SELECT * returns) as Parquet, CSV or JSON Lines",
		ArgsUsage: "SSTABLE|DIR...",
		Description: `Reads the SSTables of one table merged, as Cassandra reads them (any
versions together; deletions, TTLs and overwrites reconciled), and writes the
rows a SELECT * would return at --now: one output row per CQL row, the
partition key, clustering and regular columns in SELECT * order, statics
repeated on each row of their partition. It streams row by row: memory is
bounded by a Parquet row group, never by a partition. The path of each file
written is printed on stdout; files appear, complete, at the end.

Formats (--to):
  parquet  typed columns (see the README's type table), snappy pages by
           default; --compression zstd|none, --row-group-size
  csv      what 'castable write --csv --header' reads back: a header line,
           CQL literals for collections, tuples and UDTs
  jsonl    one object a line, as SELECT JSON prints each row

Example:
  castable export --to parquet --out users.parquet data/ks/users
  castable export --to csv --out users.csv --columns id,name --key 42 data/ks/users
  castable export --to jsonl --out - --token-range '(0, 4611686018427387904]' data/ks/users
  castable export --include-tombstones --to csv --out audit.csv data/ks/users`,
		Flags: append(schemaFlags(false),
			&ucli.StringFlag{Name: "to", Value: "parquet", Usage: "output `FORMAT`: parquet, csv or jsonl"},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `FILE` (- for standard output); with --max-file-size, FILE-00000.ext, FILE-00001.ext, …", Required: true},
			&ucli.StringFlag{Name: "now", Usage: "the moment shown: `SECONDS` since the epoch or an RFC 3339 time (default: now)"},
			&ucli.StringFlag{Name: "columns", Usage: "export only the `a,b,c` columns, in that order; writetime(c) and ttl(c) may be among them"},
			&ucli.StringSliceFlag{Name: "writetime", Usage: "add a writetime(`COL`) column: the cell's timestamp in µs (repeatable)"},
			&ucli.StringSliceFlag{Name: "ttl", Usage: "add a ttl(`COL`) column: the cell's remaining seconds (repeatable)"},
			&ucli.StringSliceFlag{Name: "key", Aliases: []string{"k"}, Usage: "export only partition `KEY` (string form; a composite key's parts joined by ':'; repeatable)"},
			&ucli.StringFlag{Name: "keys-file", Usage: "export only the partition keys in `FILE`, one a line"},
			&ucli.StringSliceFlag{Name: "token-range", Usage: "export only the partitions whose token is in `(LEFT, RIGHT]` (repeatable: any of them)"},
			&ucli.BoolFlag{Name: "include-tombstones", Usage: "an audit view: also one row per deletion still held, and the [tombstone], [tombstone_column], [inclusive], [deleted_at], [local_deletion_time] columns"},
			&ucli.StringFlag{Name: "max-file-size", Usage: "start a new file once one reaches `SIZE` (default: one file)"},
			&ucli.StringFlag{Name: "compression", Usage: "Parquet page `CODEC`: snappy (default), zstd or none"},
			&ucli.StringFlag{Name: "row-group-size", Usage: "Parquet: close a row group at `SIZE` of uncompressed values (default 32MiB)"},
			&ucli.BoolFlag{Name: "no-header", Usage: "CSV: no header line"},
			&ucli.StringFlag{Name: "delimiter", Usage: "CSV: field delimiter `C` (default ,)"},
			&ucli.StringFlag{Name: "null-string", Usage: "CSV: the `TEXT` of a null (default: the empty field)"},
			opaqueFlag(),
		),
		Action: func(c *ucli.Context) error {
			opts := cli.ExportOptions{
				SSTables: c.Args().Slice(), Schema: c.String("schema"), Table: c.String("table"),
				To: c.String("to"), Out: c.String("out"), Keys: c.StringSlice("key"), KeysFile: c.String("keys-file"),
				TokenRanges: c.StringSlice("token-range"), OpaqueUnknownTypes: c.Bool("opaque-unknown-types"),
				Export: export.Options{
					Columns: splitList(c.String("columns")), WriteTime: c.StringSlice("writetime"), TTL: c.StringSlice("ttl"),
					IncludeTombstones: c.Bool("include-tombstones"),
					Parquet:           export.ParquetOptions{Compression: strings.ToLower(c.String("compression"))},
					CSV:               export.CSVOptions{NoHeader: c.Bool("no-header"), NullString: c.String("null-string")},
				},
			}
			if !c.IsSet("columns") {
				opts.Export.Columns = nil
			}
			var err error
			if s := c.String("now"); s != "" {
				if opts.Now, err = parseNow(s); err != nil {
					return cli.Usagef("--now: %v", err)
				}
			}
			if opts.Export.MaxFileSize, err = parseSize(c.String("max-file-size")); err != nil {
				return cli.Usagef("--max-file-size: %v", err)
			}
			if opts.Export.Parquet.RowGroupSize, err = parseSize(c.String("row-group-size")); err != nil {
				return cli.Usagef("--row-group-size: %v", err)
			}
			if d := c.String("delimiter"); d != "" {
				if d == `\t` {
					d = "\t"
				}
				if len(d) != 1 {
					return cli.Usagef("--delimiter %q: want one ASCII character", d)
				}
				opts.Export.CSV.Delimiter = d[0]
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			_, err = cli.Export(ctx, env, opts)
			return err
		},
	}
}
