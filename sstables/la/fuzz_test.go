package la

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// fuzzTables are the tables the fuzz targets decode with; an input's first
// byte selects one.
var fuzzTables = []tableDef{
	fixtureTables["uncompressed"],
	fixtureTables["set"],
	fixtureTables["counter_test"],
	fixtureTables["promoted_index_read"],
	fixtureTables["static_column"],
	fixtureTables["composite"],
	{"dense", `CREATE TABLE ks.dense (pk int, ck1 int, ck2 text, v blob, PRIMARY KEY (pk, ck1, ck2)) WITH COMPACT STORAGE;`},
	{"simple_dense", `CREATE TABLE ks.simple_dense (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE;`},
	{"simple_sparse", `CREATE TABLE ks.simple_sparse (pk int PRIMARY KEY, a int, b text) WITH COMPACT STORAGE;`},
}

func fuzzTable(t testing.TB, sel byte) *schema.Table {
	return fuzzTables[int(sel)%len(fuzzTables)].build(t)
}

func fuzzTableIndex(dir string) byte {
	for i, d := range fuzzTables {
		if d.name == fixtureTables[dir].name {
			return byte(i)
		}
	}
	return 0
}

// addFixtureSeeds calls add for every real la SSTable.
func addFixtureSeeds(f *testing.F, add func(fx fixture, d sstables.Descriptor)) {
	for _, fx := range fixtures {
		add(fx, fx.desc(f))
	}
}

