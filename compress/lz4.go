package compress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/pierrec/lz4/v4"
)

// LZ4Compressor chunk payload, part of the on-disk format.
//
//	+0  u32 LITTLE-endian   uncompressed length n of the chunk
//	+4  raw LZ4 block       (no frame, no magic, no checksum) decoding to n bytes
//
// The prefix is little-endian although the rest of an SSTable is big-endian.
// Empty input encodes as 00 00 00 00 00 (prefix 0, then the one-token empty
// block). Cassandra compresses with lz4-java's fast compressor
// (LZ4_compress_default, acceleration 1), or with LZ4HC at
// lz4_high_compressor_level when lz4_compressor_type is "high"; the framing
// is the same. A reader rejects a block whose decoded size differs from the
// prefix.
const (
	lz4PrefixLen = 4
	// lz4MaxInput is LZ4_MAX_INPUT_SIZE: the largest block LZ4 accepts.
	lz4MaxInput = 0x7E000000
)

// LZ4 option keys and values (Cassandra >= 3.6), as they appear in a table's
// compression map and in CompressionInfo.db.
const (
	optLZ4Type      = "lz4_compressor_type"
	optLZ4HCLevel   = "lz4_high_compressor_level"
	lz4TypeFast     = "fast"
	lz4TypeHigh     = "high"
	lz4HCLevelDef   = 9
	lz4HCLevelMin   = 1
	lz4HCLevelMax   = 17
	lz4AccelDefault = 1
)

// LZ4Encoder names an LZ4 fast compressor whose exact output Compress
// reproduces. The releases of Cassandra bundle different ones (through
// lz4-java), and a block of the same input differs between them now and
// then (see lz4_r123.go), so a writer picks the one of the release whose
// files it writes (version.Profile.LZ4). It does not apply to LZ4HC
// (lz4_compressor_type "high").
type LZ4Encoder uint8

// The LZ4 encoders.
const (
	// LZ4EncoderDefault leaves the choice to the writer, which uses its
	// version's release's (sstables); NewCompressor without a writer takes
	// it as LZ4Current.
	LZ4EncoderDefault LZ4Encoder = iota
	// LZ4Current is today's LZ4_compress_fast with acceleration 1 (liblz4
	// 1.8.2 and later; the same bytes as LZ4_compress_default): what
	// lz4-java 1.5 and later run through JNI, so what Cassandra 4.0, 4.1
	// and 5.0 write, and what ScyllaDB writes. It runs liblz4 (build tag
	// liblz4) or pierrec/lz4's port of it.
	LZ4Current
	// LZ4R123 is the fast compressor of LZ4 r123, bundled by lz4-java
	// 1.3.0 (and 1.4.x), so what Cassandra 2.2, 3.0 and 3.11 write. Its
	// search for a match stops one position earlier near the end of a
	// block, and inputs of 64 KiB + 11 bytes or more hash 4 bytes instead
	// of 5. It is castable's own Go encoder whatever the Impl (no liblz4
	// release today has it); decoding uses the Impl's decoder.
	LZ4R123
	// LZ4R100 is the fast compressor of LZ4 r100, bundled by lz4-java
	// 1.2.0: what Cassandra 2.1, and 2.2 trunk builds before lz4-java
	// 1.3.0, write. It is r123's but for a search that starts probing
	// further apart a few attempts earlier. Castable's own Go encoder, as
	// LZ4R123.
	LZ4R100
)

// String returns "default", "current", "r123" or "r100".
func (e LZ4Encoder) String() string {
	switch e {
	case LZ4EncoderDefault:
		return "default"
	case LZ4Current:
		return "current"
	case LZ4R123:
		return "r123"
	case LZ4R100:
		return "r100"
	}
	return fmt.Sprintf("LZ4Encoder(%d)", uint8(e))
}

// lz4Settings are the LZ4 options that change the output.
type lz4Settings struct {
	high    bool       // LZ4HC instead of the fast compressor
	hcLevel int        // LZ4HC level, 1..17
	encoder LZ4Encoder // the fast compressor
}

// lz4SettingsFrom reads and validates the LZ4 options as Cassandra's
// LZ4Compressor.create does: the type is "fast" or "high" (exact, lower
// case), the HC level an integer in 1..17, default 9.
func lz4SettingsFrom(opts map[string]string) (lz4Settings, error) {
	s := lz4Settings{hcLevel: lz4HCLevelDef}
	if t, ok := opts[optLZ4Type]; ok {
		switch t {
		case lz4TypeFast:
		case lz4TypeHigh:
			s.high = true
		default:
			return s, invalidOptionf("invalid %s %q for LZ4Compressor (want %q or %q)", optLZ4Type, t, lz4TypeFast, lz4TypeHigh)
		}
	}
	if l, ok := opts[optLZ4HCLevel]; ok {
		n, err := strconv.Atoi(l)
		if err != nil || n < lz4HCLevelMin || n > lz4HCLevelMax {
			return s, invalidOptionf("invalid %s %q for LZ4Compressor (want an integer from %d to %d)", optLZ4HCLevel, l, lz4HCLevelMin, lz4HCLevelMax)
		}
		s.hcLevel = n
	}
	return s, nil
}

// errLZ4Output reports an LZ4 encoder that found its output buffer too
// small, which the buffer sizing rules out.
var errLZ4Output = errors.New("compress: lz4: output buffer too small")

// lz4BlockBound is LZ4_compressBound: the largest raw block for n input bytes.
func lz4BlockBound(n int) int { return n + n/255 + 16 }

