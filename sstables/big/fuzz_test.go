package big

import (
	"bytes"
	"github.com/castable-db/castable/sstables/internal/rows"
	"io"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// fuzzHeader is a decoding context taken from a real Statistics.db.
type fuzzHeader struct {
	header           *Header
	table            *schema.Table
	static, regular  []*schema.Column
	nStatic, nRegulr int
}

// fuzzHeaders loads the headers of every uncompressed reference (read at
// test time; nothing is copied into the repository).
func fuzzHeaders(f *testing.F) ([]fuzzHeader, [][]byte, [][]byte) {
	var hs []fuzzHeader
	var datas, indexes [][]byte
	for _, ref := range refSSTables(f, false) {
		if ref.has("CompressionInfo.db") {
			continue
		}
		st, err := sstables.DecodeStatistics(ref.read(f, "Statistics.db"), ref.version, ref.name)
		if err != nil {
			f.Fatal(err)
		}
		table, err := rows.TableFromHeader(st.Header)
		if err != nil {
			f.Fatal(err)
		}
		static, _ := rows.HeaderColumns(table, st.Header.Static, schema.Static)
		regular, _ := rows.HeaderColumns(table, st.Header.Regular, schema.Regular)
		hs = append(hs, fuzzHeader{st.Header, table, static, regular, len(table.Static), len(table.Regular)})
		data := ref.read(f, "Data.db")
		index := ref.read(f, "Index.db")
		if len(data) > 1<<16 {
			data = data[:1<<16]
		}
		if len(index) > 1<<14 {
			index = index[:1<<14]
		}
		datas = append(datas, data)
		indexes = append(indexes, index)
	}
	return hs, datas, indexes
}

// FuzzReadData decodes fuzzed Data.db bytes with the header of a real
// SSTable: it must return data or a CorruptionError, never panic, and never
// allocate more than the input bounds.
func FuzzReadData(f *testing.F) {
	hs, datas, _ := fuzzHeaders(f)
	for i, d := range datas {
		f.Add(uint8(i), d)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		h := &hs[int(which)%len(hs)]
		dec := rows.NewDecoder(version.MustParse("mc"), h.header, h.static, h.regular, h.nStatic, h.nRegulr, 0)
		sc := rows.NewScanner(dec, "fuzz/Data.db", dht.Murmur3, bytes.NewReader(data), 0, int64(len(data)), nil)
		for {
			_, err := sc.NextPartition()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !acceptable(err) {
					t.Fatalf("not a CorruptionError: %v", err)
				}
				return
			}
			for {
				r, m, err := sc.Next()
				if err != nil {
					if !acceptable(err) {
						t.Fatalf("not a CorruptionError: %v", err)
					}
					return
				}
				if r == nil && m == nil {
					break
				}
			}
		}
	})
}

// FuzzReadIndex decodes fuzzed Index.db bytes (with promoted indexes).
func FuzzReadIndex(f *testing.F) {
	hs, _, indexes := fuzzHeaders(f)
	for i, d := range indexes {
		f.Add(uint8(i), d)
	}
	f.Fuzz(func(t *testing.T, which uint8, index []byte) {
		h := &hs[int(which)%len(hs)]
		dec := &indexDecoder{nClust: len(h.header.ClusteringTypes), fixed: rows.ClusteringFixed(h.header.ClusteringTypes)}
		it := newIndexIterator(bytes.NewReader(index), int64(len(index)), 0, "fuzz/Index.db", dec, true)
		for {
			_, err := it.next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !acceptable(err) {
					t.Fatalf("not a CorruptionError: %v", err)
				}
				return
			}
		}
	})
}

// FuzzReadStatistics decodes fuzzed Statistics.db bytes as each version of
// the package; what decodes must serialize again.
func FuzzReadStatistics(f *testing.F) {
	versions := version.OfFamily(version.Big)
	index := map[version.Version]uint8{}
	for i, v := range versions {
		index[v] = uint8(i)
	}
	vec, _ := schema.VectorOf(schema.Float, 3)
	nested, _ := schema.VectorOf(vec, 2)
	for _, ref := range refSSTables(f, true) {
		b := ref.read(f, "Statistics.db")
		f.Add(b, index[ref.version])
		// The same with vector columns in the serialization header, in
		// Cassandra's spelling and ScyllaDB's.
		if st, err := sstables.DecodeStatistics(b, ref.version, "seed"); err == nil && st.Header != nil && len(st.Header.Regular) > 0 {
			for i, typ := range []*schema.Type{vec, nested} {
				c := &st.Header.Regular[i%len(st.Header.Regular)]
				c.Type, c.TypeName = typ, typ.MarshalNameStyle(schema.MarshalStyle(i))
			}
			if out, err := sstables.AppendStatistics(nil, st, ref.version); err == nil {
				f.Add(out, index[ref.version])
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, vi uint8) {
		v := versions[int(vi)%len(versions)]
		st, err := sstables.DecodeStatistics(b, v, "fuzz/Statistics.db")
		if err != nil {
			if !acceptable(err) {
				t.Fatalf("not a CorruptionError: %v", err)
			}
			return
		}
		out, err := sstables.AppendStatistics(nil, st, v)
		if err != nil {
			return // e.g. an unrepresentable clustering value
		}
		if _, err := sstables.DecodeStatistics(out, v, "fuzz/again"); err != nil {
			t.Fatalf("re-encoded statistics do not decode: %v", err)
		}
	})
}

// FuzzOpen opens, scans, looks up and verifies a whole SSTable whose
// Data.db, Index.db, Statistics.db and Summary.db are fuzzed, through an
// in-memory FS.
func FuzzOpen(f *testing.F) {
	for _, ref := range refSSTables(f, false) {
		if ref.has("CompressionInfo.db") || ref.name == "mc-write/many_deleted_partitions" {
			continue
		}
		var summary []byte
		if ref.has("Summary.db") {
			summary = ref.read(f, "Summary.db")
		}
		f.Add(ref.read(f, "Data.db"), ref.read(f, "Index.db"), ref.read(f, "Statistics.db"), summary)
	}
	f.Fuzz(func(t *testing.T, data, index, stats, summary []byte) {
		m := memfs.New()
		desc := sstables.Descriptor{Dir: "/fuzz", Version: vmc, Generation: 1}
		m.Set(desc.Path(sstables.ComponentData), data)
		m.Set(desc.Path(sstables.ComponentIndex), index)
		m.Set(desc.Path(sstables.ComponentStatistics), stats)
		if summary != nil {
			m.Set(desc.Path(sstables.ComponentSummary), summary)
		}
		if err := exercise(m, desc); err != nil && !acceptable(err) {
			t.Fatalf("not a CorruptionError: %v", err)
		}
	})
}
