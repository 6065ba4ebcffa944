package sstables

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/castable-db/castable/checksummer"
	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/sstables/version"
)

// rowBytes returns n bytes that look like serialized rows: short headers,
// increasing timestamps, text and int values, so that they compress about
// as well as real data.
func rowBytes(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed^0x5deece66d))
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"}
	b := make([]byte, 0, n+256)
	ts := uint64(1525385507816568)
	for len(b) < n {
		b = append(b, 0x24, 0x08)
		b = binary.BigEndian.AppendUint32(b, rng.Uint32()%100000)
		ts += uint64(rng.IntN(10))
		b = binary.BigEndian.AppendUint64(b, ts)
		w := words[rng.IntN(len(words))]
		b = append(b, byte(len(w)))
		b = append(b, w...)
		b = binary.BigEndian.AppendUint32(b, rng.Uint32())
		for range rng.IntN(24) {
			b = append(b, byte('a'+rng.IntN(26)))
		}
	}
	return b[:n]
}

func wholeFileChecksum(alg checksummer.Algorithm, b []byte) uint32 {
	if alg == checksummer.Adler32 {
		return adler32.Checksum(b)
	}
	return crc32.ChecksumIEEE(b)
}

// writeData writes data through a DataWriter in random-sized pieces.
func writeData(t testing.TB, data []byte, opts DataWriterOptions, seed uint64) ([]byte, *DataResult) {
	t.Helper()
	var out bytes.Buffer
	w, err := NewDataWriter(&out, opts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	for p := data; len(p) > 0; {
		n := min(len(p), 1+rng.IntN(3*max(opts.Compression.EffectiveChunkLength(), 1000)/2))
		if rng.IntN(8) == 0 {
			if err := w.WriteByte(p[0]); err != nil {
				t.Fatal(err)
			}
			n = 1
		} else if _, err := w.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
		if w.Position() != int64(len(data)-len(p)) {
			t.Fatalf("position %d, want %d", w.Position(), len(data)-len(p))
		}
	}
	res, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), res
}

var testCodecs = []compress.Codec{compress.None, compress.LZ4, compress.Snappy, compress.Deflate, compress.Zstd}

func TestDataWriterRoundTrip(t *testing.T) {
	data := rowBytes(700_000, 1)
	for _, codec := range testCodecs {
		for _, alg := range []checksummer.Algorithm{checksummer.CRC32, checksummer.Adler32} {
			for _, jobs := range []int{1, 4} {
				for _, chunk := range []int{4096, 65536} {
					if codec == compress.None && chunk != 65536 {
						continue
					}
					name := fmt.Sprintf("codec=%v/alg=%v/jobs=%d/chunk=%d", codec, alg, jobs, chunk)
					t.Run(name, func(t *testing.T) {
						opts := DataWriterOptions{Compression: compress.Params{Codec: codec, ChunkLength: chunk}, Algorithm: alg, Jobs: jobs, BufferSize: 10000}
						file, res := writeData(t, data, opts, uint64(jobs))
						checkWritten(t, data, file, res, alg, codec, chunk)
					})
				}
			}
		}
	}
}

