package sstables

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables/version"
)

func TestRealCompressionInfo(t *testing.T) {
	n := 0
	for _, s := range realSSTables(t) {
		if !s.has(ComponentCompressionInfo) {
			continue
		}
		n++
		b := s.read(t, ComponentCompressionInfo)
		ci, err := ParseCompressionInfo(b, s.desc.Path(ComponentCompressionInfo), s.desc.Version)
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if _, err := ci.Codec(); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
		again, err := ci.AppendTo(nil)
		if err != nil || !bytes.Equal(again, b) {
			t.Errorf("%s: re-encoding differs (%v)", s.name, err)
		}
		if s.has(ComponentCRC) {
			t.Errorf("%s: both CompressionInfo.db and CRC.db", s.name)
		}
	}
	if n < 10 {
		t.Fatalf("only %d CompressionInfo.db files", n)
	}
}

func TestCompressionInfoRejects(t *testing.T) {
	good := &CompressionInfo{ClassName: "LZ4Compressor", ChunkLength: 65536, DataLength: 70000, ChunkOffsets: []int64{0, 100}}
	b, err := good.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseCompressionInfo(b, "x", version.MustParse("mc")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(ci *CompressionInfo){
		"zero chunks":         func(ci *CompressionInfo) { ci.ChunkOffsets = nil },
		"too few chunks":      func(ci *CompressionInfo) { ci.ChunkOffsets = ci.ChunkOffsets[:1] },
		"too many chunks":     func(ci *CompressionInfo) { ci.ChunkOffsets = []int64{0, 10, 20, 30} },
		"first offset not 0":  func(ci *CompressionInfo) { ci.ChunkOffsets[0] = 4 },
		"offsets not growing": func(ci *CompressionInfo) { ci.ChunkOffsets[1] = 4 },
		"chunk length":        func(ci *CompressionInfo) { ci.ChunkLength = 65535 },
		"negative length":     func(ci *CompressionInfo) { ci.DataLength = -1 },
	}
	for name, mutate := range cases {
		ci := *good
		ci.ChunkOffsets = slices.Clone(good.ChunkOffsets)
		mutate(&ci)
		b, _ := ci.AppendTo(nil)
		_, err := ParseCompressionInfo(b, "x", version.MustParse("mc"))
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want a CorruptionError", name, err)
		}
	}
	for cut := 0; cut < len(b); cut++ {
		if _, err := ParseCompressionInfo(b[:cut], "x", version.MustParse("mc")); !errors.Is(err, ErrCorrupt) {
			t.Errorf("truncated to %d: got %v", cut, err)
		}
	}
	if _, err := ParseCompressionInfo(append(slices.Clone(b), 0), "x", version.MustParse("mc")); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte accepted: %v", err)
	}
}

