package compress

// The largest output a block of each format can decode to, from the
// format's encoding rules. A decoder compares the length a chunk declares
// (or the room it would need) with these bounds before it allocates, so a
// few hostile bytes cannot make it reserve the whole chunk bound (up to
// 1 GiB, read from CompressionInfo.db) — the memory a chunk can cost stays
// proportional to its size on disk.
//
//   - LZ4 block: every sequence is a token (≤ 15 literals + ≤ 19 match
//     bytes), its literals (1:1), a 2-byte offset, and length-extension
//     bytes of ≤ 255 output bytes each: at most 255 bytes per input byte,
//     plus one token's worth.
//   - Snappy: a literal is copied 1:1 after its tag; a copy element of 2, 3
//     or 5 bytes yields at most 11, 64 or 64 bytes: at most 22 bytes per
//     input byte.
//   - Deflate (zlib): the shortest code for a 258-byte match is one bit for
//     the length and one for the distance: at most 1032 bytes per input
//     byte, plus a final match.
//
// Zstd is not bounded this way (an RLE block of 4 bytes yields 128 KiB); its
// decoder grows its output as it goes, under the chunk bound.
const (
	lz4MaxExpansion     = 255
	snappyMaxExpansion  = 22
	deflateMaxExpansion = 1032
	// expansionSlack covers the fixed cost of a block (a first token, a
	// final match) that the per-byte ratios do not.
	expansionSlack = 1024
)

// maxDecodedLen returns the most bytes n input bytes can decode to at ratio
// expansion, without overflowing int.
func maxDecodedLen(n, expansion int) int {
	if n > (int(^uint(0)>>1)-expansionSlack)/expansion {
		return int(^uint(0) >> 1)
	}
	return n*expansion + expansionSlack
}
