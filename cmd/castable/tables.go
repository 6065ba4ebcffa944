package main

import (
	"context"

	ucli "github.com/urfave/cli/v2"

	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/sstables"
)

// The commands over a set of SSTables of one table: compact, filter,
// split (issue 20).

// setFlags are the flags compact, filter and split share.
func setFlags() []ucli.Flag {
	return append(schemaFlags(false),
		&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "`DIR` to write into", Required: true},
		&ucli.StringFlag{Name: "to", Usage: "target `VERSION`: " + writableVersions + " (default: the newest among the inputs)"},
		&ucli.IntFlag{Name: "generation", Usage: "generation `N` of the first SSTable written (default: the next free one)"},
		&ucli.BoolFlag{Name: "uuid-identifiers", Usage: "name SSTables with UUID-based identifiers (Cassandra 4.1+) instead of generations"},
		&ucli.StringFlag{Name: "max-sstable-size", Usage: "start a new SSTable once Data.db passes `SIZE` (256MiB, 1GiB; default: no cap)"},
		&ucli.StringFlag{Name: "now", Usage: "the time deciding what has expired and what may be purged: `SECONDS` since the epoch or an RFC 3339 time (default: the clock)"},
		&ucli.Int64Flag{Name: "gc-grace-seconds", Usage: "the table's gc_grace_seconds `N` (default: the schema's, else 864000)"},
		&ucli.StringFlag{Name: "host-id", Usage: "the originating host id `UUID` the outputs record (default: the inputs' when they all name one)"},
		&ucli.BoolFlag{Name: "reproduce-lost-complex-deletions", Usage: "write complex deletions as Cassandra 5.0 does, losing those of a row whose last complex column has none (for outputs byte-identical to a 5.0 node's)"},
		&ucli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "`N` cores for compression (default: all)"},
	)
}

// setOptions reads setFlags.
func setOptions(c *ucli.Context) (cli.SetOptions, error) {
	o := cli.SetOptions{
		SSTables: c.Args().Slice(), Out: c.String("out"), To: c.String("to"),
		Schema: c.String("schema"), Table: c.String("table"),
		Generation: c.Int("generation"), UUIDIdentifiers: c.Bool("uuid-identifiers"),
		HostID: c.String("host-id"), ReproduceLostComplexDeletions: c.Bool("reproduce-lost-complex-deletions"),
		Jobs: c.Int("jobs"),
	}
	if c.NArg() == 0 {
		return o, cli.Usagef("missing SSTable")
	}
	var err error
	if o.MaxSSTableSize, err = parseSize(c.String("max-sstable-size")); err != nil {
		return o, cli.Usagef("--max-sstable-size: %v", err)
	}
	if s := c.String("now"); s != "" {
		if o.Now, err = parseNow(s); err != nil {
			return o, cli.Usagef("--now: %v", err)
		}
	}
	if c.IsSet("gc-grace-seconds") {
		g := c.Int64("gc-grace-seconds")
		o.GCGraceSeconds = &g
	}
	return o, nil
}

func compactCommand(ctx context.Context, env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "compact",
		Usage:     "merge SSTables of one table into new ones as Cassandra's compaction does",
		ArgsUsage: "SSTABLE|DIR...",
		Description: `Merges the inputs — any versions mixed — as Cassandra merges them, purges
what Cassandra's compaction purges at --now (tombstones older than
gc_grace_seconds whose data no other SSTable can hold, expired cells turned
into tombstones and then purged likewise; inputs whose every deletion is
purgeable and whose data is older than all the others' are left out whole),
and writes the result through the normal writers with what Cassandra's
compaction writer carries (serialization header, repairedAt, pending repair,
commit log intervals of the host's inputs, level 0, TOC order). The inputs
are taken to be the whole table unless --overlapping names the table's other
SSTables. Without --to the newest input's version is written.

The inputs are never changed. Each output appears atomically (temporary
names, TOC.txt last); on failure or interrupt every output of the run is
removed, and a kill leaves only complete outputs and temporary files that
the next writer in the directory removes. The Data.db paths are printed on
stdout; inputs, outputs, partitions, rows and speed on stderr.

Example:
  castable compact --out compacted data/ks/t
  castable compact --no-purge --to ` + from50.String() + ` --max-sstable-size 256MiB --out out ` + example("data/ks/t", for311, 1, "", sstables.ComponentData) + ` ` + example("data/ks/t", for311, 2, "", sstables.ComponentData),
		Flags: append(setFlags(),
			&ucli.BoolFlag{Name: "no-purge", Usage: "keep every tombstone and expired cell (the merge still drops what deletions shadow)"},
			&ucli.BoolFlag{Name: "only-purge-repaired-tombstones", Usage: "purge tombstones only when every input is repaired (the table option)"},
			&ucli.StringSliceFlag{Name: "overlapping", Usage: "the table's other `SSTABLE|DIR`s: a tombstone that may shadow their data is kept; repeatable"},
		),
		Action: func(c *ucli.Context) error {
			o, err := setOptions(c)
			if err != nil {
				return err
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			_, err = cli.Compact(ctx, env, cli.CompactOptions{SetOptions: o, NoPurge: c.Bool("no-purge"),
				OnlyPurgeRepairedTombstones: c.Bool("only-purge-repaired-tombstones"), Overlapping: c.StringSlice("overlapping")})
			return err
		},
	}
}

