package sstables

import (
	"bufio"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// PartitionSink takes what a format's serializer produces — Data.db bytes,
// and for every finished partition its key, Murmur3 halves, Index.db entry,
// size and cell count — and does everything else with them on a goroutine of
// its own: the chunked Data.db writer (checksums, compression, file writes),
// Index.db writes, Summary.db sampling, the bloom filter, the key
// cardinality and the partition size and cell count histograms. The
// serializing goroutine only appends bytes to a buffer and records.
//
// Work travels in batches: the caller appends Data.db bytes to the buffer
// Submit returns and calls EndPartition as partitions end; Submit hands the
// buffer and the partitions recorded since the last Submit over and returns
// an empty buffer. A fixed ring of batches is reused, so nothing is
// allocated per partition once the buffers have grown, and the caller blocks
// when the sink falls behind (back-pressure).
//
// The sink's goroutine is the only one to touch the DataWriter, the Index.db
// writer, the summary, filter, cardinality and histograms until Finish or
// Abort returns; the caller reads them afterwards. Errors are sticky: once
// the goroutine fails (a write error), it drops the batches it receives and
// Submit, EndPartition and Finish return the error. Finish or Abort must be
// called once.
//
// The fields each goroutine writes are kept on cache lines of their own:
// sharing one would make every partition pay for a line moving between the
// two cores.
type PartitionSink struct {
	opts PartitionSinkOptions
	full chan *sinkBatch
	free chan *sinkBatch
	done chan struct{}
	_    cacheLinePad

	// Owned by the caller's goroutine.
	cur     *sinkBatch
	pos     int64 // Data.db bytes submitted
	parts   int64
	stopped bool
	_       cacheLinePad

	// The sticky error: failed is checked on every hand-over, err read
	// only once it is set.
	failed atomic.Bool
	mu     sync.Mutex
	err    error
	_      cacheLinePad

	// Owned by the sink's goroutine until it is done.
	index       *bufio.Writer
	indexAt     int64
	hashes      []uint64
	batchHashes []uint64 // a batch's Murmur3 halves, for the filter
	entries     []byte   // a batch's Index.db entries, built or copied
}

// cacheLinePad separates fields written by different goroutines.
type cacheLinePad [64]byte

// PartitionSinkOptions configure a PartitionSink. Data, Index and Summary
// are required; the other fields may be nil (or false) to skip their work.
type PartitionSinkOptions struct {
	// Data receives the Data.db bytes.
	Data *DataWriter
	// Index receives the Index.db entries (buffered by the sink).
	Index io.Writer
	// Summary samples the keys with their Index.db positions.
	Summary *SummaryBuilder
	// Filter receives every key's Murmur3 halves.
	Filter *BloomFilter
	// KeepHashes keeps every key's Murmur3 halves (h1, h2 pairs in
	// SinkResult.Hashes) for a filter sized once the partition count is
	// known.
	KeepHashes bool
	// Cardinality is offered Hash2_64 of every key.
	Cardinality *HyperLogLog
	// PartitionSizes and CellCounts count every partition's serialized size
	// and cell count.
	PartitionSizes, CellCounts *EstimatedHistogram
	// DoubleCellCounts records each partition's cell count twice, as some
	// Cassandra releases did (version.Profile.DoubleCellCounts).
	DoubleCellCounts bool
	// SimpleEntry appends the Index.db entry of a partition without a
	// promoted index (its key and Data.db position only), for
	// EndSimplePartition; nil when the format does not use it.
	SimpleEntry func(dst, key []byte, position int64) []byte
}

// SinkResult is what a finished PartitionSink reports.
type SinkResult struct {
	// Partitions is the number of partitions recorded.
	Partitions int64
	// IndexLength is the length of Index.db.
	IndexLength int64
	// Hashes are the keys' Murmur3 halves (h1, h2 pairs) with KeepHashes.
	Hashes []uint64
}

// sinkBatch is one hand-over: Data.db bytes and the partitions that ended
// while they were appended.
type sinkBatch struct {
	data  []byte
	keys  []byte // the partitions' keys, back to back
	index []byte // their Index.db entries, back to back
	parts []sinkPartition
}

// sinkPartition locates one partition's key and entry in its batch.
type sinkPartition struct {
	h1, h2      uint64
	size, cells int64
	keyEnd      int // end of the key in keys (it starts where the previous ends)
	entryEnd    int // end of the entry in index
	// position is the Data.db position of a partition whose entry the sink
	// builds (SimpleEntry), or -1.
	position int64
}

const (
	// sinkBatches is the number of batches in the ring: enough for the
	// caller to keep serializing while the sink works through a few.
	sinkBatches = 16
	// sinkIndexBuffer is the Index.db write buffer.
	sinkIndexBuffer = 256 << 10
)

// errSinkStopped is returned by calls after Finish or Abort.
var errSinkStopped = errors.New("sstables: partition sink already finished or aborted")

// NewPartitionSink starts a sink and its goroutine.
func NewPartitionSink(opts PartitionSinkOptions) *PartitionSink {
	s := &PartitionSink{
		opts:  opts,
		full:  make(chan *sinkBatch, sinkBatches),
		free:  make(chan *sinkBatch, sinkBatches),
		done:  make(chan struct{}),
		index: bufio.NewWriterSize(opts.Index, sinkIndexBuffer),
	}
	s.cur = &sinkBatch{}
	for range sinkBatches - 1 {
		s.free <- &sinkBatch{}
	}
	go s.run()
	return s
}

// Position returns the number of Data.db bytes submitted so far; the
// position of the next byte is Position plus the length of the caller's
// current buffer.
func (s *PartitionSink) Position() int64 { return s.pos }

// Submit hands over buf, which holds the Data.db bytes that follow the ones
// submitted before, with the partitions ended since the last Submit, and
// returns an empty buffer (of reused memory) to continue in. The caller must
// not touch buf afterwards.
func (s *PartitionSink) Submit(buf []byte) ([]byte, error) {
	if s.stopped {
		return buf[:0], errSinkStopped
	}
	if err := s.Err(); err != nil {
		return buf[:0], err
	}
	b := s.cur
	b.data = buf
	s.pos += int64(len(buf))
	s.full <- b
	s.cur = <-s.free
	return s.cur.data[:0], s.Err()
}

// EndPartition records a finished partition: its key and Murmur3 halves,
// its Index.db entry, its serialized size and its cell count. Its last
// Data.db bytes must be in the caller's buffer or submitted already. key and
// entry are copied.
func (s *PartitionSink) EndPartition(key []byte, h1, h2 uint64, entry []byte, size, cells int64) error {
	if s.stopped {
		return errSinkStopped
	}
	b := s.cur
	b.keys = append(b.keys, key...)
	b.index = append(b.index, entry...)
	b.parts = append(b.parts, sinkPartition{
		h1: h1, h2: h2, size: size, cells: cells,
		keyEnd: len(b.keys), entryEnd: len(b.index), position: -1,
	})
	s.parts++
	return nil
}

// EndSimplePartition is EndPartition for a partition without a promoted
// index, whose Index.db entry the sink builds (SimpleEntry) from the key and
// the partition's Data.db position: the serializing goroutine does not.
func (s *PartitionSink) EndSimplePartition(key []byte, h1, h2 uint64, position, size, cells int64) error {
	if s.stopped {
		return errSinkStopped
	}
	b := s.cur
	b.keys = append(b.keys, key...)
	b.parts = append(b.parts, sinkPartition{
		h1: h1, h2: h2, size: size, cells: cells,
		keyEnd: len(b.keys), entryEnd: len(b.index), position: position,
	})
	s.parts++
	return nil
}

// Partitions returns the number of partitions recorded.
func (s *PartitionSink) Partitions() int64 { return s.parts }

// Err returns the sink's error, if it failed.
func (s *PartitionSink) Err() error {
	if !s.failed.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *PartitionSink) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
		s.failed.Store(true)
	}
	s.mu.Unlock()
}

