//go:build amd64 && !purego

package checksummer

import (
	"fmt"
	"math/rand/v2"
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

// TestDispatchBranches runs UpdateCRC32 and UpdateAdler32 with every
// start-up choice this CPU allows switched off in turn, so the assembly
// dispatch's tail jumps to the Go fallbacks (taken on CPUs without AVX-512
// or VNNI) are exercised here too. The choices are restored afterwards; the
// test must not run in parallel with others.
func TestDispatchBranches(t *testing.T) {
	saved := [...]bool{useCRC32AVX512, useCRC32AVX2, useAdler32VNNI, useAdler32AVX512, useAdler32AVX2}
	defer func() {
		useCRC32AVX512, useCRC32AVX2, useAdler32VNNI, useAdler32AVX512, useAdler32AVX2 =
			saved[0], saved[1], saved[2], saved[3], saved[4]
	}()
	buf := randomBytes(rand.New(rand.NewPCG(23, 24)), 3<<19)
	check := func(what string) {
		t.Helper()
		for _, n := range []int{0, 1, 3, 64, 255, 256, 514, 4096, 65536, 512<<10 + 1, len(buf)} {
			p := buf[:n]
			if got, want := UpdateCRC32(0x5eed, p), crc32Slicing8(0x5eed, p); got != want {
				t.Fatalf("%s: UpdateCRC32 len %d = %#08x, want %#08x", what, n, got, want)
			}
			if got, want := UpdateAdler32(0x00420042, p), adler32Generic(0x00420042, p); got != want {
				t.Fatalf("%s: UpdateAdler32 len %d = %#08x, want %#08x", what, n, got, want)
			}
		}
	}
	check("as chosen")
	useCRC32AVX512, useAdler32VNNI = false, false
	useCRC32AVX2 = haveCRC32AVX2
	check("without AVX-512 CRC-32 and VNNI")
	useCRC32AVX2, useAdler32AVX512 = false, false
	check("without VPCLMULQDQ and AVX-512BW")
	useAdler32AVX2 = false
	check("plain")
}
