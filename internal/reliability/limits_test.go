package reliability

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/la"
	"github.com/castable-db/castable/sstables/mc"
)

// countField is a count or length field of a component header, located in
// the undamaged bytes.
type countField struct {
	name string
	comp sstables.Component
	// at returns the field's offset and width (4 or 8 bytes), or -1.
	at func(b []byte) (int, int)
}

func fixed(off, width int) func([]byte) (int, int) {
	return func([]byte) (int, int) { return off, width }
}

// statisticsComponent returns the offset of metadata component typ.
func statisticsComponent(typ uint32) func([]byte) (int, int) {
	return func(b []byte) (int, int) {
		n := int(binary.BigEndian.Uint32(b))
		for i := 0; i < n; i++ {
			if binary.BigEndian.Uint32(b[4+8*i:]) == typ {
				return int(binary.BigEndian.Uint32(b[4+8*i+4:])), 4
			}
		}
		return -1, 0
	}
}

// compressionInfoField returns the offset of the option count (which 0) or
// of the chunk count (which 1) of CompressionInfo.db.
func compressionInfoField(which int) func([]byte) (int, int) {
	return func(b []byte) (int, int) {
		off := 2 + int(binary.BigEndian.Uint16(b))
		if which == 0 {
			return off, 4
		}
		n := int(binary.BigEndian.Uint32(b[off:]))
		off += 4
		for i := 0; i < 2*n; i++ {
			off += 2 + int(binary.BigEndian.Uint16(b[off:]))
		}
		return off + 4 + 8, 4
	}
}

// laFirstPromotedSize returns the offset of the first la Index.db entry's
// promoted index size.
func laFirstPromotedSize(b []byte) (int, int) {
	return 2 + int(binary.BigEndian.Uint16(b)) + 8, 4
}

var hostileCounts = []countField{
	{"Statistics.db component count", sstables.ComponentStatistics, fixed(0, 4)},
	{"Statistics.db first component offset", sstables.ComponentStatistics, fixed(8, 4)},
	{"Statistics.db partition size histogram length", sstables.ComponentStatistics, statisticsComponent(2)},
	{"Summary.db interval", sstables.ComponentSummary, fixed(0, 4)},
	{"Summary.db entry count", sstables.ComponentSummary, fixed(4, 4)},
	{"Summary.db off-heap size", sstables.ComponentSummary, fixed(8, 8)},
	{"Summary.db size at full sampling", sstables.ComponentSummary, fixed(20, 4)},
	{"Filter.db hash count", sstables.ComponentFilter, fixed(0, 4)},
	{"Filter.db word count", sstables.ComponentFilter, fixed(4, 4)},
	{"CompressionInfo.db option count", sstables.ComponentCompressionInfo, compressionInfoField(0)},
	{"CompressionInfo.db chunk count", sstables.ComponentCompressionInfo, compressionInfoField(1)},
	{"CRC.db chunk size", sstables.ComponentCRC, fixed(0, 4)},
	{"la Index.db promoted index size", sstables.ComponentIndex, laFirstPromotedSize},
	{"Index.db key length", sstables.ComponentIndex, fixed(0, 2)},
}

// TestHostileHeaderCounts sets count and length fields of component headers
// to the largest values their width allows (and to -1): every reading must
// end in a CorruptionError without allocating more than 64 MiB, whatever
// the field claims.
func TestHostileHeaderCounts(t *testing.T) {
	corpus := loadCorpus(t)
	picked := map[string]bool{
		"cassandra/3.x/lz4/partition_key_with_values_of_different_types/mc-1": true,
		"cassandra/3.x/uncompressed/collections/mc-1":                         true,
		"cassandra/compressed/la-1":                                           true,
		"cassandra/uncompressed/la-1":                                         true,
		"cassandra/promoted_index_read/la-1":                                  true,
	}
	tried := 0
	for _, s := range corpus {
		if !picked[s.Name] {
			continue
		}
		tg, err := NewTarget(s, 16)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range hostileCounts {
			orig, ok := s.Files[f.comp]
			if !ok || (f.name == "la Index.db promoted index size" && !s.Format.Version().LegacyCells()) {
				continue
			}
			off, width := f.at(orig)
			if off < 0 || off+width > len(orig) {
				t.Fatalf("%s: %s not found", s.Name, f.name)
			}
			for _, v := range []uint64{1<<(8*width-1) - 1, 1<<(8*width) - 1} {
				b := slices.Clone(orig)
				for i := 0; i < width; i++ {
					b[off+i] = byte(v >> (8 * (width - 1 - i)))
				}
				fsys := tg.NewFS()
				desc := tg.memDesc()
				fsys.Set(desc.Path(f.comp), b)
				g := Guard(30*time.Second, func() Probe { return ProbeLibrary(s, fsys, desc, tg.GetKeys) })
				name := fmt.Sprintf("%s: %s = %#x", s.Name, f.name, v)
				o := &Outcome{Target: tg, Damage: Damage{Component: f.comp, Kind: Flip, Offset: off, Mask: 0xff}, Lib: g}
				judge(o, 64<<20)
				tried++
				switch {
				case o.Verdict == Failed:
					t.Errorf("%s: %s", name, o.Problem)
				case o.Verdict != Caught && f.comp != sstables.ComponentStatistics && !(f.name == "Summary.db interval" && v < 1<<31):
					// Statistics.db's histograms are checked by nothing;
					// an interval larger than the partition count samples
					// exactly what the real one does (entry 0 only), so a
					// small SSTable cannot tell them apart.
					t.Errorf("%s: not reported (%v)", name, o.Verdict)
				}
				if g.Alloc > 16<<20 {
					t.Logf("%s: %d MiB allocated", name, g.Alloc>>20)
				}
			}
		}
	}
	if tried < 50 {
		t.Fatalf("only %d hostile fields tried", tried)
	}
}