// Finish hands over buf, the last Data.db bytes, waits until everything is
// done and flushes Index.db. It does not finish the DataWriter: the caller
// does, after Finish.
func (s *PartitionSink) Finish(buf []byte) (*SinkResult, error) {
	if s.stopped {
		return nil, errSinkStopped
	}
	b := s.cur
	b.data = buf
	s.pos += int64(len(buf))
	s.full <- b
	s.cur = nil
	s.stop()
	if err := s.Err(); err != nil {
		return nil, err
	}
	if err := s.index.Flush(); err != nil {
		s.fail(err)
		return nil, err
	}
	return &SinkResult{Partitions: s.parts, IndexLength: s.indexAt, Hashes: s.hashes}, nil
}

// Abort stops the goroutine, dropping the work not done yet. It is safe to
// call after Finish and more than once.
func (s *PartitionSink) Abort() {
	s.fail(errSinkStopped)
	s.stop()
}

func (s *PartitionSink) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	close(s.full)
	<-s.done
}

// run is the sink's goroutine.
func (s *PartitionSink) run() {
	defer close(s.done)
	for b := range s.full {
		if s.Err() == nil {
			s.process(b)
		}
		b.data = b.data[:0]
		b.keys = b.keys[:0]
		b.index = b.index[:0]
		b.parts = b.parts[:0]
		s.free <- b // never blocks: the channel holds every batch
	}
}