func TestCompressionInfoOptions(t *testing.T) {
	ci := &CompressionInfo{ClassName: "ZstdCompressor", Options: []CompressionOption{{Key: "compression_level", Value: "3"}, {Key: "crc_check_chance", Value: "1.0"}}, ChunkLength: 4096, DataLength: 1, ChunkOffsets: []int64{0}}
	b, err := ci.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseCompressionInfo(b, "x", version.MustParse("mc"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Options, ci.Options) {
		t.Fatalf("options %v, want %v", got.Options, ci.Options)
	}
	p, err := got.Params()
	if err != nil || p.Options["compression_level"] != "3" || p.ChunkLength != 4096 {
		t.Fatalf("params %+v, %v", p, err)
	}
}

func TestRealCRC(t *testing.T) {
	n := 0
	for _, s := range realSSTables(t) {
		if !s.has(ComponentCRC) {
			continue
		}
		n++
		b := s.read(t, ComponentCRC)
		crc, err := ParseCRC(b, s.desc.Path(ComponentCRC))
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if !bytes.Equal(crc.AppendTo(nil), b) {
			t.Errorf("%s: re-encoding differs", s.name)
		}
		if crc.ChunkSize != CRCChunkSize {
			t.Errorf("%s: chunk size %d", s.name, crc.ChunkSize)
		}
		tr := s.desc.Version
		size := int64(len(s.read(t, ComponentData)))
		if _, err := crc.ChunkCount(size, ChecksumAlgorithm(tr), "x"); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
	}
	if n < 10 {
		t.Fatalf("only %d CRC.db files", n)
	}
	if _, err := ParseCRC([]byte{0, 1, 0, 0, 1, 2}, "x"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("odd length accepted: %v", err)
	}
	if _, err := ParseCRC([]byte{0, 0, 0, 0}, "x"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("chunk size 0 accepted: %v", err)
	}
}

func TestCRCTrailingEmptyChecksum(t *testing.T) {
	for _, tc := range []struct {
		alg  uint8
		tail uint32
		ok   bool
	}{{1, 0, true}, {2, 1, true}, {1, 1, false}, {2, 0, false}} {
		crc := &CRCInfo{ChunkSize: 4, Checksums: []uint32{7, 8, tc.tail}}
		_, err := crc.ChunkCount(8, algOf(tc.alg), "x")
		if (err == nil) != tc.ok {
			t.Errorf("alg %d tail %d: %v", tc.alg, tc.tail, err)
		}
	}
}

func TestRealDigestAndTOC(t *testing.T) {
	for _, s := range realSSTables(t) {
		dc := s.digestComponent()
		if dc == "" {
			t.Errorf("%s: no digest file", s.name)
			continue
		}
		b := s.read(t, dc)
		v, err := ParseDigest(b, "x", dc)
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if !bytes.Equal(AppendDigest(nil, v), b) {
			t.Errorf("%s: digest %q re-encodes as %q", s.name, b, AppendDigest(nil, v))
		}
		if !s.has(ComponentTOC) {
			continue
		}
		toc, err := ReadTOC(nil, s.desc)
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if !slices.Contains(toc.Listed, ComponentTOC) || !slices.Contains(toc.Listed, ComponentData) {
			t.Errorf("%s: TOC lists %v", s.name, toc.Listed)
		}
		if len(toc.Missing) > 0 {
			t.Logf("%s: TOC lists missing components %v", s.name, toc.Missing)
		}
	}
}

func TestDigestParse(t *testing.T) {
	for in, want := range map[string]uint32{"0": 0, "4294967295": 4294967295, "568167030\n": 568167030, "12\r\n": 12} {
		if v, err := ParseDigest([]byte(in), "x", ComponentDigestCRC32); err != nil || v != want {
			t.Errorf("%q: %d, %v", in, v, err)
		}
	}
	for _, in := range []string{"", "-1", "4294967296", "12a", " 12", "99999999999999999999"} {
		if _, err := ParseDigest([]byte(in), "x", ComponentDigestCRC32); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q accepted: %v", in, err)
		}
	}
}