// TestKeySizeLimits: Cassandra limits a partition key and each clustering
// value to 65535 bytes. The memtable rejects larger ones when they are
// applied (not at flush), the writers reject them too, and the errors say
// so in a short message (not 128 KiB of hex).
func TestKeySizeLimits(t *testing.T) {
	mk := func(keyLen, ckLen int) *mutation.Partition {
		key := make([]byte, keyLen)
		binary.BigEndian.PutUint32(key, 7)
		ck := make([]byte, ckLen)
		binary.BigEndian.PutUint32(ck, 1)
		row := mutation.NewRow(mutation.Clustering{ck})
		row.Liveness = mutation.LivenessInfo{Timestamp: 1, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
		return &mutation.Partition{Key: key, Deletion: mutation.Live, Static: mutation.NewRow(nil), Rows: []mutation.Row{row}}
	}
	blobTable, err := parseTable(`CREATE TABLE ks.b (pk blob, ck blob, v int, PRIMARY KEY (pk, ck));`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		keyLen, ckLen int
		ok            bool
		want          string
	}{
		{65535, 4, true, ""},
		{4, 65535, true, ""},
		{65536, 4, false, "partition key of 65536 bytes"},
		{4, 65536, false, "clustering value 0 of 65536 bytes"},
	} {
		p := mk(c.keyLen, c.ckLen)
		m := memtable.New(blobTable, memtable.Options{})
		err := m.Apply(p)
		switch {
		case c.ok && err != nil:
			t.Errorf("memtable: key %d, clustering %d: %v", c.keyLen, c.ckLen, err)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 200):
			t.Errorf("memtable: key %d, clustering %d: got %v, want a short error saying %q", c.keyLen, c.ckLen, err, c.want)
		}
	}
	for _, f := range []sstables.Format{mc.Format, la.Format{}} {
		w, err := f.NewWriter(blobTable, sstables.WriterOptions{Dir: "/x", Generation: 1, FS: memfs.New(),
			Compression: &compress.Params{Codec: compress.None}})
		if err != nil {
			t.Fatal(err)
		}
		err = w.Append(mk(70000, 4))
		w.Abort()
		if err == nil || !strings.Contains(err.Error(), "70000 bytes") {
			t.Errorf("%s writer: a 70000-byte key: got %v", f.Version(), err)
		} else if len(err.Error()) > 1024 {
			t.Errorf("%s writer: the error for a 70000-byte key is %d bytes long: %.200s…", f.Version(), len(err.Error()), err)
		}
	}
}

// TestReaderValueSizeLimit: ReaderOptions.MaxValueSize refuses, before
// allocating, a value (mc: a row or marker body, or a clustering value; la:
// a cell value) longer than the limit, with a CorruptionError naming
// Data.db that wraps ErrValueTooLarge; the default limit reads everything
// real.
func TestReaderValueSizeLimit(t *testing.T) {
	corpus := loadCorpus(t)
	picked := map[string]bool{
		"mc-write/many_range_tombstones/mc-1":                                 true, // ~654-byte clusterings
		"cassandra/3.x/lz4/partition_key_with_values_of_different_types/mc-1": true,
		"cassandra/compressed/la-1":                                           true,
		"cassandra/composite/la-1":                                            true,
		"cassandra/uncompressed/la-1":                                         true,
	}
	n := 0
	for _, s := range corpus {
		if !picked[s.Name] {
			continue
		}
		n++
		tg, err := NewTarget(s, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int64{0, 4} {
			r, err := s.Format.Open(tg.memDesc(), s.Table, sstables.ReaderOptions{FS: tg.NewFS(), MaxValueSize: limit})
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			_, err = scanAll(r, fnv.New64a())
			r.Close()
			switch {
			case limit == 0 && err != nil:
				t.Errorf("%s: default limit: %v", s.Name, err)
			case limit > 0 && !errors.Is(err, sstables.ErrValueTooLarge):
				t.Errorf("%s: limit %d: got %v, want ErrValueTooLarge", s.Name, limit, err)
			case limit > 0 && (corruptionOf(err) == nil || corruptionOf(err).Component != string(sstables.ComponentData)):
				t.Errorf("%s: limit %d: %v is not a Data.db CorruptionError", s.Name, limit, err)
			}
		}
	}
	if n != len(picked) {
		t.Fatalf("found %d of the %d SSTables", n, len(picked))
	}
}
