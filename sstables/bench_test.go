package sstables

import (
	"encoding/binary"
	"fmt"
	"github.com/castable-db/castable/sstables/version"
	"io"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
)

// BenchmarkDataWriter writes 64 MiB of row-like bytes through the chunked
// writer (CRC-32, 64 KiB chunks) in 4 KiB writes, as a row serializer
// would, to io.Discard.
func BenchmarkDataWriter(b *testing.B) {
	const size = 64 << 20
	data := rowBytes(size, 42)
	for _, codec := range []compress.Codec{compress.LZ4, compress.None} {
		for _, jobs := range []int{1, 2} {
			b.Run(fmt.Sprintf("codec=%v/jobs=%d", codec, jobs), func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				var ratio float64
				for b.Loop() {
					w, err := NewDataWriter(io.Discard, DataWriterOptions{Compression: compress.Params{Codec: codec}, Jobs: jobs})
					if err != nil {
						b.Fatal(err)
					}
					for p := data; len(p) > 0; p = p[min(len(p), 4096):] {
						if _, err := w.Write(p[:min(len(p), 4096)]); err != nil {
							b.Fatal(err)
						}
					}
					res, err := w.Finish()
					if err != nil {
						b.Fatal(err)
					}
					ratio = res.CompressionRatio()
				}
				b.ReportMetric(ratio, "ratio")
			})
		}
	}
}

// BenchmarkDataWriterSteadyState measures allocations per chunk once a
// writer is running: one writer for all iterations, one 64 KiB chunk per
// iteration.
func BenchmarkDataWriterSteadyState(b *testing.B) {
	data := rowBytes(64<<10, 43)
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("codec=lz4/jobs=%d", jobs), func(b *testing.B) {
			w, err := NewDataWriter(io.Discard, DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4}, Jobs: jobs})
			if err != nil {
				b.Fatal(err)
			}
			// Let the offsets slice grow beyond what the loop needs.
			for range 1 << 12 {
				w.Write(data)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := w.Write(data); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			w.Abort()
		})
	}
}

func benchKeys(n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = binary.BigEndian.AppendUint64(nil, uint64(i)*0x9e3779b97f4a7c15)
	}
	return keys
}

// BenchmarkBloomAdd adds 1M keys to an fp=0.01 filter, hashing each once
// (AddHash with the Murmur3 halves the token computation yields).
func BenchmarkBloomAdd(b *testing.B) {
	keys := benchKeys(1 << 20)
	b.Run("impl=addhash/keys=1M", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f, _ := NewBloomFilter(int64(len(keys)), 0.01, version.MustParse("mc"))
			for _, k := range keys {
				h1, h2 := dht.Murmur3Hash(k)
				f.AddHash(h1, h2)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
	})
	// AddHashes on precomputed halves: the filter's part of a flush.
	hashes := make([]uint64, 0, 2*len(keys))
	for _, k := range keys {
		h1, h2 := dht.Murmur3Hash(k)
		hashes = append(hashes, h1, h2)
	}
	b.Run("impl=addhashes/keys=1M", func(b *testing.B) {
		b.ReportAllocs()
		f, _ := NewBloomFilter(int64(len(keys)), 0.01, version.MustParse("mc"))
		for b.Loop() {
			for i := 0; i < len(hashes); i += 512 {
				f.AddHashes(hashes[i:min(i+512, len(hashes))])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
	})
	// The same with Java's % computed by the division instruction, for
	// comparison with the reciprocal (fastMod) AddHash uses.
	b.Run("impl=divide/keys=1M", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f, _ := NewBloomFilter(int64(len(keys)), 0.01, version.MustParse("mc"))
			for _, k := range keys {
				h1, h2 := dht.Murmur3Hash(k)
				base, inc, c := int64(h2), int64(h1), f.capacity
				for range f.hashCount {
					bit := base % c
					if bit < 0 {
						bit = -bit
					}
					f.words[bit>>6] |= 1 << (uint(bit) & 63)
					base += inc
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
	})
}

// BenchmarkHLLOffer offers 1M keys (hash2_64 included) and serializes.
func BenchmarkHLLOffer(b *testing.B) {
	keys := benchKeys(1 << 20)
	b.Run("keys=1M", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h := NewHyperLogLog()
			for _, k := range keys {
				h.OfferKey(k)
			}
			h.AppendTo(nil)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
	})
	b.Run("keys=5000/sparse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h := NewHyperLogLog()
			for _, k := range keys[:5000] {
				h.OfferKey(k)
			}
			h.AppendTo(nil)
		}
	})
}

