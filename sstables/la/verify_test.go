package la

import (
	"testing"

	"github.com/castable-db/castable/sstables"
)

// TestVerifyRealFiles verifies every real la SSTable, with its schema and
// with an inferred one.
func TestVerifyRealFiles(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name(), func(t *testing.T) {
			d := f.desc(t)
			for _, table := range []bool{true, false} {
				tab := fixtureTables[f.dir].build(t)
				if !table {
					tab = nil
				}
				r, err := Open(d, tab, sstables.ReaderOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Verify(); err != nil {
					t.Errorf("schema %v: %v", table, err)
				}
				r.Close()
			}
		})
	}
}
