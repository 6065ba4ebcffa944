package compress

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/s2"
	"github.com/pierrec/lz4/v4"
)

var benchCodecs = []Codec{LZ4, Snappy, Deflate, Zstd}

// benchImpls lists the implementations to benchmark for one direction:
// impl=c only where that direction really runs C code.
func benchImpls(c Codec, compress bool) []Impl {
	impls := []Impl{ImplGo}
	switch {
	case c == LZ4 && haveLibLZ4,
		c == Deflate && compress && haveZlib,
		c == Deflate && !compress && haveLibDeflate:
		impls = append(impls, ImplC)
	}
	return impls
}

// BenchmarkCompress measures Compress on 64 KiB of rows (the default chunk)
// and on a 4 KiB chunk, reusing dst.
func BenchmarkCompress(b *testing.B) {
	for _, codec := range benchCodecs {
		for _, impl := range benchImpls(codec, true) {
			for _, size := range []int{4096, 65536} {
				b.Run(fmt.Sprintf("codec=%s/impl=%s/size=%d", codec, impl, size), func(b *testing.B) {
					c, err := NewCompressorImpl(Params{Codec: codec}, impl)
					if err != nil {
						b.Fatal(err)
					}
					src := rowsChunk(size)
					dst := make([]byte, 0, c.MaxCompressedLen(size))
					out, _ := c.Compress(dst, src)
					b.SetBytes(int64(size))
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						if _, err := c.Compress(dst, src); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(src))/float64(len(out)), "ratio")
				})
			}
		}
	}
}

