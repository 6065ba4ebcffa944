package big

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/sstables"
)

// loadMem copies a reference SSTable's components into an in-memory FS under
// dir "/sst" and returns its descriptor.
func loadMem(t testing.TB, ref refSSTable) (*memfs.FS, sstables.Descriptor, []sstables.Component) {
	t.Helper()
	m := memfs.New()
	desc := sstables.Descriptor{Dir: "/sst", Version: ref.version, Generation: 1}
	entries, err := os.ReadDir(ref.dir)
	if err != nil {
		t.Fatal(err)
	}
	var comps []sstables.Component
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ref.prefix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(ref.dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		c := sstables.Component(strings.TrimPrefix(e.Name(), ref.prefix))
		m.Set(desc.Path(c), b)
		comps = append(comps, c)
	}
	return m, desc, comps
}

// exercise opens, scans, looks up and verifies an SSTable, returning the
// first error. It must never panic.
func exercise(m *memfs.FS, desc sstables.Descriptor) error {
	r, err := Open(desc, nil, sstables.ReaderOptions{FS: m})
	if err != nil {
		return err
	}
	defer r.Close()
	sc, err := r.Scan()
	if err != nil {
		return err
	}
	var firstKey []byte
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if firstKey == nil {
			firstKey = append([]byte{}, p.Key...)
		}
		for {
			row, mk, err := sc.Next()
			if err != nil {
				return err
			}
			if row == nil && mk == nil {
				break
			}
		}
	}
	if firstKey != nil {
		if _, err := r.Get(firstKey); err != nil {
			return err
		}
	}
	return r.Verify()
}

// acceptable reports whether err is what a damaged SSTable may produce: a
// CorruptionError, a missing file, or a parse error of a shared component.
func acceptable(err error) bool {
	return errors.Is(err, sstables.ErrCorrupt) || errors.Is(err, fs.ErrNotExist)
}

// TestCorruptionSweep truncates and flips bytes of every component of
// several real SSTables. Nothing may panic; every failure must be a
// CorruptionError (or a missing file), and damage to Data.db must always be
// detected (by the chunk checksums, CRC.db or the decoder).
func TestCorruptionSweep(t *testing.T) {
	want := map[string]bool{
		"cassandra/3.x/uncompressed/collections":                         true,
		"cassandra/3.x/uncompressed/static_row":                          true,
		"cassandra/3.x/lz4/partition_key_with_values_of_different_types": true,
		"mc-write/many_range_tombstones":                                 true,
		"mc-write/missing_columns_large_set":                             true,
	}
	for _, ref := range refSSTables(t, false) {
		if !want[ref.name] {
			continue
		}
		t.Run(ref.name, func(t *testing.T) {
			m, desc, comps := loadMem(t, ref)
			if err := exercise(m, desc); err != nil {
				t.Fatalf("sound SSTable: %v", err)
			}
			for _, c := range comps {
				path := desc.Path(c)
				orig, _ := m.Get(path)
				check := func(what string, b []byte) {
					m.Set(path, b)
					defer m.Set(path, orig)
					err := exercise(m, desc)
					if err != nil && !acceptable(err) {
						t.Errorf("%s %s: error is not a CorruptionError: %v", c, what, err)
					}
					if err == nil && c == sstables.ComponentData {
						t.Errorf("%s %s: damage not detected", c, what)
					}
				}
				for _, n := range []int{0, 1, len(orig) / 2, len(orig) - 1} {
					if n < len(orig) && n >= 0 {
						check("truncated to "+itoa(n), append([]byte{}, orig[:n]...))
					}
				}
				step := 1
				if len(orig) > 512 {
					step = len(orig)/256 + 1
				}
				for off := 0; off < len(orig); off += step {
					b := append([]byte{}, orig...)
					b[off] ^= 0x5a
					check("flipped at "+itoa(off), b)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
