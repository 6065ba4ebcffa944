package compress

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestTruncatedRealChunks cuts every real chunk at every length: each
// prefix must be rejected with ErrCorrupt, by every implementation.
func TestTruncatedRealChunks(t *testing.T) {
	for _, ch := range loadRealChunks(t) {
		for _, impl := range implsOf(ch.params.Codec) {
			c, err := NewCompressorImpl(ch.params, impl)
			if err != nil {
				t.Fatal(err)
			}
			for n := range len(ch.payload) {
				out, err := c.Decompress(nil, ch.payload[:n], ch.chunkLength)
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("%s impl=%s: truncated to %d of %d bytes: got %d bytes, %v; want ErrCorrupt", ch.name, impl, n, len(ch.payload), len(out), err)
					break
				}
			}
		}
	}
}

// TestFlippedRealChunks flips each byte of every real chunk (all bits, then
// the low bit): decoding must never panic, and whatever decodes must stay
// within the bound. Codecs without an inner checksum (LZ4, Snappy, Zstd
// without one) may decode a damaged chunk to different bytes; the SSTable
// chunk checksum catches those. Deflate's Adler-32 catches every flip that
// changes the content; a flip of the padding bits after the final deflate
// block changes nothing and decodes to the original.
func TestFlippedRealChunks(t *testing.T) {
	for _, ch := range loadRealChunks(t) {
		for _, impl := range implsOf(ch.params.Codec) {
			c, err := NewCompressorImpl(ch.params, impl)
			if err != nil {
				t.Fatal(err)
			}
			orig, err := c.Decompress(nil, ch.payload, ch.chunkLength)
			if err != nil {
				t.Fatal(err)
			}
			buf := bytes.Clone(ch.payload)
			changed := 0
			for i := range buf {
				for _, mask := range []byte{0xFF, 0x01} {
					buf[i] ^= mask
					out, err := c.Decompress(nil, buf, ch.chunkLength)
					buf[i] ^= mask
					switch {
					case err == nil && len(out) > ch.chunkLength:
						t.Fatalf("%s impl=%s: flip at %d decoded %d bytes, over the bound %d", ch.name, impl, i, len(out), ch.chunkLength)
					case err == nil:
						if !bytes.Equal(out, orig) {
							changed++
						}
					case !errors.Is(err, ErrCorrupt):
						t.Fatalf("%s impl=%s: flip at %d: error %v does not wrap ErrCorrupt", ch.name, impl, i, err)
					}
				}
			}
			if ch.params.Codec == Deflate && changed > 0 {
				t.Errorf("%s impl=%s: %d flipped chunks decoded to other content despite zlib's Adler-32", ch.name, impl, changed)
			}
		}
	}
}

// bombs are payloads that declare (or inflate to) far more than the 64 KiB
// bound the tests pass.
type bomb struct {
	name    string
	codec   Codec
	payload []byte
}

func bombs(t *testing.T) []bomb {
	lz4Bomb := binary.LittleEndian.AppendUint32(nil, 0x7FFFFFFF)
	lz4Bomb = append(lz4Bomb, 0x1F, 0x00, 0x01, 0x00) // literal then a match, repeated
	snappyBomb := binary.AppendUvarint(nil, 0xFFFFFFFF)
	snappyBomb = append(snappyBomb, 0x00, 'a')
	// A zstd frame header declaring a 2^40-byte content (FCS field 8 bytes).
	zstdBomb := []byte{0x28, 0xB5, 0x2F, 0xFD, 0xE0} // FHD: 8-byte FCS, single segment
	zstdBomb = binary.LittleEndian.AppendUint64(zstdBomb, 1<<40)
	zstdBomb = append(zstdBomb, 0x01, 0x00, 0x00)
	// A genuine zlib stream of 4 MiB of zeros: inflating it must stop at
	// the bound.
	d, _ := NewCompressorImpl(Params{Codec: Deflate}, ImplGo)
	deflateBomb, err := d.Compress(nil, make([]byte, 4<<20))
	if err != nil {
		t.Fatal(err)
	}
	// A streamed zstd frame (no content size in its header) of 4 MiB of
	// zeros: the decoder's memory bound must stop it.
	// Once with the default 8 MiB window (refused by the window bound),
	// once with a 32 KiB one (stopped by the output bound).
	streamed := func(opts ...zstd.EOption) []byte {
		var zbuf bytes.Buffer
		zw, err := zstd.NewWriter(&zbuf, opts...)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(make([]byte, 4<<20))
		zw.Close()
		var h zstd.Header
		if err := h.Decode(zbuf.Bytes()); err != nil || h.HasFCS {
			t.Fatalf("streamed zstd frame: header %+v, %v; want one without content size", h, err)
		}
		return zbuf.Bytes()
	}
	return []bomb{
		{"lz4-prefix", LZ4, lz4Bomb},
		{"snappy-varint", Snappy, snappyBomb},
		{"zstd-content-size", Zstd, zstdBomb},
		{"zstd-streamed", Zstd, streamed()},
		{"zstd-streamed-small-window", Zstd, streamed(zstd.WithWindowSize(1 << 15))},
		{"deflate-zeros", Deflate, deflateBomb},
		{"none-long", None, make([]byte, 65537)},
	}
}

