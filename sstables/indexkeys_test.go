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

// statisticsComponent returns the body of Statistics.db component typ.
func statisticsComponent(t testing.TB, s realSSTable, typ uint32) []byte {
	t.Helper()
	b := s.read(t, ComponentStatistics)
	count := int(binary.BigEndian.Uint32(b))
	type ent struct{ typ, off uint32 }
	var ents []ent
	for i := 0; i < count; i++ {
		ents = append(ents, ent{binary.BigEndian.Uint32(b[4+8*i:]), binary.BigEndian.Uint32(b[8+8*i:])})
	}
	for i, e := range ents {
		if e.typ != typ {
			continue
		}
		end := uint32(len(b))
		for _, o := range ents[i+1:] {
			if o.off > e.off && o.off < end {
				end = o.off
			}
		}
		for _, o := range ents[:i] {
			if o.off > e.off && o.off < end {
				end = o.off
			}
		}
		return b[e.off:end]
	}
	t.Fatalf("%s: no Statistics.db component %d", s.name, typ)
	return nil
}

// fpChance reads bloom_filter_fp_chance from Statistics.db's validation
// component.
func fpChance(t testing.TB, s realSSTable) float64 {
	v := statisticsComponent(t, s, 0)
	r := NewByteReader(v, "x", ComponentStatistics, 0)
	m, err := ParseValidationMetadata(r)
	if err != nil {
		t.Fatal(err)
	}
	return m.BloomFilterFPChance
}

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
