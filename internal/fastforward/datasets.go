// Package fastforward is the engine of perf_fast_forward, modelled on
// ScyllaDB's tool of the same name: it populates tables of a few fixed
// datasets through castable's memtable and flush path, measuring every flush
// in fragments (rows) per second, and runs read test groups on the
// populated SSTables.
//
// Datasets, the flush metric and the statistics follow
// checksums-and-perf.md §4: a fragment is one generated row; a flush's rate
// is the rows applied to its memtable divided by the wall time of the flush;
// a configuration reports the median flush with the MAD, maximum and minimum
// over all its flushes.
package fastforward

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// Dataset is one of ScyllaDB's perf_fast_forward datasets.
type Dataset struct {
	// Name is the dataset's name ("small-part"); the table is named after
	// it with '-' replaced by '_'.
	Name string
	// Description is what ScyllaDB prints for it.
	Description string
	// Large marks the one-large-partition datasets (clustered_ds in
	// ScyllaDB); the others have one row per partition (multipart_ds).
	Large bool
	// Default marks the datasets run when --datasets is not given.
	Default bool
	ddl     string
	fill    func(g *generator, i int64)
}

// Datasets are the datasets the tool knows, in ScyllaDB's order.
var Datasets = []*Dataset{
	{
		Name: "large-part-ds1", Description: "One large partition with many small rows",
		Large: true, Default: true,
		ddl: "CREATE TABLE ks.large_part_ds1 (pk int, ck int, value blob, PRIMARY KEY (pk, ck))",
		// ck = 2i+1: odd keys present, even keys missing (ScyllaDB since 2024-09).
		fill: func(g *generator, i int64) { g.intRow(0, int32(2*i+1)) },
	},
	{
		Name: "small-part", Description: "Many small partitions with no clustering key",
		Default: true,
		ddl:     "CREATE TABLE ks.small_part (pk int PRIMARY KEY, value blob)",
		fill:    func(g *generator, i int64) { g.intPartition(int32(i)) },
	},
	{
		Name: "sb-large-part-ds1", Description: "One large partition with many small rows, scylla-bench schema",
		Large: true,
		ddl:   "CREATE TABLE ks.sb_large_part_ds1 (pk bigint, ck bigint, v blob, PRIMARY KEY (pk, ck))",
		fill:  func(g *generator, i int64) { g.bigintRow(0, i) },
	},
	{
		Name: "sb-small-part", Description: "Many small partitions, scylla-bench schema",
		ddl:  "CREATE TABLE ks.sb_small_part (pk bigint, ck bigint, v blob, PRIMARY KEY (pk, ck))",
		fill: func(g *generator, i int64) { g.bigintRow(i, 0) },
	},
}

// FindDataset returns the dataset with the given name.
func FindDataset(name string) (*Dataset, error) {
	for _, d := range Datasets {
		if d.Name == name {
			return d, nil
		}
	}
	var names []string
	for _, d := range Datasets {
		names = append(names, d.Name)
	}
	return nil, fmt.Errorf("unknown dataset %q (known: %s)", name, strings.Join(names, ", "))
}

// Table parses the dataset's schema. options are appended as a CQL WITH
// clause when not empty.
func (d *Dataset) Table() (*schema.Table, error) {
	s, err := cql.ParseSchema(d.ddl)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", d.Name, err)
	}
	return s.Tables[0], nil
}

// TableName is the dataset's table name.
func (d *Dataset) TableName() string { return strings.ReplaceAll(d.Name, "-", "_") }

// generator fills one reusable partition update per row: every update holds
// exactly one row with one live cell (no row marker, no TTL), the same value
// blob, and a fresh microsecond timestamp, as ScyllaDB's generator does.
type generator struct {
	table   *schema.Table
	value   []byte
	ts      int64
	key     []byte
	ck      []byte
	clust   mutation.Clustering
	cells   []mutation.Cell
	rows    []mutation.Row
	p       mutation.Partition
	valueOf *schema.Column
}

func newGenerator(t *schema.Table, value []byte, firstTimestamp int64) *generator {
	g := &generator{
		table: t, value: value, ts: firstTimestamp,
		key: make([]byte, 8), ck: make([]byte, 8),
		cells: make([]mutation.Cell, 1), rows: make([]mutation.Row, 1),
		valueOf: t.Regular[0],
	}
	g.clust = mutation.Clustering{nil}
	return g
}

// next returns the update for row i of dataset d; it is valid until the
// next call.
func (g *generator) next(d *Dataset, i int64) *mutation.Partition {
	d.fill(g, i)
	return &g.p
}

func (g *generator) row(key []byte, clustering mutation.Clustering) {
	g.ts++
	g.cells[0] = mutation.Cell{Column: g.valueOf, Value: g.value, Timestamp: g.ts, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}
	g.rows[0] = mutation.NewRow(clustering)
	g.rows[0].Cells = g.cells
	g.p = mutation.Partition{Key: key, Deletion: mutation.Live, Static: mutation.NewRow(nil), Rows: g.rows}
}

func (g *generator) intPartition(pk int32) {
	binary.BigEndian.PutUint32(g.key, uint32(pk))
	g.row(g.key[:4], nil)
}

func (g *generator) intRow(pk, ck int32) {
	binary.BigEndian.PutUint32(g.key, uint32(pk))
	binary.BigEndian.PutUint32(g.ck, uint32(ck))
	g.clust[0] = g.ck[:4]
	g.row(g.key[:4], g.clust)
}

func (g *generator) bigintRow(pk, ck int64) {
	binary.BigEndian.PutUint64(g.key, uint64(pk))
	binary.BigEndian.PutUint64(g.ck, uint64(ck))
	g.clust[0] = g.ck[:8]
	g.row(g.key[:8], g.clust)
}
