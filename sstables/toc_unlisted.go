package sstables

import "slices"

// UnlistedComponents returns the standard components of desc (those of
// canonicalComponentOrder, and BTI's Partitions.db and Rows.db) whose file
// exists in desc.Dir although toc does
// not list it. Cassandra lists every component it writes, TOC.txt itself
// included, so such a file means TOC.txt lost lines (a truncated or damaged
// TOC.txt would otherwise silently hide, say, the digest from Verify).
func UnlistedComponents(fsys FS, desc Descriptor, toc *TOC) ([]Component, error) {
	names, err := fsOrDefault(fsys).ReadDir(desc.Dir)
	if err != nil {
		return nil, err
	}
	var out []Component
	for _, c := range append(slices.Clip(canonicalComponentOrder), ComponentPartitions, ComponentRows) {
		if !slices.Contains(toc.Listed, c) && slices.Contains(names, desc.Filename(c)) {
			out = append(out, c)
		}
	}
	return out, nil
}
