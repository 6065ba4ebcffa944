package sstables

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/sstables/version"
)

// addRealSeeds adds component c of every real SSTable as a seed.
func addRealSeeds(f *testing.F, c Component) {
	for _, s := range realSSTables(f) {
		if s.has(c) {
			f.Add(s.read(f, c))
		}
	}
}

func FuzzCompressionInfo(f *testing.F) {
	addRealSeeds(f, ComponentCompressionInfo)
	f.Fuzz(func(t *testing.T, b []byte) {
		// Both layouts: without maxCompressedLength (ma…me) and with it (na+).
		for _, v := range []string{"mc", "na"} {
			ci, err := ParseCompressionInfo(b, "x", version.MustParse(v))
			if err != nil {
				continue
			}
			again, err := ci.AppendTo(nil)
			if err != nil || !bytes.Equal(again, b) {
				t.Fatalf("%s: re-encoding differs (%v)", v, err)
			}
			for i := range ci.ChunkOffsets {
				ci.ChunkDataLength(i)
				ci.RawChunk(int64(ci.ChunkDataLength(i)))
			}
		}
	})
}

func FuzzCRCdb(f *testing.F) {
	addRealSeeds(f, ComponentCRC)
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseCRC(b, "x")
		if err != nil {
			return
		}
		if !bytes.Equal(c.AppendTo(nil), b) {
			t.Fatal("re-encoding differs")
		}
		c.ChunkCount(int64(len(b))*1000, 1, "x")
		c.ChunkCount(int64(len(b))*1000, 2, "x")
	})
}

func FuzzSummary(f *testing.F) {
	for _, s := range realSSTables(f) {
		if s.has(ComponentSummary) {
			tr := s.desc.Version
			f.Add(s.read(f, ComponentSummary), tr.SummaryBoundaries(), s.has(ComponentCompressionInfo))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, boundaries, compressed bool) {
		s, err := ParseSummary(b, "x", SummaryReadOptions{Boundaries: boundaries, DataCompressed: compressed})
		if err != nil {
			return
		}
		for k := 0; k < s.Len(); k++ {
			s.Key(k)
			s.IndexPosition(k)
		}
		s.Floor(dht.Murmur3, s.First)
		s.Floor(dht.Murmur3, nil)
	})
}

func FuzzFilter(f *testing.F) {
	addRealSeeds(f, ComponentFilter)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, v := range []string{"la", "mc", "nb"} {
			bf, err := ParseBloomFilter(b, "x", version.MustParse(v))
			if err != nil {
				return
			}
			if !bytes.Equal(bf.AppendTo(nil), b) {
				t.Fatal("re-encoding differs")
			}
			bf.MightContain(b)
			bf.Add(b)
			if !bf.MightContain(b) {
				t.Fatal("added key absent")
			}
		}
	})
}

func FuzzTOC(f *testing.F) {
	addRealSeeds(f, ComponentTOC)
	f.Fuzz(func(t *testing.T, b []byte) {
		cs, err := ParseTOC(b, "x")
		if err != nil {
			return
		}
		again, err := ParseTOC(AppendTOC(nil, cs), "x")
		if err != nil || len(SortComponents(append(cs, ComponentTOC))) != len(again) {
			t.Fatalf("TOC %v does not round-trip: %v %v", cs, again, err)
		}
	})
}

func FuzzDigest(f *testing.F) {
	for _, s := range realSSTables(f) {
		if c := s.digestComponent(); c != "" {
			f.Add(s.read(f, c))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseDigest(b, "x", ComponentDigestCRC32)
		if err != nil {
			return
		}
		if again, err := ParseDigest(AppendDigest(nil, v), "x", ComponentDigestCRC32); err != nil || again != v {
			t.Fatal("digest does not round-trip")
		}
	})
}

