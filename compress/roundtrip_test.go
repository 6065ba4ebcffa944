package compress

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

var allCodecs = []Codec{None, LZ4, Snappy, Deflate, Zstd}

// roundTripSizes are the input sizes of the round-trip tests: the edge
// cases, an odd size, and chunk lengths (4 KiB, 16 KiB, the 64 KiB default
// and 128 KiB, past LZ4's 64 KiB small-input table).
var roundTripSizes = []int{0, 1, 514, 4096, 16384, 65536, 131072}

// TestRoundTrip compresses and decompresses every input kind and size with
// every codec and implementation, into dst buffers that hold stale bytes,
// and decodes each output with every other implementation of the codec.
func TestRoundTrip(t *testing.T) {
	for _, codec := range allCodecs {
		impls := implsOf(codec)
		comps := make([]Compressor, len(impls))
		for i, impl := range impls {
			c, err := NewCompressorImpl(Params{Codec: codec}, impl)
			if err != nil {
				t.Fatal(err)
			}
			comps[i] = c
		}
		for _, kind := range inputKinds {
			for _, size := range roundTripSizes {
				src := kind.gen(size)
				for i, c := range comps {
					name := fmt.Sprintf("codec=%s/impl=%s/%s/size=%d", codec, impls[i], kind.name, size)
					bound := c.MaxCompressedLen(size)
					dst := bytes.Repeat([]byte{0xAA}, bound+8)
					comp, err := c.Compress(dst[:7], src)
					if err != nil {
						t.Fatalf("%s: Compress: %v", name, err)
					}
					if len(comp) > bound {
						t.Errorf("%s: compressed to %d bytes, MaxCompressedLen says %d", name, len(comp), bound)
					}
					if len(comp) > 0 && &comp[0] != &dst[0] {
						t.Errorf("%s: Compress did not reuse a dst of sufficient capacity", name)
					}
					comp = bytes.Clone(comp)
					for j, d := range comps {
						out, err := d.Decompress(bytes.Repeat([]byte{0x55}, 3), comp, size)
						if err != nil {
							t.Fatalf("%s: Decompress with impl %s: %v", name, impls[j], err)
						}
						if !bytes.Equal(out, src) {
							t.Fatalf("%s: impl %s decompressed %d bytes that differ from the %d-byte input", name, impls[j], len(out), len(src))
						}
					}
					if size > 0 {
						_, err := c.Decompress(nil, comp, size-1)
						if !errors.Is(err, ErrCorrupt) {
							t.Errorf("%s: Decompress with a bound one below the size: got %v, want ErrCorrupt", name, err)
						}
					}
				}
			}
		}
	}
}

// TestEmptyChunkEncoding pins the encodings of an empty chunk where
// Cassandra's are known.
func TestEmptyChunkEncoding(t *testing.T) {
	want := map[Codec][]byte{
		LZ4:    {0, 0, 0, 0, 0}, // components.md §5.3: the 9-byte empty trailing chunk's payload
		Snappy: {0},
		None:   {},
	}
	if haveZlib {
		want[Deflate] = []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01} // zlib compress2(level 6) of ""
	}
	for codec, w := range want {
		for _, impl := range implsOf(codec) {
			if codec == Deflate && impl == ImplGo {
				continue
			}
			c, _ := NewCompressorImpl(Params{Codec: codec}, impl)
			got, err := c.Compress(nil, nil)
			if err != nil || !bytes.Equal(got, w) {
				t.Errorf("%s/%s: empty chunk = % x, %v; want % x", codec, impl, got, err, w)
			}
		}
	}
}

// TestLZ4GoMatchesC requires the pure-Go compressor (pierrec's CCompat) to
// write exactly what liblz4's LZ4_compress_default writes, on every input.
func TestLZ4GoMatchesC(t *testing.T) {
	if !haveLibLZ4 {
		t.Skip("liblz4 not built in (build tag liblz4 with cgo)")
	}
	g, _ := NewCompressorImpl(Params{Codec: LZ4}, ImplGo)
	c, _ := NewCompressorImpl(Params{Codec: LZ4}, ImplC)
	for _, kind := range inputKinds {
		for _, size := range append(roundTripSizes, 13, 65547, 65548, 200000) {
			src := kind.gen(size)
			a, _ := g.Compress(nil, src)
			b, _ := c.Compress(nil, src)
			if !bytes.Equal(a, b) {
				t.Errorf("%s/size=%d: Go and C LZ4 differ: %s", kind.name, size, testdata.FirstDiff(a, b))
			}
		}
	}
}

