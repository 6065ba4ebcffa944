package cli

import (
	"io"
	"slices"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

// dumpMerged dumps several SSTables of one table as the database reads
// them: merged as Cassandra merges (table.Set: partition, row, range,
// complex and cell deletions applied, cells reconciled by timestamp and
// the release's tie rules), and then, unless NoPurge, purged of every
// deletion and of every cell expired at Now (compaction.LivePurger:
// gc_grace_seconds 0, the SSTables given taken as the whole table), so
// only live data shows: what SELECT returns at Now, in sstabledump's form.
// NoPurge prints the merged stream itself, tombstones and expired cells
// included (what a compaction with --no-purge writes). Partitions carry
// no position: a merged partition has no one offset. -k looks the keys
// up through the set (table.Set.Get: newest SSTable first, each behind
// its bloom filter and index).
func dumpMerged(env *Env, opts DumpOptions, descs []sstables.Descriptor) error {
	t, err := loadTableTypes(opts.Schema, opts.Table, opts.OpaqueUnknownTypes)
	if err != nil {
		return err
	}
	uniq := descs[:0:0]
	for _, d := range descs {
		if !slices.ContainsFunc(uniq, func(u sstables.Descriptor) bool { return u.Path("") == d.Path("") }) {
			uniq = append(uniq, d)
		}
	}
	set, err := table.Open(uniq, nil, table.Options{Table: t, Now: opts.Now, Reader: sstables.ReaderOptions{
		ReadAhead: scanReadAhead, Warn: warnPrinter(env), WarnUncompressedCRC: true, OpaqueUnknownTypes: opts.OpaqueUnknownTypes}})
	if err != nil {
		return err
	}
	defer set.Close()
	t = set.Table()
	keys, excluded, err := dumpKeys(t, opts)
	if err != nil {
		return err
	}
	enc := dumpEncoder(env, t, opts)
	purger := func() *compaction.Purger { return compaction.LivePurger(set.NowInSec()) }
	if len(opts.Keys) > 0 {
		for i, key := range keys {
			if excluded[string(key)] {
				continue
			}
			p, err := set.Get(key)
			if err != nil {
				return err
			}
			if p != nil && !opts.NoPurge {
				p = compaction.PurgePartition(p, purger())
			}
			if p == nil {
				env.infof("castable dump: key %q not found in the %d SSTables", opts.Keys[i], len(uniq))
				continue
			}
			if err := enc.Encode(p, -1); err != nil {
				return err
			}
		}
		return enc.Close()
	}
	ts, err := set.Scan()
	if err != nil {
		return err
	}
	var sc sstables.Scanner = ts
	if !opts.NoPurge {
		sc = compaction.NewPurgedScanner(ts, purger())
	}
	defer sc.Close()
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if excluded[string(p.Key)] {
			continue
		}
		if err := dumpPartition(enc, sc, p, opts.KeysOnly); err != nil {
			return err
		}
	}
	return enc.Close()
}
