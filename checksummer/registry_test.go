package checksummer

import (
	"slices"
	"testing"
)

func TestRegistry(t *testing.T) {
	all := All()
	var names []string
	for _, c := range all {
		names = append(names, c.Name())
		got, ok := Lookup(c.Name())
		if !ok || got.Name() != c.Name() {
			t.Errorf("Lookup(%q) = %v, %v", c.Name(), got, ok)
		}
		if Describe(c) == "" {
			t.Errorf("%s: empty description", c.Name())
		}
		if want := initOf(c.Algorithm()); c.Init() != want {
			t.Errorf("%s: Init() = %d, want %d", c.Name(), c.Init(), want)
		}
		if _, missing := Unavailable()[c.Name()]; missing {
			t.Errorf("%s is both available and listed as unavailable", c.Name())
		}
	}
	for _, want := range []string{"crc32", "crc32-stdlib", "crc32-klauspost", "zlib-crc32", "adler32", "adler32-stdlib"} {
		if !slices.Contains(names, want) {
			t.Errorf("All() lacks %q (has %v)", want, names)
		}
	}
	// libdeflate is either built in or reported missing, never faked.
	for _, name := range []string{"libdeflate-crc32", "libdeflate-adler32"} {
		_, ok := Lookup(name)
		reason, missing := Unavailable()[name]
		if ok == missing {
			t.Errorf("%s: available %v, unavailable %v (%q): exactly one must hold", name, ok, missing, reason)
		}
	}
	for _, name := range []string{"zlib-crc32", "zlib-adler32"} {
		_, ok := LookupCombine(name)
		_, missing := UnavailableCombines()[name]
		if ok == missing || ok != zlibBuiltIn {
			t.Errorf("combine %s: available %v, unavailable %v, zlib built in %v", name, ok, missing, zlibBuiltIn)
		}
	}
	if _, ok := Lookup("no-such-checksum"); ok {
		t.Error("Lookup of an unknown name succeeded")
	}
	if Default(CRC32).Name() != "crc32" || Default(Adler32).Name() != "adler32" || Default(0) != nil {
		t.Errorf("Default: %v %v %v", Default(CRC32), Default(Adler32), Default(0))
	}
	if CRC32.String() != "crc32" || Adler32.String() != "adler32" || Algorithm(9).String() != "unknown" {
		t.Error("Algorithm.String")
	}
}

// TestCombineOrFeed checks both branches give the checksum of the whole.
func TestCombineOrFeed(t *testing.T) {
	data := []byte("0123456789abcdefghijklmnopqrstuvwxyz-castable-chunks")
	for _, c := range All() {
		full := c.Init()
		for i := 0; i < len(data); i += 7 {
			chunk := data[i:min(i+7, len(data))]
			full = CombineOrFeed(c, full, c.Update(c.Init(), chunk), chunk)
		}
		if want := reference(c.Algorithm(), c.Init(), data); full != want {
			t.Errorf("%s: CombineOrFeed chain = %#08x, want %#08x", c.Name(), full, want)
		}
	}
	if zl, _ := Lookup("zlib-crc32"); zl.PreferCombine() {
		t.Error("zlib-crc32 must feed, not combine")
	}
}

// TestNoAllocations: no Update or Combine allocates, cgo ones included.
func TestNoAllocations(t *testing.T) {
	buf := make([]byte, 65536)
	for _, u := range updaters() {
		for _, n := range []int{0, 514, 65536} {
			if a := testing.AllocsPerRun(20, func() { u.update(1, buf[:n]) }); a != 0 {
				t.Errorf("%s Update(%d bytes): %.1f allocations", u.name, n, a)
			}
		}
	}
	for _, alg := range []Algorithm{CRC32, Adler32} {
		for _, c := range combineImpls(alg) {
			if c.Name == "crc32-fixed" {
				continue // builds a combiner per call by design of the test helper
			}
			if a := testing.AllocsPerRun(20, func() { c.Combine(1, 2, 65536) }); a != 0 {
				t.Errorf("%s Combine: %.1f allocations", c.Name, a)
			}
		}
	}
	fixed := NewCRC32Combiner(514)
	if a := testing.AllocsPerRun(20, func() { fixed.Combine(1, 2) }); a != 0 {
		t.Errorf("CRC32Combiner.Combine: %.1f allocations", a)
	}
}
