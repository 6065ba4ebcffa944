package big

import (
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// format is one version of the BIG format of the 3.0 storage engine.
type format struct{ v version.Version }

// Format returns the BIG format of version v (one of
// version.OfFamily(version.Big)).
func Format(v version.Version) sstables.Format { return format{v} }

// init registers every version the table gives to the BIG family.
func init() {
	for _, v := range version.OfFamily(version.Big) {
		sstables.Register(format{v})
	}
}

// Version implements sstables.Format.
func (f format) Version() version.Version { return f.v }

// Open implements sstables.Format. desc may name any version of this
// package, whichever version f is.
func (f format) Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (sstables.Reader, error) {
	r, err := open(desc, table, opts)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Open opens a BIG SSTable; see Format.
func Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (*Reader, error) {
	return open(desc, table, opts)
}

// NewWriter implements sstables.Format.
func (f format) NewWriter(table *schema.Table, opts sstables.WriterOptions) (sstables.Writer, error) {
	return NewWriter(f.v, table, opts)
}
