package big

import (
	"errors"
	"slices"
	"testing"

	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/sstables"
)

// loadRef loads the reference SSTable name into memory.
func loadRef(t *testing.T, name string) (*memfs.FS, sstables.Descriptor) {
	t.Helper()
	for _, ref := range refSSTables(t, false) {
		if ref.name == name {
			m, desc, _ := loadMem(t, ref)
			return m, desc
		}
	}
	t.Fatalf("%s not found", name)
	return nil, sstables.Descriptor{}
}

func verifyWith(t *testing.T, m *memfs.FS, desc sstables.Descriptor, c sstables.Component, b []byte) error {
	t.Helper()
	orig, _ := m.Get(desc.Path(c))
	m.Set(desc.Path(c), b)
	defer m.Set(desc.Path(c), orig)
	r, err := Open(desc, nil, sstables.ReaderOptions{FS: m})
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Verify()
}

func wantComponentError(t *testing.T, what string, err error, c sstables.Component) {
	t.Helper()
	var ce *sstables.CorruptionError
	if !errors.As(err, &ce) || ce.Component != string(c) {
		t.Fatalf("%s: got %v, want a %s CorruptionError", what, err, c)
	}
}

// TestVerifyChecksPromotedIndexAgainstData: the clusterings, kinds and
// open markers of the promoted index blocks (mc-write/many_range_tombstones:
// 100 range tombstones with ~654-byte clusterings), and the table of block
// offsets after them, must match Data.db. Before, flips in them (most of
// that Index.db's bytes) went unnoticed by Verify.
func TestVerifyChecksPromotedIndexAgainstData(t *testing.T) {
	m, desc := loadRef(t, "mc-write/many_range_tombstones")
	r, err := Open(desc, nil, sstables.ReaderOptions{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	var entry *IndexEntry
	r.Index(func(e *IndexEntry) error {
		if e.Promoted != nil && entry == nil {
			c := *e
			entry = &c
		}
		return nil
	})
	r.Close()
	if entry == nil || len(entry.Promoted.Blocks) < 2 {
		t.Fatal("no promoted index")
	}
	orig, _ := m.Get(desc.Path(sstables.ComponentIndex))
	if err := verifyWith(t, m, desc, sstables.ComponentIndex, orig); err != nil {
		t.Fatalf("undamaged: %v", err)
	}
	// A byte in the middle of the promoted index (inside a block's first
	// or last clustering), and the last byte (the offsets table).
	for _, off := range []int{len(orig) / 2, len(orig) - 1} {
		b := slices.Clone(orig)
		b[off] ^= 0x01
		wantComponentError(t, "Index.db flipped", verifyWith(t, m, desc, sstables.ComponentIndex, b), sstables.ComponentIndex)
	}
}

// TestVerifyChecksStatsBounds: every timestamp must lie within the Stats
// bounds; a Statistics.db whose bounds (or the serialization header's
// minimum timestamp every timestamp is delta-encoded against) do not cover
// the data is reported.
func TestVerifyChecksStatsBounds(t *testing.T) {
	m, desc := loadRef(t, "cassandra/3.x/uncompressed/simple")
	orig, _ := m.Get(desc.Path(sstables.ComponentStatistics))
	st, err := sstables.DecodeStatistics(orig, desc.Version, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what  string
		apply func(s *sstables.Statistics)
	}{
		{"max timestamp one below the data's", func(s *sstables.Statistics) { s.Stats.MaxTimestamp-- }},
		{"min timestamp one above the data's", func(s *sstables.Statistics) { s.Stats.MinTimestamp++ }},
		{"header minimum timestamp shifted by 1 s", func(s *sstables.Statistics) { s.Header.Stats.MinTimestamp += 1_000_000 }},
	} {
		c := *st
		h := *st.Header
		c.Header = &h
		tc.apply(&c)
		b, err := sstables.AppendStatistics(nil, &c, desc.Version)
		if err != nil {
			t.Fatal(err)
		}
		wantComponentError(t, tc.what, verifyWith(t, m, desc, sstables.ComponentStatistics, b), sstables.ComponentStatistics)
	}
}

// TestVerifyRebuildsFilter: a Filter.db bit that no key sets (a 0→1 flip,
// which no membership test notices) is reported.
func TestVerifyRebuildsFilter(t *testing.T) {
	m, desc := loadRef(t, "cassandra/3.x/uncompressed/simple")
	orig, _ := m.Get(desc.Path(sstables.ComponentFilter))
	b := slices.Clone(orig)
	set := false
	for i := 8; i < len(b) && !set; i++ {
		for bit := 0; bit < 8; bit++ {
			if b[i]&(1<<bit) == 0 {
				b[i] |= 1 << bit
				set = true
				break
			}
		}
	}
	if !set {
		t.Fatal("no clear bit in the filter")
	}
	wantComponentError(t, "a filter bit set by no key", verifyWith(t, m, desc, sstables.ComponentFilter, b), sstables.ComponentFilter)
}
