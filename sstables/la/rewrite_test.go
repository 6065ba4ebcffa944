package la

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// readAll reads every partition of r.
func readAll(t testing.TB, r *Reader) []*mutation.Partition {
	t.Helper()
	s, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []*mutation.Partition
	for {
		p, err := s.NextPartition()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		whole, err := readWholePartition(s.(*scanner), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, whole)
	}
}

// metadataOf returns the Statistics.db inputs that do not follow from the
// data, as WriterOptions.Metadata carries them: ancestors, the replay
// position (as the interval [NONE, position]), level and repairedAt.
func metadataOf(s *sstables.Statistics) sstables.Metadata {
	md := sstables.Metadata{Level: int(s.Stats.Level), RepairedAt: s.Stats.RepairedAt}
	for _, a := range s.Ancestors {
		md.Ancestors = append(md.Ancestors, int(a))
	}
	md.CommitLogIntervals = []sstables.CommitLogInterval{{Lower: sstables.CommitLogPositionNone, Upper: s.Stats.CommitLogUpperBound}}
	return md
}

// rewrite writes parts with table into a new SSTable in dir.
func rewrite(t testing.TB, f Format, table *schema.Table, parts []*mutation.Partition, opts sstables.WriterOptions) sstables.Descriptor {
	t.Helper()
	if opts.ExpectedPartitions == 0 {
		opts.ExpectedPartitions = int64(len(parts))
	}
	w, err := f.NewWriter(table, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if err := w.Append(p); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		w.Abort()
		t.Fatal(err)
	}
	return res.Descriptor
}

