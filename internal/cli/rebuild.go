package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/castable-db/castable/sstables"
)

// RebuildOptions configure Rebuild.
type RebuildOptions struct {
	// SSTables are the SSTables to complete (component paths, prefixes, or
	// directories standing for every SSTable in them).
	SSTables []string
	// Schema and Table optionally give the table; its min_index_interval
	// is the summary's interval unless MinIndexInterval is set.
	Schema, Table string
	// MinIndexInterval is the summary's sampling interval; 0 means the
	// table's min_index_interval, or 128.
	MinIndexInterval int
	// DryRun prints what would be written and writes nothing.
	DryRun bool
	// Filter also replaces an existing Filter.db that is not the one a
	// flush writes for the SSTable's partition count and bloom filter fp
	// chance (a bulk writer's undersized filter), atomically
	// (sstables.RebuildOptions.Filter).
	Filter bool
}

// Rebuild writes back the Summary.db and Filter.db each SSTable lacks,
// rebuilt from Index.db as Cassandra rebuilds and saves them when it opens
// such an SSTable (sstables.RebuildComponents): new files only, each
// synced and renamed into place, TOC.txt last and only when it does not
// list them. With Filter it also replaces a Filter.db that is not the one a
// flush writes (an undersized one, as castable verify warns). It prints one line per SSTable on stdout: what it wrote, or
// "complete". An SSTable whose Index.db does not decode is reported on
// stderr and makes the error non-nil; the others are still done.
func Rebuild(env *Env, opts RebuildOptions) error {
	descs, err := resolveSSTables(opts.SSTables)
	if err != nil {
		return err
	}
	table, err := loadTable(opts.Schema, opts.Table)
	if err != nil {
		return err
	}
	interval := opts.MinIndexInterval
	if interval == 0 && table != nil {
		interval = table.Options.MinIndexInterval
	}
	warn := warnPrinter(env)
	failed, wrote := 0, 0
	var firstErr error
	for _, d := range descs {
		res, err := rebuildOne(d, opts, interval, warn)
		if err != nil {
			fmt.Fprintf(env.stderr(), "FAILED %s: %v\n", d, err)
			failed++
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		for _, c := range []sstables.Component{sstables.ComponentSummary, sstables.ComponentFilter} {
			if why, ok := res.Skipped[c]; ok && strings.HasPrefix(why, "exists but") {
				warn.Warn(sstables.Warning{Path: d.Path(c), Component: string(c), Offset: -1, Reason: why})
			}
		}
		if len(res.Written) == 0 {
			fmt.Fprintf(env.stdout(), "complete %s\n", d)
			continue
		}
		wrote++
		verb := "wrote"
		if opts.DryRun {
			verb = "would write"
		}
		names := make([]string, len(res.Written))
		for i, c := range res.Written {
			names[i] = string(c)
			if slices.Contains(res.Replaced, c) {
				names[i] += " (replaced)"
			}
		}
		toc := ""
		if res.TOCUpdated {
			toc = " and TOC.txt"
		}
		fmt.Fprintf(env.stdout(), "%s %s: %s%s (%d partitions)\n", verb, d, strings.Join(names, ", "), toc, res.Partitions)
	}
	env.infof("castable rebuild: %d SSTables, %d completed, %d failed", len(descs), wrote, failed)
	if failed > 0 {
		return &reportedError{err: fmt.Errorf("%d of %d SSTables could not be rebuilt", failed, len(descs)), first: firstErr}
	}
	return nil
}

func rebuildOne(d sstables.Descriptor, opts RebuildOptions, interval int, warn sstables.WarnFunc) (*sstables.RebuildResult, error) {
	// Warnings about the missing components themselves are what rebuild
	// repairs; the others are printed.
	r, err := openSSTableWarn(d, nil, func(w sstables.Warning) {
		if w.Component == string(sstables.ComponentTOC) && (strings.Contains(w.Reason, string(sstables.ComponentSummary)) || strings.Contains(w.Reason, string(sstables.ComponentFilter))) {
			return
		}
		warn.Warn(w)
	}, false)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return sstables.RebuildComponents(r, sstables.RebuildOptions{MinIndexInterval: interval, DryRun: opts.DryRun, Filter: opts.Filter})
}
