package mc

import (
	"fmt"

	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// version is an SSTable format version of the 3.x BIG format.
type version string

// Format is the mc format of Cassandra 3.0/3.11: NewWriter writes mc
// SSTables; Open reads mc, md and me ones.
var Format sstables.Format = version("mc")

// Formats are the versions this package reads (md and me share mc's
// layout; me adds the originating host id to Statistics.db). Only mc is
// written.
var Formats = []sstables.Format{Format, version("md"), version("me")}

// Version implements sstables.Format.
func (v version) Version() string { return string(v) }

// Open implements sstables.Format. desc may name any readable version (mc,
// md, me), whichever version v is.
func (v version) Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (sstables.Reader, error) {
	r, err := open(desc, table, opts)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Open opens an mc, md or me SSTable; see Format.
func Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (*Reader, error) {
	return open(desc, table, opts)
}

// NewWriter implements sstables.Format.
func (v version) NewWriter(table *schema.Table, opts sstables.WriterOptions) (sstables.Writer, error) {
	if v != "mc" {
		return nil, fmt.Errorf("mc: writing version %q is not supported (only mc)", string(v))
	}
	return NewWriter(table, opts)
}
