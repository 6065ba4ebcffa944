package la

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// chunkSpans returns the byte ranges [start, end) of Data.db's chunks as
// stored: compressed payload plus trailer, or 64 KiB pieces described by
// CRC.db.
func chunkSpans(t testing.TB, m *memfs.FS, d sstables.Descriptor) [][2]int64 {
	t.Helper()
	data, _ := m.Get(d.Path(sstables.ComponentData))
	size := int64(len(data))
	var spans [][2]int64
	if b, ok := m.Get(d.Path(sstables.ComponentCompressionInfo)); ok {
		ci, err := sstables.ParseCompressionInfo(b, "", d.Version)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ci.ChunkOffsets {
			off, n := ci.ChunkSpan(i, size)
			spans = append(spans, [2]int64{off, off + n})
		}
		return spans
	}
	for off := int64(0); off < size; off += sstables.CRCChunkSize {
		spans = append(spans, [2]int64{off, min(off+sstables.CRCChunkSize, size)})
	}
	return spans
}

// TestVerifyDetectsEveryFlippedDataByte flips every byte of every Data.db
// chunk of every real la file; Verify must fail with a CorruptionError on
// Data.db naming that chunk.
func TestVerifyDetectsEveryFlippedDataByte(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name(), func(t *testing.T) {
			m, d := loadFixture(t, f)
			table := fixtureTables[f.dir].build(t)
			data, _ := m.Get(d.Path(sstables.ComponentData))
			for i, span := range chunkSpans(t, m, d) {
				for pos := span[0]; pos < span[1]; pos++ {
					data[pos] ^= 0x5a
					err := openVerify(d, table, m)
					data[pos] ^= 0x5a
					var ce *sstables.CorruptionError
					switch {
					case err == nil:
						t.Fatalf("chunk %d: flipping byte %d went unnoticed", i, pos)
					case !errors.As(err, &ce) || ce.Component != string(sstables.ComponentData):
						t.Fatalf("chunk %d byte %d: %v is not a Data.db CorruptionError", i, pos, err)
					case !strings.Contains(err.Error(), fmt.Sprintf("chunk %d ", i)):
						t.Fatalf("chunk %d byte %d: error does not name the chunk: %v", i, pos, err)
					}
				}
			}
		})
	}
}

func openVerify(d sstables.Descriptor, table *schema.Table, fsys sstables.FS) error {
	r, err := Open(d, table, sstables.ReaderOptions{FS: fsys})
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Verify()
}

// openScan opens d and reads every partition, with and without checking
// checksums first; it returns the first error.
func openScan(d sstables.Descriptor, table *schema.Table, fsys sstables.FS) error {
	r, err := Open(d, table, sstables.ReaderOptions{FS: fsys, CRCCheckChance: -1})
	if err != nil {
		return err
	}
	defer r.Close()
	s, err := r.Scan()
	if err != nil {
		return err
	}
	defer s.Close()
	parts := 0
	for {
		p, err := s.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if parts++; parts == 1 {
			if _, err := r.Get(p.Key); err != nil {
				return err
			}
		}
		for {
			row, m, err := s.Next()
			if err != nil {
				return err
			}
			if row == nil && m == nil {
				break
			}
		}
	}
	return r.Verify()
}

// positions returns the offsets a sweep over n bytes visits: all of them
// for small files, else the first and last 64 and an even spread of 256
// (with -short: every 7th offset of small files, 32 and 64).
func positions(n int) []int {
	if testing.Short() {
		var out []int
		for i := 0; i < n; i += max(7, n/96) {
			out = append(out, i)
		}
		return out
	}
	if n <= 512 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	for i := 0; i < 64; i++ {
		out = append(out, i, n-1-i)
	}
	for i := 64; i < n-64; i += (n - 128) / 256 {
		out = append(out, i)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestCorruptComponentsSweep truncates and flips bytes of every component
// of every real la file and reads the result (Open, Scan with Get of every
// key, Verify; with and without a schema). Nothing may panic; errors must
// be CorruptionErrors; a truncated Data.db, Index.db, Statistics.db,
// CompressionInfo.db, CRC.db, Summary.db, Filter.db or digest must be
// reported.
func TestCorruptComponentsSweep(t *testing.T) {
	mustReport := map[sstables.Component]bool{
		sstables.ComponentData: true, sstables.ComponentIndex: true, sstables.ComponentStatistics: true,
		sstables.ComponentCompressionInfo: true, sstables.ComponentCRC: true, sstables.ComponentSummary: true,
		sstables.ComponentFilter: true, sstables.ComponentDigestSHA1: true,
	}
	for _, f := range fixtures {
		t.Run(f.name(), func(t *testing.T) {
			m, d := loadFixture(t, f)
			table := fixtureTables[f.dir].build(t)
			for _, name := range m.Names() {
				_, comp, _, err := sstables.ParseDescriptor(name)
				if err != nil {
					t.Fatal(err)
				}
				orig, _ := m.Get(name)
				// A Summary.db cut exactly before its la trailer, or
				// inside the unexplained bytes after it, is still valid
				// (ScyllaDB writes none; components.md §11.3).
				tolerated := map[int]bool{}
				if comp == sstables.ComponentSummary {
					_, compressed := m.Get(d.Path(sstables.ComponentCompressionInfo))
					plain, err1 := sstables.ParseSummary(orig, "", sstables.SummaryReadOptions{})
					full, err2 := sstables.ParseSummary(orig, "", sstables.SummaryReadOptions{Boundaries: true, DataCompressed: compressed})
					if err1 != nil || err2 != nil {
						t.Fatal(err1, err2)
					}
					tolerated[len(orig)-plain.TrailingBytes] = true
					for n := len(orig) - full.TrailingBytes; n < len(orig); n++ {
						tolerated[n] = true
					}
				}
				check := func(what string, err error) {
					t.Helper()
					if err != nil && !errors.Is(err, sstables.ErrCorrupt) {
						t.Errorf("%s %s: error is not a CorruptionError: %v", filepath.Base(name), what, err)
					}
				}
				for i, n := range positions(len(orig)) {
					m.Set(name, orig[:n])
					err := openScan(d, table, m)
					check(fmt.Sprintf("truncated to %d", n), err)
					if err == nil && mustReport[comp] && !tolerated[n] {
						t.Errorf("%s truncated to %d bytes went unnoticed", filepath.Base(name), n)
					}
					if i%4 == 0 {
						check(fmt.Sprintf("truncated to %d, no schema", n), openScan(d, nil, m))
					}
				}
				flipped := slices.Clone(orig)
				m.Set(name, flipped)
				for i, n := range positions(len(orig)) {
					flipped[n] ^= 0xff
					check(fmt.Sprintf("byte %d flipped", n), openScan(d, table, m))
					if i%4 == 0 {
						check(fmt.Sprintf("byte %d flipped, no schema", n), openScan(d, nil, m))
					}
					flipped[n] ^= 0xff
				}
				m.Set(name, orig)
			}
		})
	}
}

// loadFixture copies the files of a real SSTable into an in-memory FS under dir
// "/t" and returns its descriptor there.
func loadFixture(t testing.TB, f fixture) (*memfs.FS, sstables.Descriptor) {
	t.Helper()
	src := f.desc(t)
	m := memfs.New()
	d := sstables.Descriptor{Dir: "/t", Version: Version, Generation: f.gen}
	entries, err := os.ReadDir(src.Dir)
	if err != nil {
		t.Fatal(err)
	}
	prefix := src.Filename("")
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src.Dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m.Set(filepath.Join(d.Dir, e.Name()), b)
	}
	return m, d
}
