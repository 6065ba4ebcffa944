//go:build linux

package checksummer

import (
	"math/rand/v2"
	"syscall"
	"testing"
)

// TestGuardPages runs every fast Update on buffers that start right after,
// or end right before, a page the process cannot read. The kernels' masked
// loads must never fault there (the test would crash) and must not let
// masked-off bytes reach such a page at all (the CPU then takes a slow
// assist on every call; BenchmarkCRC32 and BenchmarkAdler32 have an
// align=guard case for that).
func TestGuardPages(t *testing.T) {
	const page = 4096
	mem, err := syscall.Mmap(-1, 0, 4*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	if err := syscall.Mprotect(mem[3*page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	r := rand.New(rand.NewPCG(19, 20))
	body := mem[page : 3*page]
	copy(body, randomBytes(r, len(body)))
	var lengths []int
	for n := 0; n <= 300; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, laneCutoffs()...)
	for _, u := range fastUpdaters() {
		ref := generic(u.alg)
		for _, n := range lengths {
			if n > len(body) {
				continue
			}
			prev := randomPrev(r, u.alg)
			for _, p := range [][]byte{body[:n], body[len(body)-n:]} {
				if got, want := u.update(prev, p), ref(prev, p); got != want {
					t.Fatalf("%s: len %d at a guard page: got %#08x, want %#08x", u.name, n, got, want)
				}
			}
		}
	}
}

// guardedBuffer returns n random bytes that start right after a page the
// process cannot read, unmapped when tb's test ends; nil when the system
// refuses the mapping.
func guardedBuffer(tb testing.TB, n int) []byte {
	const page = 4096
	size := (n+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	tb.Cleanup(func() { syscall.Munmap(mem) })
	if syscall.Mprotect(mem[:page], syscall.PROT_NONE) != nil {
		return nil
	}
	p := mem[page : page+n]
	copy(p, randomBytes(rand.New(rand.NewPCG(21, 22)), n))
	return p
}
