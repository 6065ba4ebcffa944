package main

import (
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// The help texts name versions through the version table
// (sstables/version), never literally, so that a new version shows up in
// them by being a row of the table.
var (
	// allVersions lists what castable reads, writableVersions what --format
	// and --to take.
	allVersions      = version.Summarize(version.All())
	writableVersions = version.Summarize(version.Select(version.Version.Writable))
	// defaultVersion is what write writes without --format.
	defaultVersion = version.MustParse(version.Default)
	// legacyCellVersions are the 2.x versions (no serialization header),
	// writable2x those castable writes (no shadowable deletions).
	legacyCellVersions = version.Summarize(version.OfFamily(version.Cells2x))
	writable2x         = version.Summarize(version.Select(func(v version.Version) bool { return v.Writable() && v.Family() == version.Cells2x }))
	// unsignedTimeVersions store deletion times past 2038.
	unsignedTimeVersions = version.Summarize(version.Select(version.Version.UIntDeletionTime))
	// for311 is what Cassandra 3.11 writes, from50 what 5.0 writes in the
	// big format without its compatibility mode: convert's downgrade
	// example.
	for311 = newest(func(v version.Version) bool { return v.WrittenBy("3.11") })
	from50 = newest(func(v version.Version) bool { return v.WrittenBy("5.0") && v.Family() == version.Big })
)

// newest returns the newest writable version for which keep holds.
func newest(keep func(version.Version) bool) version.Version {
	vs := version.Select(func(v version.Version) bool { return v.Writable() && keep(v) })
	return vs[len(vs)-1]
}

// example names an SSTable of version v with generation gen (or, when uuid
// is set, that identifier) in dir, for help texts: its component c
// ("dir/nb-1-big-Data.db"), or its prefix when c is empty ("dir/nb-1-big").
func example(dir string, v version.Version, gen int, uuid string, c sstables.Component) string {
	d := sstables.Descriptor{Dir: dir, Version: v, Generation: gen, UUID: uuid}
	return strings.TrimSuffix(d.Path(c), "-")
}

func versionsCommand(env *cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:  "versions",
		Usage: "list the SSTable versions: what castable does with each, which Cassandra reads and writes it",
		Description: `Prints the version table castable is built on: for each SSTable version
the family of castable's readers and writers that serves it, whether
castable writes it (or what it rewrites a read-only one as) and which is
the default of write, which Cassandra releases open it, and which releases
write it.

Example:
  castable versions`,
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return cli.Usagef("versions takes no arguments")
			}
			return cli.Versions(env)
		},
	}
}
