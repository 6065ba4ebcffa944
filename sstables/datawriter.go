package sstables

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/castable-db/castable/checksummer"
	"github.com/castable-db/castable/compress"
)

// Data.db as the DataWriter lays it out.
//
// Compressed (CompressionInfo.db describes it):
//
//	Data.db  = chunk_0 ‖ chunk_1 ‖ … ‖ chunk_{C-1}        C = ceil(dataLength / chunkLength)
//	chunk_i  = payload_i ‖ checksum(payload_i) as u32 BIG-ENDIAN
//	payload_i = the codec's framed compression of uncompressed bytes
//	            [i·chunkLength, min((i+1)·chunkLength, dataLength))
//
// Uncompressed: the bytes as written; CRC.db holds the checksum of every
// CRCChunkSize (64 KiB) piece.
//
// The digest is the checksum of the whole file as stored. It is never
// computed by a second pass: for each compressed chunk the running value is
// Combine(digest, checksum(payload), len(payload)) followed by Update over
// the 4 trailer bytes; for uncompressed data it is the Combine of the 64 KiB
// piece checksums. A checksummer whose PreferCombine is false is fed the
// bytes instead.
const (
	// defaultWriteBufferSize is the buffered writer size in front of the
	// file.
	defaultWriteBufferSize = 1 << 20
	// slotsPerJob is the number of chunk buffers in flight per worker:
	// enough to keep every worker busy while the writer drains results.
	slotsPerJob = 2
)

// errAborted is the sticky error of an aborted DataWriter.
var errAborted = errors.New("sstables: data writer aborted")

// errFinished is returned by writes after Finish.
var errFinished = errors.New("sstables: data writer already finished")

// DataWriterOptions configure a DataWriter. The zero value of every field
// means the default given in its comment.
type DataWriterOptions struct {
	// Compression selects the codec and chunk length; Codec None (the zero
	// value) writes Data.db uncompressed, described by CRC.db.
	Compression compress.Params
	// Algorithm is the checksum of chunks, CRC.db and the digest: CRC-32
	// (the zero value, mc) or Adler-32 (la).
	Algorithm checksummer.Algorithm
	// Checksummer implements Algorithm; nil means the default
	// implementation of Algorithm.
	Checksummer checksummer.Checksummer
	// Jobs is the number of goroutines compressing chunks; 0 means
	// runtime.GOMAXPROCS(0), 1 compresses inline. Uncompressed data is
	// always checksummed inline.
	Jobs int
	// BufferSize is the size of the buffered writer in front of the file;
	// 0 means 1 MiB. It does not apply to OS files, which are written in
	// 1 MiB pieces from a goroutine of the writer.
	BufferSize int
	// BufferedIO writes an OS file through the page cache. By default its
	// full 1 MiB pieces are written with direct I/O where the filesystem
	// allows it (Linux O_DIRECT): no copy into the page cache, no kernel
	// writeback competing for the CPU, and little left for the final fsync.
	BufferedIO bool
	// NewCompressor creates one compressor per worker; nil means
	// compress.NewCompressor(Compression).
	NewCompressor func() (compress.Compressor, error)
	// WithMaxCompressedLength is set for the versions whose
	// CompressionInfo.db has maxCompressedLength (na and later): a chunk
	// that does not compress below Compression.MaxCompressedLength() is
	// stored raw, padded with zeros to that length when shorter.
	WithMaxCompressedLength bool
	// ScyllaOptions lists crc_check_chance among CompressionInfo.db's
	// options, as ScyllaDB writes it (its options map, in key order);
	// Cassandra never lists it.
	ScyllaOptions bool
	// TrailingEmptyChunk ends Data.db with an empty chunk after the last
	// one (compressed: an empty compressed chunk and its checksum;
	// uncompressed: an empty-input checksum in CRC.db), as Cassandra's
	// compaction writer leaves: SSTableRewriter opens its output early
	// before finishing it (openFinalEarly syncs, flushing the last chunk),
	// and finishing flushes the then empty buffer once more.
	TrailingEmptyChunk bool
	// Path names the file in errors.
	Path string
}

// DataResult describes a finished Data.db.
type DataResult struct {
	// Digest is the whole-file checksum, the content of the Digest file.
	Digest uint32
	// DataLength is the uncompressed length (the last Position).
	DataLength int64
	// FileSize is the size of Data.db on disk.
	FileSize int64
	// CompressedLength is the sum of the compressed payloads without their
	// checksums (0 when uncompressed); Statistics.db's compression ratio is
	// CompressedLength / DataLength.
	CompressedLength int64
	// Chunks is the number of compressed chunks, or of CRC.db checksums.
	Chunks int
	// CompressionInfo describes a compressed Data.db (nil otherwise).
	CompressionInfo *CompressionInfo
	// CRC describes an uncompressed Data.db (nil otherwise).
	CRC *CRCInfo
}