// lz4Block is one LZ4 block implementation: encode appends a raw block of
// src to dst (whose capacity is at least lz4BlockBound(len(src))) and
// decode fills dst exactly, returning the decoded size.
type lz4Block interface {
	encode(dst, src []byte) (int, error)
	decode(dst, src []byte) (int, bool)
}

// lz4Compressor frames an lz4Block as LZ4Compressor does. block decodes,
// and encodes unless legacy is set.
type lz4Compressor struct {
	block  lz4Block
	legacy *lz4Legacy
}

func newLZ4(s lz4Settings, impl Impl) (Compressor, error) {
	c := &lz4Compressor{}
	if !s.high {
		switch s.encoder {
		case LZ4R123:
			c.legacy = &lz4Legacy{attempts: r123Attempts}
		case LZ4R100:
			c.legacy = &lz4Legacy{attempts: r100Attempts}
		}
	}
	if impl == ImplC || (impl == ImplAuto && haveLibLZ4) {
		c.block = newLZ4C(s)
	} else {
		c.block = newLZ4Go(s)
	}
	return c, nil
}

func (c *lz4Compressor) Codec() Codec { return LZ4 }

func (c *lz4Compressor) MaxCompressedLen(n int) int { return lz4PrefixLen + lz4BlockBound(n) }

func (c *lz4Compressor) Compress(dst, src []byte) ([]byte, error) {
	if len(src) > lz4MaxInput {
		return nil, fmt.Errorf("compress: lz4: chunk of %d bytes exceeds LZ4's limit of %d", len(src), lz4MaxInput)
	}
	dst = grow(dst, c.MaxCompressedLen(len(src)))
	binary.LittleEndian.PutUint32(dst, uint32(len(src)))
	if len(src) == 0 {
		dst[lz4PrefixLen] = 0 // the empty block: one token, no literals
		return dst[:lz4PrefixLen+1], nil
	}
	var n int
	var err error
	if c.legacy != nil {
		n, err = c.legacy.encode(dst[lz4PrefixLen:], src)
	} else {
		n, err = c.block.encode(dst[lz4PrefixLen:], src)
	}
	if err != nil {
		return nil, err
	}
	return dst[:lz4PrefixLen+n], nil
}

func (c *lz4Compressor) Decompress(dst, src []byte, maxLen int) ([]byte, error) {
	if len(src) < lz4PrefixLen+1 {
		return nil, corruptf(LZ4, "payload of %d bytes is shorter than the 4-byte length prefix and a block", len(src))
	}
	n := binary.LittleEndian.Uint32(src)
	if uint64(n) > uint64(max(maxLen, 0)) {
		return nil, corruptf(LZ4, "length prefix %d exceeds the chunk bound %d", n, maxLen)
	}
	if block := len(src) - lz4PrefixLen; uint64(n) > uint64(maxDecodedLen(block, lz4MaxExpansion)) {
		return nil, corruptf(LZ4, "length prefix %d is more than a block of %d bytes can decode to", n, block)
	}
	if n == 0 {
		// The empty block is the single token 00, as LZ4_decompress_safe
		// requires for a zero-size output. Handled here because pierrec's
		// amd64 decoder faults on a nil dst (its output-end arithmetic
		// wraps around address 0).
		if len(src) != lz4PrefixLen+1 || src[lz4PrefixLen] != 0 {
			return nil, corruptf(LZ4, "length prefix 0 but a %d-byte block that is not the empty block 00", len(src)-lz4PrefixLen)
		}
		return dst[:0], nil
	}
	dst = grow(dst, int(n))
	got, ok := c.block.decode(dst, src[lz4PrefixLen:])
	if !ok {
		return nil, corruptf(LZ4, "invalid LZ4 block of %d bytes (length prefix %d)", len(src)-lz4PrefixLen, n)
	}
	if got != int(n) {
		return nil, corruptf(LZ4, "block decodes to %d bytes but the length prefix says %d", got, n)
	}
	return dst, nil
}

// grow returns dst resized to n bytes, reusing its array when the capacity
// allows.
func grow(dst []byte, n int) []byte {
	if cap(dst) >= n {
		return dst[:n]
	}
	return make([]byte, n)
}

// lz4Go is the pure-Go LZ4 block codec (github.com/pierrec/lz4/v4).
//
// The fast compressor is pierrec's CompressorCCompat, a port of the
// reference LZ4_compress_fast: it produces the same bytes as liblz4's
// LZ4_compress_default (so it reproduces Cassandra's chunks where liblz4
// does) and, on 64 KiB chunks of rows, it is faster than pierrec's default
// Compressor (see BenchmarkLZ4GoCompressors). LZ4HC uses pierrec's
// CompressorHC with search depth 2^(level-1), which approximates the C
// library's levels but does not reproduce its output.
type lz4Go struct {
	high bool
	fast lz4.CompressorCCompat
	hc   lz4.CompressorHC
}

func newLZ4Go(s lz4Settings) *lz4Go {
	g := &lz4Go{high: s.high}
	if s.high {
		g.hc.Level = lz4.CompressionLevel(1 << (s.hcLevel - 1))
	}
	return g
}

func (g *lz4Go) encode(dst, src []byte) (int, error) {
	var n int
	var err error
	if g.high {
		n, err = g.hc.CompressBlock(src, dst)
	} else {
		n, err = g.fast.CompressBlock(src, dst)
	}
	if err == nil && n == 0 {
		// Not reachable with a dst of lz4BlockBound bytes.
		err = errLZ4Output
	}
	return n, err
}

func (g *lz4Go) decode(dst, src []byte) (int, bool) {
	n, err := lz4.UncompressBlock(src, dst)
	return n, err == nil
}
