package compress

import (
	"bytes"
	"fmt"
	"github.com/castable-db/castable/internal/testdata"
	"slices"
	"strings"
	"testing"
)

// TestRealChunksDecompress decompresses every chunk of every real
// compressed SSTable with every implementation built in: the chunk
// checksum (CRC-32 for mc/me, Adler-32 for la) must match, each chunk must
// decode to its expected length (chunk length, the remainder for the last
// one, 0 for an empty trailing chunk), the total must equal dataLength, and
// all implementations must agree.
func TestRealChunksDecompress(t *testing.T) {
	for _, st := range realSSTables {
		chunks := loadTableChunks(t, st)
		codec := chunks[0].params.Codec
		var ref [][]byte
		for _, impl := range implsOf(codec) {
			t.Run(fmt.Sprintf("%s/impl=%s", st.dir, impl), func(t *testing.T) {
				c, err := NewCompressorImpl(chunks[0].params, impl)
				if err != nil {
					t.Fatal(err)
				}
				var total int64
				badSums := 0
				var outs [][]byte
				for _, ch := range chunks {
					if !ch.checksumOK {
						badSums++
						if !st.badChecksums {
							t.Errorf("%s: stored checksum does not match the payload", ch.name)
						}
					}
					out, err := c.Decompress(nil, ch.payload, ch.chunkLength)
					if err != nil {
						t.Fatalf("%s: %v", ch.name, err)
					}
					if len(out) != ch.wantLen {
						t.Errorf("%s: decompressed to %d bytes, want %d", ch.name, len(out), ch.wantLen)
					}
					total += int64(len(out))
					outs = append(outs, out)
				}
				if total != chunks[0].dataLength {
					t.Errorf("total decompressed %d bytes, CompressionInfo.db dataLength %d", total, chunks[0].dataLength)
				}
				if st.badChecksums && badSums == 0 {
					t.Errorf("the deliberately corrupted checksums all matched")
				}
				if ref == nil {
					ref = outs
				} else {
					for i := range outs {
						if !bytes.Equal(outs[i], ref[i]) {
							t.Errorf("%s: impl %s decodes differently from impl go", chunks[i].name, impl)
						}
					}
				}
			})
		}
	}
}

// lz4WriterEncoder returns the LZ4 encoder of the release that wrote a
// real chunk: Cassandra 2.2 and 3.x bundle lz4-java 1.3.0 (LZ4 r123); the
// early-la file of composite/ was written in February 2015 by pre-release
// Cassandra trunk, whose lz4-java 1.2.0 bundled LZ4 r100 (its first match
// comes one byte later than r123's, token f1 b1 … against f2 b0 …, after a
// literal run long enough for r100's earlier skip step).
func lz4WriterEncoder(chunk string) LZ4Encoder {
	if strings.HasPrefix(chunk, "composite ") {
		return LZ4R100
	}
	return LZ4R123
}

// TestLZ4ReproducesCassandra recompresses every decompressed Cassandra LZ4
// chunk with the encoder of the release that wrote it and requires
// Cassandra's payload back, byte for byte, with every implementation built
// in; it logs how many today's LZ4_compress_fast reproduces too.
func TestLZ4ReproducesCassandra(t *testing.T) {
	chunks := loadRealChunks(t)
	for _, impl := range implsOf(LZ4) {
		t.Run("impl="+impl.String(), func(t *testing.T) {
			current, err := NewCompressorImpl(Params{Codec: LZ4, LZ4Encoder: LZ4Current}, impl)
			if err != nil {
				t.Fatal(err)
			}
			same, total := 0, 0
			for _, ch := range chunks {
				if ch.params.Codec != LZ4 {
					continue
				}
				total++
				c, err := NewCompressorImpl(Params{Codec: LZ4, LZ4Encoder: lz4WriterEncoder(ch.name)}, impl)
				if err != nil {
					t.Fatal(err)
				}
				out, err := c.Decompress(nil, ch.payload, ch.chunkLength)
				if err != nil {
					t.Fatalf("%s: %v", ch.name, err)
				}
				re, err := c.Compress(nil, out)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(re, ch.payload) {
					t.Errorf("%s: not reproduced by %s: %s", ch.name, lz4WriterEncoder(ch.name), testdata.FirstDiff(re, ch.payload))
				}
				if re, _ := current.Compress(nil, out); bytes.Equal(re, ch.payload) {
					same++
				}
			}
			t.Logf("impl=%s: each writer's encoder reproduced all %d Cassandra LZ4 chunks, today's LZ4_compress_fast %d", impl, total, same)
			if total != 15 {
				t.Errorf("%d LZ4 chunks found in the test data, want 15", total)
			}
		})
	}
}

// TestDeflateReproducesCassandra: with zlib built in, Cassandra's Deflate
// chunk must come back byte for byte; the Go deflater's stream only has to
// round-trip (checked by TestRealChunksDecompress and the round-trip tests).
func TestDeflateReproducesCassandra(t *testing.T) {
	if !haveZlib {
		t.Skip("zlib not built in (build tag zlib with cgo): Go's deflater is not expected to reproduce Cassandra's bytes")
	}
	testReproduces(t, Deflate, ImplC)
}

// TestSnappyReproducesCassandra: golang/snappy's encoder reproduces
// Cassandra's Snappy chunk.
func TestSnappyReproducesCassandra(t *testing.T) {
	testReproduces(t, Snappy, ImplGo)
}

func testReproduces(t *testing.T, codec Codec, impl Impl) {
	c, err := NewCompressorImpl(Params{Codec: codec}, impl)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ch := range loadRealChunks(t) {
		if ch.params.Codec != codec {
			continue
		}
		n++
		out, err := c.Decompress(nil, ch.payload, ch.chunkLength)
		if err != nil {
			t.Fatalf("%s: %v", ch.name, err)
		}
		re, err := c.Compress(nil, out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(re, ch.payload) {
			t.Errorf("%s: not reproduced: %s", ch.name, testdata.FirstDiff(re, ch.payload))
		}
	}
	if n == 0 {
		t.Fatalf("no %s chunk in the test data", codec)
	}
}

// TestRealCompressionInfoOptions checks the class names and options of the
// real CompressionInfo.db files map back to codecs and to the bytes
// OptionsForCompressionInfo would write.
func TestRealCompressionInfoOptions(t *testing.T) {
	for _, st := range realSSTables {
		ch := loadTableChunks(t, st)[0]
		p := ch.params
		if p.Codec.ClassName() == "" {
			t.Errorf("%s: codec %s has no class name", st.dir, p.Codec)
		}
		var got []string
		for _, o := range p.OptionsForCompressionInfo() {
			got = append(got, o.Key+"="+o.Value)
		}
		want := []string(nil)
		if p.Codec == Zstd {
			want = []string{"compression_level=1"} // written by ScyllaDB
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: options %q, want %q", st.dir, got, want)
		}
		if _, err := NewCompressor(p); err != nil {
			t.Errorf("%s: %v", st.dir, err)
		}
	}
}
