//go:build amd64 && !purego

package checksummer

import (
	"fmt"
	"os"
	"regexp"
	"testing"
)

// kernelUpdaters returns the assembly kernels this CPU can run, each forced,
// so the tests cover all of them whatever UpdateCRC32 and UpdateAdler32
// pick.
func kernelUpdaters() []updater {
	var out []updater
	if haveCRC32AVX512 {
		out = append(out, updater{"crc32-avx512", CRC32, crc32AVX512})
	}
	if haveCRC32AVX2 {
		out = append(out, updater{"crc32-avx2", CRC32, crc32Update256})
	}
	if useAdler32AVX2 {
		out = append(out, updater{"adler32-avx2", Adler32, func(prev uint32, p []byte) uint32 {
			return adler32Vector(prev, p, true, false)
		}})
	}
	if useAdler32AVX512 {
		out = append(out, updater{"adler32-avx512", Adler32, func(prev uint32, p []byte) uint32 {
			return adler32Vector(prev, p, true, true)
		}})
	}
	if useAdler32VNNI {
		out = append(out, updater{"adler32-vnni", Adler32, adler32VNNI})
	}
	return out
}

// TestCRC32AsmOffsets checks the byte offsets crc32_amd64.s uses against the
// layout constants of crc32FoldConsts.
func TestCRC32AsmOffsets(t *testing.T) {
	src, err := os.ReadFile("crc32_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	for name, words := range map[string]int{
		"DIST_END": crc32DistEnd, "FOLD4096": crc32Fold4096, "FOLD2048": crc32Fold2048, "BARRETT": crc32BarrettConsts,
	} {
		m := regexp.MustCompile(`(?m)^#define ` + name + ` (\d+)`).FindSubmatch(src)
		if m == nil {
			t.Errorf("no #define %s", name)
		} else if got, want := string(m[1]), fmt.Sprint(8*words); got != want {
			t.Errorf("#define %s %s, want %s", name, got, want)
		}
	}
	if p := &crc32Table[0]; uintptrOf(p)%64 != 0 || *crc32Table != crc32FoldConsts {
		t.Errorf("crc32Table is not an aligned copy of crc32FoldConsts")
	}
}
