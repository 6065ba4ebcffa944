package la

import (
	"fmt"

	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// Version is la, the version this package writes; it reads the other
// versions of its family (version.Cells2x) too.
var Version = version.MustParse("la")

// init registers the versions of the 2.x cells family: Format for the one
// castable writes, a read-only format for the others.
func init() {
	for _, v := range version.OfFamily(version.Cells2x) {
		if v.Writable() {
			sstables.Register(Format{})
		} else {
			sstables.Register(readOnly{v})
		}
	}
}

// Options are the la-specific settings of a Format. The zero value is what
// a 2.2 flush writes. (Data la cannot represent is an error unless
// sstables.WriterOptions.ShadowableAsRegular says otherwise.)
type Options struct {
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
func (Format) Version() version.Version { return Version }

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

// readOnly is the Format of a read-only version of the family (ka, lb):
// Open reads it as la; NewWriter refuses.
type readOnly struct{ v version.Version }

// Version implements sstables.Format.
func (f readOnly) Version() version.Version { return f.v }

// NewWriter implements sstables.Format: castable does not write f's
// version; the error names what to write instead (its WriteAs).
func (f readOnly) NewWriter(*schema.Table, sstables.WriterOptions) (sstables.Writer, error) {
	return nil, fmt.Errorf("la: version %s (%s) is read only: write %s", f.v, f.v.Release(), f.v.WriteAs())
}

// Open implements sstables.Format: the file is read as la.
func (f readOnly) Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (sstables.Reader, error) {
	return Format{}.Open(desc, table, opts)
}
