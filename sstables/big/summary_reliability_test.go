package big

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/sstables"
)

// summaryCase loads the uncompressed "simple" SSTable (5 partitions, one
// Summary.db entry) into memory.
func summaryCase(t *testing.T) (*memfs.FS, sstables.Descriptor, []byte) {
	t.Helper()
	for _, ref := range refSSTables(t, false) {
		if ref.name == "cassandra/3.x/uncompressed/simple" {
			m, desc, _ := loadMem(t, ref)
			b, _ := m.Get(desc.Path(sstables.ComponentSummary))
			return m, desc, b
		}
	}
	t.Fatal("cassandra/3.x/uncompressed/simple not found")
	return nil, sstables.Descriptor{}, nil
}

func wantSummaryError(t *testing.T, what string, err error) {
	t.Helper()
	var ce *sstables.CorruptionError
	if !errors.As(err, &ce) || ce.Component != string(sstables.ComponentSummary) {
		t.Fatalf("%s: got %v, want a Summary.db CorruptionError", what, err)
	}
}

// TestVerifyChecksSummaryEntries: a Summary.db entry whose key is not the
// key of the Index.db entry it points to, or that points to no entry, is
// reported by Verify (it used to check only the first and last keys, while
// Get failed on such a summary).
func TestVerifyChecksSummaryEntries(t *testing.T) {
	m, desc, orig := summaryCase(t)
	path := desc.Path(sstables.ComponentSummary)
	s, err := sstables.ParseSummary(orig, path, sstables.SummaryReadOptions{})
	if err != nil || s.Len() != 1 {
		t.Fatalf("want one summary entry: %v", err)
	}
	entry := 24 + 4 // first entry: key bytes, then the u64 LE Index.db position
	keyEnd := entry + len(s.Key(0))

	damaged := slices.Clone(orig)
	damaged[entry] ^= 0x01 // the sampled key
	m.Set(path, damaged)
	r, err := Open(desc, nil, sstables.ReaderOptions{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	wantSummaryError(t, "summary key flipped", r.Verify())
	r.Close()

	damaged = slices.Clone(orig)
	binary.LittleEndian.PutUint64(damaged[keyEnd:], 1<<20) // the Index.db position
	m.Set(path, damaged)
	r, err = Open(desc, nil, sstables.ReaderOptions{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	wantSummaryError(t, "summary position beyond Index.db: Verify", r.Verify())
	sc, _ := r.Scan()
	p, err := sc.NextPartition()
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Get(p.Key)
	wantSummaryError(t, "summary position beyond Index.db: Get", err)
}

// TestVerifyChecksSummarySampling: the header's size at full sampling must
// match the partition count (5 partitions at interval 128 make 1 entry).
func TestVerifyChecksSummarySampling(t *testing.T) {
	m, desc, orig := summaryCase(t)
	damaged := slices.Clone(orig)
	binary.BigEndian.PutUint32(damaged[20:], 7)
	m.Set(desc.Path(sstables.ComponentSummary), damaged)
	r, err := Open(desc, nil, sstables.ReaderOptions{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	wantSummaryError(t, "size at full sampling 7", r.Verify())
}
