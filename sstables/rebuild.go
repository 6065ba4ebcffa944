package sstables

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
)

// Writing back a missing Summary.db and Filter.db (castable rebuild).
//
// Cassandra rebuilds both from Index.db when it opens an SSTable without
// them and then saves the summary (SSTableReader.load: saveSummary; later
// releases save the filter too, saveBloomFilter). castable's readers
// rebuild them in memory only, since a reader never writes into what it
// reads; RebuildComponents is the explicit step that writes them back. It never modifies an existing
// component: each new file is written under its temporary name, synced,
// renamed into place and the directory synced; TOC.txt comes last, and
// only when it does not list a written component already (its lines are
// kept, the new ones appended) or does not exist (as Cassandra 3.x writes
// a TOC.txt for an SSTable found without one).

// RebuildOptions configure RebuildComponents.
type RebuildOptions struct {
	// FS is the file system; nil means the operating system's.
	FS FS
	// MinIndexInterval is the table's min_index_interval that the summary
	// samples at (the Summary.db that is gone recorded it; a table's
	// default is 128); 0 means 128.
	MinIndexInterval int
	// DryRun reports what would be written without writing anything.
	DryRun bool
	// Filter also rewrites an existing Filter.db that is not the one a
	// flush of the same data writes — sized by FilterFactory.getFilter for
	// the exact partition count and Statistics.db's bloom_filter_fp_chance
	// — replacing it atomically (temporary name, fsync, rename over it):
	// the repair for the undersized filters of bulk writers that size it
	// for zero keys (FilterRebuild.CheckSize). No other component refers
	// to Filter.db's content (the digest covers Data.db; TOC.txt names it),
	// so nothing else changes. The keys come from Index.db, or from
	// Data.db for a version without one (BTI).
	Filter bool
}

// RebuildResult says what RebuildComponents wrote.
type RebuildResult struct {
	// Written are the components written (or, with DryRun, that would
	// be), in canonical order.
	Written []Component
	// Replaced are those of Written that replaced an existing file
	// (Filter.db with RebuildOptions.Filter).
	Replaced []Component
	// Partitions is the number of Index.db entries the rebuild walked.
	Partitions int64
	// TOCUpdated says TOC.txt was written (it did not list a written
	// component, or did not exist).
	TOCUpdated bool
	// Skipped says, for each lookup component not written, why: "exists",
	// or a sentence (a Summary.db that does not parse, no bloom filter
	// because the fp chance is 1).
	Skipped map[Component]string
}

