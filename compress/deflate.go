package compress

import (
	"encoding/binary"
	"fmt"
)

// DeflateCompressor chunk payload, part of the on-disk format: one zlib
// stream (RFC 1950), as java.util.zip.Deflater writes it with its defaults
// (level 6, 15-bit window, memLevel 8, default strategy, one-shot finish).
//
//	+0      u8  CMF  0x78: CM 8 (deflate), CINFO 7 (32 KiB window)
//	+1      u8  FLG  0x9C: FLEVEL 2 (default level), no FDICT, (CMF<<8|FLG) % 31 == 0
//	+2      deflate data (RFC 1951), final block last
//	+len-4  u32 BIG-endian Adler-32 of the UNCOMPRESSED chunk
//
// The SSTable's own per-chunk checksum (CRC-32 for mc, Adler-32 for la)
// follows the payload and covers the compressed bytes; the Adler-32 above is
// zlib's and covers the uncompressed ones. Only zlib's deflate reproduces
// Cassandra's bytes (Java's Deflater is zlib); Go deflaters write valid but
// different streams.
const (
	zlibCMF        = 0x78
	zlibFLGLevel6  = 0x9C
	zlibHeaderLen  = 2
	zlibTrailerLen = 4
	zlibFDICT      = 0x20
	zlibCMDeflate  = 8
	deflateLevel   = 6
)

// deflateBound bounds the zlib stream for n input bytes, for both zlib
// (compressBound: n + n>>12 + n>>14 + n>>25 + 13) and the Go deflater
// (stored blocks of at least 16 KiB with 5-byte headers, an empty final
// block, the zlib header and trailer).
func deflateBound(n int) int {
	zlib := n + n>>12 + n>>14 + n>>25 + 13
	goFlate := n + 5*(n/16384+2) + zlibHeaderLen + zlibTrailerLen
	return max(zlib, goFlate)
}

// checkZlibHeader validates the two zlib header bytes of a chunk.
func checkZlibHeader(src []byte) error {
	if len(src) < zlibHeaderLen+zlibTrailerLen {
		return corruptf(Deflate, "payload of %d bytes is shorter than a zlib header and trailer", len(src))
	}
	cmf, flg := src[0], src[1]
	switch {
	case cmf&0x0f != zlibCMDeflate || cmf>>4 > 7:
		return corruptf(Deflate, "zlib header %02x %02x: not deflate with a window of at most 32 KiB", cmf, flg)
	case (uint16(cmf)<<8|uint16(flg))%31 != 0:
		return corruptf(Deflate, "zlib header %02x %02x: bad header check bits", cmf, flg)
	case flg&zlibFDICT != 0:
		return corruptf(Deflate, "zlib header %02x %02x: preset dictionary not supported", cmf, flg)
	}
	return nil
}

// deflateEncoder writes a whole zlib stream for src to dst[:0], dst having
// at least deflateBound(len(src)) capacity.
type deflateEncoder interface {
	encode(dst, src []byte) ([]byte, error)
}

// deflateDecoder inflates the zlib stream src (header already checked) into
// dst, whose length is the caller's bound. It returns the decoded length,
// having verified the Adler-32 trailer and that src holds nothing after it.
type deflateDecoder interface {
	decode(dst, src []byte) (int, error)
}

// deflateCompressor pairs an encoder and a decoder, each the C one when
// built in (zlib to compress, libdeflate to decompress) or Go's.
type deflateCompressor struct {
	enc deflateEncoder
	dec deflateDecoder
}

func newDeflate(impl Impl) (Compressor, error) {
	var c deflateCompressor
	var err error
	if impl != ImplGo && haveZlib {
		c.enc, err = newZlibEncoder(deflateLevel)
	} else {
		c.enc, err = newGoDeflateEncoder(deflateLevel)
	}
	if err != nil {
		return nil, err
	}
	if impl != ImplGo && haveLibDeflate {
		c.dec, err = newLibDeflateDecoder()
	} else {
		c.dec, err = newGoDeflateDecoder()
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *deflateCompressor) Codec() Codec { return Deflate }

func (c *deflateCompressor) MaxCompressedLen(n int) int { return deflateBound(n) }

func (c *deflateCompressor) Compress(dst, src []byte) ([]byte, error) {
	if uint64(len(src)) > 1<<31-1 {
		return nil, fmt.Errorf("compress: deflate: chunk of %d bytes is too large", len(src))
	}
	return c.enc.encode(grow(dst, deflateBound(len(src)))[:0], src)
}

func (c *deflateCompressor) Decompress(dst, src []byte, maxLen int) ([]byte, error) {
	if err := checkZlibHeader(src); err != nil {
		return nil, err
	}
	// A valid stream never needs more room than its size allows (see
	// deflateMaxExpansion): a hostile chunk bound costs no memory.
	dst = grow(dst, min(max(maxLen, 0), maxDecodedLen(len(src), deflateMaxExpansion)))
	n, err := c.dec.decode(dst, src)
	if err != nil {
		return nil, err
	}
	return dst[:n], nil
}

// appendAdler32 appends the big-endian zlib trailer.
func appendAdler32(dst []byte, sum uint32) []byte {
	return binary.BigEndian.AppendUint32(dst, sum)
}
