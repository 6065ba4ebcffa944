package checksummer

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

var benchSink uint32

// BenchmarkChecksum measures every Update implementation on the sizes that
// matter: a typical compressed 4 KiB chunk (514 B), an uncompressed chunk
// (4 KiB), and a CRC.db chunk (64 KiB).
func BenchmarkChecksum(b *testing.B) {
	buf := randomBytes(rand.New(rand.NewPCG(1, 1)), 65536)
	for _, u := range updaters() {
		for _, size := range []int{514, 4096, 65536} {
			p := buf[:size]
			b.Run("impl="+u.name+"/size="+strconv.Itoa(size), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				var s uint32
				for b.Loop() {
					s ^= u.update(0, p)
				}
				benchSink = s
			})
		}
	}
}

// BenchmarkCRC32 and BenchmarkAdler32 measure every Update of one
// algorithm — the registered checksummers, the forced assembly kernels and
// the pure-Go code — as impl=<name>/size=<n>/align=<a>: the input starts a
// bytes past a 64-byte boundary, or, for align=guard (linux), right after a
// page the process cannot read (where a careless masked load would take a
// slow assist on every call).
func BenchmarkCRC32(b *testing.B) { benchmarkAlgorithm(b, CRC32) }

// BenchmarkAdler32 is BenchmarkCRC32 for Adler-32.
func BenchmarkAdler32(b *testing.B) { benchmarkAlgorithm(b, Adler32) }

func benchmarkAlgorithm(b *testing.B, alg Algorithm) {
	sizes := []int{8, 64, 514, 4096, 65536}
	buf := alignedBuffer(rand.New(rand.NewPCG(1, 1)), 65536+64)
	guard := guardedBuffer(b, 65536)
	var impls []updater
	for _, u := range updaters() {
		if u.alg == alg {
			impls = append(impls, u)
		}
	}
	for _, u := range impls {
		for _, size := range sizes {
			for _, align := range []string{"0", "1", "63", "guard"} {
				var p []byte
				switch align {
				case "guard":
					if guard == nil {
						continue
					}
					p = guard[:size]
				default:
					off, _ := strconv.Atoi(align)
					p = buf[off : off+size]
				}
				b.Run("impl="+u.name+"/size="+strconv.Itoa(size)+"/align="+align, func(b *testing.B) {
					b.SetBytes(int64(size))
					b.ReportAllocs()
					var s uint32
					for b.Loop() {
						s ^= u.update(initOf(alg), p)
					}
					benchSink = s
				})
			}
		}
	}
}

// BenchmarkCombine measures every combine implementation for second lengths
// of 514 B and 64 KiB, plus the fixed-length CRC32Combiner. SetBytes is the
// second length, so MB/s compares directly with feeding those bytes again.
func BenchmarkCombine(b *testing.B) {
	impls := append(Combines(), CombineImpl{Name: "crc32-fixed"})
	for _, c := range impls {
		for _, n := range []int64{514, 65536} {
			combine := c.Combine
			if c.Name == "crc32-fixed" {
				fixed := NewCRC32Combiner(n)
				combine = func(a, b uint32, _ int64) uint32 { return fixed.Combine(a, b) }
			}
			b.Run("impl="+c.Name+"/len="+strconv.FormatInt(n, 10), func(b *testing.B) {
				b.SetBytes(n)
				b.ReportAllocs()
				var s uint32
				for i := 0; b.Loop(); i++ {
					// The first value varies so nothing can be hoisted.
					s ^= combine(0x12381237^uint32(i&1), 0x73747474, n)
				}
				benchSink = s
			})
		}
	}
}

// BenchmarkCRC32CombinerBuild measures building a fixed-length combiner.
func BenchmarkCRC32CombinerBuild(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchSink ^= NewCRC32Combiner(65536).tab[0][1]
	}
}

// BenchmarkCall measures what reaching the default checksummers costs:
// call=direct calls UpdateCRC32/UpdateAdler32, call=interface goes through
// the registry's Checksummer (what the writers and perf_checksum do), on
// 64-byte aligned inputs.
func BenchmarkCall(b *testing.B) {
	buf := alignedBuffer(rand.New(rand.NewPCG(1, 2)), 65536)
	for _, alg := range []struct {
		name string
		c    Checksummer
	}{
		{"crc32", Default(CRC32)},
		{"adler32", Default(Adler32)},
	} {
		for _, size := range []int{64, 514, 65536} {
			p := buf[:size]
			b.Run("impl="+alg.name+"/call=direct/size="+strconv.Itoa(size), func(b *testing.B) {
				b.SetBytes(int64(size))
				var s uint32
				if alg.name == "crc32" { // static calls, no func value
					for b.Loop() {
						s ^= UpdateCRC32(0, p)
					}
				} else {
					for b.Loop() {
						s ^= UpdateAdler32(1, p)
					}
				}
				benchSink = s
			})
			b.Run("impl="+alg.name+"/call=interface/size="+strconv.Itoa(size), func(b *testing.B) {
				b.SetBytes(int64(size))
				c := alg.c
				init, s := c.Init(), uint32(0)
				for b.Loop() {
					s ^= c.Update(init, p)
				}
				benchSink = s
			})
		}
	}
}
