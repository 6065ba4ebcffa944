package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats" // every format, for sstables.Lookup
	"github.com/castable-db/castable/sstables/version"
)

// columnIndexSize turns a --column-index-size-kb value into
// WriterOptions.ColumnIndexSize bytes (0: the version's default).
func columnIndexSize(kb int) (int, error) {
	if kb < 0 || kb > 1<<20 {
		return 0, Usagef("--column-index-size-kb %d: want a size in KiB between 1 and 1048576 (0 for the version's default)", kb)
	}
	return kb << 10, nil
}

// writeFormat returns the format named by a --format/--to flag ("" means
// version.Default, what write produces without --format; convert without
// --to keeps each input's version).
func writeFormat(name string) (sstables.Format, error) {
	if name == "" {
		name = version.Default
	}
	f, err := sstables.Lookup(strings.ToLower(name))
	if err != nil {
		return nil, Usagef("--format: %v", err)
	}
	if !f.Version().Writable() {
		return nil, Usagef("--format: castable reads %s (%s) but does not write it; writable: %s", f.Version(), f.Version().Release(), writableNames())
	}
	return f, nil
}

// writableNames lists the versions castable writes.
func writableNames() string {
	var names []string
	for _, f := range sstables.Formats(true) {
		names = append(names, f.Version().String())
	}
	return strings.Join(names, ", ")
}

// resolveSSTable turns a command-line argument into one SSTable: the path
// of any of its components ("dir/mc-1-big-Data.db"), its prefix
// ("dir/mc-1-big"), or a directory holding exactly one SSTable.
func resolveSSTable(arg string) (sstables.Descriptor, error) {
	descs, err := resolveSSTables([]string{arg})
	if err != nil {
		return sstables.Descriptor{}, err
	}
	if len(descs) != 1 {
		if tables := legacyTables(descs); len(tables) > 1 {
			return sstables.Descriptor{}, Usagef("%s: holds %d SSTables of %d tables (%s); name one by its prefix, for example %s", arg, len(descs), len(tables), strings.Join(tables, ", "), descs[0])
		}
		return sstables.Descriptor{}, Usagef("%s: holds %d SSTables; name one of them (for example %s)", arg, len(descs), descs[0].Path(sstables.ComponentData))
	}
	return descs[0], nil
}

// legacyTables lists the distinct "keyspace.table" of the pre-2.2 names
// among descs (a Cassandra 2.1 directory may hold several tables' files).
func legacyTables(descs []sstables.Descriptor) []string {
	var out []string
	for _, d := range descs {
		if d.Table == "" {
			continue
		}
		if t := d.Keyspace + "." + d.Table; !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// resolveSSTables resolves each argument like resolveSSTable, except that a
// directory stands for every complete SSTable in it.
func resolveSSTables(args []string) ([]sstables.Descriptor, error) {
	if len(args) == 0 {
		return nil, Usagef("no SSTable given")
	}
	var out []sstables.Descriptor
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err == nil && st.IsDir() {
			descs, err := sstables.ListSSTables(nil, arg)
			if err != nil {
				return nil, err
			}
			if len(descs) == 0 {
				descs, err = dataFilesIn(arg)
				if err != nil {
					return nil, err
				}
			}
			if len(descs) == 0 {
				return nil, Usagef("%s: no SSTable (no *-big-Data.db) in this directory", arg)
			}
			out = append(out, descs...)
			continue
		}
		desc, err := parseSSTableArg(arg)
		if err != nil {
			// A prefix of SSTable names: "dir/ks-users" picks every SSTable
			// of that table in a Cassandra 2.1 directory.
			if descs := prefixSSTables(arg); len(descs) > 0 {
				out = append(out, descs...)
				continue
			}
			return nil, err
		}
		if _, err := os.Stat(desc.Path(sstables.ComponentData)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, Usagef("%s: no such SSTable (%s does not exist)", arg, desc.Path(sstables.ComponentData))
			}
			return nil, err
		}
		out = append(out, desc)
	}
	return out, nil
}

// parseSSTableArg parses a component path or an SSTable prefix.
func parseSSTableArg(arg string) (sstables.Descriptor, error) {
	if desc, _, temp, err := sstables.ParseDescriptor(arg); err == nil {
		if temp {
			return desc, Usagef("%s: a temporary file of an unfinished write, not an SSTable", arg)
		}
		return desc, nil
	}
	prefix := strings.TrimSuffix(arg, "-")
	if desc, _, temp, err := sstables.ParseDescriptor(prefix + "-" + string(sstables.ComponentData)); err == nil && !temp {
		return desc, nil
	}
	ex := sstables.Descriptor{Dir: "dir", Version: version.MustParse(version.Default), Generation: 1}
	return sstables.Descriptor{}, Usagef("%s: not an SSTable: give a component path such as %s, its prefix %s, or a directory", arg,
		ex.Path(sstables.ComponentData), strings.TrimSuffix(ex.Path(""), "-"))
}

// prefixSSTables returns the SSTables whose Data.db name starts with the
// last element of prefix followed by '-', in prefix's directory.
func prefixSSTables(prefix string) []sstables.Descriptor {
	dir, base := filepath.Split(prefix)
	if base == "" {
		return nil
	}
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []sstables.Descriptor
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base+"-") || !strings.HasSuffix(name, "-"+string(sstables.ComponentData)) {
			continue
		}
		if d, _, temp, err := sstables.ParseDescriptor(filepath.Join(dir, name)); err == nil && !temp {
			out = append(out, d)
		}
	}
	return out
}

// scanReadAhead is the number of Data.db chunks the commands' scans (dump,
// convert) load ahead of the row decoder, on a second core.
const scanReadAhead = 2

// openSSTable opens desc for reading, with table or (nil) the schema the
// version recovers by itself; opaque reads types castable does not know as
// opaque bytes.
func openSSTable(desc sstables.Descriptor, table *schema.Table, opaque bool) (sstables.Reader, error) {
	r, err := sstables.OpenAny(desc, table, sstables.ReaderOptions{ReadAhead: scanReadAhead, OpaqueUnknownTypes: opaque})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// dataFilesIn lists the SSTables of dir by their Data.db files, for
// directories whose SSTables have no TOC.txt (as some test corpora).
func dataFilesIn(dir string) ([]sstables.Descriptor, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "*-"+string(sstables.ComponentData)))
	if err != nil {
		return nil, err
	}
	var out []sstables.Descriptor
	for _, m := range matches {
		if d, _, temp, err := sstables.ParseDescriptor(m); err == nil && !temp {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b sstables.Descriptor) int {
		if c := strings.Compare(a.Keyspace+"."+a.Table, b.Keyspace+"."+b.Table); c != 0 {
			return c
		}
		return a.Generation - b.Generation
	})
	return out, nil
}