// TestCodecOptionsRoundTrip covers the codec options that change the
// encoder: LZ4HC at several levels and Zstd levels.
func TestCodecOptionsRoundTrip(t *testing.T) {
	cases := []Params{
		{Codec: LZ4, Options: map[string]string{"lz4_compressor_type": "high"}},
		{Codec: LZ4, Options: map[string]string{"lz4_compressor_type": "high", "lz4_high_compressor_level": "1"}},
		{Codec: LZ4, Options: map[string]string{"lz4_compressor_type": "high", "lz4_high_compressor_level": "17"}},
		{Codec: LZ4, Options: map[string]string{"lz4_compressor_type": "fast", "lz4_high_compressor_level": "3"}},
		{Codec: Zstd, Options: map[string]string{"compression_level": "1"}},
		{Codec: Zstd, Options: map[string]string{"compression_level": "-5"}},
		{Codec: Zstd, Options: map[string]string{"compression_level": "9"}},
		{Codec: Zstd, Options: map[string]string{"compression_level": "19"}},
	}
	src := rowsChunk(65536)
	for _, p := range cases {
		for _, impl := range implsOf(p.Codec) {
			c, err := NewCompressorImpl(p, impl)
			if err != nil {
				t.Fatalf("%v: %v", p.Options, err)
			}
			comp, err := c.Compress(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.Decompress(nil, comp, len(src))
			if err != nil || !bytes.Equal(out, src) {
				t.Fatalf("%s %v impl=%s: round trip failed: %v", p.Codec, p.Options, impl, err)
			}
			t.Logf("%s %v impl=%s: %d -> %d bytes", p.Codec, p.Options, impl, len(src), len(comp))
		}
	}
}

// TestSteadyStateAllocations requires Compress and Decompress to allocate
// nothing once dst has capacity.
func TestSteadyStateAllocations(t *testing.T) {
	src := rowsChunk(65536)
	for _, codec := range allCodecs {
		for _, impl := range implsOf(codec) {
			c, _ := NewCompressorImpl(Params{Codec: codec}, impl)
			cdst := make([]byte, 0, c.MaxCompressedLen(len(src)))
			comp, _ := c.Compress(nil, src)
			ddst := make([]byte, 0, len(src))
			// Warm up lazily built state (zstd's encoder).
			c.Compress(cdst, src)
			c.Decompress(ddst, comp, len(src))
			if n := testing.AllocsPerRun(20, func() { c.Compress(cdst, src) }); n != 0 {
				t.Errorf("%s/%s: Compress allocates %.1f times per call", codec, impl, n)
			}
			if n := testing.AllocsPerRun(20, func() { c.Decompress(ddst, comp, len(src)) }); n != 0 {
				t.Errorf("%s/%s: Decompress allocates %.1f times per call", codec, impl, n)
			}
		}
	}
}

// TestLZ4EncodersRoundTrip compresses every input kind and size, and every
// size around the 64 KiB + 11 table switch, with every LZ4 encoder and
// implementation, decodes it with every decoder, and requires no
// allocation once dst has capacity.
func TestLZ4EncodersRoundTrip(t *testing.T) {
	sizes := append(slices.Clone(roundTripSizes), 12, 13, 14, 65546, 65547, 65548, 200000)
	for _, e := range []LZ4Encoder{LZ4EncoderDefault, LZ4Current, LZ4R123, LZ4R100} {
		for _, impl := range implsOf(LZ4) {
			c, err := NewCompressorImpl(Params{Codec: LZ4, LZ4Encoder: e}, impl)
			if err != nil {
				t.Fatal(err)
			}
			for _, kind := range inputKinds {
				for _, size := range sizes {
					src := kind.gen(size)
					comp, err := c.Compress(nil, src)
					if err != nil {
						t.Fatalf("encoder=%s impl=%s %s/%d: %v", e, impl, kind.name, size, err)
					}
					if len(comp) > c.MaxCompressedLen(size) {
						t.Errorf("encoder=%s impl=%s %s/%d: %d bytes, over MaxCompressedLen", e, impl, kind.name, size, len(comp))
					}
					for _, dimpl := range implsOf(LZ4) {
						d, _ := NewCompressorImpl(Params{Codec: LZ4}, dimpl)
						out, err := d.Decompress(nil, comp, size)
						if err != nil || !bytes.Equal(out, src) {
							t.Fatalf("encoder=%s impl=%s %s/%d: decoded by impl=%s: %v", e, impl, kind.name, size, dimpl, err)
						}
					}
				}
			}
			src := rowsChunk(65536)
			dst := make([]byte, 0, c.MaxCompressedLen(len(src)))
			if n := testing.AllocsPerRun(20, func() { c.Compress(dst, src) }); n != 0 {
				t.Errorf("encoder=%s impl=%s: Compress allocates %.1f times per call", e, impl, n)
			}
		}
	}
	if _, err := NewCompressor(Params{Codec: LZ4, LZ4Encoder: LZ4R100 + 1}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("an unknown LZ4 encoder: %v, want ErrInvalidOptions", err)
	}
}
