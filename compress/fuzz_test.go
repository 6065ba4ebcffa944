package compress

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// fuzzMaxLen is the bound the decoder fuzz targets pass: twice the default
// chunk length.
const fuzzMaxLen = 2 * DefaultChunkLength

// addDecoderSeeds seeds f with every real chunk of codec (read from the
// shared test data at test time, when it is present) and with our own
// encodings of a few inputs.
func addDecoderSeeds(f *testing.F, codec Codec) {
	if _, err := os.Stat(testdata.Root()); err == nil {
		for _, st := range realSSTables {
			for _, ch := range loadTableChunks(f, st) {
				if ch.params.Codec == codec {
					f.Add(bytes.Clone(ch.payload))
				}
			}
		}
	}
	c, err := NewCompressorImpl(Params{Codec: codec}, ImplGo)
	if err != nil {
		f.Fatal(err)
	}
	for _, src := range [][]byte{nil, []byte("a"), rowsChunk(514), bytes.Repeat([]byte("abc"), 1000)} {
		comp, err := c.Compress(nil, src)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(comp)
	}
}

// fuzzDecompress decodes arbitrary payloads with every implementation of
// codec: no panic, errors wrap ErrCorrupt, output within the bound, the
// bound enforced, and implementations that both accept a payload agree on
// its content.
func fuzzDecompress(f *testing.F, codec Codec) {
	addDecoderSeeds(f, codec)
	impls := implsOf(codec)
	comps := make([]Compressor, len(impls))
	for i, impl := range impls {
		c, err := NewCompressorImpl(Params{Codec: codec}, impl)
		if err != nil {
			f.Fatal(err)
		}
		comps[i] = c
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		var first []byte
		firstOK := false
		for i, c := range comps {
			out, err := c.Decompress(nil, payload, fuzzMaxLen)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("impl=%s: error %v does not wrap ErrCorrupt", impls[i], err)
				}
				continue
			}
			if len(out) > fuzzMaxLen {
				t.Fatalf("impl=%s: %d bytes out, over the bound %d", impls[i], len(out), fuzzMaxLen)
			}
			if len(out) > 0 {
				if _, err := c.Decompress(nil, payload, len(out)-1); err == nil {
					t.Fatalf("impl=%s: accepted %d bytes of output with a bound of %d", impls[i], len(out), len(out)-1)
				}
			}
			if firstOK && !bytes.Equal(out, first) {
				t.Fatalf("impl=%s decodes the payload differently from impl=%s", impls[i], impls[0])
			}
			if !firstOK {
				first, firstOK = out, true
			}
		}
	})
}

// FuzzLZ4Decompress fuzzes the LZ4Compressor chunk decoder.
func FuzzLZ4Decompress(f *testing.F) { fuzzDecompress(f, LZ4) }

// FuzzSnappyDecompress fuzzes the SnappyCompressor chunk decoder.
func FuzzSnappyDecompress(f *testing.F) { fuzzDecompress(f, Snappy) }

// FuzzDeflateDecompress fuzzes the DeflateCompressor chunk decoder.
func FuzzDeflateDecompress(f *testing.F) { fuzzDecompress(f, Deflate) }

// FuzzZstdDecompress fuzzes the ZstdCompressor chunk decoder.
func FuzzZstdDecompress(f *testing.F) { fuzzDecompress(f, Zstd) }

// FuzzRoundTrip compresses arbitrary input with every codec and
// implementation and requires it back, within MaxCompressedLen, and the Go
// and C LZ4 compressors to agree byte for byte.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("hello, hello, hello, hello"))
	f.Add(rowsChunk(4096))
	f.Add(bytes.Repeat([]byte{0}, 70000))
	type impl struct {
		name string
		c    Compressor
	}
	var all [][]impl
	for _, codec := range allCodecs {
		var list []impl
		for _, i := range implsOf(codec) {
			c, err := NewCompressorImpl(Params{Codec: codec}, i)
			if err != nil {
				f.Fatal(err)
			}
			list = append(list, impl{codec.String() + "/" + i.String(), c})
		}
		all = append(all, list)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, list := range all {
			var outs [][]byte
			for _, im := range list {
				comp, err := im.c.Compress(nil, src)
				if err != nil {
					t.Fatalf("%s: Compress: %v", im.name, err)
				}
				if bound := im.c.MaxCompressedLen(len(src)); len(comp) > bound {
					t.Fatalf("%s: %d bytes compressed, MaxCompressedLen %d", im.name, len(comp), bound)
				}
				out, err := im.c.Decompress(nil, comp, len(src))
				if err != nil || !bytes.Equal(out, src) {
					t.Fatalf("%s: round trip failed: %v", im.name, err)
				}
				outs = append(outs, comp)
			}
			if list[0].c.Codec() == LZ4 && len(outs) == 2 && !bytes.Equal(outs[0], outs[1]) {
				t.Fatalf("Go and C LZ4 differ: %s", testdata.FirstDiff(outs[0], outs[1]))
			}
		}
	})
}

// FuzzLZ4Encoders compresses arbitrary input with every LZ4 encoder (the
// releases' fast compressors) and requires it back from every decoder,
// within MaxCompressedLen.
func FuzzLZ4Encoders(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("aaaaaaaabaaa\n"))
	f.Add([]byte("hello, hello, hello, hello"))
	f.Add(rowsChunk(4096))
	f.Add(bytes.Repeat([]byte("abcdefgh"), 70000/8))
	var decoders []Compressor
	for _, impl := range implsOf(LZ4) {
		d, err := NewCompressorImpl(Params{Codec: LZ4}, impl)
		if err != nil {
			f.Fatal(err)
		}
		decoders = append(decoders, d)
	}
	var encoders []Compressor
	for _, e := range []LZ4Encoder{LZ4Current, LZ4R123, LZ4R100} {
		c, err := NewCompressorImpl(Params{Codec: LZ4, LZ4Encoder: e}, ImplGo)
		if err != nil {
			f.Fatal(err)
		}
		encoders = append(encoders, c)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, c := range encoders {
			comp, err := c.Compress(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			if bound := c.MaxCompressedLen(len(src)); len(comp) > bound {
				t.Fatalf("%d bytes compressed, MaxCompressedLen %d", len(comp), bound)
			}
			for _, d := range decoders {
				out, err := d.Decompress(nil, comp, len(src))
				if err != nil || !bytes.Equal(out, src) {
					t.Fatalf("round trip of %d bytes failed: %v", len(src), err)
				}
			}
		}
	})
}
