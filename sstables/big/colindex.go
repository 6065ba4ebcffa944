package big

import "github.com/castable-db/castable/sstables/internal/sorted"

// InferColumnIndexSize returns the column index size in bytes that the
// writer of r used, as far as its partitions and promoted indexes tell
// (sorted.ColumnIndexSizeBounds), preferring def (the target's default)
// when it is consistent with them. ok is false when no KiB multiple fits
// the constraints (a writer that did not follow Cassandra's rule); size is
// then def. It reads the whole of Data.db and Index.db.
func (r *Reader) InferColumnIndexSize(def int) (size int, ok bool, err error) {
	b := sorted.NewColumnIndexSizeBounds()
	var spans []sorted.BlockSpan
	err = r.Layout(func(pl *PartitionLayout) error {
		spans = spans[:0]
		for _, bl := range pl.Blocks {
			spans = append(spans, sorted.BlockSpan{Offset: bl.Offset, Width: bl.Width})
		}
		b.Add(&pl.DataLayout, spans, false)
		return nil
	})
	if err != nil {
		return def, false, err
	}
	size, ok = b.Size(def)
	return size, ok, nil
}