// decodeStream decodes every partition of an uncompressed Data.db stream
// with table, as the scanner does.
func decodeStream(data []byte, table *schema.Table) error {
	in := newSliceInput(data, 0, "Data.db", sstables.ComponentData)
	s := &scanner{tokens: dht.Murmur3, in: in, pr: newPartitionReader(table, layoutOf(table))}
	for in.remaining() > 0 {
		if _, err := s.NextPartition(); err != nil {
			return err
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
	return nil
}

// FuzzReadAtoms fuzzes the Data.db decoder: the atom codec (every atom
// decoded must re-encode to its bytes) and the grouping into rows and
// markers with one of fuzzTables. Seeds: the uncompressed Data.db of every
// real la file.
func FuzzReadAtoms(f *testing.F) {
	addFixtureSeeds(f, func(fx fixture, d sstables.Descriptor) {
		f.Add(append([]byte{fuzzTableIndex(fx.dir)}, readData(f, d)...))
	})
	// Regressions: combined flags 0x07; a counter's timestampOfLastDelete.
	f.Add([]byte("0\x00\x0500000000000000000\x00\n0000000000\a0000000000000000\x00\x00\x00\x00"))
	f.Add([]byte("0\x00\x040000000000000000\x00\f\x00\x040000\x00\x00\x0200\x00\x040000000000000000\x00\x00\x00\x0200"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		table, data := fuzzTable(t, in[0]), in[1:]
		// Raw atoms.
		src := newSliceInput(data, 0, "Data.db", sstables.ComponentData)
		var a atom
		var arena []byte
	partitions:
		for src.remaining() > 0 {
			if _, err := src.shortBytes(); err != nil {
				break
			}
			if _, err := src.next(deletionTimeSize); err != nil {
				break
			}
			for {
				arena = arena[:0]
				off := src.offset()
				ok, err := readAtom(src, &a, &arena)
				if err != nil {
					if !errors.Is(err, sstables.ErrCorrupt) {
						t.Fatalf("error is not a CorruptionError: %v", err)
					}
					break partitions
				}
				if !ok {
					break
				}
				if got := appendAtom(nil, &a); !bytes.Equal(got, data[off:src.offset()]) {
					t.Fatalf("atom at %d re-encodes to %x, want %x", off, got, data[off:src.offset()])
				}
			}
		}
		// Rows and markers.
		if err := decodeStream(data, table); err != nil && !errors.Is(err, sstables.ErrCorrupt) {
			t.Fatalf("error is not a CorruptionError: %v", err)
		}
	})
}

// FuzzReadIndex fuzzes the Index.db decoder: every entry decoded must
// re-encode to its bytes. Seeds: every real la Index.db.
func FuzzReadIndex(f *testing.F) {
	addFixtureSeeds(f, func(fx fixture, d sstables.Descriptor) {
		f.Add(readComponent(f, d, sstables.ComponentIndex))
	})
	// Regression: a promoted index without blocks.
	f.Add([]byte("\x00\x0000000000\x00\x00\x00\x10000000000000\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := newSliceInput(data, 0, "Index.db", sstables.ComponentIndex)
		var e indexEntry
		var arena []byte
		for {
			arena = arena[:0]
			off := in.offset()
			ok, err := readIndexEntry(in, &e, &arena)
			if err != nil {
				if !errors.Is(err, sstables.ErrCorrupt) {
					t.Fatalf("error is not a CorruptionError: %v", err)
				}
				return
			}
			if !ok {
				return
			}
			var blocks []indexInfo
			if len(e.blocks) > 0 {
				blocks = e.blocks
			}
			got := appendIndexEntry(nil, e.key, e.position, e.deletion, blocks)
			if !bytes.Equal(got, data[off:in.offset()]) {
				t.Fatalf("entry at %d re-encodes to %x, want %x", off, got, data[off:in.offset()])
			}
		}
	})
}

// FuzzReadStatistics fuzzes the Statistics.db decoder: what decodes must
// encode and decode again to the same bytes. Seeds: every real la
// Statistics.db.
func FuzzReadStatistics(f *testing.F) {
	addFixtureSeeds(f, func(fx fixture, d sstables.Descriptor) {
		f.Add(readComponent(f, d, sstables.ComponentStatistics))
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := sstables.DecodeStatistics(data, Version, "Statistics.db")
		if err != nil {
			if !errors.Is(err, sstables.ErrCorrupt) {
				t.Fatalf("error is not a CorruptionError: %v", err)
			}
			return
		}
		b, err := sstables.AppendStatistics(nil, s, Version)
		if err != nil {
			return // e.g. a partitioner name Java's writeUTF cannot hold
		}
		s2, err := sstables.DecodeStatistics(b, Version, "Statistics.db")
		if err != nil {
			t.Fatalf("re-encoded statistics do not parse: %v", err)
		}
		b2, err := sstables.AppendStatistics(nil, s2, Version)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("statistics do not round-trip: %v", err)
		}
	})
}

// FuzzOpen fuzzes a whole SSTable held in memory: Data.db, Index.db,
// Statistics.db, Summary.db, Filter.db, CompressionInfo.db or CRC.db and
// the digest are fuzzed together, then opened with and without a schema,
// scanned, looked up and verified. Seeds: every real la SSTable.
func FuzzOpen(f *testing.F) {
	comps := []sstables.Component{sstables.ComponentData, sstables.ComponentIndex, sstables.ComponentStatistics,
		sstables.ComponentSummary, sstables.ComponentFilter, sstables.ComponentCompressionInfo, sstables.ComponentCRC,
		sstables.ComponentDigestSHA1}
	addFixtureSeeds(f, func(fx fixture, d sstables.Descriptor) {
		var parts [8][]byte
		for i, c := range comps {
			if b, err := os.ReadFile(d.Path(c)); err == nil {
				parts[i] = b
			}
		}
		f.Add(fuzzTableIndex(fx.dir), parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6], parts[7])
	})
	f.Fuzz(func(t *testing.T, sel byte, data, index, stats, summary, filter, compression, crc, digest []byte) {
		m := memfs.New()
		d := sstables.Descriptor{Dir: "/t", Version: Version, Generation: 1}
		for i, b := range [][]byte{data, index, stats, summary, filter, compression, crc, digest} {
			if len(b) > 0 {
				m.Set(d.Path(comps[i]), b)
			}
		}
		for _, table := range []*schema.Table{fuzzTable(t, sel), nil} {
			if err := openScan(d, table, m); err != nil && !errors.Is(err, sstables.ErrCorrupt) && !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("error is neither a CorruptionError nor a missing file: %v", err)
			}
		}
	})
}
