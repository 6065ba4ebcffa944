package main

import (
	"hash/crc32"
	"math/rand/v2"
	"strings"

	"github.com/castable-db/castable/checksummer"
	"github.com/zeebo/xxh3"
)

// sink keeps every measured result alive so no call can be optimised away.
var sink uint32

// perfTest is one micro-benchmark of the crc_test fixture.
type perfTest struct {
	// name is the full test name as printed ("crc_test.perf_…").
	name string
	// prepare builds the loop for one buffer size (the second length, for
	// combine tests). It returns ok = false with a reason when the
	// implementation is not built in.
	prepare func(f *fixture) (loop func(n int), ok bool, reason string)
	// about describes the code measured, for --list and the notes.
	about func() string
	// standIn is non-empty when the code measured substitutes for the one
	// the name promises (e.g. zlib's crc32 without the zlib tag).
	standIn func() string
}

// fixture holds the data of one buffer size, built once per test and size,
// like ScyllaDB's crc_test: two random buffers and their checksums.
type fixture struct {
	size        int
	data, data2 []byte
	crc1, crc2  uint32 // CRC-32 of data and data2
	adl1, adl2  uint32 // Adler-32 of data and data2
}

func newFixture(size int) *fixture {
	r := rand.New(rand.NewPCG(2018, 11))
	f := &fixture{size: size, data: make([]byte, size), data2: make([]byte, size)}
	for i := range f.data {
		f.data[i], f.data2[i] = byte(r.Uint32()), byte(r.Uint32())
	}
	f.crc1, f.crc2 = crc32.ChecksumIEEE(f.data), crc32.ChecksumIEEE(f.data2)
	c := checksummer.Default(checksummer.Adler32)
	f.adl1, f.adl2 = c.Update(1, f.data), c.Update(1, f.data2)
	return f
}

// checksumTest measures Update(Init, data) of the named checksummer.
func checksumTest(test, impl string) perfTest {
	return perfTest{
		name: test,
		prepare: func(f *fixture) (func(int), bool, string) {
			c, ok := checksummer.Lookup(impl)
			if !ok {
				return nil, false, checksummer.Unavailable()[impl]
			}
			data, init := f.data, c.Init()
			return func(n int) {
				var s uint32
				for range n {
					s ^= c.Update(init, data)
				}
				sink ^= s
			}, true, ""
		},
		about: func() string {
			if c, ok := checksummer.Lookup(impl); ok {
				return checksummer.Describe(c)
			}
			return "unavailable: " + checksummer.Unavailable()[impl]
		},
	}
}

// combineTest measures the named combine with len2 = the size.
func combineTest(test, impl string) perfTest {
	return perfTest{
		name: test,
		prepare: func(f *fixture) (func(int), bool, string) {
			c, ok := checksummer.LookupCombine(impl)
			if !ok {
				return nil, false, checksummer.UnavailableCombines()[impl]
			}
			a, b := f.crc1, f.crc2
			if c.Algorithm == checksummer.Adler32 {
				a, b = f.adl1, f.adl2
			}
			combine, len2 := c.Combine, int64(f.size)
			return func(n int) {
				var s uint32
				for i := range n {
					// a varies with i so that no call can be hoisted.
					s ^= combine(a^uint32(i&1), b, len2)
				}
				sink ^= s
			}, true, ""
		},
		about: func() string {
			if c, ok := checksummer.LookupCombine(impl); ok {
				return c.Describe
			}
			return "unavailable: " + checksummer.UnavailableCombines()[impl]
		},
	}
}

// perfTests are the tests in the order they run: ScyllaDB's perf_checksum
// set (zlib, libdeflate, ours, Adler-32, combines), two references from
// other storage engines (hardware CRC-32C, XXH3), and the individual CRC-32
// candidates plus the fixed-length combiner.
func perfTests() []perfTest {
	zlib := checksumTest("crc_test.perf_zlib_crc32_checksum", "zlib-crc32")
	zlib.standIn = func() string {
		c, _ := checksummer.Lookup("zlib-crc32")
		if d := checksummer.Describe(c); !strings.HasPrefix(d, "system zlib") {
			return d
		}
		return ""
	}
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	return []perfTest{
		zlib,
		checksumTest("crc_test.perf_deflate_crc32_checksum", "libdeflate-crc32"),
		checksumTest("crc_test.perf_crc32_checksum", checksummer.Default(checksummer.CRC32).Name()),
		checksumTest("crc_test.perf_adler_checksum", "adler32-stdlib"),
		checksumTest("crc_test.perf_deflate_adler_checksum", "libdeflate-adler32"),
		checksumTest("crc_test.perf_fast_adler_checksum", checksummer.Default(checksummer.Adler32).Name()),
		combineTest("crc_test.perf_zlib_crc32_combine", "zlib-crc32"),
		combineTest("crc_test.perf_gf2_crc32_combine", "crc32-gf2"),
		combineTest("crc_test.perf_fast_crc32_combine", "crc32"),
		combineTest("crc_test.perf_adler_combine", "adler32"),
		{
			name: "crc_test.perf_crc32c_checksum",
			prepare: func(f *fixture) (func(int), bool, string) {
				data := f.data
				return func(n int) {
					var s uint32
					for range n {
						s ^= crc32.Update(0, castagnoli, data)
					}
					sink ^= s
				}, true, ""
			},
			about: func() string { return "Go hash/crc32 Castagnoli (SSE4.2 CRC32 instruction), as LevelDB/RocksDB use" },
		},
		{
			name: "crc_test.perf_xxh3_checksum",
			prepare: func(f *fixture) (func(int), bool, string) {
				data := f.data
				return func(n int) {
					var s uint64
					for range n {
						s ^= xxh3.Hash(data)
					}
					sink ^= uint32(s)
				}, true, ""
			},
			about: func() string { return "github.com/zeebo/xxh3 Hash (64-bit), for reference" },
		},
		checksumTest("crc_test.perf_stdlib_crc32_checksum", "crc32-stdlib"),
		checksumTest("crc_test.perf_klauspost_crc32_checksum", "crc32-klauspost"),
		{
			name: "crc_test.perf_fixed_crc32_combine",
			prepare: func(f *fixture) (func(int), bool, string) {
				c := checksummer.NewCRC32Combiner(int64(f.size))
				a, b := f.crc1, f.crc2
				return func(n int) {
					var s uint32
					for i := range n {
						s ^= c.Combine(a^uint32(i&1), b)
					}
					sink ^= s
				}, true, ""
			},
			about: func() string { return "checksummer.CRC32Combiner: 4×256 tables for one fixed len2" },
		},
	}
}
