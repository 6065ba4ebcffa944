package prefetch

import (
	"testing"
	"unsafe"
)

// Prefetching is a hint: any address of live memory, and nil or empty
// input, must be accepted without effect on the data.
func TestPrefetchIsHarmless(t *testing.T) {
	b := []byte("hello, world, a buffer longer than one cache line of sixty-four bytes")
	Bytes(b)
	Bytes(nil)
	Bytes(b[:0])
	x := 42
	Pointer(unsafe.Pointer(&x))
	Pointer(nil)
	Range(unsafe.Pointer(&b[3]), uintptr(len(b)-3))
	Range(unsafe.Pointer(&x), 0)
	Range(nil, 100)
	if string(b[:5]) != "hello" || x != 42 {
		t.Fatal("prefetch changed memory")
	}
}

func BenchmarkPointer(b *testing.B) {
	x := make([]int64, 1024)
	for i := 0; b.Loop(); i++ {
		Pointer(unsafe.Pointer(&x[i&1023]))
	}
}
