package compress

import (
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// realSSTable is one Cassandra-written compressed SSTable of the shared
// test data.
type realSSTable struct {
	dir    string // below testdata/cassandra
	prefix string // file name prefix, e.g. "mc-1-big-"
	// adler: la chunks carry Adler-32 checksums; mc and me carry CRC-32.
	adler bool
	// badChecksums: deliberately corrupted chunk checksums.
	badChecksums bool
}

// realSSTables are every compressed SSTable of the read corpus.
var realSSTables = []realSSTable{
	{dir: "3.x/lz4/partition_key_with_values_of_different_types", prefix: "mc-1-big-"},
	{dir: "3.x/snappy/partition_key_with_values_of_different_types", prefix: "mc-1-big-"},
	{dir: "3.x/deflate/partition_key_with_values_of_different_types", prefix: "mc-1-big-"},
	{dir: "3.x/zstd/partition_key_with_values_of_different_types", prefix: "mc-1-big-"},
	{dir: "3.x/lz4/integrity_check/invalid_digest", prefix: "me-1-big-"},
	{dir: "3.x/lz4/integrity_check/invalid_checksums", prefix: "me-1-big-", badChecksums: true},
	{dir: "compressed", prefix: "la-1-big-", adler: true},
	{dir: "composite", prefix: "la-1-big-", adler: true},
	{dir: "set", prefix: "la-1-big-", adler: true},
	{dir: "ttl", prefix: "la-1-big-", adler: true},
	{dir: "deleted_cell", prefix: "la-2-big-", adler: true},
	{dir: "counter_test", prefix: "la-5-big-", adler: true},
	{dir: "promoted_index_read", prefix: "la-1-big-", adler: true},
}

// compressionInfo is CompressionInfo.db, parsed minimally (the real parser
// lives in package sstables).
type compressionInfo struct {
	class       string
	options     map[string]string
	chunkLength int
	dataLength  int64
	offsets     []int64
}

// parseCompressionInfo parses the la/mc layout: UTF class, i32 option
// count, UTF key/value pairs, i32 chunk length, i64 data length, i32 chunk
// count, i64 offsets; all big-endian; nothing after.
func parseCompressionInfo(b []byte) (compressionInfo, error) {
	var ci compressionInfo
	pos := 0
	need := func(n int) error {
		if n < 0 || len(b)-pos < n {
			return fmt.Errorf("truncated at offset %d (need %d bytes)", pos, n)
		}
		return nil
	}
	utf := func() (string, error) {
		if err := need(2); err != nil {
			return "", err
		}
		n := int(binary.BigEndian.Uint16(b[pos:]))
		pos += 2
		if err := need(n); err != nil {
			return "", err
		}
		s := string(b[pos : pos+n])
		pos += n
		return s, nil
	}
	i32 := func() (int, error) {
		if err := need(4); err != nil {
			return 0, err
		}
		v := int32(binary.BigEndian.Uint32(b[pos:]))
		pos += 4
		return int(v), nil
	}
	var err error
	if ci.class, err = utf(); err != nil {
		return ci, err
	}
	nopts, err := i32()
	if err != nil {
		return ci, err
	}
	if nopts < 0 || nopts > 64 {
		return ci, fmt.Errorf("option count %d", nopts)
	}
	ci.options = map[string]string{}
	for range nopts {
		k, err := utf()
		if err != nil {
			return ci, err
		}
		v, err := utf()
		if err != nil {
			return ci, err
		}
		ci.options[k] = v
	}
	if ci.chunkLength, err = i32(); err != nil {
		return ci, err
	}
	if err := need(8); err != nil {
		return ci, err
	}
	ci.dataLength = int64(binary.BigEndian.Uint64(b[pos:]))
	pos += 8
	count, err := i32()
	if err != nil {
		return ci, err
	}
	if count <= 0 || count > (len(b)-pos)/8 {
		return ci, fmt.Errorf("chunk count %d for %d remaining bytes", count, len(b)-pos)
	}
	for range count {
		ci.offsets = append(ci.offsets, int64(binary.BigEndian.Uint64(b[pos:])))
		pos += 8
	}
	if pos != len(b) {
		return ci, fmt.Errorf("%d trailing bytes", len(b)-pos)
	}
	return ci, nil
}

// realChunk is one compressed chunk of a real SSTable.
type realChunk struct {
	name        string // "<dir> chunk <i>"
	table       realSSTable
	params      Params
	payload     []byte // compressor output, without the 4-byte checksum
	checksumOK  bool   // the trailing checksum matches the payload
	wantLen     int    // uncompressed length the chunk must have
	dataLength  int64
	chunkLength int
}

// loadRealChunks reads every chunk of the real compressed SSTables.
func loadRealChunks(tb testing.TB) []realChunk {
	tb.Helper()
	var chunks []realChunk
	for _, st := range realSSTables {
		chunks = append(chunks, loadTableChunks(tb, st)...)
	}
	return chunks
}

func loadTableChunks(tb testing.TB, st realSSTable) []realChunk {
	tb.Helper()
	dir := testdata.Path(tb, "cassandra", filepath.FromSlash(st.dir))
	infoBytes, err := os.ReadFile(filepath.Join(dir, st.prefix+"CompressionInfo.db"))
	if err != nil {
		tb.Fatal(err)
	}
	ci, err := parseCompressionInfo(infoBytes)
	if err != nil {
		tb.Fatalf("%s: CompressionInfo.db: %v", st.dir, err)
	}
	codec, err := CodecFromClassName(ci.class)
	if err != nil {
		tb.Fatalf("%s: %v", st.dir, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, st.prefix+"Data.db"))
	if err != nil {
		tb.Fatal(err)
	}
	params := Params{Codec: codec, ChunkLength: ci.chunkLength, Options: ci.options}
	full := int((ci.dataLength + int64(ci.chunkLength) - 1) / int64(ci.chunkLength))
	if n := len(ci.offsets); n != full && n != full+1 {
		tb.Fatalf("%s: %d chunks for dataLength %d and chunk length %d", st.dir, n, ci.dataLength, ci.chunkLength)
	}
	var chunks []realChunk
	for i, off := range ci.offsets {
		end := int64(len(data))
		if i+1 < len(ci.offsets) {
			end = ci.offsets[i+1]
		}
		if off < 0 || end-4 < off || end > int64(len(data)) {
			tb.Fatalf("%s: chunk %d spans [%d, %d) of a %d-byte Data.db", st.dir, i, off, end, len(data))
		}
		payload := data[off : end-4]
		stored := binary.BigEndian.Uint32(data[end-4 : end])
		var sum uint32
		if st.adler {
			sum = adler32.Checksum(payload)
		} else {
			sum = crc32.ChecksumIEEE(payload)
		}
		want := 0 // the empty trailing chunk of a rewritten SSTable
		if i < full {
			want = int(min(int64(ci.chunkLength), ci.dataLength-int64(i)*int64(ci.chunkLength)))
		}
		chunks = append(chunks, realChunk{
			name:        fmt.Sprintf("%s chunk %d", st.dir, i),
			table:       st,
			params:      params,
			payload:     payload,
			checksumOK:  sum == stored,
			wantLen:     want,
			dataLength:  ci.dataLength,
			chunkLength: ci.chunkLength,
		})
	}
	return chunks
}

// implsOf lists the implementations of c built in, for table tests.
func implsOf(c Codec) []Impl {
	impls := []Impl{ImplGo}
	if HasImpl(c, ImplC) {
		impls = append(impls, ImplC)
	}
	return impls
}
