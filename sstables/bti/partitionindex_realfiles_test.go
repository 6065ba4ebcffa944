package bti

import (
	"bytes"
	"encoding/binary"
	"github.com/castable-db/castable/internal/vint"
	"os"
	"path/filepath"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// A real-file case: one sstable of the shared corpus.
type realCase struct {
	name   string
	dir    []string // below the test data root
	prefix string   // file name prefix, e.g. "da-1-bti-"
	// cassandra: Cassandra 5.0 da (na+ CompressionInfo, oa deletion in
	// the partition header, ByteOrderedPartitioner); else ScyllaDB ms/mt
	// (mc CompressionInfo, legacy deletion, Murmur3).
	cassandra bool
	// clustering column types (nil: none)
	ck []*schema.Type
	// row index granularity the writer used
	granularity int64
}

var realCases = []realCase{
	{"da/simple", []string{"cassandra-legacy", "da", "legacy_da_simple"}, "da-1-bti-", true, nil, 4096},
	{"da/clust", []string{"cassandra-legacy", "da", "legacy_da_clust"}, "da-1-bti-", true, []*schema.Type{schema.Text}, 4096},
}

func init() {
	for _, v := range []string{"ms", "mt"} {
		realCases = append(realCases,
			realCase{v + "/sliced_mutation_reads", []string{"scylla-bti", "sliced_mutation_reads"}, v + "-1-big-", false, []*schema.Type{schema.Int}, 65536},
			realCase{v + "/partition_skipping", []string{"scylla-bti", "partition_skipping"}, v + "-1-big-", false, nil, 65536},
			realCase{v + "/large_partition", []string{"scylla-bti", "large_partition"}, v + "-3-big-", false, []*schema.Type{schema.Text}, 65536},
		)
	}
}

func (c realCase) read(t testing.TB, component string) []byte {
	t.Helper()
	p := filepath.Join(append([]string{testdata.Dir(t)}, c.dir...)...)
	b, err := os.ReadFile(filepath.Join(p, c.prefix+component))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decompressData returns the uncompressed Data.db. It parses
// CompressionInfo.db itself: na+ (Cassandra da) has an i32
// maxCompressedLength after the chunk length, ScyllaDB's ms/mt use the mc
// layout. Chunks are LZ4 (4-byte little-endian length + block) + CRC32.
func decompressData(t testing.TB, c realCase) []byte {
	t.Helper()
	ci := c.read(t, "CompressionInfo.db")
	data := c.read(t, "Data.db")
	p := 0
	u16 := func() int { v := int(binary.BigEndian.Uint16(ci[p:])); p += 2; return v }
	u32 := func() int { v := int(int32(binary.BigEndian.Uint32(ci[p:]))); p += 4; return v }
	p += u16() // class name
	for n := u32(); n > 0; n-- {
		p += u16()
		p += u16()
	}
	chunkLen := u32()
	if c.cassandra {
		u32() // maxCompressedLength
	}
	dataLen := int64(binary.BigEndian.Uint64(ci[p:]))
	p += 8
	count := u32()
	offs := make([]int64, count+1)
	for i := 0; i < count; i++ {
		offs[i] = int64(binary.BigEndian.Uint64(ci[p:]))
		p += 8
	}
	offs[count] = int64(len(data))
	comp, err := compress.NewCompressor(compress.Params{Codec: compress.LZ4})
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for i := 0; i < count; i++ {
		chunk := data[offs[i] : offs[i+1]-4]
		d, err := comp.Decompress(nil, chunk, chunkLen)
		if err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		out = append(out, d...)
	}
	if int64(len(out)) != dataLen {
		t.Fatalf("decompressed %d bytes, CompressionInfo says %d", len(out), dataLen)
	}
	return out
}

// A partition as a tiny test-only decoder of the corpus' simple schemas
// finds it in the decompressed Data.db.
type testPartition struct {
	start      int64
	key        []byte
	deletion   mutation.DeletionTime
	headerLen  int64
	unfiltered []testUnfiltered
	endOffset  int64 // the end-of-partition byte, relative to start
}

type testUnfiltered struct {
	offset, end int64 // relative to the partition start
	comparable  []byte
}

func readTestUvint(b []byte, p *int) uint64 {
	v, n := vint.Decode(b[*p:])
	if n <= 0 {
		panic("bad vint")
	}
	*p += n
	return v
}

// decodePartitions walks Data.db partitions of tables whose clustering
// columns are c.ck (text or int), without complex columns in the
// clustering: flags, [extended flags], clustering or bound, size vint,
// skip.
func decodePartitions(t testing.TB, c realCase, data []byte) []testPartition {
	t.Helper()
	var parts []testPartition
	p := 0
	for p < len(data) {
		tp := testPartition{start: int64(p)}
		kl := int(binary.BigEndian.Uint16(data[p:]))
		tp.key = data[p+2 : p+2+kl]
		p += 2 + kl
		if c.cassandra {
			dt, n, err := sstables.ReadUnsignedFixedDeletionTime(data[p:])
			if err != nil {
				t.Fatal(err)
			}
			tp.deletion = dt
			p += n
		} else {
			tp.deletion = mutation.DeletionTime{LocalDeletionTime: sstables.FromLegacyDeletionTime(int32(binary.BigEndian.Uint32(data[p:]))),
				MarkedForDeleteAt: int64(binary.BigEndian.Uint64(data[p+4:]))}
			p += 12
		}
		tp.headerLen = int64(p) - tp.start
		for {
			uStart := p
			flags := data[p]
			p++
			if flags&0x01 != 0 {
				tp.endOffset = int64(uStart) - tp.start
				break
			}
			var ext byte
			if flags&0x80 != 0 {
				ext = data[p]
				p++
			}
			static := ext&0x01 != 0
			kind := mutation.ClusteringKind
			nvals := len(c.ck)
			if flags&0x02 != 0 { // range tombstone marker
				kind = mutation.BoundKind(data[p])
				nvals = int(binary.BigEndian.Uint16(data[p+1:]))
				p += 3
			}
			var vals [][]byte
			if !static && nvals > 0 {
				hdr := readTestUvint(data, &p)
				for i := 0; i < nvals; i++ {
					switch {
					case hdr>>(2*i)&2 != 0:
						vals = append(vals, nil)
					case hdr>>(2*i)&1 != 0:
						vals = append(vals, []byte{})
					case c.ck[i].FixedLength() > 0:
						n := c.ck[i].FixedLength()
						vals = append(vals, data[p:p+n])
						p += n
					default:
						n := int(readTestUvint(data, &p))
						vals = append(vals, data[p:p+n])
						p += n
					}
				}
			}
			size := readTestUvint(data, &p)
			p += int(size)
			if static {
				tp.headerLen = int64(p) - tp.start
				continue
			}
			tp.unfiltered = append(tp.unfiltered, testUnfiltered{
				offset:     int64(uStart) - tp.start,
				end:        int64(p) - tp.start,
				comparable: AppendClustering(nil, c.ck, vals, kind),
			})
		}
		parts = append(parts, tp)
	}
	return parts
}

// cutBlocks reproduces BtiFormatPartitionWriter's index blocks: a block
// starts at an unfiltered and is closed after the unfiltered that brings it
// to the granularity; a last unfinished block is closed only if another
// was.
func cutBlocks(tp testPartition, granularity int64) []RowIndexBlock {
	var blocks []RowIndexBlock
	var cur *RowIndexBlock
	for _, u := range tp.unfiltered {
		if cur == nil {
			cur = &RowIndexBlock{First: u.comparable, Offset: u.offset, Open: mutation.Live}
		}
		cur.Last = u.comparable
		if u.end-cur.Offset >= granularity {
			blocks = append(blocks, *cur)
			cur = nil
		}
	}
	if cur != nil && len(blocks) > 0 {
		blocks = append(blocks, *cur)
	}
	return blocks
}

func (c realCase) comparableKey(key []byte) []byte {
	if c.cassandra {
		return AppendDecoratedKey(nil, dht.ByteOrdered, key)
	}
	return AppendDecoratedKey(nil, dht.Murmur3, key)
}

func TestRealFilesReadAndRebuild(t *testing.T) {
	for _, c := range realCases {
		t.Run(c.name, func(t *testing.T) {
			pdb := c.read(t, "Partitions.db")
			rdb := c.read(t, "Rows.db")
			data := decompressData(t, c)
			parts := decodePartitions(t, c, data)

			pi, err := OpenPartitionIndex(pdb, "Partitions.db")
			if err != nil {
				t.Fatal(err)
			}
			if err := pi.Verify(); err != nil {
				t.Fatal(err)
			}
			if pi.KeyCount != int64(len(parts)) {
				t.Fatalf("key count %d, Data.db has %d partitions", pi.KeyCount, len(parts))
			}
			if !bytes.Equal(pi.FirstKey, parts[0].key) || !bytes.Equal(pi.LastKey, parts[len(parts)-1].key) {
				t.Errorf("first/last key %x/%x", pi.FirstKey, pi.LastKey)
			}
			ri := OpenRowIndex(rdb, "Rows.db")
			var got []PartitionCandidate
			if err := pi.Iterate(func(e PartitionEntry) error {
				got = append(got, e.PartitionCandidate)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(parts) {
				t.Fatalf("iterated %d partitions, want %d", len(got), len(parts))
			}
			indexed := 0
			for i, cand := range got {
				tp := parts[i]
				if cand.Hash != HashByte(tp.key) {
					t.Errorf("partition %d: hash %02x, want %02x", i, cand.Hash, HashByte(tp.key))
				}
				dataPos := cand.DataPos()
				if cand.InRowIndex() {
					indexed++
					e, err := ri.Entry(cand.Pos)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(e.Key, tp.key) {
						t.Fatalf("Rows.db entry key %x, want %x", e.Key, tp.key)
					}
					dataPos = e.DataPos
					offs, err := ri.Verify(e)
					if err != nil {
						t.Fatal(err)
					}
					if offs[len(offs)-1] != tp.endOffset || offs[0] != tp.headerLen {
						t.Errorf("row index offsets %v: first %d (want header %d), last %d (want end %d)", offs, offs[0], tp.headerLen, offs[len(offs)-1], tp.endOffset)
					}
					// Every row is found in the block that holds it.
					for _, u := range tp.unfiltered {
						info, err := ri.Floor(e.Root, u.comparable)
						if err != nil {
							t.Fatal(err)
						}
						k := 0
						for k+1 < len(offs)-1 && offs[k+1] <= u.offset {
							k++
						}
						if info.Offset != offs[k] {
							t.Fatalf("row at %d: floor block at %d, want %d", u.offset, info.Offset, offs[k])
						}
					}
				}
				if dataPos != tp.start {
					t.Fatalf("partition %d: index says Data.db %d, decoder found %d", i, dataPos, tp.start)
				}
				kl := int(binary.BigEndian.Uint16(data[dataPos:]))
				if !bytes.Equal(data[dataPos+2:dataPos+2+int64(kl)], tp.key) {
					t.Fatalf("key at %d differs", dataPos)
				}
				// Lookup by the full key finds the same candidate.
				lc, ok, err := pi.Lookup(c.comparableKey(tp.key), HashByte(tp.key))
				if err != nil || !ok || lc != cand {
					t.Fatalf("Lookup(%x) = %+v, %v, %v; want %+v", tp.key, lc, ok, err, cand)
				}
			}
			t.Logf("%d partitions, %d with a row index", len(parts), indexed)
			// Absent keys are reported absent (by the index or by the key
			// at the candidate).
			for _, k := range [][]byte{[]byte("5"), []byte("00"), {}, {0, 0, 0, 9}, {0, 0, 0, 1, 0}, []byte("zzzz"), []byte("v2")} {
				present := false
				for _, tp := range parts {
					present = present || bytes.Equal(tp.key, k)
				}
				if present {
					continue
				}
				cand, ok, err := pi.Lookup(c.comparableKey(k), HashByte(k))
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					pos := cand.DataPos()
					if cand.InRowIndex() {
						e, err := ri.Entry(cand.Pos)
						if err != nil {
							t.Fatal(err)
						}
						pos = e.DataPos
					}
					kl := int(binary.BigEndian.Uint16(data[pos:]))
					if bytes.Equal(data[pos+2:pos+2+int64(kl)], k) {
						t.Fatalf("absent key %x found", k)
					}
				}
			}

			// Rebuild both files from the Data.db walk alone.
			var rows, partsOut bytes.Buffer
			rw := NewRowIndexWriter(&rows, RowIndexOptions{Scylla: !c.cassandra})
			pw := NewPartitionIndexWriter(&partsOut, PartitionIndexOptions{Scylla: !c.cassandra})
			for _, tp := range parts {
				for _, b := range cutBlocks(tp, c.granularity) {
					if err := rw.Add(b); err != nil {
						t.Fatal(err)
					}
				}
				pos, err := rw.FinishPartition(tp.key, tp.start, tp.endOffset, tp.deletion)
				if err != nil {
					t.Fatal(err)
				}
				if pos < 0 {
					pos = ^tp.start
				}
				if err := pw.Add(c.comparableKey(tp.key), tp.key, HashByte(tp.key), pos); err != nil {
					t.Fatal(err)
				}
			}
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := pw.Finish(); err != nil {
				t.Fatal(err)
			}
			compareBytes(t, "Rows.db", rows.Bytes(), rdb)
			compareBytes(t, "Partitions.db", partsOut.Bytes(), pdb)
		})
	}
}

func compareBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s: rebuilt %d bytes, file has %d; first difference at offset %d:\n got  %x\n want %x", what, len(got), len(want), i,
		got[max(0, i-8):min(len(got), i+24)], want[max(0, i-8):min(len(want), i+24)])
}
