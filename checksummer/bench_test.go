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