// BenchmarkSummaryAdd feeds 1M partitions (interval 128) to the builder.
func BenchmarkSummaryAdd(b *testing.B) {
	keys := benchKeys(1 << 20)
	b.Run("keys=1M", func(b *testing.B) {
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			s := NewSummaryBuilder(SummaryOptions{})
			for i, k := range keys {
				s.Add(k, int64(i)*40)
			}
			out, _ = s.AppendTo(out[:0])
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
	})
}

// BenchmarkDataReader reads 16 MiB back sequentially.
func BenchmarkDataReader(b *testing.B) {
	const size = 16 << 20
	data := rowBytes(size, 44)
	for _, codec := range []compress.Codec{compress.LZ4, compress.None} {
		file, res := writeData(b, data, DataWriterOptions{Compression: compress.Params{Codec: codec}, Jobs: 2}, 1)
		b.Run(fmt.Sprintf("codec=%v/op=stream", codec), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			buf := make([]byte, 32<<10)
			for b.Loop() {
				r, err := NewDataReader(bytesReaderAt(file), int64(len(file)), "x", res.CompressionInfo, res.CRC, DataReaderOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r.NewStream(0)}, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("codec=%v/op=verify", codec), func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			for b.Loop() {
				r, _ := NewDataReader(bytesReaderAt(file), int64(len(file)), "x", res.CompressionInfo, res.CRC, DataReaderOptions{})
				if _, err := r.Verify(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// BenchmarkHLLMerge merges sketches as compaction's key count estimate
// does: into a reused sketch (Reset, Merge: no allocation), and the
// MergeHyperLogLogs chain of 8 inputs (the result is allocated).
func BenchmarkHLLMerge(b *testing.B) {
	normal1, normal2 := hllOf(1, 0, 100000), hllOf(1, 50000, 100000)
	sparse1, sparse2 := hllOf(2, 0, 3000), hllOf(2, 1500, 3000)
	b.Run("normal+normal", func(b *testing.B) {
		acc := normal1.Clone()
		b.ReportAllocs()
		for b.Loop() {
			acc.Merge(normal2)
		}
	})
	b.Run("normal+sparse", func(b *testing.B) {
		acc := normal1.Clone()
		b.ReportAllocs()
		for b.Loop() {
			acc.Merge(sparse1)
		}
	})
	b.Run("sparse+sparse", func(b *testing.B) {
		acc := NewHyperLogLog()
		b.ReportAllocs()
		for b.Loop() {
			acc.Reset()
			acc.Merge(sparse1)
			acc.Merge(sparse2)
		}
	})
	var eight []*HyperLogLog
	for i := range uint64(8) {
		eight = append(eight, hllOf(3, i*20000, 40000))
	}
	b.Run("chain8/normal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			MergeHyperLogLogs(eight...)
		}
	})
	var small []*HyperLogLog
	for i := range uint64(8) {
		small = append(small, hllOf(4, i*300, 600))
	}
	b.Run("chain8/sparse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			MergeHyperLogLogs(small...)
		}
	})
}

// BenchmarkHLLCardinality estimates a NORMAL and a SPARSE sketch (no
// allocation).
func BenchmarkHLLCardinality(b *testing.B) {
	for _, c := range []struct {
		name string
		h    *HyperLogLog
	}{{"normal", hllOf(1, 0, 100000)}, {"normal/bias", hllOf(1, 0, 20000)}, {"sparse", hllOf(1, 0, 5000)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.h.Cardinality()
			}
		})
	}
}

// BenchmarkApproximateKeyCount is the whole estimate for 8 inputs, their
// sketches decoded from Statistics.db bytes.
func BenchmarkApproximateKeyCount(b *testing.B) {
	for _, c := range []struct {
		name string
		n    uint64
	}{{"normal", 40000}, {"sparse", 600}} {
		var in []KeyCountInput
		for i := range uint64(8) {
			in = append(in, keyCountInput("x", hllOf(5, i*c.n/2, c.n).AppendTo(nil), 1))
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ApproximateKeyCount(KeyCountCassandra50, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
