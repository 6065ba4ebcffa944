package la

import (
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// Version is the version string of the format, as written in file names.
const Version = "la"

// Options are the la-specific settings of a Format. The zero value is the
// strict default: data la cannot represent is an error.
type Options struct {
	// ShadowableAsRegular writes a shadowable row deletion (Cassandra's
	// materialized-view kind, Row.DeletionShadowable, or ScyllaDB's,
	// Row.ShadowableDeletion) as a regular row deletion, the greater of
	// the two. By default such a row is an error naming the partition: 2.2
	// has no shadowable deletions.
	ShadowableAsRegular bool
	// SummaryBoundaries is the trailer of Summary.db; nil means what a 2.2
	// flush writes for an SSTable below 2 GiB: disk access mode "mmap" with
	// the single segment boundary 0 for Index.db and, when uncompressed,
	// for Data.db.
	SummaryBoundaries *sstables.SummaryBoundaries
}

// Format is the la format; it implements sstables.Format. The zero value
// uses the default Options.
type Format struct {
	Options Options
}

// Version implements sstables.Format.
func (Format) Version() string { return Version }

// NewWriter implements sstables.Format.
func (f Format) NewWriter(table *schema.Table, opts sstables.WriterOptions) (sstables.Writer, error) {
	w, err := NewWriter(table, opts, f.Options)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Open implements sstables.Format. Without a table the reader infers one
// whose columns are blobs (see Open).
func (f Format) Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (sstables.Reader, error) {
	r, err := Open(desc, table, opts)
	if err != nil {
		return nil, err
	}
	return r, nil
}

var _ sstables.Format = Format{}
