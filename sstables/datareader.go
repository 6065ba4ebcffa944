package sstables

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"sync"

	"github.com/castable-db/castable/checksummer"
	"github.com/castable-db/castable/compress"
)

// DataReaderOptions configure a DataReader. The zero value of every field
// means the default given in its comment.
type DataReaderOptions struct {
	// Algorithm is the checksum of the chunks, CRC.db and the digest; 0
	// means the one of the descriptor's version (OpenData) or CRC-32
	// (NewDataReader).
	Algorithm checksummer.Algorithm
	// Checksummer implements Algorithm; nil means the default
	// implementation.
	Checksummer checksummer.Checksummer
	// CRCCheckChance is the probability that a chunk's checksum is verified
	// when the chunk is read (Cassandra's crc_check_chance): 0 means 1.0
	// (always), a negative value never. Verify checks every chunk
	// regardless.
	CRCCheckChance float64
	// NewCompressor creates the decompressors; nil means
	// compress.NewCompressor.
	NewCompressor func(compress.Params) (compress.Compressor, error)
	// Warn receives what the reader tolerates (a CRC.db with more or fewer
	// checksums than chunks); nil drops it.
	Warn WarnFunc
	// WarnCRCMismatch reads an uncompressed chunk whose CRC.db checksum
	// does not match with a Warning instead of a CorruptionError (see
	// ReaderOptions.WarnUncompressedCRC); Verify still fails it.
	WarnCRCMismatch bool
}

// DataReader gives random and sequential access to the uncompressed
// content of a Data.db, compressed (CompressionInfo.db) or not (CRC.db).
// Chunks are decompressed into reused buffers and their checksums verified
// according to the check chance; problems are CorruptionErrors naming the
// file, Data.db, the chunk's file offset and its index.
//
// ReadAt is safe for concurrent use; each DataStream is not.
type DataReader struct {
	f       io.ReaderAt
	closer  io.Closer
	path    string
	size    int64 // file size
	length  int64 // uncompressed length
	info    *CompressionInfo
	crc     *CRCInfo
	params  compress.Params
	chunk   int64 // uncompressed bytes per chunk
	nchunks int   // chunks holding data
	// crcChunks is the number of chunks CRC.db has a checksum for (all of
	// them unless CRC.db is short).
	crcChunks int
	cs        checksummer.Checksummer
	chance    float64
	// warnCRC, when set, receives uncompressed checksum mismatches, which
	// are then not errors (DataReaderOptions.WarnCRCMismatch).
	warnCRC WarnFunc
	newComp func(compress.Params) (compress.Compressor, error)

	mu    sync.Mutex
	cache chunkCache
}

// chunkCache holds one decoded chunk and the buffers that decode it.
type chunkCache struct {
	comp compress.Compressor
	raw  []byte
	buf  []byte
	idx  int
}

