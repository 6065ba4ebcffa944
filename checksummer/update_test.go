package checksummer

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// goldenVectors are known CRC-32 (zlib crc32) and Adler-32 (zlib adler32)
// values, computed independently (Python's zlib module).
var goldenVectors = []struct {
	in         []byte
	crc, adler uint32
}{
	{[]byte(""), 0x00000000, 0x00000001},
	{[]byte("a"), 0xe8b7be43, 0x00620062},
	{[]byte("abc"), 0x352441c2, 0x024d0127},
	{[]byte("message digest"), 0x20159d7f, 0x29750586},
	{[]byte("abcdefghijklmnopqrstuvwxyz"), 0x4c2750bd, 0x90860b20},
	{[]byte("123456789"), 0xcbf43926, 0x091e01de},
	{[]byte("The quick brown fox jumps over the lazy dog"), 0x414fa339, 0x5bdc0fda},
	{[]byte("Wikipedia"), 0xadaac02e, 0x11e60398},
	{make([]byte, 32), 0x190a55ad, 0x00200001},
	{bytes.Repeat([]byte{0xff}, 32), 0xff6cab0b, 0x0e2e1fe1},
	{bytes.Repeat([]byte{0xff}, 5552), 0x726528c1, 0xf18f9b8c},
	{bytes.Repeat([]byte{0xff}, 5553), 0x1311970e, 0x8e299c8b},
	{bytes.Repeat([]byte("a"), 1000000), 0xdc25bfbc, 0x15d870f9},
	{bytes.Repeat([]byte{0xff}, 1<<20), 0x956bac74, 0x8e88ef11},
	{bytes.Repeat([]byte{0xff}, 3<<20), 0xaeecf75a, 0x3016cd4f},
}

func TestGoldenVectors(t *testing.T) {
	for _, u := range updaters() {
		init := uint32(0)
		if u.alg == Adler32 {
			init = 1
		}
		for _, v := range goldenVectors {
			want := v.crc
			if u.alg == Adler32 {
				want = v.adler
			}
			if got := u.update(init, v.in); got != want {
				t.Errorf("%s(%.12q…, %d bytes) = %#08x, want %#08x", u.name, v.in, len(v.in), got, want)
			}
		}
	}
}

// TestUpdateCutLengths compares every implementation with the standard
// library at every cut-off length, from a fresh start and continuing a
// non-trivial previous value.
func TestUpdateCutLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lengths := cutLengths()
	buf := randomBytes(r, lengths[len(lengths)-1])
	for _, u := range updaters() {
		for _, n := range lengths {
			p := buf[:n]
			for _, prev := range []uint32{initOf(u.alg), reference(u.alg, initOf(u.alg), []byte("castable"))} {
				if got, want := u.update(prev, p), reference(u.alg, prev, p); got != want {
					t.Fatalf("%s: len %d prev %#08x: got %#08x, want %#08x", u.name, n, prev, got, want)
				}
			}
		}
	}
}

// TestUpdateMisaligned starts the input 1..63 bytes into a buffer and splits
// it at several points: Update(Update(init, A), B) must equal the checksum
// of A‖B.
func TestUpdateMisaligned(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := randomBytes(r, 64+8192)
	for _, u := range updaters() {
		for off := 1; off < 64; off++ {
			for _, n := range []int{1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 514, 4096, 8192} {
				p := buf[off : off+n]
				want := reference(u.alg, initOf(u.alg), p)
				if got := u.update(initOf(u.alg), p); got != want {
					t.Fatalf("%s: offset %d len %d: got %#08x, want %#08x", u.name, off, n, got, want)
				}
				for _, cut := range []int{0, 1, n / 3, n / 2, n - 1, n} {
					if cut < 0 || cut > n {
						continue
					}
					got := u.update(u.update(initOf(u.alg), p[:cut]), p[cut:])
					if got != want {
						t.Fatalf("%s: offset %d len %d split at %d: got %#08x, want %#08x", u.name, off, n, cut, got, want)
					}
				}
			}
		}
	}
}

// TestAdler32Saturated feeds all-0xFF inputs, the worst case for every
// deferred modulo, across block boundaries (adler32Block) and with a
// previous value whose sums are at their maximum.
func TestAdler32Saturated(t *testing.T) {
	ff := bytes.Repeat([]byte{0xff}, 2*adler32Block+200)
	const maxPrev = (adler32Mod-1)<<16 | (adler32Mod - 1)
	for _, u := range updaters() {
		if u.alg != Adler32 {
			continue
		}
		for _, n := range []int{64, 5552, 65536, adler32Block - 1, adler32Block, adler32Block + 1, adler32Block + 64, 2*adler32Block + 200} {
			for _, prev := range []uint32{1, maxPrev} {
				if got, want := u.update(prev, ff[:n]), reference(Adler32, prev, ff[:n]); got != want {
					t.Errorf("%s: %d × 0xFF, prev %#08x: got %#08x, want %#08x", u.name, n, prev, got, want)
				}
			}
		}
	}
}

func initOf(alg Algorithm) uint32 {
	if alg == Adler32 {
		return 1
	}
	return 0
}

func ExampleCombineOrFeed() {
	c := Default(CRC32)
	chunks := [][]byte{[]byte("first chunk, "), []byte("second chunk")}
	full := c.Init()
	for _, chunk := range chunks {
		sum := c.Update(c.Init(), chunk) // the chunk's own checksum, e.g. for CRC.db
		full = CombineOrFeed(c, full, sum, chunk)
	}
	fmt.Printf("%#08x %#08x\n", full, c.Update(c.Init(), []byte("first chunk, second chunk")))
	// Output: 0x47997122 0x47997122
}
