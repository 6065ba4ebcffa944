package sstables

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/castable-db/castable/sstables/version"
	"slices"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
)

// sinkPart is a synthetic partition: its Data.db bytes and Index.db entry.
type sinkPart struct {
	key, data, entry []byte
	cells            int64
	// simple partitions have the entry testSimpleEntry builds, and are
	// ended with EndSimplePartition.
	simple bool
}

// testSimpleEntry is a SimpleEntry: the key and the position.
func testSimpleEntry(dst, key []byte, position int64) []byte {
	dst = append(dst, key...)
	return binary.BigEndian.AppendUint64(dst, uint64(position))
}

func sinkParts(n int, seed uint64) []sinkPart {
	r := newTestRand(seed)
	parts := make([]sinkPart, n)
	for i := range parts {
		p := &parts[i]
		p.key = fmt.Appendf(nil, "key-%d-%d", i, r.IntN(1000))
		size := 1 + r.IntN(200)
		if r.IntN(50) == 0 {
			size = 1 + r.IntN(300_000) // a large partition now and then
		}
		p.data = make([]byte, size)
		for j := range p.data {
			p.data[j] = byte(r.IntN(4))
		}
		p.entry = append(slices.Clone(p.key), byte(r.IntN(256)), byte(i))
		p.cells = int64(r.IntN(10))
		p.simple = r.IntN(3) > 0
	}
	return parts
}

// sinkOutput is everything a sink produced.
type sinkOutput struct {
	data, index, summary, filter, hll []byte
	sizes, cells                      []int64
	digest                            uint32
	hashes                            []uint64
}

