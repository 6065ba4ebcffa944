package compress

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestParamsFromOptions(t *testing.T) {
	cases := []struct {
		name string
		in   map[string]string
		want Params
	}{
		{"nil is Cassandra's default", nil, Params{Codec: LZ4, ChunkLength: 0}},
		{"empty map disables", map[string]string{}, Params{Codec: None, ChunkLength: 0}},
		{"class simple", map[string]string{"class": "LZ4Compressor"}, Params{Codec: LZ4, ChunkLength: 0}},
		{"class qualified with chunk", map[string]string{"class": "org.apache.cassandra.io.compress.LZ4Compressor", "chunk_length_in_kb": "4"},
			Params{Codec: LZ4, ChunkLength: 4096}},
		{"legacy keys", map[string]string{"sstable_compression": "org.apache.cassandra.io.compress.SnappyCompressor", "chunk_length_kb": "128"},
			Params{Codec: Snappy, ChunkLength: 131072}},
		{"legacy empty class disables", map[string]string{"sstable_compression": ""}, Params{Codec: None, ChunkLength: 0}},
		{"legacy empty class with chunk length", map[string]string{"sstable_compression": "", "chunk_length_kb": "16"}, Params{Codec: None, ChunkLength: 16384}},
		{"enabled false", map[string]string{"enabled": "false"}, Params{Codec: None, ChunkLength: 0}},
		{"enabled other word", map[string]string{"enabled": "no"}, Params{Codec: None, ChunkLength: 0}},
		{"enabled TRUE", map[string]string{"enabled": "TRUE", "class": "DeflateCompressor"}, Params{Codec: Deflate, ChunkLength: 0}},
		{"crc_check_chance", map[string]string{"class": "DeflateCompressor", "crc_check_chance": "0.5"},
			Params{Codec: Deflate, ChunkLength: 0, CRCCheckChance: 0.5}},
		{"crc_check_chance zero", map[string]string{"class": "LZ4Compressor", "crc_check_chance": "0"},
			Params{Codec: LZ4, ChunkLength: 0, CRCCheckChance: -1}},
		{"lz4 high", map[string]string{"class": "LZ4Compressor", "lz4_compressor_type": "high", "lz4_high_compressor_level": "12"},
			Params{Codec: LZ4, ChunkLength: 0, Options: map[string]string{"lz4_compressor_type": "high", "lz4_high_compressor_level": "12"}}},
		{"zstd level", map[string]string{"class": "ZstdCompressor", "compression_level": "1", "chunk_length_in_kb": "16"},
			Params{Codec: Zstd, ChunkLength: 16384, Options: map[string]string{"compression_level": "1"}}},
	}
	for _, tc := range cases {
		got, err := ParamsFromOptions(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got.Codec != tc.want.Codec || got.ChunkLength != tc.want.ChunkLength || got.CRCCheckChance != tc.want.CRCCheckChance || !maps.Equal(got.Options, tc.want.Options) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
		if _, err := NewCompressor(got); err != nil {
			t.Errorf("%s: NewCompressor: %v", tc.name, err)
		}
	}
}

func TestParamsFromOptionsErrors(t *testing.T) {
	cases := []struct {
		in      map[string]string
		unknown bool   // ErrUnknownCompressor rather than ErrInvalidOptions
		mention string // the error must mention this
	}{
		{map[string]string{"chunk_length_in_kb": "64"}, false, "class"},
		{map[string]string{"enabled": "true"}, false, "class"},
		{map[string]string{"enabled": "false", "class": "LZ4Compressor"}, false, "class"},
		{map[string]string{"class": "LZ4Compressor", "sstable_compression": "LZ4Compressor"}, false, "sstable_compression"},
		{map[string]string{"class": ""}, false, "enabled"},
		{map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "64", "chunk_length_kb": "64"}, false, "chunk_length_kb"},
		{map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "3"}, false, "power of 2"},
		{map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "0"}, false, "positive"},
		{map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "-64"}, false, "positive"},
		{map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "4194304"}, false, "too large"},
		{map[string]string{"class": "LZ4Compressor", "chunk_length_in_kb": "64k"}, false, "chunk_length_in_kb"},
		{map[string]string{"class": "LZ4Compressor", "crc_check_chance": "1.5"}, false, "crc_check_chance"},
		{map[string]string{"class": "LZ4Compressor", "crc_check_chance": "NaN"}, false, "crc_check_chance"},
		{map[string]string{"sstable_compression": "", "crc_check_chance": "1.0"}, false, "crc_check_chance"},
		{map[string]string{"class": "SnappyCompressor", "compression_level": "3"}, false, "compression_level"},
		{map[string]string{"class": "LZ4Compressor", "compression_level": "3"}, false, "compression_level"},
		{map[string]string{"class": "LZ4Compressor", "lz4_compressor_type": "medium"}, false, "medium"},
		{map[string]string{"class": "LZ4Compressor", "lz4_high_compressor_level": "0"}, false, "lz4_high_compressor_level"},
		{map[string]string{"class": "ZstdCompressor", "compression_level": "99"}, false, "compression_level"},
		{map[string]string{"class": "LZOCompressor"}, true, "LZOCompressor"},
		{map[string]string{"class": "com.example.MyCompressor"}, true, "com.example.MyCompressor"},
	}
	for _, tc := range cases {
		_, err := ParamsFromOptions(tc.in)
		want := ErrInvalidOptions
		if tc.unknown {
			want = ErrUnknownCompressor
		}
		if !errors.Is(err, want) {
			t.Errorf("%v: got %v, want %v", tc.in, err, want)
			continue
		}
		if !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("%v: error %q does not mention %q", tc.in, err, tc.mention)
		}
	}
}

