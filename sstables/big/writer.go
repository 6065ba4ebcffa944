package big

import (
	"errors"
	"fmt"

	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/sorted"
	"github.com/castable-db/castable/sstables/version"
)

// Writer writes one BIG SSTable. It implements sstables.Writer.
//
// The writer state machine is the one every format shares
// (sstables/internal/sorted: the row serializer, the partition sink's
// goroutine with the chunked Data.db, Filter.db, the histograms, then
// Statistics.db and TOC.txt); this package adds the BIG index layout: each
// partition's Index.db entry with its promoted index, built on the
// writer's goroutine and written by the sink's, which also samples
// Summary.db.
//
// The writer writes what it is given: it does not purge data shadowed by
// deletions of the same partition (Cassandra's memtable flush does; that is
// the flush/memtable step, mutation's purge helper). Partitions must come in
// token order and rows and markers in clustering order; a partition out of
// order is an error.
type Writer struct {
	*sorted.Writer
}

// errWriterState reports an API misuse.
var errWriterState = sorted.ErrWriterState

// NewWriter starts a version v SSTable of table (see
// sstables.Format.NewWriter).
func NewWriter(v version.Version, table *schema.Table, opts sstables.WriterOptions) (*Writer, error) {
	if table == nil {
		return nil, errors.New("sstables: NewWriter needs a table")
	}
	if _, err := opts.Descriptor(v); err != nil {
		return nil, err
	}
	if !isBigVersion(v) {
		return nil, fmt.Errorf("sstables: the BIG format does not write version %s", v)
	}
	idx := &indexWriter{
		v: v,
		summary: sstables.NewSummaryBuilder(sstables.SummaryOptions{
			MinIndexInterval: table.Options.MinIndexInterval,
			ExpectedKeys:     opts.ExpectedPartitions,
		}),
	}
	w, err := sorted.NewWriter(v, table, opts, idx)
	if err != nil {
		return nil, err
	}
	return &Writer{w}, nil
}

// indexWriter is the BIG index layout of a Writer: Index.db, written by
// the partition sink as entries come, and Summary.db, sampled by it.
type indexWriter struct {
	v       version.Version
	summary *sstables.SummaryBuilder
	entry   []byte
}

// Start implements sorted.IndexWriter.
func (x *indexWriter) Start(files *sstables.FileSet, sink *sstables.PartitionSinkOptions) error {
	f, err := files.Create(sstables.ComponentIndex)
	if err != nil {
		return err
	}
	sink.Index, sink.Summary, sink.SimpleEntry = f, x.summary, appendSimpleIndexEntry
	return nil
}

// EndPartition implements sorted.IndexWriter: a partition with row-index
// blocks gets its promoted index here; the sink builds the others'
// entries (appendSimpleIndexEntry).
func (x *indexWriter) EndPartition(sink *sstables.PartitionSink, p *sorted.Partition) error {
	if len(p.Blocks) > 0 {
		x.entry = appendIndexEntry(x.entry[:0], p.Key, p.Start, p.HeaderLength, p.Deletion, p.Blocks, x.v)
		return sink.EndPartition(p.Key, p.H1, p.H2, x.entry, p.Size, p.Cells)
	}
	return sink.EndSimplePartition(p.Key, p.H1, p.H2, p.Start, p.Size, p.Cells)
}

// Finish implements sorted.IndexWriter: Summary.db; Index.db is written.
func (x *indexWriter) Finish(res *sstables.SinkResult) ([]sorted.Component, int64, error) {
	b, err := x.summary.AppendTo(nil)
	if err != nil {
		return nil, 0, err
	}
	return []sorted.Component{{Component: sstables.ComponentSummary, Bytes: b}}, res.IndexLength, nil
}

// Abort implements sorted.IndexWriter.
func (x *indexWriter) Abort() {}

var _ sstables.Writer = (*Writer)(nil)
