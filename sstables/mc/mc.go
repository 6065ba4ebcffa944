// Package mc is the SSTable format version mc of Cassandra 3.0.8–3.11.3,
// the name this project's first users import: a thin face over
// sstables/big, which holds the BIG format of every version from ma to oa.
// Importing mc registers all of them with sstables.Lookup.
package mc

import (
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/big"
	"github.com/castable-db/castable/sstables/version"
)

// Version is mc.
var Version = version.MustParse("mc")

// Format is the mc format: NewWriter writes mc SSTables; Open reads every
// version of the BIG format.
var Format = big.Format(Version)

// Reader reads a BIG SSTable (see big.Reader).
type Reader = big.Reader

// Writer writes a BIG SSTable (see big.Writer).
type Writer = big.Writer

// Open opens a BIG SSTable of any version.
func Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions) (*Reader, error) {
	return big.Open(desc, table, opts)
}

// NewWriter starts an mc SSTable.
func NewWriter(table *schema.Table, opts sstables.WriterOptions) (*Writer, error) {
	return big.NewWriter(Version, table, opts)
}
