package bti

import (
	"fmt"

	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// format is one trie-indexed version: Cassandra 5.0's da, or ScyllaDB's
// ms and mt.
type format struct{ v version.Version }

// Format returns the BTI format of version v (one of
// version.OfFamily(version.BTI)).
func Format(v version.Version) sstables.Format { return format{v} }

// init registers every version the table gives to the BTI family.
func init() {
	for _, v := range version.OfFamily(version.BTI) {
		sstables.Register(format{v})
	}
}

// isBTIVersion reports whether v is one of this package's versions.
func isBTIVersion(v version.Version) bool { return v.Family() == version.BTI }

// Version implements sstables.Format.
func (f format) Version() version.Version { return f.v }

// Open implements sstables.Format. desc may name any version of this
// package, whichever version f is.
func (f format) Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (sstables.Reader, error) {
	r, err := Open(desc, table, opts)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// NewWriter implements sstables.Format.
func (f format) NewWriter(table *schema.Table, opts sstables.WriterOptions) (sstables.Writer, error) {
	return NewWriter(f.v, table, opts)
}

func checkVersion(v version.Version, what string) error {
	if !isBTIVersion(v) {
		return fmt.Errorf("sstables: the BTI format does not %s version %s", what, v)
	}
	return nil
}