func TestTOC(t *testing.T) {
	b := AppendTOC(nil, []Component{ComponentFilter, ComponentData, "Custom.db", ComponentIndex, ComponentData})
	want := "Data.db\nIndex.db\nFilter.db\nTOC.txt\nCustom.db\n"
	if string(b) != want {
		t.Fatalf("TOC %q, want %q", b, want)
	}
	got, err := ParseTOC([]byte("Data.db\r\nIndex.db\n\nData.db\nTOC.txt"), "x")
	if err != nil || !slices.Equal(got, []Component{ComponentData, ComponentIndex, ComponentTOC}) {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"", "\n\n", "Data.db\n../x\n", "Da\x00ta.db\n"} {
		if _, err := ParseTOC([]byte(bad), "x"); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
}

func TestJavaUTF(t *testing.T) {
	for _, s := range []string{"", "LZ4Compressor", "a\x00b", "é", "€", "😀x", string([]byte{0xff})} {
		b, err := AppendJavaUTF(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		r := NewByteReader(b, "x", ComponentCompressionInfo, 0)
		got := r.JavaUTF()
		want := s
		if s == string([]byte{0xff}) {
			want = "\uFFFD"
		}
		if r.Err() != nil || got != want || r.Remaining() != 0 {
			t.Errorf("%q: got %q, %v", s, got, r.Err())
		}
		if bytes.IndexByte(b[2:], 0) >= 0 {
			t.Errorf("%q: encoding %x holds a zero byte", s, b)
		}
	}
	if b, _ := AppendJavaUTF(nil, "😀"); !bytes.Equal(b, []byte{0, 6, 0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80}) {
		t.Errorf("surrogate pair encoding %x", b)
	}
	if _, err := AppendJavaUTF(nil, string(make([]byte, 70000))); err == nil {
		t.Error("oversized string accepted")
	}
	if _, err := DecodeJavaUTF([]byte{0xe0, 0x80}); err == nil {
		t.Error("truncated sequence accepted")
	}
}

func TestCompressionInfoClassNames(t *testing.T) {
	for _, name := range []string{"LZ4Compressor", "org.apache.cassandra.io.compress.LZ4Compressor"} {
		ci := &CompressionInfo{ClassName: name, ChunkLength: 4096, DataLength: 1, ChunkOffsets: []int64{0}}
		if c, err := ci.Codec(); err != nil || c != compress.LZ4 {
			t.Errorf("%s: %v %v", name, c, err)
		}
	}
	ci := &CompressionInfo{ClassName: "com.example.MyCompressor", ChunkLength: 4096, DataLength: 1, ChunkOffsets: []int64{0}}
	if _, err := NewDataReader(bytes.NewReader(make([]byte, 10)), 10, "x", ci, nil, DataReaderOptions{}); !errors.Is(err, ErrCorrupt) || !errors.Is(err, compress.ErrUnknownCompressor) {
		t.Errorf("unknown compressor: %v", err)
	}
	got, err := compressionInfoFor(compress.Params{Codec: compress.Zstd, Options: map[string]string{"compression_level": "3"}}, false)
	if err != nil || got.ClassName != "ZstdCompressor" || len(got.Options) != 1 || got.ChunkLength != 65536 {
		t.Errorf("%+v %v", got, err)
	}
}

// TestEveryVersionCompressionInfoAndData reads CompressionInfo.db (or
// CRC.db) and the whole Data.db of every SSTable in the shared data,
// whatever its version or index kind — these two layouts are common to all
// of them — re-encoding CompressionInfo.db byte for byte and checking every
// chunk checksum and the digest.
func TestEveryVersionCompressionInfoAndData(t *testing.T) {
	seen := map[string]int{}
	for _, s := range testdata.SSTables(t) {
		desc, _, _, err := ParseDescriptor(s.Path("Data.db"))
		if err != nil {
			t.Fatal(err)
		}
		if s.Has("CompressionInfo.db") {
			b, err := os.ReadFile(s.Path("CompressionInfo.db"))
			if err != nil {
				t.Fatal(err)
			}
			ci, err := ParseCompressionInfo(b, s.Path("CompressionInfo.db"), desc.Version)
			if err != nil {
				t.Errorf("%s: %v", s.Name, err)
				continue
			}
			if again, err := ci.AppendTo(nil); err != nil || !bytes.Equal(again, b) {
				t.Errorf("%s: CompressionInfo.db re-encoding differs (%v)", s.Name, err)
			}
			if desc.Version.HasMaxCompressedLength() != (ci.MaxCompressedLength > 0) {
				t.Errorf("%s: max compressed length %d for version %s", s.Name, ci.MaxCompressedLength, desc.Version)
			}
		}
		r, err := OpenData(nil, desc, DataReaderOptions{})
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		_, err = r.Verify()
		r.Close()
		switch {
		case s.Corrupt == "checksums" && err == nil:
			t.Errorf("%s: corrupt checksums not detected", s.Name)
		case s.Corrupt != "checksums" && err != nil:
			t.Errorf("%s: %v", s.Name, err)
		}
		seen[desc.Version.String()]++
	}
	for _, v := range []string{"la", "ma", "mc", "md", "me", "na", "nb", "nc", "oa", "da", "ms", "mt"} {
		if seen[v] == 0 {
			t.Errorf("no %s SSTable read", v)
		}
	}
	t.Logf("Data.db read per version: %v", seen)
}
