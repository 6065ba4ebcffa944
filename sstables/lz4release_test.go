package sstables

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables/version"
)

// lz4PreRelease are the real SSTables written by a pre-release whose LZ4 is
// not its version's: composite/ was written in February 2015 by Cassandra
// 2.2's trunk, still on lz4-java 1.2.0 (LZ4 r100).
var lz4PreRelease = map[string]compress.LZ4Encoder{
	"cassandra/composite/la-1-big": compress.LZ4R100,
}

// TestLZ4ChunksOfTheirRelease recompresses every LZ4 chunk of every real
// SSTable with the encoder of its version's release (WithReleaseEncoder;
// lz4PreRelease for the pre-release files) and requires the chunk's bytes
// back; it logs which of the encoders reproduce each SSTable's chunks.
func TestLZ4ChunksOfTheirRelease(t *testing.T) {
	encoders := []compress.LZ4Encoder{compress.LZ4Current, compress.LZ4R123, compress.LZ4R100}
	tables := 0
	for _, s := range realSSTables(t) {
		if !s.has(ComponentCompressionInfo) || s.corrupt != "" {
			continue
		}
		ci, err := ReadCompressionInfo(nil, s.desc)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ci.Params()
		if err != nil {
			t.Fatal(err)
		}
		if p.Codec != compress.LZ4 {
			continue
		}
		tables++
		r, err := OpenData(nil, s.desc, DataReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(s.desc.Path(ComponentData))
		if err != nil {
			t.Fatal(err)
		}
		release := WithReleaseEncoder(p, s.desc.Version)
		if e, ok := lz4PreRelease[s.name]; ok {
			release.LZ4Encoder = e
		}
		comps := map[compress.LZ4Encoder]compress.Compressor{}
		for _, e := range append(encoders, release.LZ4Encoder) {
			q := p
			q.LZ4Encoder = e
			if comps[e], err = compress.NewCompressor(q); err != nil {
				t.Fatal(err)
			}
		}
		same := map[compress.LZ4Encoder]int{}
		chunks := 0
		for i := range ci.DataChunks() {
			off, n := ci.ChunkSpan(i, int64(len(raw)))
			payload := raw[off : off+n-4]
			if ci.RawChunk(int64(len(payload))) {
				continue
			}
			chunks++
			plain := make([]byte, ci.ChunkDataLength(i))
			if _, err := r.ReadAt(plain, int64(i)*int64(ci.ChunkLength)); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			for _, e := range encoders {
				if out, _ := comps[e].Compress(nil, plain); bytes.Equal(out, payload) {
					same[e]++
				}
			}
			if out, _ := comps[release.LZ4Encoder].Compress(nil, plain); !bytes.Equal(out, payload) {
				t.Errorf("%s chunk %d: not reproduced by %s (%s): %s", s.name, i, release.LZ4Encoder, s.desc.Version.Release(), testdata.FirstDiff(out, payload))
			}
		}
		r.Close()
		var b strings.Builder
		for _, e := range encoders {
			fmt.Fprintf(&b, " %s %d/%d", e, same[e], chunks)
		}
		t.Logf("%s (%s, writes %s):%s", s.name, s.desc.Version, release.LZ4Encoder, b.String())
	}
	if tables == 0 {
		t.Fatal("no LZ4 SSTable in the test data")
	}
}

// TestWithReleaseEncoder: the version's LZ4 encoder fills in an LZ4 codec
// without one, an explicit one stays, other codecs are left alone, and
// every version maps to the compress encoder of the same name.
func TestWithReleaseEncoder(t *testing.T) {
	me := version.MustParse("me")
	nb := version.MustParse("nb")
	if got := WithReleaseEncoder(compress.Params{Codec: compress.LZ4}, me).LZ4Encoder; got != compress.LZ4R123 {
		t.Errorf("me: %s", got)
	}
	if got := WithReleaseEncoder(compress.Params{Codec: compress.LZ4}, nb).LZ4Encoder; got != compress.LZ4Current {
		t.Errorf("nb: %s", got)
	}
	if got := WithReleaseEncoder(compress.Params{Codec: compress.LZ4, LZ4Encoder: compress.LZ4Current}, me).LZ4Encoder; got != compress.LZ4Current {
		t.Errorf("me with an explicit encoder: %s", got)
	}
	if got := WithReleaseEncoder(compress.Params{Codec: compress.Snappy}, me).LZ4Encoder; got != compress.LZ4EncoderDefault {
		t.Errorf("snappy: %s", got)
	}
	names := map[version.LZ4Encoder]string{version.LZ4Current: "current", version.LZ4R123: "r123", version.LZ4R100: "r100"}
	for _, v := range version.All() {
		if got, want := LZ4EncoderOf(v).String(), names[v.Profile().LZ4]; got != want {
			t.Errorf("%s: %s, want %s", v, got, want)
		}
	}
}
