package bti

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
	"github.com/castable-db/castable/sstables/internal/sorted"
	"github.com/castable-db/castable/sstables/version"
)

// Writer writes one trie-indexed SSTable. It implements sstables.Writer.
//
// The writer state machine is the one every format shares
// (sstables/internal/sorted: the row serializer of Data.db — oa's for da,
// me's for ScyllaDB's ms and mt —, the partition sink's goroutine with the
// chunked Data.db, Filter.db, the histograms, then Statistics.db and
// TOC.txt); this package adds the BTI index layout. On the writer's
// goroutine a partition's row-index blocks (cut by rows.BlockCutter, as
// Cassandra 5.0's SortedTablePartitionWriter cuts them for both formats)
// are packed into a record; on the sink's goroutine each record becomes the
// partition's Rows.db trie and entry, and every partition a key of the
// Partitions.db trie, so that the tries cost the serializing goroutine
// nothing. Nothing is allocated per row or per partition once the buffers
// have grown.
type Writer struct {
	*sorted.Writer
}

// NewWriter starts a version v SSTable of table (see
// sstables.Format.NewWriter). opts.ColumnIndexSize is the row index
// granularity: Cassandra's column_index_size, whose BTI default is 16 KiB
// (64 KiB for ScyllaDB's ms and mt).
func NewWriter(v version.Version, table *schema.Table, opts sstables.WriterOptions) (*Writer, error) {
	if table == nil {
		return nil, errors.New("sstables: NewWriter needs a table")
	}
	if _, err := opts.Descriptor(v); err != nil {
		return nil, err
	}
	if err := checkVersion(v, "write"); err != nil {
		return nil, err
	}
	part, err := sstables.WriterPartitioner(table)
	if err != nil {
		return nil, fmt.Errorf("sstables: %w", err)
	}
	types := make([]*schema.Type, len(table.Clustering))
	for i, c := range table.Clustering {
		types[i] = c.Type
	}
	idx := &indexWriter{v: v, part: part, types: types, fixed: rows.ClusteringFixed(types)}
	w, err := sorted.NewWriter(v, table, opts, idx)
	if err != nil {
		return nil, err
	}
	return &Writer{w}, nil
}

// indexWriter is the BTI index layout of a Writer. EndPartition runs on the
// writer's goroutine, AddPartition on the sink's, Finish after the sink.
//
// The record EndPartition hands over for a partition with row-index blocks
// (in-memory only, never on disk):
//
//	uvarint partition start, uvarint end-of-partition offset,
//	deletion (i64 markedForDeleteAt, i64 localDeletionTime),
//	uvarint block count, per block: uvarint offset, open deletion (as
//	above), uvarint length + first prefix, uvarint length + last prefix
//
// the prefixes in rows.Block's (Index.db IndexInfo) form.
type indexWriter struct {
	v     version.Version
	part  dht.Partitioner
	types []*schema.Type
	fixed []int

	partitionsFile, rowsFile sstables.File
	partitions               *PartitionIndexWriter
	rowsIndex                *RowIndexWriter

	record []byte // writer's goroutine

	// The sink's goroutine.
	comparable  []byte
	first, last []byte
	vals        mutation.Clustering
}

// Start implements sorted.IndexWriter: Partitions.db and Rows.db, built on
// the sink's goroutine.
func (x *indexWriter) Start(files *sstables.FileSet, sink *sstables.PartitionSinkOptions) error {
	var err error
	if x.partitionsFile, err = files.Create(sstables.ComponentPartitions); err != nil {
		return err
	}
	if x.rowsFile, err = files.Create(sstables.ComponentRows); err != nil {
		return err
	}
	x.partitions = NewPartitionIndexWriter(x.partitionsFile, PartitionIndexOptions{Scylla: x.v.Scylla()})
	x.rowsIndex = NewRowIndexWriter(x.rowsFile, RowIndexOptions{Scylla: x.v.Scylla()})
	sink.Indexer = x
	return nil
}

func appendRawDeletion(dst []byte, d mutation.DeletionTime) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(d.MarkedForDeleteAt))
	return binary.BigEndian.AppendUint64(dst, uint64(d.LocalDeletionTime))
}

func readRawDeletion(r *rows.SliceReader) mutation.DeletionTime {
	return mutation.DeletionTime{MarkedForDeleteAt: int64(r.U64()), LocalDeletionTime: int64(r.U64())}
}

