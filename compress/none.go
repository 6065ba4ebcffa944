package compress

// noneCompressor is the identity codec. Cassandra has no such compressor
// for la/mc (an uncompressed SSTable bypasses the chunked compression path
// and uses CRC.db); it exists so that every Codec has a Compressor.
type noneCompressor struct{}

func (noneCompressor) Codec() Codec { return None }

func (noneCompressor) MaxCompressedLen(n int) int { return n }

func (noneCompressor) Compress(dst, src []byte) ([]byte, error) {
	return append(dst[:0], src...), nil
}

func (noneCompressor) Decompress(dst, src []byte, maxLen int) ([]byte, error) {
	if len(src) > maxLen {
		return nil, corruptf(None, "chunk of %d bytes exceeds the chunk bound %d", len(src), maxLen)
	}
	return append(dst[:0], src...), nil
}