// NewDataReader reads the Data.db content of f (size bytes, named path in
// errors). info describes a compressed file; otherwise crc (which may be
// nil: then nothing is verified) describes an uncompressed one.
func NewDataReader(f io.ReaderAt, size int64, path string, info *CompressionInfo, crc *CRCInfo, opts DataReaderOptions) (*DataReader, error) {
	cs := opts.Checksummer
	if cs == nil {
		var err error
		if cs, err = defaultChecksummer(opts.Algorithm); err != nil {
			return nil, err
		}
	}
	r := &DataReader{f: f, path: path, size: size, info: info, crc: crc, cs: cs, newComp: opts.NewCompressor}
	if opts.WarnCRCMismatch {
		r.warnCRC = opts.Warn
		if r.warnCRC == nil {
			r.warnCRC = func(Warning) {}
		}
	}
	if r.newComp == nil {
		r.newComp = compress.NewCompressor
	}
	switch c := opts.CRCCheckChance; {
	case c == 0 || c >= 1:
		r.chance = 1
	case c < 0:
		r.chance = 0
	default:
		r.chance = c
	}
	if info != nil {
		params, err := info.Params()
		if err != nil {
			return nil, &CorruptionError{Path: siblingPath(path, ComponentCompressionInfo), Component: string(ComponentCompressionInfo), Offset: 0, Reason: "unusable compressor", Err: err}
		}
		if err := info.CheckFileSize(size, path); err != nil {
			return nil, err
		}
		r.params = params
		r.length = info.DataLength
		r.chunk = int64(info.ChunkLength)
		r.nchunks = info.DataChunks()
	} else {
		r.length = size
		r.chunk = CRCChunkSize
		if crc != nil {
			r.chunk = int64(crc.ChunkSize)
		}
		r.nchunks = int((size + r.chunk - 1) / r.chunk)
		r.crcChunks = r.nchunks
		if crc != nil {
			crcPath := siblingPath(path, ComponentCRC)
			switch _, extra := crc.CRCCoverage(size, cs.Algorithm()); {
			case extra > 0:
				opts.Warn.Warnf(crcPath, ComponentCRC, 4+4*int64(r.nchunks), "holds %d checksums for the %d chunks of Data.db (%d bytes): the %d after the last chunk are not read, as Cassandra's checksum validator never reads them", len(crc.Checksums), r.nchunks, size, extra)
			case extra < 0:
				r.crcChunks = len(crc.Checksums)
				opts.Warn.Warnf(crcPath, ComponentCRC, -1, "holds %d checksums for the %d chunks of Data.db (%d bytes): Data.db from offset %d is read unverified, as Cassandra's read path (which never consults CRC.db) reads it; verify fails", len(crc.Checksums), r.nchunks, size, int64(r.crcChunks)*r.chunk)
			}
		}
	}
	r.cache.idx = -1
	return r, nil
}