// CompressionRatio returns CompressedLength / DataLength as Statistics.db
// stores it, or -1 (Cassandra's NO_COMPRESSION_RATIO) when uncompressed.
func (r *DataResult) CompressionRatio() float64 {
	if r.CompressionInfo == nil {
		return -1
	}
	if r.DataLength == 0 {
		return 0
	}
	return float64(r.CompressedLength) / float64(r.DataLength)
}

// ComponentBytes is a small component written whole when a writer finishes.
type ComponentBytes struct {
	Component Component
	Bytes     []byte
}

// Components returns the components a finished Data.db implies, in the order
// the writers write them: the whole-file digest under the name digest (the
// version's), then CompressionInfo.db for a compressed Data.db or CRC.db for
// an uncompressed one.
func (r *DataResult) Components(digest Component) ([]ComponentBytes, error) {
	comps := []ComponentBytes{{digest, AppendDigest(nil, r.Digest)}}
	switch {
	case r.CompressionInfo != nil:
		b, err := r.CompressionInfo.AppendTo(nil)
		if err != nil {
			return nil, err
		}
		comps = append(comps, ComponentBytes{ComponentCompressionInfo, b})
	case r.CRC != nil:
		comps = append(comps, ComponentBytes{ComponentCRC, r.CRC.AppendTo(nil)})
	}
	return comps, nil
}

// DataWriter writes the uncompressed Data.db stream through chunked
// compression (or CRC.db checksumming) to a file.
//
// Errors are sticky: after a failed call every later call returns the same
// error. Finish or Abort must be called once; neither closes the file,
// which belongs to the caller (usually a FileSet).
type DataWriter struct {
	// trailingEmpty is DataWriterOptions.TrailingEmptyChunk.
	trailingEmpty bool
	out           dataOut
	path          string
	cs            checksummer.Checksummer
	err           error
	done          bool

	pos     int64 // uncompressed bytes accepted
	fileOff int64 // bytes handed to the file
	digest  uint32
	trailer [4]byte
	one     [1]byte

	// uncompressed: the running checksum of the current CRC.db piece.
	crcs     []uint32
	piece    uint32
	pieceLen int
	combine  func(a, b uint32) uint32 // fixed-length Combine for full pieces, if offered

	// compressed
	compressed bool
	chunkLen   int
	maxStored  int // a chunk compressing to this length or more is stored raw
	info       *CompressionInfo
	payloadLen int64
	inline     *chunkSlot          // Jobs == 1: the single slot, compressed in place
	fillComp   compress.Compressor // Jobs == 1: the compressor
	pool       *chunkPool          // Jobs > 1
	fill       *chunkSlot          // slot being filled
}

// chunkSlot is one chunk's buffers; slots are reused for the life of the
// writer, so steady-state writing allocates nothing.
type chunkSlot struct {
	src  []byte // uncompressed bytes (cap chunkLength)
	dst  []byte // compressed payload
	out  []byte // what is stored: dst, or src when the chunk is raw
	sum  uint32 // checksum of out
	err  error
	done chan struct{} // signalled by the worker (buffered, 1)
}

