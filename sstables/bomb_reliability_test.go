package sstables

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/castable-db/castable/checksummer"
	"github.com/castable-db/castable/compress"
)

// bombChunk is one hostile compressed chunk: a few bytes that claim (or
// really expand to) far more than the file could hold.
type bombChunk struct {
	name    string
	class   string
	payload []byte
}

func bombChunks() []bombChunk {
	lz4 := binary.LittleEndian.AppendUint32(nil, 1<<30) // length prefix: 1 GiB
	lz4 = append(lz4, 0x1F, 0x00, 0x01, 0x00)
	snappy := binary.AppendUvarint(nil, 1<<30)
	snappy = append(snappy, 0x00, 'a')
	zstd := []byte{0x28, 0xB5, 0x2F, 0xFD, 0xE0} // frame header, 8-byte content size
	zstd = binary.LittleEndian.AppendUint64(zstd, 1<<30)
	zstd = append(zstd, 0x01, 0x00, 0x00)
	// Deflate: a real 200-byte stream that inflates to 1 MiB of zeros
	// (about 1000:1, deflate's limit).
	var deflate []byte
	if c, err := compress.NewCompressor(compress.Params{Codec: compress.Deflate}); err == nil {
		deflate, _ = c.Compress(nil, make([]byte, 1<<20))
	}
	return []bombChunk{
		{"lz4-prefix-1GiB", "LZ4Compressor", lz4},
		{"snappy-varint-1GiB", "SnappyCompressor", snappy},
		{"zstd-content-size-1GiB", "ZstdCompressor", zstd},
		{"deflate-1MiB-of-zeros", "DeflateCompressor", deflate},
	}
}

// TestDataReaderDecompressionBombs: a CompressionInfo.db that claims 1 GiB
// chunks and 1 GiB of data, over a Data.db of a few bytes whose chunk
// claims (or expands to) that much, must be rejected with a
// CorruptionError without allocating anywhere near the claim: what a
// reader allocates is bounded by the file, not by the lengths it reads.
func TestDataReaderDecompressionBombs(t *testing.T) {
	const limit = 64 << 20
	for _, b := range bombChunks() {
		t.Run(b.name, func(t *testing.T) {
			cs, err := defaultChecksummer(checksummer.CRC32)
			if err != nil {
				t.Fatal(err)
			}
			data := binary.BigEndian.AppendUint32(bytes.Clone(b.payload), cs.Update(cs.Init(), b.payload))
			info := &CompressionInfo{ClassName: b.class, ChunkLength: 1 << 30, DataLength: 1 << 30, ChunkOffsets: []int64{0}}
			r, err := NewDataReader(bytes.NewReader(data), int64(len(data)), "/x/mc-1-big-Data.db", info, nil, DataReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, readErr := r.ReadAt(make([]byte, 16), 0)
			_, verifyErr := r.Verify()
			runtime.ReadMemStats(&after)
			for _, err := range []error{readErr, verifyErr} {
				var ce *CorruptionError
				if !errors.As(err, &ce) || ce.Component != string(ComponentData) {
					t.Errorf("got %v, want a Data.db CorruptionError", err)
				}
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > limit {
				t.Errorf("reading the bomb allocated %d MiB (limit %d MiB): %v", got>>20, limit>>20, readErr)
			}
			t.Logf("%v", readErr)
		})
	}
}