// OpenData opens desc's Data.db with its CompressionInfo.db, or else its
// CRC.db (an uncompressed Data.db without CRC.db is read unverified). The
// reader owns the file: Close closes it.
func OpenData(fsys FS, desc Descriptor, opts DataReaderOptions) (*DataReader, error) {
	fsys = fsOrDefault(fsys)
	if opts.Algorithm == 0 && opts.Checksummer == nil {
		opts.Algorithm = ChecksumAlgorithm(desc.Version)
	}
	info, err := ReadCompressionInfo(fsys, desc)
	var crc *CRCInfo
	if errors.Is(err, fs.ErrNotExist) {
		info = nil
		crc, err = ReadCRC(fsys, desc)
		if errors.Is(err, fs.ErrNotExist) {
			crc, err = nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	path := desc.Path(ComponentData)
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	size, err := f.Size()
	if err != nil {
		f.Close()
		return nil, err
	}
	r, err := NewDataReader(f, size, path, info, crc, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// Length returns the uncompressed length of the content.
func (r *DataReader) Length() int64 { return r.length }

// FileSize returns the size of Data.db on disk.
func (r *DataReader) FileSize() int64 { return r.size }

// CompressionInfo returns the compression metadata (nil when uncompressed).
func (r *DataReader) CompressionInfo() *CompressionInfo { return r.info }

// CRC returns the CRC.db content (nil when compressed or absent).
func (r *DataReader) CRC() *CRCInfo { return r.crc }

// TrailingEmptyChunk reports whether Data.db ends with one chunk more than
// its length needs (an empty one: what Cassandra's compaction writer
// leaves, see DataWriterOptions.TrailingEmptyChunk), counted in
// CompressionInfo.db's chunks or CRC.db's checksums.
func (r *DataReader) TrailingEmptyChunk() bool {
	need := func(length int64, chunk int) int {
		if chunk <= 0 {
			return -1
		}
		return int((length + int64(chunk) - 1) / int64(chunk))
	}
	switch {
	case r.info != nil:
		return r.length > 0 && len(r.info.ChunkOffsets) == need(r.length, r.info.ChunkLength)+1
	case r.crc != nil:
		return r.length > 0 && len(r.crc.Checksums) == need(r.length, r.crc.ChunkSize)+1
	}
	return false
}

// DataFileReader is implemented by the readers that expose their Data.db
// reader.
type DataFileReader interface {
	DataFile() *DataReader
}

// Close closes the file when the reader opened it.
func (r *DataReader) Close() error {
	if r.closer != nil {
		c := r.closer
		r.closer = nil
		return c.Close()
	}
	return nil
}

func (r *DataReader) corrupt(off int64, err error, format string, args ...any) error {
	return &CorruptionError{Path: r.path, Component: string(ComponentData), Offset: off, Reason: fmt.Sprintf(format, args...), Err: err}
}

func (r *DataReader) shouldVerify() bool {
	return r.chance >= 1 || (r.chance > 0 && rand.Float64() < r.chance)
}

// grow returns b resized to n, reallocating only when its capacity is too
// small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// load decodes chunk i into c.
func (r *DataReader) load(c *chunkCache, i int) error {
	if c.idx == i {
		return nil
	}
	c.idx = -1
	verify := r.shouldVerify()
	if r.info == nil {
		start := int64(i) * r.chunk
		n := int(min(r.chunk, r.length-start))
		c.buf = grow(c.buf, n)
		if err := readFullAt(r.f, c.buf, start); err != nil {
			return r.corrupt(start, err, "chunk %d: reading %d bytes", i, n)
		}
		if verify && r.crc != nil && i < r.crcChunks {
			if got, want := r.cs.Update(r.cs.Init(), c.buf), r.crc.Checksums[i]; got != want {
				if r.warnCRC == nil {
					return r.corrupt(start, nil, "chunk %d checksum mismatch: CRC.db has %08x, data gives %08x", i, want, got)
				}
				r.warnCRC.Warnf(r.path, ComponentData, start, "chunk %d checksum mismatch (CRC.db has %08x, data gives %08x): read anyway, as Cassandra's and ScyllaDB's read paths never consult CRC.db; verify fails", i, want, got)
			}
		}
		c.idx = i
		return nil
	}
	payload, err := r.readRawChunk(c, i, verify)
	if err != nil {
		return err
	}
	if err := r.decompress(c, i, payload); err != nil {
		return err
	}
	c.idx = i
	return nil
}

// readRawChunk reads chunk i's payload into c.raw and, when verify is set,
// checks its checksum.
func (r *DataReader) readRawChunk(c *chunkCache, i int, verify bool) ([]byte, error) {
	off, n := r.info.ChunkSpan(i, r.size)
	if n <= chunkTrailerLen || n > int64(maxChunkLength)*2 {
		return nil, r.corrupt(off, nil, "chunk %d has impossible on-disk length %d", i, n)
	}
	c.raw = grow(c.raw, int(n))
	if err := readFullAt(r.f, c.raw, off); err != nil {
		return nil, r.corrupt(off, err, "chunk %d: reading %d bytes", i, n)
	}
	payload := c.raw[:n-chunkTrailerLen]
	if verify {
		stored := binary.BigEndian.Uint32(c.raw[n-chunkTrailerLen:])
		if got := r.cs.Update(r.cs.Init(), payload); got != stored {
			return nil, r.corrupt(off, nil, "chunk %d checksum mismatch: stored %08x, computed %08x", i, stored, got)
		}
	}
	return payload, nil
}

// decompress decodes chunk i's payload into c.buf and checks its length.
func (r *DataReader) decompress(c *chunkCache, i int, payload []byte) error {
	off := r.info.ChunkOffsets[i]
	if r.info.RawChunk(int64(len(payload))) {
		// Stored uncompressed (na and later); the last chunk may carry
		// padding past its data.
		want := r.info.ChunkDataLength(i)
		if len(payload) < want {
			return r.corrupt(off, nil, "raw chunk %d holds %d bytes, want %d", i, len(payload), want)
		}
		c.buf = append(c.buf[:0], payload[:want]...)
		return nil
	}
	if c.comp == nil {
		comp, err := r.newComp(r.params)
		if err != nil {
			return &CorruptionError{Path: siblingPath(r.path, ComponentCompressionInfo), Component: string(ComponentCompressionInfo), Offset: 0, Reason: "unusable compressor", Err: err}
		}
		c.comp = comp
	}
	// The chunk's own length bounds the output (not the chunk length: the
	// last chunk is shorter, and a damaged CompressionInfo.db may claim
	// 1 GiB chunks over a few bytes of data).
	out, err := c.comp.Decompress(c.buf[:0], payload, r.info.ChunkDataLength(i))
	if err != nil {
		return r.corrupt(off, err, "chunk %d does not decompress", i)
	}
	c.buf = out
	if want := r.info.ChunkDataLength(i); len(out) != want {
		return r.corrupt(off, nil, "chunk %d decompresses to %d bytes, want %d", i, len(out), want)
	}
	return nil
}

// ReadAt reads len(p) uncompressed bytes at off. It returns io.EOF when
// the content ends before p is full.
func (r *DataReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("sstables: negative offset %d", off)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for n < len(p) {
		if off >= r.length {
			return n, io.EOF
		}
		i := int(off / r.chunk)
		if err := r.load(&r.cache, i); err != nil {
			return n, err
		}
		k := copy(p[n:], r.cache.buf[off-int64(i)*r.chunk:])
		n += k
		off += int64(k)
	}
	return n, nil
}

// DataStream reads the uncompressed content sequentially with its own
// reused chunk buffers. It implements io.Reader, io.ByteReader and
// io.Seeker.
type DataStream struct {
	r     *DataReader
	c     chunkCache
	pos   int64
	cur   []byte // unread bytes of the current chunk
	chunk []byte // the current chunk's content (c.buf or held.buf); nil: none
	start int64  // content offset of chunk[0]

	// Read-ahead (NewReadAheadStream): depth > 0 while it is on; held is
	// the read-ahead buffer chunk lies in.
	depth int
	box   *readAheadBox
	held  *chunkCache
}

// NewStream returns a DataStream positioned at off.
func (r *DataReader) NewStream(off int64) *DataStream {
	s := &DataStream{r: r, pos: off}
	s.c.idx = -1
	return s
}

// Position returns the content offset of the next byte Read returns.
func (s *DataStream) Position() int64 { return s.pos }

func (s *DataStream) fill() error {
	if s.pos >= s.r.length {
		return io.EOF
	}
	if s.pos < 0 {
		return fmt.Errorf("sstables: negative position %d", s.pos)
	}
	i := int(s.pos / s.r.chunk)
	if s.depth > 0 {
		return s.fillAhead(i)
	}
	if err := s.r.load(&s.c, i); err != nil {
		s.chunk = nil
		return err
	}
	s.start = int64(i) * s.r.chunk
	s.chunk = s.c.buf
	s.cur = s.chunk[s.pos-s.start:]
	return nil
}

// Read implements io.Reader.
func (s *DataStream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(s.cur) == 0 {
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	s.pos += int64(n)
	return n, nil
}

// ReadByte implements io.ByteReader.
func (s *DataStream) ReadByte() (byte, error) {
	if len(s.cur) == 0 {
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	b := s.cur[0]
	s.cur = s.cur[1:]
	s.pos++
	return b, nil
}

// Seek implements io.Seeker over the uncompressed content.
func (s *DataStream) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = s.pos + offset
	case io.SeekEnd:
		abs = s.r.length + offset
	default:
		return s.pos, fmt.Errorf("sstables: bad whence %d", whence)
	}
	if abs < 0 {
		return s.pos, fmt.Errorf("sstables: seek to negative position %d", abs)
	}
	if s.chunk != nil && abs >= s.start && abs < s.start+int64(len(s.chunk)) {
		s.cur = s.chunk[abs-s.start:]
	} else {
		s.cur = nil
	}
	s.pos = abs
	return abs, nil
}

// DataVerifyResult is what Verify computed over the whole file.
type DataVerifyResult struct {
	// Digest is the checksum of the whole file.
	Digest uint32
	// PayloadDigest is the checksum of the compressed payloads without
	// their trailers (the digest of early pre-release la files); equal to
	// Digest for uncompressed files.
	PayloadDigest uint32
	// Chunks is the number of chunks checked (a trailing empty chunk
	// included).
	Chunks int
}

// Verify reads the whole file once: it checks every chunk's checksum
// (against its trailer, or CRC.db), that every compressed chunk decompresses
// to its length, and computes the digest by combining the chunk checksums.
// The first problem is returned as a CorruptionError naming the chunk.
func (r *DataReader) Verify() (*DataVerifyResult, error) {
	cs := r.cs
	res := &DataVerifyResult{Digest: cs.Init(), PayloadDigest: cs.Init()}
	var c chunkCache
	c.idx = -1
	if r.info == nil {
		if r.crc != nil && r.crcChunks < r.nchunks {
			start := int64(r.crcChunks) * r.chunk
			return nil, r.corrupt(start, nil, "file of %d bytes makes %d chunks of %d bytes, CRC.db has %d checksums", r.length, r.nchunks, r.chunk, len(r.crc.Checksums))
		}
		comb := fixedCombiner(cs, r.chunk)
		for i := 0; i < r.nchunks; i++ {
			start := int64(i) * r.chunk
			n := int(min(r.chunk, r.length-start))
			c.buf = grow(c.buf, n)
			if err := readFullAt(r.f, c.buf, start); err != nil {
				return nil, r.corrupt(start, err, "chunk %d: reading %d bytes", i, n)
			}
			sum := cs.Update(cs.Init(), c.buf)
			if r.crc != nil && sum != r.crc.Checksums[i] {
				return nil, r.corrupt(start, nil, "chunk %d checksum mismatch: CRC.db has %08x, data gives %08x", i, r.crc.Checksums[i], sum)
			}
			if comb != nil && int64(n) == r.chunk {
				res.Digest = comb(res.Digest, sum)
			} else {
				res.Digest = cs.Combine(res.Digest, sum, int64(n))
			}
		}
		res.PayloadDigest = res.Digest
		res.Chunks = r.nchunks
		return res, nil
	}
	var total int64
	for i := range r.info.ChunkOffsets {
		payload, err := r.readRawChunk(&c, i, true)
		if err != nil {
			return nil, err
		}
		sum := binary.BigEndian.Uint32(c.raw[len(payload):])
		res.Digest = cs.Combine(res.Digest, sum, int64(len(payload)))
		res.Digest = cs.Update(res.Digest, c.raw[len(payload):])
		res.PayloadDigest = cs.Combine(res.PayloadDigest, sum, int64(len(payload)))
		if err := r.decompress(&c, i, payload); err != nil {
			return nil, err
		}
		total += int64(len(c.buf))
	}
	if total != r.length {
		return nil, r.corrupt(-1, nil, "chunks decompress to %d bytes, CompressionInfo.db says %d", total, r.length)
	}
	res.Chunks = len(r.info.ChunkOffsets)
	return res, nil
}

// CheckPartitionKeyAt checks that the partition at content offset pos of
// data starts with key (both formats begin a partition with the key's
// 16-bit length and its bytes), so that an index entry pointing elsewhere
// is reported as the corruption of indexPath it is (entry is the entry's
// offset there, or -1).
func CheckPartitionKeyAt(data *DataReader, pos int64, key []byte, indexPath string, entry int64) error {
	b := make([]byte, 2+len(key))
	if _, err := data.ReadAt(b, pos); err != nil {
		if err == io.EOF {
			return Corruptf(indexPath, string(ComponentIndex), entry, "entry points to Data.db offset %d, too near the end for its key", pos)
		}
		return err
	}
	if int(binary.BigEndian.Uint16(b)) != len(key) || !bytes.Equal(b[2:], key) {
		return Corruptf(indexPath, string(ComponentIndex), entry, "entry points to Data.db offset %d, which holds another partition", pos)
	}
	return nil
}