// TestRewriteFidelity reads each Cassandra-written la SSTable and writes
// it again with the same compression and the Statistics.db inputs that do
// not follow from the data (ancestors, replay position, level,
// repairedAt). Index.db, Filter.db, Summary.db and Statistics.db must be
// byte-identical; Data.db (and CRC.db, Digest) too when uncompressed, its
// decompressed stream when compressed, and every compressed chunk too,
// written with lz4-java 1.3.0's LZ4 r123 as Cassandra 2.2 writes (the
// early-la file of composite/, from 2.2's trunk of February 2015, with
// lz4-java 1.2.0's r100).
func TestRewriteFidelity(t *testing.T) {
	var sameChunks, chunks int
	for _, f := range fixtures {
		if f.scylla {
			continue
		}
		t.Run(f.name(), func(t *testing.T) {
			d := f.desc(t)
			table := fixtureTables[f.dir].build(t)
			r, err := Open(d, table, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			parts := readAll(t, r)
			params := compress.Params{Codec: compress.None}
			ci := r.data.CompressionInfo()
			if ci != nil {
				if params, err = ci.Params(); err != nil {
					t.Fatal(err)
				}
				if f.dir == "composite" {
					params.LZ4Encoder = compress.LZ4R100
				}
			}
			opts := sstables.WriterOptions{Dir: t.TempDir(), Generation: f.gen, Compression: &params, Jobs: 1,
				Metadata: metadataOf(r.Statistics()), ColumnIndexSize: f.columnIndexSize}
			if len(r.Statistics().Ancestors) > 0 {
				// A compaction sizes the filter from Cassandra's estimate
				// of the key count, not the count itself.
				opts.ExpectedPartitions = expectedKeysOf(t, d)
			}
			// The Summary.db trailer (disk access modes, segment
			// boundaries) is configuration: carry it over.
			var format Format
			var trailing int
			if sum, err := sstables.ReadSummary(nil, d, sstables.SummaryReadOptions{Boundaries: true, DataCompressed: ci != nil}); err == nil {
				format.Options.SummaryBoundaries = sum.Boundaries
				trailing = sum.TrailingBytes
			}
			out := rewrite(t, format, table, parts, opts)

			same := func(c sstables.Component) {
				t.Helper()
				want, err := os.ReadFile(d.Path(c))
				if os.IsNotExist(err) {
					return // la-2 has no Summary.db
				}
				if err != nil {
					t.Fatal(err)
				}
				if c == sstables.ComponentSummary && trailing > 0 {
					// Unexplained bytes after the trailer (components.md §11.3).
					t.Logf("Summary.db: ignoring %d trailing bytes %x", trailing, want[len(want)-trailing:])
					want = want[:len(want)-trailing]
				}
				got := readComponent(t, out, c)
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs at byte %d (%d vs %d bytes)", c, firstDiff(got, want), len(got), len(want))
				}
			}
			same(sstables.ComponentIndex)
			same(sstables.ComponentFilter)
			same(sstables.ComponentSummary)
			if !bytes.Equal(readData(t, out), readData(t, d)) {
				t.Errorf("uncompressed Data.db streams differ at byte %d", firstDiff(readData(t, out), readData(t, d)))
			}
			wantStats, err := sstables.DecodeStatistics(readComponent(t, d, sstables.ComponentStatistics), d.Version, "")
			if err != nil {
				t.Fatal(err)
			}
			gotStats, err := sstables.DecodeStatistics(readComponent(t, out, sstables.ComponentStatistics), out.Version, "")
			if err != nil {
				t.Fatal(err)
			}
			if ci == nil {
				same(sstables.ComponentData)
				same(sstables.ComponentCRC)
				same(sstables.ComponentStatistics)
				digest := readComponent(t, out, sstables.ComponentDigestAdler32)
				if want := readComponent(t, d, sstables.ComponentDigestSHA1); !bytes.Equal(digest, want) {
					t.Errorf("digest %s, want %s", digest, want)
				}
				return
			}
			g, _ := sstables.AppendStatistics(nil, gotStats, out.Version)
			w, _ := sstables.AppendStatistics(nil, wantStats, d.Version)
			if !bytes.Equal(g, w) {
				t.Errorf("Statistics.db differs at byte %d", firstDiff(g, w))
			}
			gotInfo, err := sstables.ReadCompressionInfo(nil, out)
			if err != nil {
				t.Fatal(err)
			}
			gotData, wantData := readComponent(t, out, sstables.ComponentData), readComponent(t, d, sstables.ComponentData)
			n, m := matchingChunks(gotInfo, gotData, ci, wantData)
			sameChunks += n
			chunks += m
			if n != m {
				t.Errorf("%d of %d compressed chunks identical to Cassandra's", n, m)
			}
		})
	}
	t.Logf("compressed chunks identical to Cassandra's: %d of %d", sameChunks, chunks)
}

// matchingChunks counts the compressed chunks (payload and checksum) of got
// equal to those of want.
func matchingChunks(gi *sstables.CompressionInfo, got []byte, wi *sstables.CompressionInfo, want []byte) (same, total int) {
	total = wi.DataChunks()
	for i := 0; i < total && i < gi.DataChunks(); i++ {
		go0, gl := gi.ChunkSpan(i, int64(len(got)))
		wo, wl := wi.ChunkSpan(i, int64(len(want)))
		if bytes.Equal(got[go0:go0+gl], want[wo:wo+wl]) {
			same++
		}
	}
	return same, total
}

// expectedKeysOf returns a key count for which the bloom filter has the
// size of d's Filter.db (which is all the count decides).
func expectedKeysOf(t testing.TB, d sstables.Descriptor) int64 {
	t.Helper()
	f, err := sstables.ReadBloomFilter(nil, d)
	if err != nil {
		t.Fatal(err)
	}
	for n := int64(1); n < 1<<20; n++ {
		g, err := sstables.NewBloomFilter(n, defaultFPChance, Version)
		if err != nil {
			t.Fatal(err)
		}
		if g.Words() == f.Words() {
			return n
		}
	}
	t.Fatalf("no key count gives a filter of %d words", f.Words())
	return 0
}
