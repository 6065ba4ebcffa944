package checksummer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// addRealSeeds adds the Data.db bytes of a few real sstables (read at test
// time, never copied into the tree) as seeds, when the test data exists.
func addRealSeeds(f *testing.F, add func(data []byte)) {
	root := testdata.Root()
	for _, rel := range []string{
		"cassandra/3.x/uncompressed/simple/mc-1-big-Data.db",
		"cassandra/3.x/lz4/partition_key_with_values_of_different_types/mc-1-big-Data.db",
		"cassandra/compressed/la-1-big-Data.db",
		"cassandra/composite/la-1-big-Data.db",
		"mc-write/many_range_tombstones/mc-1-big-Data.db",
	} {
		if b, err := os.ReadFile(filepath.Join(root, rel)); err == nil {
			add(b)
		}
	}
}

// FuzzUpdate checks every implementation against the standard library on
// arbitrary input, continued from an arbitrary previous value after an
// arbitrary split.
func FuzzUpdate(f *testing.F) {
	f.Add([]byte("123456789"), uint16(4), uint32(0))
	f.Add(make([]byte, 300), uint16(129), uint32(0xffffffff))
	addRealSeeds(f, func(b []byte) { f.Add(b, uint16(len(b)/3), uint32(1)) })
	us := updaters()
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, prev uint32) {
		split := int(cut) % (len(data) + 1)
		for _, u := range us {
			p := prev
			if u.alg == Adler32 { // a valid running Adler-32 has both halves below 65521
				p = (prev>>16%adler32Mod)<<16 | prev&0xffff%adler32Mod
			}
			want := reference(u.alg, p, data)
			if got := u.update(p, data); got != want {
				t.Fatalf("%s(%#08x, %d bytes) = %#08x, want %#08x", u.name, p, len(data), got, want)
			}
			if got := u.update(u.update(p, data[:split]), data[split:]); got != want {
				t.Fatalf("%s split at %d = %#08x, want %#08x", u.name, split, got, want)
			}
		}
	})
}

// FuzzCombine checks every combine implementation on arbitrary A and B
// against the checksum of A‖B, and on arbitrary huge lengths against the
// GF(2)-matrix reference.
func FuzzCombine(f *testing.F) {
	f.Add([]byte("castable"), uint16(3), int64(0xdeadbeef))
	f.Add([]byte{}, uint16(0), int64(0x7fffffffffffffff))
	addRealSeeds(f, func(b []byte) { f.Add(b, uint16(len(b)/2), int64(len(b))) })
	impls := map[Algorithm][]CombineImpl{CRC32: combineImpls(CRC32), Adler32: combineImpls(Adler32)}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, hugeLen int64) {
		split := int(cut) % (len(data) + 1)
		a, b := data[:split], data[split:]
		for alg, list := range impls {
			sumA, sumB := reference(alg, initOf(alg), a), reference(alg, initOf(alg), b)
			want := reference(alg, initOf(alg), data)
			for _, c := range list {
				if got := c.Combine(sumA, sumB, int64(len(b))); got != want {
					t.Fatalf("%s: split %d of %d: got %#08x, want %#08x", c.Name, split, len(data), got, want)
				}
			}
		}
		want := CRC32CombineGF2(0x12381237, 0x73747474, hugeLen)
		for _, c := range impls[CRC32] {
			if c.Name == "crc32-fixed" {
				continue // building a 4 KiB table per fuzz input is the slow part; covered above
			}
			if got := c.Combine(0x12381237, 0x73747474, hugeLen); got != want {
				t.Fatalf("%s: len %#x: got %#08x, want %#08x", c.Name, hugeLen, got, want)
			}
		}
	})
}

// FuzzFastVsGeneric compares every fast Update — UpdateCRC32 and
// UpdateAdler32 as dispatched, and each assembly kernel forced — with the
// package's pure-Go code on arbitrary input placed at an arbitrary
// misalignment, from an arbitrary initial checksum, whole and split in two.
func FuzzFastVsGeneric(f *testing.F) {
	f.Add([]byte("123456789"), uint8(0), uint16(4), uint32(0))
	f.Add(make([]byte, 1030), uint8(63), uint16(513), uint32(0xffffffff))
	f.Add(make([]byte, 5000), uint8(1), uint16(1024), uint32(0x12345678))
	addRealSeeds(f, func(b []byte) { f.Add(b, uint8(len(b)), uint16(len(b)/3), uint32(len(b))) })
	us := fastUpdaters()
	f.Fuzz(func(t *testing.T, data []byte, off uint8, cut uint16, prev uint32) {
		raw := make([]byte, len(data)+128)
		start := int(-uintptrOf(&raw[0])&63) + int(off%64)
		p := raw[start : start+len(data)]
		copy(p, data)
		split := int(cut) % (len(p) + 1)
		for _, u := range us {
			pv := prev
			if u.alg == Adler32 {
				pv = (prev>>16%adler32Mod)<<16 | prev&0xffff%adler32Mod
			}
			want := generic(u.alg)(pv, p)
			if got := u.update(pv, p); got != want {
				t.Fatalf("%s(%#08x, %d bytes at offset %d) = %#08x, want %#08x", u.name, pv, len(p), off%64, got, want)
			}
			if got := u.update(u.update(pv, p[:split]), p[split:]); got != want {
				t.Fatalf("%s split at %d of %d = %#08x, want %#08x", u.name, split, len(p), got, want)
			}
		}
	})
}