func checkWritten(t *testing.T, data, file []byte, res *DataResult, alg checksummer.Algorithm, codec compress.Codec, chunk int) {
	t.Helper()
	if res.DataLength != int64(len(data)) || res.FileSize != int64(len(file)) {
		t.Fatalf("lengths %d/%d, want %d/%d", res.DataLength, res.FileSize, len(data), len(file))
	}
	if want := wholeFileChecksum(alg, file); res.Digest != want {
		t.Fatalf("digest %08x, whole-file checksum %08x", res.Digest, want)
	}
	if codec == compress.None {
		if !bytes.Equal(file, data) || res.CRC == nil || res.CompressionInfo != nil {
			t.Fatal("uncompressed file differs from the data")
		}
		if want := (len(data) + CRCChunkSize - 1) / CRCChunkSize; len(res.CRC.Checksums) != want {
			t.Fatalf("%d CRC.db checksums, want %d", len(res.CRC.Checksums), want)
		}
		for i, v := range res.CRC.Checksums {
			end := min(len(data), (i+1)*CRCChunkSize)
			if v != wholeFileChecksum(alg, data[i*CRCChunkSize:end]) {
				t.Fatalf("CRC.db checksum %d wrong", i)
			}
		}
		if res.CompressionRatio() != -1 {
			t.Fatal("uncompressed ratio must be -1")
		}
	} else {
		ci := res.CompressionInfo
		if want := (len(data) + chunk - 1) / chunk; len(ci.ChunkOffsets) != want || res.Chunks != want {
			t.Fatalf("%d chunks, want %d", len(ci.ChunkOffsets), want)
		}
		enc, err := ci.AppendTo(nil)
		if err != nil {
			t.Fatal(err)
		}
		v := version.MustParse("mc")
		if ci.MaxCompressedLength > 0 {
			v = version.MustParse("na")
		}
		if again, err := ParseCompressionInfo(enc, "x", v); err != nil || again.MaxCompressedLength != ci.MaxCompressedLength {
			t.Fatalf("%+v %v", again, err)
		}
		var payload int64
		for i := range ci.ChunkOffsets {
			_, n := ci.ChunkSpan(i, int64(len(file)))
			payload += n - 4
		}
		if payload != res.CompressedLength {
			t.Fatalf("compressed length %d, want %d", res.CompressedLength, payload)
		}
	}
	r, err := NewDataReader(bytes.NewReader(file), int64(len(file)), "Data.db", res.CompressionInfo, res.CRC, DataReaderOptions{Algorithm: alg})
	if err != nil {
		t.Fatal(err)
	}
	vr, err := r.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if vr.Digest != res.Digest {
		t.Fatalf("Verify digest %08x, writer %08x", vr.Digest, res.Digest)
	}
	got, err := io.ReadAll(r.NewStream(0))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("stream read back differs (%v)", err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 100_000)
	for range 50 {
		off := rng.Int64N(int64(len(data)))
		n := rng.IntN(len(buf))
		k, err := r.ReadAt(buf[:n], off)
		want := data[off:min(int64(len(data)), off+int64(n))]
		if !bytes.Equal(buf[:k], want) || (k < n) != (err == io.EOF) {
			t.Fatalf("ReadAt(%d, %d) = %d, %v", n, off, k, err)
		}
	}
	s := r.NewStream(0)
	for range 50 {
		off := rng.Int64N(int64(len(data)))
		if _, err := s.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		c, err := s.ReadByte()
		if err != nil || c != data[off] || s.Position() != off+1 {
			t.Fatalf("ReadByte at %d: %v", off, err)
		}
	}
}

// TestDataWriterRawChunks writes chunks that do not compress below
// min_compress_ratio's bound (na and later): they are stored raw, the last
// one padded with zeros to maxCompressedLength, and read back exactly.
func TestDataWriterRawChunks(t *testing.T) {
	const chunk = 4096
	rng := rand.New(rand.NewPCG(9, 9))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	// compressible, incompressible, compressible, and a last chunk of 3720
	// random bytes: shorter than the bound, compressing to more than it.
	var data []byte
	data = append(data, rowBytes(3*chunk, 2)...)
	data = append(data, noise(2*chunk)...)
	data = append(data, rowBytes(chunk, 3)...)
	data = append(data, noise(3720)...)
	for _, codec := range []compress.Codec{compress.LZ4, compress.Snappy, compress.Deflate, compress.Zstd} {
		for _, jobs := range []int{1, 4} {
			t.Run(fmt.Sprintf("codec=%v/jobs=%d", codec, jobs), func(t *testing.T) {
				p := compress.Params{Codec: codec, ChunkLength: chunk, MinCompressRatio: 1.1}
				maxLen := p.MaxCompressedLength()
				if maxLen != 3724 {
					t.Fatalf("max compressed length %d, want ceil(4096/1.1) = 3724", maxLen)
				}
				opts := DataWriterOptions{Compression: p, Jobs: jobs, BufferSize: 10000, WithMaxCompressedLength: true}
				file, res := writeData(t, data, opts, uint64(jobs))
				ci := res.CompressionInfo
				if ci.MaxCompressedLength != maxLen {
					t.Fatalf("CompressionInfo max compressed length %d, want %d", ci.MaxCompressedLength, maxLen)
				}
				var raw []int
				for i := range ci.ChunkOffsets {
					off, n := ci.ChunkSpan(i, int64(len(file)))
					stored := file[off : off+n-4]
					if !ci.RawChunk(int64(len(stored))) {
						continue
					}
					raw = append(raw, i)
					start := i * chunk
					want := data[start:min(len(data), start+chunk)]
					if len(want) < maxLen {
						if len(stored) != maxLen || !bytes.Equal(stored[len(want):], make([]byte, maxLen-len(want))) {
							t.Errorf("chunk %d: %d stored bytes, want %d with zero padding", i, len(stored), maxLen)
						}
						stored = stored[:len(want)]
					}
					if !bytes.Equal(stored, want) {
						t.Errorf("raw chunk %d is not the data", i)
					}
				}
				if !slices.Equal(raw, []int{3, 4, 6}) {
					t.Errorf("raw chunks %v, want [3 4 6]", raw)
				}
				checkWritten(t, data, file, res, checksummer.CRC32, codec, chunk)
			})
		}
	}
	// Versions without the field refuse a ratio rather than ignore it.
	opts := DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4, MinCompressRatio: 2}}
	if _, err := NewDataWriter(io.Discard, opts); err == nil {
		t.Error("min_compress_ratio accepted for a version without maxCompressedLength")
	}
	// Without a ratio the field is 2^31 - 1 and nothing is raw.
	opts = DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4, ChunkLength: chunk}, WithMaxCompressedLength: true, Jobs: 1}
	file, res := writeData(t, data, opts, 1)
	if res.CompressionInfo.MaxCompressedLength != math.MaxInt32 {
		t.Errorf("default max compressed length %d", res.CompressionInfo.MaxCompressedLength)
	}
	checkWritten(t, data, file, res, checksummer.CRC32, compress.LZ4, chunk)
}