func FuzzHyperLogLog(f *testing.F) {
	for _, s := range realSSTables(f) {
		if !s.has(ComponentStatistics) || s.scylla {
			continue
		}
		f.Add(statistics(f, s).Cardinality)
	}
	h := NewHyperLogLog()
	for i := 0; i < 7000; i++ {
		h.OfferKey([]byte{byte(i), byte(i >> 8), 1})
	}
	f.Add(h.AppendTo(nil))
	f.Add(hllOf(9, 0, 20000).AppendTo(nil))
	normal, sparse := hllOf(9, 0, 20000), hllOf(9, 0, 300)
	f.Fuzz(func(t *testing.T, b []byte) {
		// Whatever the bytes, estimating and merging them as compaction
		// does returns a count or an error.
		for _, rules := range []KeyCountRules{KeyCountCassandra311, KeyCountCassandra50} {
			in := keyCountInput("x", b, 1)
			for _, ins := range [][]KeyCountInput{{in}, {in, in}, {keyCountInput("n", normal.AppendTo(nil), 1), in}} {
				if _, err := ApproximateKeyCount(rules, ins); err != nil && !strings.Contains(err.Error(), "x") {
					t.Fatalf("error without the file: %v", err)
				}
			}
		}
		h, err := ParseHyperLogLog(b, "x", ComponentStatistics, 0)
		if err != nil {
			return
		}
		h.Cardinality()
		for _, o := range []*HyperLogLog{normal, sparse} {
			MergeHyperLogLogs(h, o).Cardinality()
			MergeHyperLogLogs(o, h, h).Cardinality()
		}
		enc := h.AppendTo(nil)
		again, err := ParseHyperLogLog(enc, "x", ComponentStatistics, 0)
		if err != nil || !bytes.Equal(again.AppendTo(nil), enc) {
			t.Fatalf("HLL does not round-trip: %v", err)
		}
		h.OfferKey(b)
		h.AppendTo(nil)
	})
}

func FuzzStatisticsHistograms(f *testing.F) {
	for _, s := range realSSTables(f) {
		if s.has(ComponentStatistics) {
			st := statistics(f, s)
			b := st.Stats.PartitionSizes.AppendTo(nil)
			f.Add(st.Stats.TombstoneDropTimes.AppendTo(b))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewByteReader(b, "x", ComponentStatistics, 0)
		if h, err := ParseEstimatedHistogram(r); err == nil {
			h.Add(int64(len(b)))
			h.AppendTo(nil)
		}
		if h, err := ParseStreamingHistogram(r); err == nil {
			h.Update(float64(len(b)))
			h.AppendTo(nil)
		}
	})
}

// FuzzDataReader reads random Data.db bytes through the CompressionInfo.db
// of each real compressed SSTable (or as an uncompressed file with a
// CRC.db): checksum failures, corrupt chunks and decompression bombs must
// be errors, never panics or unbounded allocations.
func FuzzDataReader(f *testing.F) {
	var infos []*CompressionInfo
	for _, s := range realSSTables(f) {
		if s.has(ComponentCompressionInfo) {
			ci, err := ReadCompressionInfo(nil, s.desc)
			if err != nil {
				f.Fatal(err)
			}
			infos = append(infos, ci)
			f.Add(s.read(f, ComponentData), uint8(len(infos)-1), false)
		} else if s.has(ComponentCRC) && len(infos) > 0 {
			f.Add(s.read(f, ComponentData), uint8(0), true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8, verifyChunks bool) {
		ci := infos[int(which)%len(infos)]
		chance := -1.0
		if verifyChunks {
			chance = 1
		}
		for _, info := range []*CompressionInfo{ci, nil} {
			var crc *CRCInfo
			if info == nil {
				crc = &CRCInfo{ChunkSize: 64, Checksums: make([]uint32, (len(data)+63)/64)}
			}
			r, err := NewDataReader(bytes.NewReader(data), int64(len(data)), "x", info, crc, DataReaderOptions{CRCCheckChance: chance})
			if err != nil {
				continue
			}
			io.Copy(io.Discard, r.NewStream(0))
			r.Verify()
			buf := make([]byte, 100)
			r.ReadAt(buf, int64(len(data)/2))
		}
	})
}
