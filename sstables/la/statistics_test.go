package la

import (
	"bytes"
	"testing"

	"github.com/castable-db/castable/sstables"
)

// TestStatisticsReencode parses every real Statistics.db and re-encodes it.
func TestStatisticsReencode(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name(), func(t *testing.T) {
			d := f.desc(t)
			b := readComponent(t, d, sstables.ComponentStatistics)
			s, err := ParseStatistics(b, d.Path(sstables.ComponentStatistics))
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.AppendTo(nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.scylla {
				// ScyllaDB lists the components in hash order; the content
				// must still parse.
				return
			}
			if !bytes.Equal(got, b) {
				t.Fatalf("re-encoded Statistics.db differs at byte %d (len %d vs %d)", firstDiff(got, b), len(got), len(b))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