func TestDataWriterEmptyAndTiny(t *testing.T) {
	for _, codec := range testCodecs {
		for _, jobs := range []int{1, 3} {
			for _, n := range []int{0, 1, 4095, 4096, 4097} {
				opts := DataWriterOptions{Compression: compress.Params{Codec: codec, ChunkLength: 4096}, Jobs: jobs}
				data := rowBytes(n, 9)
				file, res := writeData(t, data, opts, 1)
				if n == 0 {
					if len(file) != 0 || res.Chunks != 0 || res.Digest != 0 {
						t.Fatalf("%v: empty data gave %d bytes, %d chunks", codec, len(file), res.Chunks)
					}
					continue
				}
				checkWritten(t, data, file, res, checksummer.CRC32, codec, 4096)
			}
		}
	}
}

// TestDataCorruptionSweep flips every byte of every chunk of a compressed
// file (and sampled bytes of an uncompressed one) and requires Verify and
// the reader to name the chunk.
func TestDataCorruptionSweep(t *testing.T) {
	data := rowBytes(13_000, 2)
	lz4, err := compress.NewCompressor(compress.Params{Codec: compress.LZ4})
	if err != nil {
		t.Fatal(err)
	}
	shared := func(compress.Params) (compress.Compressor, error) { return lz4, nil }
	for _, codec := range []compress.Codec{compress.LZ4, compress.None} {
		opts := DataWriterOptions{Compression: compress.Params{Codec: codec, ChunkLength: 4096}, Jobs: 2}
		file, res := writeData(t, data, opts, 1)
		step := 1
		if codec == compress.None {
			step = 97
		}
		for pos := 0; pos < len(file); pos += step {
			bad := bytes.Clone(file)
			bad[pos] ^= 0x40
			r, err := NewDataReader(bytes.NewReader(bad), int64(len(bad)), "Data.db", res.CompressionInfo, res.CRC, DataReaderOptions{NewCompressor: shared})
			if err != nil {
				t.Fatal(err)
			}
			chunk, chunkOff := pos/CRCChunkSize, int64(pos/CRCChunkSize*CRCChunkSize)
			if ci := res.CompressionInfo; ci != nil {
				for i := range ci.ChunkOffsets {
					if ci.ChunkOffsets[i] <= int64(pos) {
						chunk, chunkOff = i, ci.ChunkOffsets[i]
					}
				}
			}
			_, err = r.Verify()
			var ce *CorruptionError
			if !errors.As(err, &ce) || ce.Offset != chunkOff || !strings.Contains(ce.Reason, fmt.Sprintf("chunk %d ", chunk)) {
				t.Fatalf("%v: byte %d flipped: Verify = %v, want chunk %d at %d", codec, pos, err, chunk, chunkOff)
			}
			if _, err := io.ReadAll(r.NewStream(0)); !errors.As(err, &ce) || ce.Offset != chunkOff {
				t.Fatalf("%v: byte %d flipped: read = %v", codec, pos, err)
			}
		}
	}
}

