// Package compress implements Cassandra's chunk compressors with their exact
// on-disk framing (LZ4 with its little-endian length prefix, raw Snappy
// blocks, zlib-wrapped Deflate, Zstd frames, and none) and the mapping between
// Cassandra's compressor class names and options and this package's values.
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
	// Compress returns the framed compressed form of src, reusing dst.
	Compress(dst, src []byte) ([]byte, error)
	// Decompress returns the decompressed form of the framed chunk src,
	// reusing dst. maxLen bounds the decompressed size the caller accepts
	// (the chunk length from CompressionInfo.db); a chunk that claims or
	// produces more, or is otherwise corrupt, is an error, never a panic.
	Decompress(dst, src []byte, maxLen int) ([]byte, error)
	// MaxCompressedLen is an upper bound of len(Compress(nil, src)) for
	// len(src) == n.
	MaxCompressedLen(n int) int
}