func filterCommand(ctx context.Context, env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "filter",
		Usage:     "keep (or with --exclude drop) partitions by key or token range, into new SSTables",
		ArgsUsage: "SSTABLE|DIR...",
		Description: `Writes the partitions of the inputs (merged when there are several) that
match — a key given with --key or in --keys-file (one a line, in the forms
dump -k takes: a value, or a composite key's components joined by ':'), or
a token in a --token-range '(a, b]' (the tokens after a up to b, in the
partitioner's token strings) — into new SSTables; with --exclude those that
do not. Nothing is purged: filter moves data, and a tombstone it dropped
could let data elsewhere in the cluster reappear; --purge purges as
compact does. Outputs carry what compact's carry; atomic as compact's.

Example:
  castable filter --key 42 --key 43 --out out data/ks/t
  castable filter --exclude --keys-file bad-keys.txt --out clean data/ks/t
  castable filter --token-range '(-9223372036854775808, 0]' --to ` + for311.String() + ` --out half data/ks/t`,
		Flags: append(setFlags(),
			&ucli.StringSliceFlag{Name: "key", Aliases: []string{"k"}, Usage: "partition `KEY` (string form, composite components joined by ':'); repeatable"},
			&ucli.StringFlag{Name: "keys-file", Usage: "`FILE` of partition keys, one a line"},
			&ucli.StringSliceFlag{Name: "token-range", Usage: "token `RANGE` '(a, b]'; repeatable"},
			&ucli.BoolFlag{Name: "exclude", Usage: "drop the partitions named, keep the others"},
			&ucli.BoolFlag{Name: "purge", Usage: "purge tombstones and expired cells as compact does (default: keep them)"},
		),
		Action: func(c *ucli.Context) error {
			o, err := setOptions(c)
			if err != nil {
				return err
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			_, err = cli.Filter(ctx, env, cli.FilterOptions{SetOptions: o, Keys: c.StringSlice("key"), KeysFile: c.String("keys-file"),
				TokenRanges: c.StringSlice("token-range"), Exclude: c.Bool("exclude"), Purge: c.Bool("purge")})
			return err
		},
	}
}

func splitCommand(ctx context.Context, env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "split",
		Usage:     "split SSTables of one table by size or by token range into new SSTables",
		ArgsUsage: "SSTABLE|DIR...",
		Description: `Rewrites the inputs (merged when there are several) into SSTables of at
most --max-sstable-size, or into one directory per token range below --out:
--ranges N equal parts of the ring, or --tokens FILE the ranges a real
ring's tokens delimit (one token per line, 'nodetool ring' output, or the
JSON ring castable-beam's --ring takes), each range (t[i-1], t[i]] owned by
the node of t[i]. The directories are range-000, range-001, … in ring order
(for --tokens, range-000 is the wrapping range that ends at the smallest
token); stderr names each one's range; a range without data gets none.
Each range's SSTables are cut at --max-sstable-size too when it is given,
with generations of their own. Nothing is purged unless --purge. Outputs
carry what compact's carry; atomic as compact's.

Example:
  castable split --max-sstable-size 1GiB --out out data/ks/t
  castable split --ranges 8 --out ranges data/ks/t
  nodetool ring > ring.txt; castable split --tokens ring.txt --to ` + for311.String() + ` --out by-node data/ks/t`,
		Flags: append(setFlags(),
			&ucli.IntFlag{Name: "ranges", Usage: "split the ring into `N` equal ranges"},
			&ucli.StringFlag{Name: "tokens", Usage: "a ring's tokens `FILE`: one token a line, nodetool ring output or JSON"},
			&ucli.BoolFlag{Name: "purge", Usage: "purge tombstones and expired cells as compact does (default: keep them)"},
		),
		Action: func(c *ucli.Context) error {
			o, err := setOptions(c)
			if err != nil {
				return err
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			_, err = cli.Split(ctx, env, cli.SplitOptions{SetOptions: o, Ranges: c.Int("ranges"), TokensFile: c.String("tokens"), Purge: c.Bool("purge")})
			return err
		},
	}
}