// RebuildComponents writes back r's Summary.db and Filter.db when they
// are missing, rebuilt from Index.db exactly as a flush of the same data
// writes them: the summary samples every MinIndexInterval-th entry; the
// filter is sized for the exact partition count with Statistics.db's
// bloom_filter_fp_chance (none when it is 1, as Cassandra writes none).
// The keys come from Index.db when r has one (sstables.IndexWalker, every
// BIG and 2.x version), else from Data.db (BTI, which has no Summary.db).
// An existing component is never touched, even when it does not parse
// (Verify reports it; castable scrub rewrites the SSTable), except
// Filter.db with RebuildOptions.Filter.
func RebuildComponents(r Reader, opts RebuildOptions) (*RebuildResult, error) {
	desc := r.Descriptor()
	idx, hasIndex := r.(IndexWalker)
	fsys := fsOrDefault(opts.FS)
	res := &RebuildResult{Skipped: map[Component]string{}}
	exists := func(c Component) (bool, error) {
		f, err := fsys.Open(desc.Path(c))
		if err == nil {
			f.Close()
			return true, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	hasSummary, err := exists(ComponentSummary)
	if err != nil {
		return nil, err
	}
	if desc.Version.Tries() {
		hasSummary = true // BTI has no Summary.db: nothing to rebuild
	}
	hasFilter, err := exists(ComponentFilter)
	if err != nil {
		return nil, err
	}
	compressed, err := exists(ComponentCompressionInfo)
	if err != nil {
		return nil, err
	}
	fp := 0.0
	if st := r.Statistics(); st != nil {
		fp = st.BloomFilterFPChance
	}
	wantSummary, wantFilter := !hasSummary, (!hasFilter || opts.Filter) && fp > 0 && fp < 1
	replaceFilter := hasFilter && wantFilter
	if hasSummary && !desc.Version.Tries() {
		res.Skipped[ComponentSummary] = "exists"
		if _, err := ReadSummary(fsys, desc, SummaryReadOptions{Boundaries: desc.Version.SummaryBoundaries(), DataCompressed: compressed}); errors.Is(err, ErrCorrupt) {
			res.Skipped[ComponentSummary] = fmt.Sprintf("exists but does not parse (%v): left as it is, since rebuild never modifies a component; remove it and rebuild", err)
		}
	}
	switch {
	case hasFilter && !wantFilter && opts.Filter:
		res.Skipped[ComponentFilter] = fmt.Sprintf("exists; Statistics.db's bloom_filter_fp_chance is %g: Cassandra writes no Filter.db", fp)
	case hasFilter && !wantFilter:
		res.Skipped[ComponentFilter] = "exists"
	case !wantFilter:
		res.Skipped[ComponentFilter] = fmt.Sprintf("Statistics.db's bloom_filter_fp_chance is %g: Cassandra writes no Filter.db", fp)
	}
	if !wantSummary && !wantFilter {
		return res, nil
	}

	sopts := SummaryOptions{MinIndexInterval: opts.MinIndexInterval}
	if desc.Version.SummaryBoundaries() {
		sopts.Boundaries = &SummaryBoundaries{DataCompressed: compressed}
	}
	var sb *SummaryBuilder
	if wantSummary {
		sb = NewSummaryBuilder(sopts)
	}
	if sb != nil && !hasIndex {
		return nil, fmt.Errorf("sstables: rebuild: %s (version %s) has no Index.db to rebuild Summary.db from", desc, desc.Version)
	}
	// walkKeys calls fn with every partition key: Index.db's, or Data.db's
	// without one.
	walkKeys := func(fn func(key []byte, indexOffset int64)) error {
		if hasIndex {
			return idx.WalkIndex(func(e IndexEntryInfo) error {
				fn(e.Key, e.IndexOffset)
				return nil
			})
		}
		sc, err := r.Scan()
		if err != nil {
			return err
		}
		defer sc.Close()
		for {
			p, err := sc.NextPartition()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			fn(p.Key, -1)
		}
	}
	var n int64
	if err := walkKeys(func(key []byte, indexOffset int64) {
		n++
		if sb != nil {
			sb.Add(key, indexOffset)
		}
	}); err != nil {
		return nil, err
	}
	res.Partitions = n
	if n == 0 {
		what := desc.Path(ComponentIndex) + ": Index.db has no entries"
		if !hasIndex {
			what = desc.Path(ComponentData) + ": Data.db has no partitions"
		}
		return nil, fmt.Errorf("sstables: rebuild: %s (no writer leaves an SSTable without partitions)", what)
	}
	content := map[Component][]byte{}
	if sb != nil {
		b, err := sb.AppendTo(nil)
		if err != nil {
			return nil, err
		}
		content[ComponentSummary] = b
	}
	if wantFilter {
		f, err := NewBloomFilter(n, fp, desc.Version)
		if err != nil {
			return nil, err
		}
		if err := walkKeys(func(key []byte, _ int64) { f.Add(key) }); err != nil {
			return nil, err
		}
		content[ComponentFilter] = f.AppendTo(nil)
		if replaceFilter {
			old, err := readWholeFile(fsys, desc.Path(ComponentFilter), ComponentFilter, maxBloomFileSize)
			if err != nil {
				return nil, err
			}
			if bytes.Equal(old, content[ComponentFilter]) {
				delete(content, ComponentFilter)
				res.Skipped[ComponentFilter] = fmt.Sprintf("exists and is the filter a flush writes for %d partitions", n)
			} else {
				res.Replaced = append(res.Replaced, ComponentFilter)
			}
		}
	}
	for c := range content {
		res.Written = append(res.Written, c)
	}
	res.Written = SortComponents(res.Written)

	// TOC.txt: rewritten only when it misses a written component.
	var toc []byte
	oldTOC, err := readWholeFile(fsys, desc.Path(ComponentTOC), ComponentTOC, maxTOCSize)
	switch {
	case err == nil:
		listed, err := ParseTOC(oldTOC, desc.Path(ComponentTOC))
		if err != nil {
			return nil, err
		}
		toc = slices.Clone(oldTOC)
		if len(toc) > 0 && toc[len(toc)-1] != '\n' {
			toc = append(toc, '\n')
		}
		added := false
		for _, c := range res.Written {
			if !slices.Contains(listed, c) {
				toc = append(append(toc, c...), '\n')
				added = true
			}
		}
		if !added {
			toc = nil
		}
	case errors.Is(err, fs.ErrNotExist):
		names, err := fsys.ReadDir(desc.Dir)
		if err != nil {
			return nil, err
		}
		var cs []Component
		for _, c := range append(slices.Clone(canonicalComponentOrder), ComponentPartitions, ComponentRows) {
			if c != ComponentTOC && slices.Contains(names, desc.Filename(c)) {
				cs = append(cs, c)
			}
		}
		toc = AppendVersionTOC(nil, append(cs, res.Written...), desc.Version)
	default:
		return nil, err
	}
	res.TOCUpdated = toc != nil
	if opts.DryRun {
		return res, nil
	}

	var temps []string
	cleanup := func() {
		for _, t := range temps {
			if t != "" {
				fsys.Remove(t)
			}
		}
	}
	for _, c := range res.Written {
		tmp := desc.TempPath(c)
		temps = append(temps, tmp)
		if err := writeSynced(fsys, tmp, content[c]); err != nil {
			cleanup()
			return nil, err
		}
	}
	for i, c := range res.Written {
		// A component that appeared meanwhile is not replaced (one
		// rebuilt on purpose is: rename swaps it atomically).
		if slices.Contains(res.Replaced, c) {
			if err := fsys.Rename(temps[i], desc.Path(c)); err != nil {
				cleanup()
				return nil, err
			}
			temps[i] = ""
			continue
		}
		if ok, err := exists(c); err != nil || ok {
			cleanup()
			if err == nil {
				err = fmt.Errorf("sstables: rebuild: %s appeared while it was rebuilt; left as it is", desc.Path(c))
			}
			return nil, err
		}
		if err := fsys.Rename(temps[i], desc.Path(c)); err != nil {
			cleanup()
			return nil, err
		}
		temps[i] = ""
	}
	if err := fsys.SyncDir(desc.Dir); err != nil {
		return nil, err
	}
	if toc != nil {
		tmp := desc.TempPath(ComponentTOC)
		if err := writeSynced(fsys, tmp, toc); err != nil {
			fsys.Remove(tmp)
			return nil, err
		}
		if err := fsys.Rename(tmp, desc.Path(ComponentTOC)); err != nil {
			fsys.Remove(tmp)
			return nil, err
		}
		if err := fsys.SyncDir(desc.Dir); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// writeSynced creates path with content b and syncs it.
func writeSynced(fsys FS, path string, b []byte) error {
	f, err := fsys.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
