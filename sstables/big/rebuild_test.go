package big

import (
	"bytes"
	"strings"
	"testing"

	"github.com/castable-db/castable/sstables"
)

// TestRebuildComponentsWritesWhatWasLost: with Summary.db and Filter.db
// gone, RebuildComponents writes them back from Index.db byte for byte as
// the reference SSTable had them (the summary at the interval the lost
// Summary.db recorded, the filter with Statistics.db's fp chance, sized for
// the exact partition count as a flush sizes it), touches no other file,
// leaves a TOC.txt that lists them alone, and appends them to one that does
// not. The result verifies without warnings. A second run writes nothing.
// A Summary.db that does not parse is never modified: rebuild says so.
func TestRebuildComponentsWritesWhatWasLost(t *testing.T) {
	n := 0
	for _, ref := range refSSTables(t, false) {
		m, desc, comps := loadMem(t, ref)
		summary, hasSummary := m.Get(desc.Path(sstables.ComponentSummary))
		filter, hasFilter := m.Get(desc.Path(sstables.ComponentFilter))
		if !hasSummary || !hasFilter {
			continue
		}
		n++
		t.Run(ref.name, func(t *testing.T) {
			real, err := sstables.ParseSummary(summary, "real", sstables.SummaryReadOptions{Boundaries: ref.version.SummaryBoundaries()})
			if err != nil {
				t.Fatal(err)
			}
			before := map[sstables.Component][]byte{}
			for _, c := range comps {
				b, _ := m.Get(desc.Path(c))
				before[c] = bytes.Clone(b)
			}
			toc := before[sstables.ComponentTOC]
			for _, dropLines := range []bool{false, true} {
				m.Remove(desc.Path(sstables.ComponentSummary))
				m.Remove(desc.Path(sstables.ComponentFilter))
				wantTOC := toc
				if dropLines {
					var kept []string
					for _, l := range strings.Split(strings.TrimSuffix(string(toc), "\n"), "\n") {
						if l != string(sstables.ComponentSummary) && l != string(sstables.ComponentFilter) {
							kept = append(kept, l)
						}
					}
					m.Set(desc.Path(sstables.ComponentTOC), []byte(strings.Join(kept, "\n")+"\n"))
					wantTOC = []byte(strings.Join(append(kept, "Summary.db", "Filter.db"), "\n") + "\n")
				}
				r, err := Open(desc, nil, sstables.ReaderOptions{FS: m})
				if err != nil {
					t.Fatal(err)
				}
				res, err := sstables.RebuildComponents(r, sstables.RebuildOptions{FS: m, MinIndexInterval: real.MinIndexInterval})
				r.Close()
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Written) != 2 || res.TOCUpdated != dropLines {
					t.Fatalf("wrote %v (TOC.txt updated: %v)", res.Written, res.TOCUpdated)
				}
				if got, _ := m.Get(desc.Path(sstables.ComponentSummary)); !bytes.Equal(got, summary) {
					t.Errorf("rebuilt Summary.db differs from the lost one (%d bytes, want %d)", len(got), len(summary))
				}
				if got, _ := m.Get(desc.Path(sstables.ComponentFilter)); !bytes.Equal(got, filter) {
					t.Errorf("rebuilt Filter.db differs from the lost one (%d bytes, want %d)", len(got), len(filter))
				}
				if got, _ := m.Get(desc.Path(sstables.ComponentTOC)); !bytes.Equal(got, wantTOC) {
					t.Errorf("TOC.txt is\n%s\nwant\n%s", got, wantTOC)
				}
				for c, b := range before {
					if c == sstables.ComponentTOC {
						continue
					}
					if got, _ := m.Get(desc.Path(c)); !bytes.Equal(got, b) {
						t.Errorf("%s changed", c)
					}
				}
				for _, name := range m.Names() {
					if strings.Contains(name, sstables.TempPrefix) {
						t.Errorf("temporary file %s left", name)
					}
				}
				var warnings sstables.WarningList
				r, err = Open(desc, nil, sstables.ReaderOptions{FS: m, Warn: warnings.Add})
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Verify(); err != nil || warnings.Len() != 0 {
					t.Errorf("after the rebuild: Verify %v, warnings %v", err, warnings.Warnings())
				}
				res, err = sstables.RebuildComponents(r, sstables.RebuildOptions{FS: m})
				r.Close()
				if err != nil || len(res.Written) != 0 || res.TOCUpdated {
					t.Errorf("a second rebuild: %+v, %v; want nothing written", res, err)
				}
				m.Set(desc.Path(sstables.ComponentTOC), toc)
			}

			// A Summary.db that does not parse is left as it is and said so.
			m.Set(desc.Path(sstables.ComponentSummary), summary[:3])
			m.Remove(desc.Path(sstables.ComponentFilter))
			r, err := Open(desc, nil, sstables.ReaderOptions{FS: m})
			if err != nil {
				t.Fatal(err)
			}
			res, err := sstables.RebuildComponents(r, sstables.RebuildOptions{FS: m})
			r.Close()
			if err != nil || len(res.Written) != 1 || res.Written[0] != sstables.ComponentFilter || !strings.Contains(res.Skipped[sstables.ComponentSummary], "does not parse") {
				t.Fatalf("with a damaged Summary.db: %+v, %v; want Filter.db written and the summary named", res, err)
			}
			if got, _ := m.Get(desc.Path(sstables.ComponentSummary)); !bytes.Equal(got, summary[:3]) {
				t.Fatal("the damaged Summary.db was modified")
			}
			m.Set(desc.Path(sstables.ComponentSummary), summary)
		})
	}
	if n == 0 {
		t.Fatal("no reference SSTable with Summary.db and Filter.db")
	}
}