// TestDecompressionBombs requires a chunk that claims or produces more than
// maxLen to be rejected with ErrCorrupt, allocating an amount set by the
// bound and the codec's block size (zstd decodes up to a 128 KiB block
// before it sees the limit), not by the size the chunk claims (2 GiB to
// 1 TiB here) or would inflate to (4 MiB).
func TestDecompressionBombs(t *testing.T) {
	const bound = 65536
	const maxBombAlloc = 4*bound + 256<<10
	for _, bm := range bombs(t) {
		codec, payload := bm.codec, bm.payload
		for _, impl := range implsOf(codec) {
			c, err := NewCompressorImpl(Params{Codec: codec}, impl)
			if err != nil {
				t.Fatal(err)
			}
			c.Decompress(nil, payload, bound) // warm up lazily built state
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = c.Decompress(nil, payload, bound)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s/%s: got %v, want ErrCorrupt", bm.name, impl, err)
			}
			t.Logf("%s/%s: %v", bm.name, impl, err)
			if got := after.TotalAlloc - before.TotalAlloc; got > maxBombAlloc {
				t.Errorf("%s/%s: rejecting the bomb allocated %d bytes, more than %d", bm.name, impl, got, maxBombAlloc)
			}
		}
	}
}

// TestLZ4LengthMismatch: a block that decodes to fewer bytes than its
// prefix claims is corrupt (Cassandra's "Decompressed lengths mismatch").
func TestLZ4LengthMismatch(t *testing.T) {
	for _, impl := range implsOf(LZ4) {
		c, _ := NewCompressorImpl(Params{Codec: LZ4}, impl)
		comp, _ := c.Compress(nil, []byte("hello, world"))
		binary.LittleEndian.PutUint32(comp, 13)
		if _, err := c.Decompress(nil, comp, 100); !errors.Is(err, ErrCorrupt) {
			t.Errorf("impl=%s: prefix 13 for 12 bytes: got %v, want ErrCorrupt", impl, err)
		}
		binary.LittleEndian.PutUint32(comp, 11)
		if _, err := c.Decompress(nil, comp, 100); !errors.Is(err, ErrCorrupt) {
			t.Errorf("impl=%s: prefix 11 for 12 bytes: got %v, want ErrCorrupt", impl, err)
		}
	}
}

// TestDeflateTrailer: a wrong Adler-32 trailer or bytes after it are corrupt.
func TestDeflateTrailer(t *testing.T) {
	src := rowsChunk(1000)
	for _, impl := range implsOf(Deflate) {
		c, _ := NewCompressorImpl(Params{Codec: Deflate}, impl)
		comp, _ := c.Compress(nil, src)
		bad := bytes.Clone(comp)
		bad[len(bad)-1] ^= 1
		if _, err := c.Decompress(nil, bad, len(src)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("impl=%s: wrong Adler-32: got %v, want ErrCorrupt", impl, err)
		}
		if _, err := c.Decompress(nil, append(bytes.Clone(comp), 0), len(src)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("impl=%s: trailing byte: got %v, want ErrCorrupt", impl, err)
		}
		raw := bytes.Clone(comp)
		raw[0] = 0x79 // CM 9
		if _, err := c.Decompress(nil, raw, len(src)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("impl=%s: bad zlib header: got %v, want ErrCorrupt", impl, err)
		}
	}
}
