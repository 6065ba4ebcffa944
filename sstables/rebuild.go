package sstables

import (
	"errors"
	"fmt"
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
}

// RebuildResult says what RebuildComponents wrote.
type RebuildResult struct {
	// Written are the components written (or, with DryRun, that would
	// be), in canonical order.
	Written []Component
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
// r must be a reader of a format with Index.db (sstables.IndexWalker, every
// BIG version). An existing component is never touched, even when it does
// not parse (Verify reports it; castable scrub rewrites the SSTable).
func RebuildComponents(r Reader, opts RebuildOptions) (*RebuildResult, error) {
	desc := r.Descriptor()
	idx, ok := r.(IndexWalker)
	if !ok {
		return nil, fmt.Errorf("sstables: rebuild: %s (version %s) has no Index.db to rebuild Summary.db and Filter.db from", desc, desc.Version)
	}
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
	wantSummary, wantFilter := !hasSummary, !hasFilter && fp > 0 && fp < 1
	if hasSummary {
		res.Skipped[ComponentSummary] = "exists"
		if _, err := ReadSummary(fsys, desc, SummaryReadOptions{Boundaries: desc.Version.SummaryBoundaries(), DataCompressed: compressed}); errors.Is(err, ErrCorrupt) {
			res.Skipped[ComponentSummary] = fmt.Sprintf("exists but does not parse (%v): left as it is, since rebuild never modifies a component; remove it and rebuild", err)
		}
	}
	switch {
	case hasFilter:
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
	var n int64
	if err := idx.WalkIndex(func(e IndexEntryInfo) error {
		n++
		if sb != nil {
			sb.Add(e.Key, e.IndexOffset)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	res.Partitions = n
	if n == 0 {
		return nil, fmt.Errorf("sstables: rebuild: %s: Index.db has no entries (no writer leaves an SSTable without partitions)", desc.Path(ComponentIndex))
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
		if err := idx.WalkIndex(func(e IndexEntryInfo) error {
			f.Add(e.Key)
			return nil
		}); err != nil {
			return nil, err
		}
		content[ComponentFilter] = f.AppendTo(nil)
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
		// A component that appeared meanwhile is not replaced.
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
