package sstables

import (
	"encoding/binary"

	"github.com/castable-db/castable/checksummer"
)

// CRC.db layout (uncompressed SSTables only; big-endian):
//
//	+0   i32  chunkSize S            65536 in every Cassandra file
//	+4   K × u32 checksum[j]         checksum of Data.db bytes [j·S, min((j+1)·S, len))
//	EOF
//
// K = ceil(len(Data.db) / S); there is no count field. The algorithm is
// Adler-32 (la) or CRC-32 (mc). A file rewritten by Cassandra 3.x may carry
// one extra last entry holding the checksum of empty input (00000000 for
// CRC-32, 00000001 for Adler-32): readers accept it, writers never write
// it. CRC.db values are not part of the digest.
const (
	// CRCChunkSize is the chunk size of CRC.db (Cassandra's data writer
	// buffer size).
	CRCChunkSize = 64 << 10
	// maxCRCFileSize bounds the CRC.db a reader loads (4 bytes per 64 KiB
	// of data: 1 GiB covers 16 TiB of Data.db).
	maxCRCFileSize = 1 << 30
	// maxCRCChunkSize bounds the chunk size a reader accepts.
	maxCRCChunkSize = 1 << 30
)

// CRCInfo is the content of CRC.db.
type CRCInfo struct {
	// ChunkSize is the number of Data.db bytes each checksum covers.
	ChunkSize int
	// Checksums holds one checksum per chunk.
	Checksums []uint32
}

// AppendTo appends the CRC.db encoding of c.
func (c *CRCInfo) AppendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.ChunkSize))
	for _, v := range c.Checksums {
		dst = binary.BigEndian.AppendUint32(dst, v)
	}
	return dst
}

// ParseCRC parses CRC.db content; path names the file in errors.
func ParseCRC(b []byte, path string) (*CRCInfo, error) {
	r := NewByteReader(b, path, ComponentCRC, 0)
	size := r.I32()
	if r.Err() == nil && (size <= 0 || size > maxCRCChunkSize) {
		r.FailAt(0, "chunk size %d out of range (1 … %d)", size, maxCRCChunkSize)
	}
	if r.Err() == nil && r.Remaining()%4 != 0 {
		r.FailAt(int64(len(b)-r.Remaining()%4), "%d trailing bytes after the last checksum", r.Remaining()%4)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	c := &CRCInfo{ChunkSize: int(size), Checksums: make([]uint32, r.Remaining()/4)}
	for i := range c.Checksums {
		c.Checksums[i] = r.U32()
	}
	return c, nil
}

// ReadCRC reads desc's CRC.db.
func ReadCRC(fsys FS, desc Descriptor) (*CRCInfo, error) {
	path := desc.Path(ComponentCRC)
	b, err := readWholeFile(fsOrDefault(fsys), path, ComponentCRC, maxCRCFileSize)
	if err != nil {
		return nil, err
	}
	return ParseCRC(b, path)
}

// ChunkCount returns the number of data chunks that c describes for a
// Data.db of dataLen bytes, after checking that c has exactly that many
// checksums or one more holding the empty-input checksum of alg (whose
// initial value is init). A mismatch is reported against Data.db (dataPath),
// whose size disagrees with CRC.db, at the offset of the first chunk the two
// disagree on. Readers use CRCCoverage instead, which tolerates what
// Cassandra's read path tolerates.
func (c *CRCInfo) ChunkCount(dataLen int64, alg checksummer.Algorithm, dataPath string) (int, error) {
	want, extra := c.CRCCoverage(dataLen, alg)
	if extra != 0 {
		have := int64(len(c.Checksums))
		return 0, Corruptf(dataPath, string(ComponentData), min(have, int64(want))*int64(c.ChunkSize),
			"file of %d bytes makes %d chunks of %d bytes, CRC.db has %d checksums", dataLen, want, c.ChunkSize, have)
	}
	return want, nil
}

// CRCCoverage returns the number of chunks of a Data.db of dataLen bytes
// and how many checksums c has beyond them (negative: how many chunks have
// none). The one extra empty-input checksum of alg that a Cassandra 3.x
// rewrite leaves is not counted as extra.
//
// Cassandra's read path never consults CRC.db; its checksum validator (used
// when streaming, and by ScyllaDB's validate-checksums) reads one checksum
// per chunk and never looks past the last. So checksums beyond the last
// chunk are read with a Warning, and chunks without a checksum are read
// unverified with a Warning, but fail Verify.
func (c *CRCInfo) CRCCoverage(dataLen int64, alg checksummer.Algorithm) (chunks, extra int) {
	want := (dataLen + int64(c.ChunkSize) - 1) / int64(c.ChunkSize)
	have := int64(len(c.Checksums))
	if have == want+1 && c.Checksums[want] == emptyChecksum(alg) {
		return int(want), 0
	}
	return int(want), int(have - want)
}

// emptyChecksum is the checksum of empty input.
func emptyChecksum(alg checksummer.Algorithm) uint32 {
	if alg == checksummer.Adler32 {
		return 1
	}
	return 0
}