func TestDataReaderCheckChance(t *testing.T) {
	data := rowBytes(50_000, 3)
	file, res := writeData(t, data, DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4, ChunkLength: 4096}, Jobs: 1}, 1)
	// Corrupt only a chunk's trailer: the payload still decompresses.
	bad := bytes.Clone(file)
	_, n := res.CompressionInfo.ChunkSpan(2, int64(len(file)))
	bad[res.CompressionInfo.ChunkOffsets[2]+n-1] ^= 1
	never, _ := NewDataReader(bytes.NewReader(bad), int64(len(bad)), "x", res.CompressionInfo, nil, DataReaderOptions{CRCCheckChance: -1})
	if got, err := io.ReadAll(never.NewStream(0)); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("check chance < 0 still verified: %v", err)
	}
	if _, err := never.Verify(); err == nil {
		t.Fatal("Verify must check every chunk")
	}
	always, _ := NewDataReader(bytes.NewReader(bad), int64(len(bad)), "x", res.CompressionInfo, nil, DataReaderOptions{})
	if _, err := io.ReadAll(always.NewStream(0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("default check chance did not verify: %v", err)
	}
}

func TestDataReaderRejectsBadInfo(t *testing.T) {
	data := rowBytes(10_000, 4)
	file, res := writeData(t, data, DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4, ChunkLength: 4096}, Jobs: 1}, 1)
	if _, err := NewDataReader(bytes.NewReader(file), int64(len(res.CompressionInfo.ChunkOffsets))*0+res.CompressionInfo.ChunkOffsets[2]+2, "x", res.CompressionInfo, nil, DataReaderOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("short file accepted: %v", err)
	}
	// A chunk that claims more than the chunk length is a bomb.
	big := rowBytes(9000, 5)
	bomb, bres := writeData(t, big, DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4, ChunkLength: 8192}, Jobs: 1}, 1)
	ci := *bres.CompressionInfo
	ci.ChunkLength = 4096
	ci.DataLength = 5000
	r, err := NewDataReader(bytes.NewReader(bomb), int64(len(bomb)), "x", &ci, nil, DataReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Verify(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("oversized chunk accepted: %v", err)
	}
}

// failingWriter fails after n bytes.
type failingWriter struct{ n int }

var errDiskFull = errors.New("no space left on device")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errDiskFull
	}
	w.n -= len(p)
	return len(p), nil
}

func TestDataWriterStickyErrors(t *testing.T) {
	data := rowBytes(300_000, 6)
	for _, codec := range []compress.Codec{compress.None, compress.LZ4} {
		for _, jobs := range []int{1, 4} {
			w, err := NewDataWriter(&failingWriter{n: 100_000}, DataWriterOptions{Compression: compress.Params{Codec: codec, ChunkLength: 16384}, Jobs: jobs, BufferSize: 4096})
			if err != nil {
				t.Fatal(err)
			}
			var werr error
			for p := data; len(p) > 0 && werr == nil; p = p[min(len(p), 5000):] {
				_, werr = w.Write(p[:min(len(p), 5000)])
			}
			if werr == nil {
				_, werr = w.Finish()
			}
			if !errors.Is(werr, errDiskFull) {
				t.Fatalf("%v jobs=%d: %v", codec, jobs, werr)
			}
			if _, err := w.Write([]byte{1}); !errors.Is(err, errDiskFull) {
				t.Fatalf("error not sticky: %v", err)
			}
			if _, err := w.Finish(); !errors.Is(err, errDiskFull) {
				t.Fatalf("Finish after error: %v", err)
			}
			w.Abort()
		}
	}
	w, _ := NewDataWriter(io.Discard, DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4}, Jobs: 4})
	w.Write(data)
	w.Abort()
	if _, err := w.Write(data); err == nil {
		t.Fatal("write after Abort succeeded")
	}
}