// NewDataWriter starts a Data.db written to w.
func NewDataWriter(w io.Writer, opts DataWriterOptions) (*DataWriter, error) {
	cs := opts.Checksummer
	if cs == nil {
		var err error
		if cs, err = defaultChecksummer(opts.Algorithm); err != nil {
			return nil, err
		}
	} else if opts.Algorithm != 0 && cs.Algorithm() != opts.Algorithm {
		return nil, fmt.Errorf("sstables: checksummer %s computes %v, options ask for %v", cs.Name(), cs.Algorithm(), opts.Algorithm)
	}
	bufSize := opts.BufferSize
	if bufSize <= 0 {
		bufSize = defaultWriteBufferSize
	}
	dw := &DataWriter{
		path:   opts.Path,
		cs:     cs,
		digest: cs.Init(),
		piece:  cs.Init(),

		trailingEmpty: opts.TrailingEmptyChunk,
	}
	// The output is set up last: nothing to stop on the error returns.
	newOut := func() dataOut {
		if f := osFileOf(w); f != nil {
			return newBackgroundWriter(w, f, !opts.BufferedIO)
		}
		return bufferedOut{bufio.NewWriterSize(w, bufSize)}
	}
	if opts.Compression.Codec == compress.None {
		dw.combine = fixedCombiner(cs, CRCChunkSize)
		dw.out = newOut()
		return dw, nil
	}
	info, err := compressionInfoFor(opts.Compression, opts.WithMaxCompressedLength)
	if err == nil && opts.ScyllaOptions {
		info.Options = scyllaCompressionOptions(opts.Compression, info.Options)
	}
	if err != nil {
		return nil, err
	}
	dw.compressed = true
	dw.info = info
	dw.chunkLen = info.ChunkLength
	dw.maxStored = math.MaxInt
	if info.MaxCompressedLength > 0 {
		dw.maxStored = info.MaxCompressedLength
		if dw.maxStored > dw.chunkLen && dw.maxStored < math.MaxInt32 {
			return nil, fmt.Errorf("sstables: max compressed length %d exceeds the chunk length %d (min_compress_ratio below 1)", dw.maxStored, dw.chunkLen)
		}
	}
	if dw.chunkLen <= 0 || dw.chunkLen > maxChunkLength || dw.chunkLen&(dw.chunkLen-1) != 0 {
		return nil, fmt.Errorf("sstables: chunk length %d is not a power of two in 1 … %d", dw.chunkLen, maxChunkLength)
	}
	newComp := opts.NewCompressor
	if newComp == nil {
		params := opts.Compression
		newComp = func() (compress.Compressor, error) { return compress.NewCompressor(params) }
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	if jobs == 1 {
		comp, err := newComp()
		if err != nil {
			return nil, err
		}
		dw.inline = &chunkSlot{src: make([]byte, 0, dw.chunkLen), dst: make([]byte, 0, comp.MaxCompressedLen(dw.chunkLen))}
		dw.pool = nil
		dw.fillComp = comp
		dw.out = newOut()
		return dw, nil
	}
	dw.pool, err = newChunkPool(jobs, dw.chunkLen, dw.maxStored, cs, newComp)
	if err != nil {
		return nil, err
	}
	dw.out = newOut()
	return dw, nil
}

// FileOffset returns the bytes handed to the file so far (the chunks
// still being compressed not counted).
func (w *DataWriter) FileOffset() int64 { return w.fileOff }

// Position returns the number of uncompressed bytes written so far: the
// Data.db position Index.db records for the next partition.
func (w *DataWriter) Position() int64 { return w.pos }

// Write appends p to the uncompressed stream.
func (w *DataWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.done {
		return 0, errFinished
	}
	w.pos += int64(len(p))
	if !w.compressed {
		w.writeUncompressed(p)
		if w.err != nil {
			return 0, w.err
		}
		return len(p), nil
	}
	n := len(p)
	for len(p) > 0 && w.err == nil {
		if w.pool == nil && len(w.inline.src) == 0 && len(p) >= w.chunkLen {
			// A whole chunk in the caller's buffer: compress it in place.
			w.compressInline(p[:w.chunkLen])
			p = p[w.chunkLen:]
			continue
		}
		s := w.fillSlot()
		if s == nil {
			break
		}
		k := min(len(p), w.chunkLen-len(s.src))
		s.src = append(s.src, p[:k]...)
		p = p[k:]
		if len(s.src) == w.chunkLen {
			w.submit()
		}
	}
	if w.err != nil {
		return 0, w.err
	}
	return n, nil
}

// WriteByte appends one byte (io.ByteWriter).
func (w *DataWriter) WriteByte(c byte) error {
	if w.err == nil && !w.done && w.compressed {
		if s := w.fillSlot(); s != nil && len(s.src) < w.chunkLen-1 {
			s.src = append(s.src, c)
			w.pos++
			return nil
		}
	}
	w.one[0] = c
	_, err := w.Write(w.one[:])
	return err
}

// writeUncompressed checksums p into CRC.db pieces and buffers it.
func (w *DataWriter) writeUncompressed(p []byte) {
	feed := !w.cs.PreferCombine()
	for q := p; len(q) > 0; {
		k := min(len(q), CRCChunkSize-w.pieceLen)
		w.piece = w.cs.Update(w.piece, q[:k])
		if feed {
			w.digest = w.cs.Update(w.digest, q[:k])
		}
		w.pieceLen += k
		q = q[k:]
		if w.pieceLen == CRCChunkSize {
			w.endPiece()
		}
	}
	if _, err := w.out.Write(p); err != nil {
		w.fail(err)
	}
	w.fileOff += int64(len(p))
}

// endPiece records the checksum of a finished CRC.db piece.
func (w *DataWriter) endPiece() {
	w.crcs = append(w.crcs, w.piece)
	if w.cs.PreferCombine() {
		if w.combine != nil && w.pieceLen == CRCChunkSize {
			w.digest = w.combine(w.digest, w.piece)
		} else {
			w.digest = w.cs.Combine(w.digest, w.piece, int64(w.pieceLen))
		}
	}
	w.piece = w.cs.Init()
	w.pieceLen = 0
}

// fillSlot returns the slot being filled, taking a free one (and writing
// out the oldest finished chunk when all are in flight).
func (w *DataWriter) fillSlot() *chunkSlot {
	if w.pool == nil {
		return w.inline
	}
	if w.fill == nil {
		s, err := w.pool.acquire(w.writeChunk)
		if err != nil {
			w.fail(err)
			return nil
		}
		w.fill = s
	}
	return w.fill
}

// submit hands the full (or final) slot to compression.
func (w *DataWriter) submit() {
	if w.pool == nil {
		src := w.inline.src
		w.compressInline(src)
		w.inline.src = w.inline.src[:0]
		return
	}
	w.pool.submit(w.fill)
	w.fill = nil
}

// compressInline compresses one chunk on the calling goroutine.
func (w *DataWriter) compressInline(src []byte) {
	s := w.inline
	dst, err := w.fillComp.Compress(s.dst[:0], src)
	if err != nil {
		w.fail(fmt.Errorf("sstables: compressing chunk %d of %s: %w", len(w.info.ChunkOffsets), w.path, err))
		return
	}
	s.dst = dst
	stored := storedChunk(dst, src, w.maxStored)
	w.writeChunk(stored, w.cs.Update(w.cs.Init(), stored), nil)
}

// storedChunk returns what is written for a chunk of uncompressed bytes
// src compressed to dst: dst, or — when dst is maxStored bytes or more —
// src itself, extended with zeros to maxStored when shorter (only the last
// chunk can be). src must have the capacity of a whole chunk.
func storedChunk(dst, src []byte, maxStored int) []byte {
	if len(dst) < maxStored {
		return dst
	}
	if n := len(src); n < maxStored {
		src = src[:maxStored]
		clear(src[n:])
	}
	return src
}

// writeChunk appends one compressed chunk and its checksum to the file and
// folds both into the digest. Chunks arrive in order.
func (w *DataWriter) writeChunk(payload []byte, sum uint32, err error) {
	if w.err != nil {
		return
	}
	if err != nil {
		w.fail(fmt.Errorf("sstables: compressing chunk %d of %s: %w", len(w.info.ChunkOffsets), w.path, err))
		return
	}
	w.info.ChunkOffsets = append(w.info.ChunkOffsets, w.fileOff)
	binary.BigEndian.PutUint32(w.trailer[:], sum)
	if _, err := w.out.Write(payload); err != nil {
		w.fail(err)
		return
	}
	if _, err := w.out.Write(w.trailer[:]); err != nil {
		w.fail(err)
		return
	}
	if w.cs.PreferCombine() {
		w.digest = w.cs.Combine(w.digest, sum, int64(len(payload)))
	} else {
		w.digest = w.cs.Update(w.digest, payload)
	}
	w.digest = w.cs.Update(w.digest, w.trailer[:])
	w.fileOff += int64(len(payload)) + chunkTrailerLen
	w.payloadLen += int64(len(payload))
}

func (w *DataWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// Finish compresses the last partial chunk, writes every pending chunk,
// flushes the buffered writer and returns what the side components need.
// It does not sync or close the file.
func (w *DataWriter) Finish() (*DataResult, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.done {
		return nil, errFinished
	}
	if w.compressed {
		if w.pool == nil {
			if len(w.inline.src) > 0 {
				w.submit()
			}
			if w.trailingEmpty && w.err == nil {
				w.submit() // the slot is empty now: an empty chunk
			}
		} else {
			if w.fill != nil && len(w.fill.src) > 0 {
				w.submit()
			}
			if w.trailingEmpty && w.err == nil {
				if s := w.fillSlot(); s != nil {
					s.src = s.src[:0]
					w.submit()
				}
			}
			if w.fill != nil {
				w.pool.release(w.fill)
				w.fill = nil
			}
			if err := w.pool.drain(w.writeChunk); err != nil {
				w.fail(err)
			}
			w.pool.close()
		}
	} else {
		if w.pieceLen > 0 {
			w.endPiece()
		}
		if w.trailingEmpty {
			w.endPiece() // the checksum of no bytes
		}
	}
	if w.err == nil {
		if err := w.out.Flush(); err != nil {
			w.fail(err)
		}
	}
	if w.err != nil {
		w.Abort()
		return nil, w.err
	}
	w.done = true
	res := &DataResult{Digest: w.digest, DataLength: w.pos, FileSize: w.fileOff}
	if w.compressed {
		w.info.DataLength = w.pos
		res.CompressedLength = w.payloadLen
		res.Chunks = len(w.info.ChunkOffsets)
		res.CompressionInfo = w.info
	} else {
		res.Chunks = len(w.crcs)
		res.CRC = &CRCInfo{ChunkSize: CRCChunkSize, Checksums: w.crcs}
	}
	return res, nil
}

// Abort stops the compression workers and discards pending chunks. The
// writer's error becomes errAborted unless it already failed. It is safe to
// call more than once and after Finish.
func (w *DataWriter) Abort() {
	if w.pool != nil {
		w.pool.close()
	}
	w.out.Stop()
	if !w.done {
		w.fail(errAborted)
	}
}
