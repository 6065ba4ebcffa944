package compress

import (
	"fmt"
	"strconv"

	"github.com/klauspost/compress/zstd"
)

// ZstdCompressor chunk payload (Cassandra 4.0, and ScyllaDB's mc files),
// part of the on-disk format: one standard Zstandard frame (RFC 8878), with
// no length prefix.
//
//	+0  u32 LITTLE-endian magic 0xFD2FB528 (bytes 28 B5 2F FD)
//	+4  frame header (descriptor, window, optional dictionary id, content size)
//	    blocks, optional content checksum
//
// We write the frame content size (single-segment frames), no content
// checksum (zstd's default; the SSTable checksums each chunk anyway) and a
// frame even for empty input. On read, a declared content size above the
// caller's bound is rejected before anything is decoded.
const (
	optZstdLevel     = "compression_level"
	zstdLevelDefault = 3          // Cassandra's ZstdCompressor.DEFAULT_COMPRESSION_LEVEL
	zstdLevelMin     = -(1 << 17) // ZSTD_minCLevel()
	zstdLevelMax     = 22         // ZSTD_maxCLevel()
	zstdMinDecLimit  = 1 << 16    // smallest decoder memory bound we build
	zstdMaxFrameHead = 4 + 14     // magic + largest frame header
	zstdBlockHeader  = 3          // per-block header
	zstdMaxBlockSize = 128 << 10  // largest block
	zstdSlack        = 64         // margin for the bound below
	zstdMaxChunk     = 1<<31 - 1  // Cassandra chunks are int-sized
)

// zstdLevelFrom reads compression_level as Cassandra 4.0's ZstdCompressor
// does: an integer from ZSTD_minCLevel to ZSTD_maxCLevel, default 3.
func zstdLevelFrom(opts map[string]string) (int, error) {
	v, ok := opts[optZstdLevel]
	if !ok {
		return zstdLevelDefault, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < zstdLevelMin || n > zstdLevelMax {
		return 0, invalidOptionf("invalid %s %q for ZstdCompressor (want an integer from %d to %d)", optZstdLevel, v, zstdLevelMin, zstdLevelMax)
	}
	return n, nil
}

// zstdCompressor is klauspost/compress/zstd: one Encoder (EncodeAll with
// dst reuse, concurrency 1; klauspost maps zstd levels to its four speeds,
// so output differs from the C library's) and one Decoder whose memory is
// bounded by the largest chunk it has been asked for.
type zstdCompressor struct {
	level    int
	enc      *zstd.Encoder
	dec      *zstd.Decoder
	decLimit int
	hdr      zstd.Header
}

func newZstd(level, chunkLength int) (Compressor, error) {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false),
		zstd.WithZeroFrames(true),
	)
	if err != nil {
		return nil, fmt.Errorf("compress: zstd: %w", err)
	}
	c := &zstdCompressor{level: level, enc: enc}
	if err := c.ensureDecoder(chunkLength); err != nil {
		return nil, err
	}
	return c, nil
}

// ensureDecoder (re)builds the decoder when limit exceeds its bound.
func (c *zstdCompressor) ensureDecoder(limit int) error {
	if c.dec != nil && limit <= c.decLimit {
		return nil
	}
	limit = max(limit, zstdMinDecLimit, 2*c.decLimit)
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(uint64(limit)),
		zstd.WithDecoderMaxWindow(uint64(limit)),
	)
	if err != nil {
		return fmt.Errorf("compress: zstd: %w", err)
	}
	if c.dec != nil {
		c.dec.Close()
	}
	c.dec, c.decLimit = dec, limit
	return nil
}

func (c *zstdCompressor) Codec() Codec { return Zstd }

// MaxCompressedLen is ZSTD_COMPRESSBOUND plus the largest frame header.
func (c *zstdCompressor) MaxCompressedLen(n int) int {
	bound := n + n>>8
	if n < zstdMaxBlockSize {
		bound += (zstdMaxBlockSize - n) >> 11
	}
	return bound + zstdMaxFrameHead + zstdBlockHeader + zstdSlack
}

func (c *zstdCompressor) Compress(dst, src []byte) ([]byte, error) {
	if len(src) > zstdMaxChunk {
		return nil, fmt.Errorf("compress: zstd: chunk of %d bytes is too large", len(src))
	}
	return c.enc.EncodeAll(src, dst[:0]), nil
}

func (c *zstdCompressor) Decompress(dst, src []byte, maxLen int) ([]byte, error) {
	maxLen = max(maxLen, 0)
	if err := c.hdr.Decode(src); err != nil {
		return nil, corruptWrap(Zstd, err, "invalid frame header")
	}
	if c.hdr.HasFCS && c.hdr.FrameContentSize > uint64(maxLen) {
		return nil, corruptf(Zstd, "frame content size %d exceeds the chunk bound %d", c.hdr.FrameContentSize, maxLen)
	}
	if err := c.ensureDecoder(maxLen); err != nil {
		return nil, err
	}
	out, err := c.dec.DecodeAll(src, dst[:0])
	if err != nil {
		return nil, corruptWrap(Zstd, err, "invalid frame")
	}
	if len(out) > maxLen {
		return nil, corruptf(Zstd, "chunk decodes to %d bytes, more than the chunk bound %d", len(out), maxLen)
	}
	return out, nil
}
