package compaction_test

import (
	"math"
	"testing"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

// TestDroppableRatioMatchesMetadata checks EstimatedDroppableTombstoneRatio
// against what `castable metadata` prints as "Estimated droppable
// tombstones" for every SSTable of the corpus that has tombstones, at times
// before, at, between and after the drop-time histogram's points.
func TestDroppableRatioMatchesMetadata(t *testing.T) {
	checked := 0
	for _, s := range testdata.Supported(t) {
		if s.Corrupt != "" || s.Scylla {
			continue
		}
		desc, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
		if err != nil {
			t.Fatal(err)
		}
		st, err := sstables.ReadStatistics(nil, desc, sstables.ReaderOptions{})
		if err != nil || st.Stats.TombstoneDropTimes == nil {
			continue
		}
		points, _ := st.Stats.TombstoneDropTimes.Bins()
		if len(points) == 0 {
			continue
		}
		times := []int64{int64(points[0]) - 1, int64(points[len(points)-1]) + 1}
		for i, p := range points {
			times = append(times, int64(p))
			if i+1 < len(points) {
				times = append(times, int64((p+points[i+1])/2))
			}
		}
		if len(times) > 8 {
			times = append(times[:4], times[len(times)-4:]...)
		}
		for _, gcBefore := range times {
			md, err := cli.ReadMetadata(cli.MetadataOptions{SSTable: s.Path("Data.db"), Now: time.Unix(gcBefore, 0)})
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			got := compaction.EstimatedDroppableTombstoneRatio(&st.Stats, gcBefore)
			if want := float64(md.EstimatedDroppableTombstones); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("%s at %d: %v, metadata says %v", s.Name, gcBefore, got, want)
			}
			checked++
		}
	}
	t.Logf("%d estimates compared", checked)
}
