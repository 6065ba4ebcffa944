package big

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/castable-db/castable/sstables"
)

// TestLookupsRebuildMissingSummaryAndFilter: with Summary.db and Filter.db
// gone although TOC.txt lists them, every reference SSTable finds each of
// its partitions by key — through a summary and a filter rebuilt from
// Index.db in memory, as Cassandra rebuilds them at open — and warns about
// both; Verify passes with warnings. The rebuilt summary samples the same
// entries as the real Summary.db. A Summary.db that does not parse is
// rebuilt for lookups too, but fails Verify, as it fails sstableverify.
func TestLookupsRebuildMissingSummaryAndFilter(t *testing.T) {
	n := 0
	for _, ref := range refSSTables(t, false) {
		m, desc, _ := loadMem(t, ref)
		summary, hasSummary := m.Get(desc.Path(sstables.ComponentSummary))
		if !hasSummary {
			continue
		}
		t.Run(ref.name, func(t *testing.T) {
			keys := scanKeys(t, m, desc)
			m.Remove(desc.Path(sstables.ComponentSummary))
			m.Remove(desc.Path(sstables.ComponentFilter))
			var warnings sstables.WarningList
			r, err := Open(desc, nil, sstables.ReaderOptions{FS: m, Warn: warnings.Add})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for _, k := range keys {
				p, err := r.Get(k)
				if err != nil || p == nil || !bytes.Equal(p.Key, k) {
					t.Fatalf("Get(%x) without Summary.db and Filter.db: %v, %v", k, p, err)
				}
			}
			wantWarned(t, &warnings, sstables.ComponentSummary, "rebuilt from Index.db")
			wantWarned(t, &warnings, sstables.ComponentFilter, "rebuilt from Index.db")
			if err := r.Verify(); err != nil {
				t.Fatalf("Verify without Summary.db and Filter.db: %v", err)
			}
			real, err := sstables.ParseSummary(summary, "real", sstables.SummaryReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rebuilt, _, err := sstables.RebuildLookup(r, desc, true, false, 0, sstables.SummaryOptions{MinIndexInterval: real.MinIndexInterval})
			if err != nil {
				t.Fatal(err)
			}
			if rebuilt.Len() != real.Len() {
				t.Fatalf("rebuilt summary has %d entries, the real one %d", rebuilt.Len(), real.Len())
			}
			for i := 0; i < real.Len(); i++ {
				if !bytes.Equal(rebuilt.Key(i), real.Key(i)) || rebuilt.IndexPosition(i) != real.IndexPosition(i) {
					t.Fatalf("rebuilt summary entry %d differs", i)
				}
			}

			// A Summary.db that does not parse.
			m.Set(desc.Path(sstables.ComponentSummary), summary[:3])
			var w2 sstables.WarningList
			r2, err := Open(desc, nil, sstables.ReaderOptions{FS: m, Warn: w2.Add})
			if err != nil {
				t.Fatal(err)
			}
			defer r2.Close()
			if p, err := r2.Get(keys[len(keys)/2]); err != nil || p == nil {
				t.Fatalf("Get with a damaged Summary.db: %v, %v", p, err)
			}
			wantWarned(t, &w2, sstables.ComponentSummary, "unreadable")
			var ce *sstables.CorruptionError
			if err := r2.Verify(); !errors.As(err, &ce) || ce.Component != string(sstables.ComponentSummary) {
				t.Fatalf("Verify with a damaged Summary.db: %v, want a Summary.db CorruptionError", err)
			}
		})
		n++
	}
	if n == 0 {
		t.Fatal("no reference SSTable with a Summary.db")
	}
}

func scanKeys(t *testing.T, m sstables.FS, desc sstables.Descriptor) [][]byte {
	t.Helper()
	r, err := Open(desc, nil, sstables.ReaderOptions{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var keys [][]byte
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			return keys
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, bytes.Clone(p.Key))
	}
}

func wantWarned(t *testing.T, l *sstables.WarningList, c sstables.Component, what string) {
	t.Helper()
	for _, w := range l.Warnings() {
		if w.Component == string(c) && strings.Contains(w.Reason, what) {
			return
		}
	}
	t.Fatalf("warnings %v: none about %s saying %q", l.Warnings(), c, what)
}