// process does a batch's work.
func (s *PartitionSink) process(b *sinkBatch) {
	o := &s.opts
	if len(b.data) > 0 {
		if _, err := o.Data.Write(b.data); err != nil {
			s.fail(err)
			return
		}
	}
	if len(b.parts) == 0 {
		return
	}
	// The batch's entries, in order: copied, or built here.
	entries := s.entries[:0]
	var keyStart, entryStart int
	for i := range b.parts {
		p := &b.parts[i]
		indexEnd := p.entryEnd
		if p.position >= 0 {
			entries = o.SimpleEntry(entries, b.keys[keyStart:p.keyEnd], p.position)
		} else {
			entries = append(entries, b.index[entryStart:indexEnd]...)
		}
		p.entryEnd = len(entries) // from now on, the end in entries
		keyStart, entryStart = p.keyEnd, indexEnd
	}
	s.entries = entries
	if _, err := s.index.Write(entries); err != nil {
		s.fail(err)
		return
	}
	// The filter first, in a loop of its own (see AddHashes).
	if o.Filter != nil || o.KeepHashes {
		hashes := s.batchHashes[:0]
		for i := range b.parts {
			hashes = append(hashes, b.parts[i].h1, b.parts[i].h2)
		}
		s.batchHashes = hashes
		if o.Filter != nil {
			o.Filter.AddHashes(hashes)
		}
		if o.KeepHashes {
			s.hashes = append(s.hashes, hashes...)
		}
	}
	keyStart, entryStart = 0, 0
	for i := range b.parts {
		p := &b.parts[i]
		key := b.keys[keyStart:p.keyEnd]
		o.Summary.Add(key, s.indexAt)
		s.indexAt += int64(p.entryEnd - entryStart)
		if o.Cardinality != nil {
			o.Cardinality.OfferKey(key)
		}
		if o.PartitionSizes != nil {
			o.PartitionSizes.Add(p.size)
		}
		if o.CellCounts != nil {
			o.CellCounts.Add(p.cells)
			if o.DoubleCellCounts {
				o.CellCounts.Add(p.cells)
			}
		}
		keyStart, entryStart = p.keyEnd, p.entryEnd
	}
}
