package sstables

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// indexEntry is a partition key and the position of its Index.db entry.
type indexEntry struct {
	key []byte
	pos int64
}

// indexEntries parses the keys of an Index.db minimally: mc entries are
// u16 len, key, uvint position, uvint promotedSize, promoted index; la
// entries are u16 len, key, i64 position, i32 promotedSize, promoted index.
func indexEntries(t testing.TB, s realSSTable) []indexEntry {
	t.Helper()
	b := s.read(t, ComponentIndex)
	tr := s.desc.Version
	var out []indexEntry
	for off := 0; off < len(b); {
		start := off
		n := int(binary.BigEndian.Uint16(b[off:]))
		key := b[off+2 : off+2+n]
		off += 2 + n
		var promoted int
		if tr.OldBloomHashOrder() {
			off += 8
			promoted = int(binary.BigEndian.Uint32(b[off:]))
			off += 4
		} else {
			_, k := readTestVint(b[off:])
			off += k
			v, k := readTestVint(b[off:])
			off += k
			promoted = int(v)
		}
		off += promoted
		out = append(out, indexEntry{key: key, pos: int64(start)})
	}
	return out
}

// readTestVint decodes Cassandra's unsigned vint (leading ones count the
// extra bytes).
func readTestVint(b []byte) (uint64, int) {
	first := b[0]
	extra := 0
	for extra < 8 && first&(0x80>>extra) != 0 {
		extra++
	}
	v := uint64(first) & (0xff >> extra)
	if extra == 8 {
		v = 0
	}
	for i := 1; i <= extra; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v, 1 + extra
}

// statistics decodes s's Statistics.db.
func statistics(t testing.TB, s realSSTable) *Statistics {
	t.Helper()
	st, err := DecodeStatistics(s.read(t, ComponentStatistics), s.desc.Version, s.desc.Path(ComponentStatistics))
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	return st
}

// fpChance reads bloom_filter_fp_chance from Statistics.db.
func fpChance(t testing.TB, s realSSTable) float64 { return statistics(t, s).BloomFilterFPChance }

// expectedSHA256 returns the sha256 of file name from the case's
// expected.sha256, or "".
func expectedSHA256(t testing.TB, s realSSTable, name string) string {
	f, err := os.Open(filepath.Join(s.desc.Dir, "expected.sha256"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[1] == name {
			return fields[0]
		}
	}
	return ""
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
