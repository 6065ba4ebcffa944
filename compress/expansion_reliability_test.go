package compress

import (
	"bytes"
	"testing"
)

// TestMaximalRatiosStillDecode: the expansion bounds that refuse hostile
// length claims before allocating must never refuse a real block. Runs of a
// single byte compress as far as each format allows (LZ4 ~250:1, Deflate
// ~1030:1 at its best level); every implementation's output must decode,
// both against a tight and a generous chunk bound.
func TestMaximalRatiosStillDecode(t *testing.T) {
	sizes := []int{1, 17, 300, 4096, 65536, 1 << 20, 8 << 20}
	for _, codec := range []Codec{LZ4, Snappy, Deflate} {
		for _, impl := range implsOf(codec) {
			for _, level := range []string{"", "9"} {
				params := Params{Codec: codec}
				if level != "" {
					if codec == Snappy {
						continue
					}
					params.Options = map[string]string{"compression_level": level}
					if codec == LZ4 {
						params.Options = map[string]string{"lz4_compressor_type": "high", "lz4_high_compressor_level": level}
					}
				}
				c, err := NewCompressorImpl(params, impl)
				if err != nil {
					t.Fatalf("%v %s %v: %v", codec, impl, params.Options, err)
				}
				for _, n := range sizes {
					for _, fill := range []byte{0, 'x'} {
						src := bytes.Repeat([]byte{fill}, n)
						comp, err := c.Compress(nil, src)
						if err != nil {
							t.Fatal(err)
						}
						for _, bound := range []int{n, 1 << 30} {
							out, err := c.Decompress(nil, comp, bound)
							if err != nil || !bytes.Equal(out, src) {
								t.Fatalf("%v impl=%s %v: %d bytes of %q compressed to %d (%.0f:1), bound %d: %v",
									codec, impl, params.Options, n, fill, len(comp), float64(n)/float64(len(comp)), bound, err)
							}
						}
					}
				}
			}
		}
	}
}