func TestJavaStringHash(t *testing.T) {
	// Values of java.lang.String.hashCode.
	for s, want := range map[string]int32{
		"":                   0,
		"a":                  97,
		"hello":              99162322,
		"Aa":                 2112,
		"BB":                 2112,
		"\U0001F600":         1772899, // one supplementary character: two UTF-16 units, 0xD83D*31 + 0xDE00
		"polygenelubricants": -2147483648,
	} {
		if got := int32(javaStringHash(s)); got != want {
			t.Errorf("javaStringHash(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestOptionsForCompressionInfo(t *testing.T) {
	if got := (Params{Codec: LZ4}).OptionsForCompressionInfo(); got != nil {
		t.Errorf("no options: %v", got)
	}
	p := Params{Codec: LZ4, Options: map[string]string{
		"lz4_high_compressor_level": "9",
		"lz4_compressor_type":       "high",
		"crc_check_chance":          "1.0", // never written by Cassandra 3.x
		"chunk_length_in_kb":        "64",
	}}
	var keys []string
	for _, o := range p.OptionsForCompressionInfo() {
		keys = append(keys, o.Key)
		if o.Value != p.Options[o.Key] {
			t.Errorf("%s = %q, want %q", o.Key, o.Value, p.Options[o.Key])
		}
	}
	// Java 8 HashMap with 16 buckets: bucket((h ^ h>>>16) & 15) of
	// "lz4_compressor_type" and "lz4_high_compressor_level".
	want := slices.SortedFunc(slices.Values([]string{"lz4_compressor_type", "lz4_high_compressor_level"}), func(a, b string) int {
		return int(javaHashMapBucket(a, 16)) - int(javaHashMapBucket(b, 16))
	})
	if !slices.Equal(keys, want) {
		t.Errorf("order %q, want %q", keys, want)
	}
	t.Logf("buckets: lz4_compressor_type=%d lz4_high_compressor_level=%d", javaHashMapBucket("lz4_compressor_type", 16), javaHashMapBucket("lz4_high_compressor_level", 16))
	if got := javaHashMapCapacity(12); got != 16 {
		t.Errorf("capacity(12) = %d", got)
	}
	if got := javaHashMapCapacity(13); got != 32 {
		t.Errorf("capacity(13) = %d", got)
	}
}
