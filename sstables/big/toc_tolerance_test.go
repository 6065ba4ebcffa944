package big

import (
	"testing"

	"github.com/castable-db/castable/sstables"
)

// TestNoTOCIsAWarning: an SSTable without TOC.txt (as 7 of the 17 mc-write
// cases ScyllaDB's tests ship are) is read by its components' file names,
// as Cassandra 3.x finds them (discoverComponentsFor), with one Warning
// naming TOC.txt (and one for each other component that is absent, as
// the mc-write files have no CRC.db or Summary.db); Verify passes. Shown on every reference SSTable with its
// TOC.txt removed.
func TestNoTOCIsAWarning(t *testing.T) {
	for _, ref := range refSSTables(t, false) {
		m, desc, _ := loadMem(t, ref)
		if _, ok := m.Get(desc.Path(sstables.ComponentTOC)); !ok {
			continue
		}
		m.Remove(desc.Path(sstables.ComponentTOC))
		var warnings sstables.WarningList
		r, err := Open(desc, nil, sstables.ReaderOptions{FS: m, Warn: warnings.Add})
		if err != nil {
			t.Fatalf("%s without TOC.txt: %v", ref.name, err)
		}
		if err := r.Verify(); err != nil {
			t.Fatalf("%s without TOC.txt: Verify %v", ref.name, err)
		}
		r.Close()
		wantWarned(t, &warnings, sstables.ComponentTOC, "missing: the components are found by their file names")
	}
}
