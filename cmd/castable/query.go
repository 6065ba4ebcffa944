package main

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/castable-db/castable/internal/cli"
)

func queryCommand(env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "query",
		Usage:     "answer a CQL SELECT over a table's SSTables, as Cassandra answers it",
		ArgsUsage: `"SELECT ..." SSTABLE|DIR...`,
		Description: `Reads the SSTables of one table merged and reconciled as Cassandra reads
them and answers the SELECT with Cassandra's semantics and order: column
lists, *, DISTINCT, writetime(), ttl(), count(*), partition key = and IN
(read through the bloom filter and index, nothing else), token() ranges,
clustering slices and IN, LIMIT, PER PARTITION LIMIT, ALLOW FILTERING on
key, static and regular columns (=, !=, <, <=, >, >=, IN, CONTAINS,
CONTAINS KEY). What Cassandra refuses is refused with its message (exit 2).
Output: cqlsh's table (default), --csv (a header, then cqlsh's value forms)
or --json (JSON Lines, one object per row keyed by the column names).

Example:
  castable query --schema ks.cql "SELECT * FROM ks.t WHERE pk = 1 AND ck > 3" data/ks/t
  castable query --json "SELECT pk, writetime(v) FROM ks.t WHERE token(pk) > 0 LIMIT 10" data/ks/t`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "schema", Usage: "CQL schema `FILE` declaring the table (else the SSTables' serialization header gives the columns)"},
			&ucli.StringFlag{Name: "now", Usage: "read the rows at this moment (expiry, remaining TTLs): `SECONDS` since the epoch or an RFC 3339 time"},
			&ucli.BoolFlag{Name: "csv", Usage: "print CSV"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON Lines"},
			&ucli.StringFlag{Name: "release", Usage: "refuse what this Cassandra `RELEASE` refuses: 3.11 (no != or IN on non-key columns, ...) or 5.0", Value: "5.0"},
			&ucli.BoolFlag{Name: "stats", Usage: "print what the query read on stderr"},
			opaqueFlag(),
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() < 2 {
				return cli.Usagef("want a SELECT statement and at least one SSTable")
			}
			opts := cli.QueryOptions{Statement: c.Args().First(), SSTables: c.Args().Slice()[1:], Schema: c.String("schema"),
				Stats: c.Bool("stats"), Release: c.String("release"), OpaqueUnknownTypes: c.Bool("opaque-unknown-types")}
			switch {
			case c.Bool("csv") && c.Bool("json"):
				return cli.Usagef("--csv and --json exclude each other")
			case c.Bool("csv"):
				opts.Format = "csv"
			case c.Bool("json"):
				opts.Format = "json"
			}
			if s := c.String("now"); s != "" {
				var err error
				if opts.Now, err = parseNow(s); err != nil {
					return cli.Usagef("--now: %v", err)
				}
			}
			return cli.Query(env, opts)
		},
	}
}
