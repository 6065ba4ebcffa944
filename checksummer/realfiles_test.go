package checksummer

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// realSSTable is one Cassandra- or ScyllaDB-written sstable of the shared
// test data that has a Digest file.
type realSSTable struct {
	dir, prefix string // prefix is e.g. "mc-1-big"
	rel         string // dir relative to the test data root
	alg         Algorithm
	data        []byte
	digest      uint32
	crcDB       []byte  // nil when absent
	chunks      []int64 // compressed chunk offsets, nil when uncompressed
}

// earlyLA are the la folders written by a 2015 pre-release Cassandra whose
// digest covers the compressed payloads only (components.md §8).
var earlyLA = map[string]bool{
	"cassandra/composite": true, "cassandra/compressed": true, "cassandra/deleted_cell": true,
	"cassandra/set": true, "cassandra/ttl": true,
}

// realSSTables finds every sstable with a Digest file below the test data
// root (skipping, or failing in CI, when the data is absent).
func realSSTables(t testing.TB) []realSSTable {
	t.Helper()
	root := testdata.Dir(t)
	var out []realSSTable
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		base := filepath.Base(path)
		i := strings.Index(base, "-Digest.")
		if i < 0 {
			return nil
		}
		s := realSSTable{dir: filepath.Dir(path), prefix: base[:i], alg: CRC32}
		s.rel, _ = filepath.Rel(root, s.dir)
		if strings.HasPrefix(s.prefix, "la-") {
			s.alg = Adler32
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		v, err := strconv.ParseUint(string(text), 10, 32)
		if err != nil {
			return errors.New(path + ": digest is not an unsigned 32-bit decimal: " + err.Error())
		}
		s.digest = uint32(v)
		if s.data, err = os.ReadFile(filepath.Join(s.dir, s.prefix+"-Data.db")); err != nil {
			return err
		}
		if b, err := os.ReadFile(filepath.Join(s.dir, s.prefix+"-CRC.db")); err == nil {
			s.crcDB = b
		}
		if b, err := os.ReadFile(filepath.Join(s.dir, s.prefix+"-CompressionInfo.db")); err == nil {
			// Cassandra 4.0 (na) added maxCompressedLength; ScyllaDB's ms/mt
			// keep the 3.x layout.
			withMax := strings.IndexByte("nod", s.prefix[0]) >= 0
			if s.chunks, err = chunkOffsets(b, int64(len(s.data)), withMax); err != nil {
				return errors.New(s.dir + ": " + err.Error())
			}
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 40 {
		t.Fatalf("found only %d sstables with a Digest below %s", len(out), root)
	}
	return out
}

// chunkOffsets reads the chunk offsets of a CompressionInfo.db
// (components.md §5.1, big-endian; withMax: the i32 maxCompressedLength
// that follows the chunk length from na on, modern-formats.md §2.6), plus
// the file size as a final offset.
func chunkOffsets(b []byte, fileSize int64, withMax bool) ([]int64, error) {
	errShort := errors.New("CompressionInfo.db truncated")
	pos := 0
	need := func(n int) bool { return pos+n <= len(b) }
	if !need(2) {
		return nil, errShort
	}
	pos += 2 + int(binary.BigEndian.Uint16(b))
	if !need(4) {
		return nil, errShort
	}
	options := int(binary.BigEndian.Uint32(b[pos:]))
	pos += 4
	for range 2 * options {
		if !need(2) {
			return nil, errShort
		}
		pos += 2 + int(binary.BigEndian.Uint16(b[pos:]))
	}
	pos += 4 + 8 // chunk length, data length
	if withMax {
		pos += 4
	}
	if !need(4) {
		return nil, errShort
	}
	count := int(binary.BigEndian.Uint32(b[pos:]))
	pos += 4
	if count <= 0 || !need(8*count) {
		return nil, errShort
	}
	offs := make([]int64, 0, count+1)
	for i := range count {
		o := int64(binary.BigEndian.Uint64(b[pos+8*i:]))
		if o < 0 || o+4 > fileSize || (i > 0 && o < offs[i-1]+4) {
			return nil, errors.New("CompressionInfo.db: chunk offset out of order or range")
		}
		offs = append(offs, o)
	}
	return append(offs, fileSize), nil
}

// digestByChunks rebuilds the whole-file digest the way a writer does:
// one checksum per 64 KiB chunk (or per compressed payload and its 4-byte
// trailer) folded in with CombineOrFeed, and with the fixed-length
// combiner for the trailers.
func digestByChunks(c Checksummer, s realSSTable, payloadOnly bool) uint32 {
	full := c.Init()
	if s.chunks == nil {
		for off := 0; off < len(s.data); off += 65536 {
			chunk := s.data[off:min(off+65536, len(s.data))]
			full = CombineOrFeed(c, full, c.Update(c.Init(), chunk), chunk)
		}
		return full
	}
	trailer := NewCRC32Combiner(4)
	for i := 0; i+1 < len(s.chunks); i++ {
		payload := s.data[s.chunks[i] : s.chunks[i+1]-4]
		full = CombineOrFeed(c, full, c.Update(c.Init(), payload), payload)
		if payloadOnly {
			continue
		}
		sum := s.data[s.chunks[i+1]-4 : s.chunks[i+1]]
		if c.Algorithm() == CRC32 {
			full = trailer.Combine(full, c.Update(c.Init(), sum))
		} else {
			full = c.Update(full, sum)
		}
	}
	return full
}

// TestRealDigests recomputes the Digest of every real sstable with every
// implementation, in one pass and chunk by chunk with combine: Cassandra's
// values must come out, and the deliberately corrupt digests must not.
func TestRealDigests(t *testing.T) {
	for _, s := range realSSTables(t) {
		corrupt := strings.Contains(s.rel, "integrity_check")
		payloadOnly := s.alg == Adler32 && earlyLA[s.rel]
		for _, c := range All() {
			if c.Algorithm() != s.alg {
				continue
			}
			whole := c.Update(c.Init(), s.data)
			if whole != reference(s.alg, initOf(s.alg), s.data) {
				t.Fatalf("%s %s: %s disagrees with the reference", s.rel, s.prefix, c.Name())
			}
			byChunks := digestByChunks(c, s, payloadOnly)
			switch {
			case corrupt:
				if whole == s.digest {
					t.Errorf("%s: corrupt sstable's digest %d matches", s.rel, s.digest)
				}
			case payloadOnly:
				if byChunks != s.digest || whole == s.digest {
					t.Errorf("%s (early la): %s payload digest %d, whole %d, file says %d", s.rel, c.Name(), byChunks, whole, s.digest)
				}
			default:
				if whole != s.digest || byChunks != s.digest {
					t.Errorf("%s %s: %s gives %d in one pass, %d by chunks; Digest says %d", s.rel, s.prefix, c.Name(), whole, byChunks, s.digest)
				}
			}
		}
	}
}

// TestRealChunkChecksums verifies CRC.db (one checksum per 64 KiB chunk)
// and the 4-byte trailer of every compressed chunk; the integrity_check
// sstables must fail where they were corrupted.
func TestRealChunkChecksums(t *testing.T) {
	checked := 0
	for _, s := range realSSTables(t) {
		c := Default(s.alg)
		bad := 0
		if s.crcDB != nil {
			if len(s.crcDB) < 4 || len(s.crcDB)%4 != 0 {
				t.Fatalf("%s: CRC.db length %d", s.rel, len(s.crcDB))
			}
			size := int(binary.BigEndian.Uint32(s.crcDB))
			if size != 65536 {
				t.Fatalf("%s: CRC.db chunk size %d", s.rel, size)
			}
			sums := s.crcDB[4:]
			for i := 0; i*size < len(s.data); i++ {
				chunk := s.data[i*size : min((i+1)*size, len(s.data))]
				if 4*i+4 > len(sums) || c.Update(c.Init(), chunk) != binary.BigEndian.Uint32(sums[4*i:]) {
					bad++
				}
				checked++
			}
		}
		for i := 0; i+1 < len(s.chunks); i++ {
			payload := s.data[s.chunks[i] : s.chunks[i+1]-4]
			if c.Update(c.Init(), payload) != binary.BigEndian.Uint32(s.data[s.chunks[i+1]-4:]) {
				bad++
			}
			checked++
		}
		wantBad := strings.HasSuffix(s.rel, "invalid_checksums")
		if (bad > 0) != wantBad {
			t.Errorf("%s %s: %d bad chunk checksums (corrupt on purpose: %v)", s.rel, s.prefix, bad, wantBad)
		}
	}
	if checked < 25 {
		t.Errorf("only %d chunk checksums checked", checked)
	}
}
