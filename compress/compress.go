// Package compress implements Cassandra's chunk compressors with their exact
// on-disk framing (LZ4 with its little-endian length prefix, raw Snappy
// blocks, zlib-wrapped Deflate, Zstd frames, and none) and the mapping between
// Cassandra's compressor class names and options and this package's values.
//
// Implementations, and whether they reproduce Cassandra's compressed bytes
// (checked against every real chunk in the shared test data):
//
//	codec    compress                                  decompress                  identical
//	LZ4      LZ4Current (4.0+, ScyllaDB): liblz4       liblz4 LZ4_decompress_safe  15 of 15 chunks, each
//	         LZ4_compress_fast (tag liblz4) or pierrec or pierrec/lz4              with its writer's
//	         CompressorCCompat (Go); LZ4R123 (2.2–3.11),                           LZ4Encoder; r123 also
//	         LZ4R100 (2.1): castable's Go ports                                    lz4-java 1.3.0's blocks
//	LZ4HC    liblz4 LZ4_compress_HC or pierrec HC      as LZ4                      C likely (no sample), Go no
//	Snappy   golang/snappy                             golang/snappy               yes (1 of 1)
//	Deflate  zlib level 6 (tag zlib)                   libdeflate (tag libdeflate) yes with zlib (1 of 1)
//	         or klauspost flate level 6 (Go)           or klauspost flate          no (valid stream)
//	Zstd     klauspost zstd                            klauspost zstd              no (Cassandra 4.0 / ScyllaDB only)
//
// C implementations are used when built in (cgo and the build tag, see the
// Makefile); NewCompressorImpl selects one explicitly. Decompress checks
// every declared length against the caller's bound before it sizes an
// output buffer (a zstd frame without a declared size is stopped by the
// decoder's memory bound instead). Errors for bad chunks wrap ErrCorrupt.
package compress

// Compressor compresses and decompresses independent chunks in Cassandra's
// wire framing for one codec. Calls follow the (dst, src) convention: the
// result is appended to dst[:0] when it fits dst's capacity, so a caller that
// keeps its buffers never allocates in steady state.
//
// A Compressor is not safe for concurrent use; obtain one per goroutine
// (see NewCompressor).
type Compressor interface {
	// Codec is the codec this compressor implements.
	Codec() Codec
	// Compress returns the framed compressed form of src, reusing dst; a
	// dst with capacity MaxCompressedLen(len(src)) is always reused.
	Compress(dst, src []byte) ([]byte, error)
	// Decompress returns the decompressed form of the framed chunk src,
	// reusing dst; a dst with capacity maxLen is always reused. maxLen
	// bounds the decompressed size the caller accepts (the chunk length
	// from CompressionInfo.db); a chunk that claims or produces more, or is
	// otherwise corrupt, is an error wrapping ErrCorrupt, never a panic.
	Decompress(dst, src []byte, maxLen int) ([]byte, error)
	// MaxCompressedLen is an upper bound of len(Compress(nil, src)) for
	// len(src) == n.
	MaxCompressedLen(n int) int
}
