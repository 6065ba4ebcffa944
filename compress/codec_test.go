package compress

import (
	"errors"
	"strings"
	"testing"
)

func TestCodecNames(t *testing.T) {
	cases := []struct {
		c           Codec
		name, class string
	}{
		{None, "none", ""},
		{LZ4, "lz4", "LZ4Compressor"},
		{Snappy, "snappy", "SnappyCompressor"},
		{Deflate, "deflate", "DeflateCompressor"},
		{Zstd, "zstd", "ZstdCompressor"},
	}
	for _, tc := range cases {
		if got := tc.c.String(); got != tc.name {
			t.Errorf("%d.String() = %q, want %q", tc.c, got, tc.name)
		}
		if got := tc.c.ClassName(); got != tc.class {
			t.Errorf("%s.ClassName() = %q, want %q", tc.c, got, tc.class)
		}
		for _, s := range []string{tc.name, strings.ToUpper(tc.name)} {
			if got, err := ParseCodec(s); err != nil || got != tc.c {
				t.Errorf("ParseCodec(%q) = %v, %v; want %v", s, got, err, tc.c)
			}
		}
		if tc.class == "" {
			continue
		}
		for _, s := range []string{tc.class, "org.apache.cassandra.io.compress." + tc.class} {
			if got, err := CodecFromClassName(s); err != nil || got != tc.c {
				t.Errorf("CodecFromClassName(%q) = %v, %v; want %v", s, got, err, tc.c)
			}
		}
	}
	if got := Codec(99).String(); got != "Codec(99)" {
		t.Errorf("Codec(99).String() = %q", got)
	}
	if _, err := ParseCodec("lzo"); !errors.Is(err, ErrUnknownCompressor) {
		t.Errorf("ParseCodec(lzo): %v", err)
	}
}

func TestCodecFromClassNameUnknown(t *testing.T) {
	for _, name := range []string{
		"",
		"LZOCompressor",
		"lz4compressor",
		"com.example.LZ4Compressor",
		"org.apache.cassandra.io.compress.sub.LZ4Compressor",
		"org.apache.cassandra.io.compress.NoopCompressor",
		"org.apache.cassandra.io.compress.",
	} {
		_, err := CodecFromClassName(name)
		if !errors.Is(err, ErrUnknownCompressor) {
			t.Errorf("CodecFromClassName(%q): %v, want ErrUnknownCompressor", name, err)
			continue
		}
		if !strings.Contains(err.Error(), `"`+name+`"`) {
			t.Errorf("CodecFromClassName(%q): error %q does not name the class", name, err)
		}
	}
}

func TestNewCompressorErrors(t *testing.T) {
	if _, err := NewCompressor(Params{Codec: Codec(42)}); !errors.Is(err, ErrUnknownCompressor) {
		t.Errorf("unknown codec: %v", err)
	}
	for _, p := range []Params{
		{Codec: LZ4, Options: map[string]string{"lz4_compressor_type": "HIGH"}},
		{Codec: LZ4, Options: map[string]string{"lz4_high_compressor_level": "18"}},
		{Codec: Zstd, Options: map[string]string{"compression_level": "23"}},
		{Codec: Zstd, Options: map[string]string{"compression_level": "x"}},
		{Codec: LZ4, ChunkLength: -1},
	} {
		if _, err := NewCompressor(p); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: %v, want ErrInvalidOptions", p, err)
		}
	}
	// Unknown options are ignored: ScyllaDB writes crc_check_chance.
	if _, err := NewCompressor(Params{Codec: LZ4, Options: map[string]string{"crc_check_chance": "1.0"}}); err != nil {
		t.Errorf("crc_check_chance in Options: %v", err)
	}
	for _, c := range []Codec{Snappy, Zstd, None} {
		if HasImpl(c, ImplC) {
			t.Errorf("HasImpl(%s, c) = true", c)
		}
		if _, err := NewCompressorImpl(Params{Codec: c}, ImplC); err == nil {
			t.Errorf("NewCompressorImpl(%s, ImplC) succeeded", c)
		}
	}
	if HasImpl(LZ4, ImplC) != haveLibLZ4 || HasImpl(Deflate, ImplC) != (haveZlib || haveLibDeflate) {
		t.Errorf("HasImpl disagrees with the build tags")
	}
}

func TestParamsEffective(t *testing.T) {
	if got := (Params{}).EffectiveChunkLength(); got != 65536 {
		t.Errorf("default chunk length %d", got)
	}
	if got := (Params{ChunkLength: 4096}).EffectiveChunkLength(); got != 4096 {
		t.Errorf("chunk length %d", got)
	}
	for in, want := range map[float64]float64{0: 1, 0.25: 0.25, 1: 1, -1: 0} {
		if got := (Params{CRCCheckChance: in}).EffectiveCRCCheckChance(); got != want {
			t.Errorf("EffectiveCRCCheckChance(%v) = %v, want %v", in, got, want)
		}
	}
}
