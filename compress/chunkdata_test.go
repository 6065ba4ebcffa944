package compress

import (
	"encoding/binary"
	"math/rand/v2"
)

// rowsChunk returns n bytes of deterministic SSTable-like content: rows of
// a 16-byte key and a 100-byte value, each with a 2-byte big-endian length.
// Each value is half compressible: 50 random bytes, then 50 bytes of one of
// eight fixed texts. LZ4 compresses a 64 KiB chunk of it about 2:1, like the
// chunks of baselines.md.
func rowsChunk(n int) []byte {
	rng := rand.New(rand.NewPCG(0x5eed, 0xca55))
	const filler = "cassandra sstable row value, half of it compressible; more text"
	out := make([]byte, 0, n+128)
	for row := 0; len(out) < n; row++ {
		out = binary.BigEndian.AppendUint16(out, 16)
		out = append(out, "key-"...)
		out = append(out, fmtDecimal(row, 12)...)
		out = binary.BigEndian.AppendUint16(out, 100)
		for range 50 {
			out = append(out, byte(rng.Uint32()))
		}
		k := row % 8
		out = append(out, filler[k:k+50]...)
	}
	return out[:n]
}

// fmtDecimal formats v zero-padded to width digits.
func fmtDecimal(v, width int) string {
	b := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b)
}

// inputKinds are the round-trip input families.
var inputKinds = []struct {
	name string
	gen  func(n int) []byte
}{
	{"zero", func(n int) []byte { return make([]byte, n) }},
	{"random", func(n int) []byte {
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}},
	{"rows", rowsChunk},
	{"text", func(n int) []byte {
		const s = "The quick brown fox jumps over the lazy dog. "
		b := make([]byte, n)
		for i := range b {
			b[i] = s[i%len(s)]
		}
		return b
	}},
}