// TestDataReaderTrailingEmptyChunk reads a file with the extra empty chunk
// some Cassandra rewrite paths append (components.md §5.3): LZ4 payload
// 00 00 00 00 00 and its CRC-32.
func TestDataReaderTrailingEmptyChunk(t *testing.T) {
	data := rowBytes(10_000, 10)
	file, res := writeData(t, data, DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4, ChunkLength: 4096}, Jobs: 1}, 1)
	ci := *res.CompressionInfo
	ci.ChunkOffsets = append(slicesClone(ci.ChunkOffsets), int64(len(file)))
	empty := []byte{0, 0, 0, 0, 0}
	file = append(file, empty...)
	file = binary.BigEndian.AppendUint32(file, crc32.ChecksumIEEE(empty))
	if enc, _ := ci.AppendTo(nil); true {
		if _, err := ParseCompressionInfo(enc, "x", version.MustParse("mc")); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewDataReader(bytes.NewReader(file), int64(len(file)), "x", &ci, nil, DataReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vr, err := r.Verify()
	if err != nil || vr.Digest != crc32.ChecksumIEEE(file) || vr.Chunks != len(ci.ChunkOffsets) {
		t.Fatalf("%+v %v", vr, err)
	}
	if got, err := io.ReadAll(r.NewStream(0)); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back: %v", err)
	}
	// Uncompressed: CRC.db with one extra empty-input checksum.
	crc := &CRCInfo{ChunkSize: CRCChunkSize, Checksums: []uint32{crc32.ChecksumIEEE(data), 0}}
	u, err := NewDataReader(bytes.NewReader(data), int64(len(data)), "x", nil, crc, DataReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Verify(); err != nil {
		t.Fatal(err)
	}
}

// TestDataWriterTrailingEmptyChunk: with TrailingEmptyChunk the writer
// ends Data.db as Cassandra's compaction writer does — the file without it
// plus an empty chunk (compressed) or an empty-input checksum in CRC.db
// (uncompressed) — with inline and parallel compression, for data ending
// inside a chunk and exactly on a chunk boundary; the reader tells.
func TestDataWriterTrailingEmptyChunk(t *testing.T) {
	for _, n := range []int{10_000, 3 * 4096} {
		data := rowBytes(n, 10)
		for _, jobs := range []int{1, 3} {
			base := DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4, ChunkLength: 4096}, Jobs: jobs}
			plain, res := writeData(t, data, base, 1)
			with := base
			with.TrailingEmptyChunk = true
			file, res2 := writeData(t, data, with, 1)
			empty := []byte{0, 0, 0, 0, 0} // uncompressed length 0 and the LZ4 token of no bytes
			want := binary.BigEndian.AppendUint32(append(slicesClone(plain), empty...), crc32.ChecksumIEEE(empty))
			if !bytes.Equal(file, want) {
				t.Fatalf("n=%d jobs=%d: %d bytes, want %d", n, jobs, len(file), len(want))
			}
			if len(res2.CompressionInfo.ChunkOffsets) != len(res.CompressionInfo.ChunkOffsets)+1 || res2.Digest != crc32.ChecksumIEEE(file) {
				t.Fatalf("n=%d jobs=%d: chunks %d, digest %08x", n, jobs, len(res2.CompressionInfo.ChunkOffsets), res2.Digest)
			}
			r, err := NewDataReader(bytes.NewReader(file), int64(len(file)), "x", res2.CompressionInfo, nil, DataReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !r.TrailingEmptyChunk() {
				t.Fatal("the reader does not see the trailing empty chunk")
			}
			if r0, _ := NewDataReader(bytes.NewReader(plain), int64(len(plain)), "x", res.CompressionInfo, nil, DataReaderOptions{}); r0.TrailingEmptyChunk() {
				t.Fatal("the reader sees a trailing empty chunk that is not there")
			}
			if got, err := io.ReadAll(r.NewStream(0)); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read back: %v", err)
			}
		}
		file, res := writeData(t, data, DataWriterOptions{TrailingEmptyChunk: true}, 1)
		if !bytes.Equal(file, data) || res.CRC.Checksums[len(res.CRC.Checksums)-1] != 0 || len(res.CRC.Checksums) != (n+CRCChunkSize-1)/CRCChunkSize+1 {
			t.Fatalf("uncompressed: %d checksums", len(res.CRC.Checksums))
		}
		if r, _ := NewDataReader(bytes.NewReader(file), int64(len(file)), "x", nil, res.CRC, DataReaderOptions{}); !r.TrailingEmptyChunk() {
			t.Fatal("uncompressed: the reader does not see the empty checksum")
		}
	}
}