// BenchmarkDecompress measures Decompress of the same chunks into a reused
// dst; SetBytes counts uncompressed bytes.
func BenchmarkDecompress(b *testing.B) {
	for _, codec := range benchCodecs {
		for _, impl := range benchImpls(codec, false) {
			for _, size := range []int{4096, 65536} {
				b.Run(fmt.Sprintf("codec=%s/impl=%s/size=%d", codec, impl, size), func(b *testing.B) {
					c, err := NewCompressorImpl(Params{Codec: codec}, impl)
					if err != nil {
						b.Fatal(err)
					}
					src := rowsChunk(size)
					comp, err := c.Compress(nil, src)
					if err != nil {
						b.Fatal(err)
					}
					dst := make([]byte, 0, size)
					b.SetBytes(int64(size))
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						if _, err := c.Decompress(dst, comp, size); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkLZ4GoCompressors compares pierrec/lz4's default block compressor
// with its port of the C library's LZ4_compress_fast (CCompat), which lz4Go
// uses.
func BenchmarkLZ4GoCompressors(b *testing.B) {
	src := rowsChunk(65536)
	dst := make([]byte, lz4.CompressBlockBound(len(src)))
	var def lz4.Compressor
	var cc lz4.CompressorCCompat
	for _, bc := range []struct {
		name string
		f    func() (int, error)
	}{
		{"default", func() (int, error) { return def.CompressBlock(src, dst) }},
		{"ccompat", func() (int, error) { return cc.CompressBlock(src, dst) }},
	} {
		b.Run("impl="+bc.name+"/size=65536", func(b *testing.B) {
			n, _ := bc.f()
			b.ReportMetric(float64(len(src))/float64(n), "ratio")
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for range b.N {
				if _, err := bc.f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSnappyEncoders compares the two Snappy block encoders: s2's
// EncodeSnappy and golang/snappy's Encode.
func BenchmarkSnappyEncoders(b *testing.B) {
	src := rowsChunk(65536)
	dst := make([]byte, snappy.MaxEncodedLen(len(src)))
	for _, bc := range []struct {
		name string
		f    func() []byte
	}{
		{"s2", func() []byte { return s2.EncodeSnappy(dst, src) }},
		{"golang-snappy", func() []byte { return snappy.Encode(dst, src) }},
	} {
		b.Run("impl="+bc.name+"/size=65536", func(b *testing.B) {
			b.ReportMetric(float64(len(src))/float64(len(bc.f())), "ratio")
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for range b.N {
				bc.f()
			}
		})
	}
}

// BenchmarkSnappyDecoders compares s2.Decode with the strict Snappy decoders.
func BenchmarkSnappyDecoders(b *testing.B) {
	src := rowsChunk(65536)
	comp := snappy.Encode(nil, src)
	dst := make([]byte, len(src))
	for _, bc := range []struct {
		name string
		f    func() ([]byte, error)
	}{
		{"s2", func() ([]byte, error) { return s2.Decode(dst, comp) }},
		{"golang-snappy", func() ([]byte, error) { return snappy.Decode(dst, comp) }},
	} {
		b.Run("impl="+bc.name+"/size=65536", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for range b.N {
				if _, err := bc.f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLZ4Encoders compares the releases' LZ4 fast compressors side by
// side: today's LZ4_compress_fast through liblz4 (impl=c-current, with the
// tag liblz4) and pierrec/lz4 (impl=go-current), and castable's Go
// encoders of LZ4 r123 (Cassandra 2.2–3.11) and r100, on chunks of rows
// and of CSV lines, reusing dst.
func BenchmarkLZ4Encoders(b *testing.B) {
	type enc struct {
		name string
		e    LZ4Encoder
		impl Impl
	}
	encs := []enc{{"go-current", LZ4Current, ImplGo}, {"go-r123", LZ4R123, ImplGo}, {"go-r100", LZ4R100, ImplGo}}
	if haveLibLZ4 {
		encs = append([]enc{{"c-current", LZ4Current, ImplC}}, encs...)
	}
	for _, data := range []struct {
		name string
		gen  func(n int) []byte
	}{
		{"rows", rowsChunk},
		{"csv", func(n int) []byte { return corpusCSV(rand.New(rand.NewPCG(4, 4)), n) }},
	} {
		for _, size := range []int{4096, 16384, 65536, 131072} {
			src := data.gen(size)
			for _, e := range encs {
				b.Run(fmt.Sprintf("data=%s/size=%d/impl=%s", data.name, size, e.name), func(b *testing.B) {
					c, err := NewCompressorImpl(Params{Codec: LZ4, LZ4Encoder: e.e}, e.impl)
					if err != nil {
						b.Fatal(err)
					}
					dst := make([]byte, 0, c.MaxCompressedLen(size))
					out, _ := c.Compress(dst, src)
					b.ReportMetric(float64(len(src))/float64(len(out)), "ratio")
					b.SetBytes(int64(size))
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						if _, err := c.Compress(dst, src); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkLZ4EncodersPaired times the LZ4 encoders against each other in
// alternation, so that the drift of a shared machine cancels: each of b.N
// rounds compresses the chunk 200 KB worth of times with every encoder, in
// an order rotating by round, and the metrics are each encoder's median
// time per chunk over the rounds (ns/chunk-ENCODER) and its median ratio to
// go-r123's time in the same round (x-ENCODER). Run it with -benchtime
// 200x; ns/op is the round and says nothing by itself.
func BenchmarkLZ4EncodersPaired(b *testing.B) {
	type enc struct {
		name string
		e    LZ4Encoder
		impl Impl
	}
	encs := []enc{{"go-r123", LZ4R123, ImplGo}, {"go-current", LZ4Current, ImplGo}}
	if haveLibLZ4 {
		encs = append(encs, enc{"c-current", LZ4Current, ImplC})
	}
	for _, data := range []struct {
		name string
		gen  func(n int) []byte
	}{
		{"rows", rowsChunk},
		{"csv", func(n int) []byte { return corpusCSV(rand.New(rand.NewPCG(4, 4)), n) }},
	} {
		for _, size := range []int{4096, 16384, 65536, 131072} {
			src := data.gen(size)
			b.Run(fmt.Sprintf("data=%s/size=%d", data.name, size), func(b *testing.B) {
				cs := make([]Compressor, len(encs))
				for i, e := range encs {
					var err error
					if cs[i], err = NewCompressorImpl(Params{Codec: LZ4, LZ4Encoder: e.e}, e.impl); err != nil {
						b.Fatal(err)
					}
				}
				dst := make([]byte, 0, cs[0].MaxCompressedLen(size))
				reps := max(1, 200000/size)
				perChunk := make([][]float64, len(encs))
				ratio := make([][]float64, len(encs))
				d := make([]time.Duration, len(encs))
				for round := range b.N {
					for k := range encs {
						i := (k + round) % len(encs)
						t0 := time.Now()
						for range reps {
							if _, err := cs[i].Compress(dst, src); err != nil {
								b.Fatal(err)
							}
						}
						d[i] = time.Since(t0)
					}
					for i := range encs {
						perChunk[i] = append(perChunk[i], float64(d[i])/float64(reps))
						ratio[i] = append(ratio[i], float64(d[i])/float64(d[0]))
					}
				}
				for i, e := range encs {
					slices.Sort(perChunk[i])
					slices.Sort(ratio[i])
					b.ReportMetric(perChunk[i][len(perChunk[i])/2], "ns/chunk-"+e.name)
					if i > 0 {
						b.ReportMetric(ratio[i][len(ratio[i])/2], "x-"+e.name)
					}
				}
			})
		}
	}
}