// feedSink writes parts through a PartitionSink, submitting after each
// partition whose buffer reached submitAt bytes, and splitting large
// partitions into pieces of at most pieceSize.
func feedSink(t *testing.T, parts []sinkPart, codec compress.Codec, submitAt, pieceSize int, keepHashes bool) sinkOutput {
	t.Helper()
	var data, index bytes.Buffer
	dw, err := NewDataWriter(&data, DataWriterOptions{Compression: compress.Params{Codec: codec}, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	summary := NewSummaryBuilder(SummaryOptions{MinIndexInterval: 4})
	var filter *BloomFilter
	if !keepHashes {
		if filter, err = NewBloomFilter(int64(len(parts)), 0.01, version.MustParse("mc")); err != nil {
			t.Fatal(err)
		}
	}
	hll := NewHyperLogLog()
	sizes, cells := NewEstimatedHistogram(PartitionSizeOffsets), NewEstimatedHistogram(CellCountOffsets)
	s := NewPartitionSink(PartitionSinkOptions{
		Data: dw, Index: &index, Summary: summary, Filter: filter, KeepHashes: keepHashes,
		Cardinality: hll, PartitionSizes: sizes, CellCounts: cells, SimpleEntry: testSimpleEntry,
	})
	var buf []byte
	var pos int64
	for _, p := range parts {
		if got := s.Position() + int64(len(buf)); got != pos {
			t.Fatalf("position %d, want %d", got, pos)
		}
		start := pos
		pos += int64(len(p.data))
		for rest := p.data; len(rest) > 0; {
			k := min(len(rest), pieceSize)
			buf = append(buf, rest[:k]...)
			rest = rest[k:]
			if len(rest) > 0 {
				if buf, err = s.Submit(buf); err != nil {
					t.Fatal(err)
				}
			}
		}
		h1, h2 := dht.Murmur3Hash(p.key)
		var err error
		if p.simple {
			err = s.EndSimplePartition(p.key, h1, h2, start, int64(len(p.data)), p.cells)
		} else {
			err = s.EndPartition(p.key, h1, h2, p.entry, int64(len(p.data)), p.cells)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(buf) >= submitAt {
			if buf, err = s.Submit(buf); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := s.Finish(buf)
	if err != nil {
		t.Fatal(err)
	}
	if res.Partitions != int64(len(parts)) || res.IndexLength != int64(index.Len()) {
		t.Fatalf("result %+v for %d partitions and %d index bytes", res, len(parts), index.Len())
	}
	dres, err := dw.Finish()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := summary.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	out := sinkOutput{data: data.Bytes(), index: index.Bytes(), summary: sb, hll: hll.AppendTo(nil),
		sizes: sizes.Buckets(), cells: cells.Buckets(), digest: dres.Digest, hashes: res.Hashes}
	if filter != nil {
		out.filter = filter.AppendTo(nil)
	}
	return out
}

// directOutput builds the same components without a sink, one call per
// partition on the calling goroutine (the reference).
func directOutput(t *testing.T, parts []sinkPart, codec compress.Codec) sinkOutput {
	t.Helper()
	var data bytes.Buffer
	dw, err := NewDataWriter(&data, DataWriterOptions{Compression: compress.Params{Codec: codec}, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	summary := NewSummaryBuilder(SummaryOptions{MinIndexInterval: 4})
	filter, err := NewBloomFilter(int64(len(parts)), 0.01, version.MustParse("mc"))
	if err != nil {
		t.Fatal(err)
	}
	hll := NewHyperLogLog()
	sizes, cells := NewEstimatedHistogram(PartitionSizeOffsets), NewEstimatedHistogram(CellCountOffsets)
	var index []byte
	var hashes []uint64
	var pos int64
	for _, p := range parts {
		if _, err := dw.Write(p.data); err != nil {
			t.Fatal(err)
		}
		summary.Add(p.key, int64(len(index)))
		if p.simple {
			index = testSimpleEntry(index, p.key, pos)
		} else {
			index = append(index, p.entry...)
		}
		pos += int64(len(p.data))
		h1, h2 := dht.Murmur3Hash(p.key)
		filter.AddHash(h1, h2)
		hashes = append(hashes, h1, h2)
		hll.OfferKey(p.key)
		sizes.Add(int64(len(p.data)))
		cells.Add(p.cells)
	}
	dres, err := dw.Finish()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := summary.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	return sinkOutput{data: data.Bytes(), index: index, summary: sb, filter: filter.AppendTo(nil), hll: hll.AppendTo(nil),
		sizes: sizes.Buckets(), cells: cells.Buckets(), digest: dres.Digest, hashes: hashes}
}

// TestPartitionSinkMatchesDirect requires the sink to produce exactly what
// feeding every component directly produces, whatever the batch and piece
// sizes.
func TestPartitionSinkMatchesDirect(t *testing.T) {
	parts := sinkParts(3000, 7)
	for _, codec := range []compress.Codec{compress.None, compress.LZ4} {
		want := directOutput(t, parts, codec)
		for _, c := range []struct{ submitAt, piece int }{{1, 1 << 30}, {32 << 10, 1 << 30}, {32 << 10, 1000}, {1 << 20, 65536}} {
			for _, keep := range []bool{false, true} {
				name := fmt.Sprintf("%s/submit=%d/piece=%d/keepHashes=%v", codec, c.submitAt, c.piece, keep)
				got := feedSink(t, parts, codec, c.submitAt, c.piece, keep)
				for _, cmp := range []struct {
					what      string
					got, want []byte
				}{{"data", got.data, want.data}, {"index", got.index, want.index}, {"summary", got.summary, want.summary}, {"hll", got.hll, want.hll}} {
					if !bytes.Equal(cmp.got, cmp.want) {
						t.Errorf("%s: %s differs", name, cmp.what)
					}
				}
				if keep {
					if !slices.Equal(got.hashes, want.hashes) {
						t.Errorf("%s: kept hashes differ", name)
					}
				} else if !bytes.Equal(got.filter, want.filter) {
					t.Errorf("%s: filter differs", name)
				}
				if !slices.Equal(got.sizes, want.sizes) || !slices.Equal(got.cells, want.cells) {
					t.Errorf("%s: histograms differ", name)
				}
				if got.digest != want.digest {
					t.Errorf("%s: digest %08x, want %08x", name, got.digest, want.digest)
				}
			}
		}
	}
}

// sinkFailWriter fails every write after the first okWrites.
type sinkFailWriter struct {
	okWrites int
	writes   int
}

func (f *sinkFailWriter) Write(p []byte) (int, error) {
	f.writes++
	if f.writes > f.okWrites {
		return 0, errInjected
	}
	return len(p), nil
}

// TestPartitionSinkErrors checks that a failing Data.db or Index.db write
// reaches the caller (from a later Submit or from Finish) without a
// deadlock, and that the sink can be aborted in any state.
func TestPartitionSinkErrors(t *testing.T) {
	parts := sinkParts(2000, 9)
	for _, failData := range []bool{true, false} {
		for ok := 0; ok < 3; ok++ {
			dataW, indexW := &sinkFailWriter{okWrites: 1 << 30}, &sinkFailWriter{okWrites: 1 << 30}
			if failData {
				dataW.okWrites = ok
			} else {
				indexW.okWrites = ok
			}
			dw, err := NewDataWriter(dataW, DataWriterOptions{BufferSize: 4096})
			if err != nil {
				t.Fatal(err)
			}
			s := NewPartitionSink(PartitionSinkOptions{Data: dw, Index: indexW, Summary: NewSummaryBuilder(SummaryOptions{})})
			var buf []byte
			var got error
			for i, p := range parts {
				buf = append(buf, p.data...)
				if err := s.EndPartition(p.key, uint64(i), 0, bytes.Repeat(p.entry, 500), 1, 1); err != nil {
					got = err
					break
				}
				if buf, err = s.Submit(buf); err != nil {
					got = err
					break
				}
			}
			if got == nil {
				_, got = s.Finish(buf)
			}
			if !errors.Is(got, errInjected) {
				t.Errorf("failData=%v ok=%d: error %v, want the injected one", failData, ok, got)
			}
			s.Abort()
			s.Abort()
			if _, err := s.Finish(nil); err == nil {
				t.Error("Finish after Abort succeeded")
			}
			dw.Abort()
		}
	}

	// Abort in the middle, and Submit after Finish.
	var data, index bytes.Buffer
	dw, _ := NewDataWriter(&data, DataWriterOptions{})
	s := NewPartitionSink(PartitionSinkOptions{Data: dw, Index: &index, Summary: NewSummaryBuilder(SummaryOptions{})})
	buf, err := s.Submit([]byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	if len(buf) != 0 {
		t.Fatal("Submit returned a non-empty buffer")
	}
	s.Abort()
	if _, err := s.Submit([]byte("x")); err == nil {
		t.Error("Submit after Abort succeeded")
	}
	if err := s.EndPartition([]byte("k"), 0, 0, nil, 1, 0); err == nil {
		t.Error("EndPartition after Abort succeeded")
	}
}