// EndPartition implements sorted.IndexWriter.
func (x *indexWriter) EndPartition(sink *sstables.PartitionSink, p *sorted.Partition) error {
	if len(p.Blocks) == 0 {
		return sink.EndSimplePartition(p.Key, p.H1, p.H2, p.Start, p.Size, p.Cells)
	}
	e := binary.AppendUvarint(x.record[:0], uint64(p.Start))
	e = binary.AppendUvarint(e, uint64(p.Size-1))
	e = appendRawDeletion(e, p.Deletion)
	e = binary.AppendUvarint(e, uint64(len(p.Blocks)))
	open := mutation.Live // the deletion open at a block's start is the one open at the previous one's end
	for i := range p.Blocks {
		b := &p.Blocks[i]
		e = binary.AppendUvarint(e, uint64(b.Start))
		e = appendRawDeletion(e, open)
		e = binary.AppendUvarint(e, uint64(len(b.First)))
		e = append(e, b.First...)
		e = binary.AppendUvarint(e, uint64(len(b.Last)))
		e = append(e, b.Last...)
		open = b.Open
	}
	x.record = e
	return sink.EndPartition(p.Key, p.H1, p.H2, e, p.Size, p.Cells)
}

// AddPartition implements sstables.PartitionIndexer (the sink's
// goroutine).
func (x *indexWriter) AddPartition(key []byte, h1, h2 uint64, position int64, record []byte) error {
	x.comparable = appendDecorated(x.comparable[:0], x.part, x.part.TokenFromHash(key, h1), key)
	hash := byte(h2) // HashByte
	if position >= 0 {
		return x.partitions.Add(x.comparable, key, hash, ^position)
	}
	r := rows.SliceReader{B: record}
	uv := func() int64 {
		v, n := binary.Uvarint(r.B[r.Off:])
		if n <= 0 {
			r.Fail(errors.New("bad record"))
			return 0
		}
		r.Off += n
		return int64(v)
	}
	start, end := uv(), uv()
	deletion := readRawDeletion(&r)
	n := int(uv())
	for i := 0; i < n && r.Err == nil; i++ {
		b := RowIndexBlock{Offset: uv(), Open: readRawDeletion(&r)}
		var err error
		if x.first, err = x.appendComparable(x.first[:0], r.Bytes(int(uv()))); err != nil {
			return err
		}
		if x.last, err = x.appendComparable(x.last[:0], r.Bytes(int(uv()))); err != nil {
			return err
		}
		b.First, b.Last = x.first, x.last
		if err := x.rowsIndex.Add(b); err != nil {
			return err
		}
	}
	if r.Err != nil {
		return fmt.Errorf("bti: partition %s: %w", sstables.ShortHex(key), r.Err)
	}
	pos, err := x.rowsIndex.FinishPartition(key, start, end, deletion)
	if err != nil {
		return err
	}
	if pos < 0 {
		pos = ^start // fewer than two blocks: no row index
	}
	return x.partitions.Add(x.comparable, key, hash, pos)
}

// appendComparable turns a clustering prefix of rows.Block's form (kind
// byte, u16 size for a bound, block-encoded values) into its
// byte-comparable form.
func (x *indexWriter) appendComparable(dst, prefix []byte) ([]byte, error) {
	if len(prefix) == 0 {
		return dst, errors.New("bti: empty clustering prefix in a row-index block")
	}
	kind := mutation.BoundKind(prefix[0])
	r := rows.SliceReader{B: prefix, Off: 1}
	n := len(x.types)
	if kind != mutation.ClusteringKind {
		n = int(r.U16())
	}
	x.vals = rows.ReadClusteringValues(&r, x.vals[:0], n, x.fixed)
	if r.Err != nil {
		return dst, fmt.Errorf("bti: row-index block prefix: %w", r.Err)
	}
	return AppendClustering(dst, x.types, x.vals, kind), nil
}

// Finish implements sorted.IndexWriter: the rest of the Partitions.db
// trie and its footer, and Rows.db's end.
func (x *indexWriter) Finish(*sstables.SinkResult) ([]sorted.Component, int64, error) {
	if err := x.rowsIndex.Close(); err != nil {
		return nil, 0, err
	}
	if _, err := x.partitions.Finish(); err != nil {
		return nil, 0, err
	}
	return nil, x.rowsIndex.Position() + x.partitions.Position(), nil
}

// Abort implements sorted.IndexWriter; the FileSet removes the files.
func (x *indexWriter) Abort() {}

var _ sstables.Writer = (*Writer)(nil)
