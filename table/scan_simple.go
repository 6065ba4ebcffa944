package table

import (
	"fmt"

	"github.com/castable-db/castable/mutation"
)

// nextSimple is Next the simple way, the reference the ordered merge
// (Scanner.order) is cross-checked against (TestOrderedMergeMatchesSimple):
// every call compares every input's pending unfiltered to find the
// smallest position, then compares them all with it again to gather the
// inputs there.
func (sc *Scanner) nextSimple() (*mutation.Row, *mutation.RangeTombstoneMarker, error) {
	for {
		for _, in := range sc.cur {
			if in.consumed {
				if err := sc.pull(in); err != nil {
					return nil, nil, sc.fail(err)
				}
			}
		}
		// The smallest pending position, and every input at it.
		var minIn *input
		for _, in := range sc.cur {
			if in.end {
				continue
			}
			if minIn == nil || comparePending(sc.t, in, minIn) < 0 {
				minIn = in
			}
		}
		if minIn == nil {
			return nil, nil, nil
		}
		if minIn.row != nil {
			clear(sc.versions)
			for _, in := range sc.cur {
				if !in.end && in.row != nil && comparePending(sc.t, in, minIn) == 0 {
					sc.versions[in.idx] = in.row
					in.consumed = true
				}
			}
			ok, err := sc.merger.Merge(&sc.row, sc.versions, sc.activeDeletion())
			if err != nil {
				return nil, nil, sc.fail(fmt.Errorf("partition %s: row %s: %w", mutation.FormatKey(sc.t, sc.part.Key), mutation.FormatClustering(sc.t, minIn.row.Clustering), err))
			}
			if ok {
				return &sc.row, nil, nil
			}
			continue
		}
		// Markers at one position: update each source's open deletion.
		var at *mutation.RangeTombstoneMarker
		for _, in := range sc.cur {
			if !in.end && in.marker != nil && comparePending(sc.t, in, minIn) == 0 {
				at = in.marker
				in.takeMarker()
				in.consumed = true
			}
		}
		if sc.mergeMarkers(at) {
			return nil, &sc.marker, nil
		}
	}
}
