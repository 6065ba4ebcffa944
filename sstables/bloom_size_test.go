package sstables

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/castable-db/castable/sstables/version"
)

// TestFilterCheckSize: a filter sized for the keys it holds, or for half of
// them (a compaction's key estimate can be off), is not warned about; one
// sized for an eighth of them or for none (CQLSSTableWriter's) is, with its
// false positive chance at that count.
func TestFilterCheckSize(t *testing.T) {
	v := version.MustParse(version.Default)
	const n = 20000
	for _, c := range []struct {
		sizedFor int64
		fp       float64
		want     string // "" for no warning
	}{
		{n, 0.01, ""},
		{n / 2, 0.01, ""},
		{n / 8, 0.01, "instead of 1%"},
		{0, 0.01, "Filter.db of 16 bytes for 20,000 partitions: every lookup of a key the SSTable does not hold reads Index.db (false-positive chance ≈ 100% instead of 1%)"},
		{n / 2, 0.1, ""},
		{0, 0.1, "(false-positive chance ≈ 100% instead of 10%)"},
		{0, 0, "instead of 1%"}, // an unknown fp chance is the default
	} {
		f, err := NewBloomFilter(c.sizedFor, max(c.fp, 0.01), v)
		if err != nil {
			t.Fatal(err)
		}
		r := NewFilterRebuild(f)
		for i := range n {
			key := binary.BigEndian.AppendUint32(nil, uint32(i))
			f.Add(key)
			r.Add(key)
		}
		var got []Warning
		r.CheckSize("p/Filter.db", c.fp, ComponentIndex, func(w Warning) { got = append(got, w) })
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("sized for %d at %g: warned %v (false positive chance %.3f)", c.sizedFor, c.fp, got, f.FalsePositiveChance(n))
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0].Reason, c.want) || got[0].Component != string(ComponentFilter)):
			t.Errorf("sized for %d at %g: warnings %v, want one with %q", c.sizedFor, c.fp, got, c.want)
		}
	}
}
