package compaction

// CopyAllRows makes a compaction with o purge every row through a copy
// (no Purger.keepsAll fast path).
func CopyAllRows(o *Options) { o.copyAll = true }
