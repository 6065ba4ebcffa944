package reliability

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/castable-db/castable/internal/testdata"
)

// fuzzTargets are the corpus SSTables small enough to read whole on every
// fuzz input (up to 1 MiB of components), prepared once.
var fuzzTargets = sync.OnceValues(func() ([]*Target, error) {
	if _, err := os.Stat(testdata.Root()); err != nil {
		return nil, nil
	}
	corpus, err := LoadCorpus(testdata.Root())
	if err != nil {
		return nil, err
	}
	var out []*Target
	for _, s := range corpus {
		t, err := NewTarget(s, 16)
		if err != nil {
			return nil, err
		}
		if t.size() <= 1<<20 {
			out = append(out, t)
		}
	}
	return out, nil
})

// FuzzSSTableComponent replaces one component of a real SSTable by the fuzz
// input and reads the result through the library: Open, a full scan, Get
// of the SSTable's keys, Verify. Every decoder runs on the bytes in the
// context it meets in practice (the other components sound). Seeds: every
// component of every SSTable of the corpus (the deliberately corrupt ones
// included). Nothing may panic, hang, or allocate more than 64 MiB, and
// every error must be a CorruptionError naming a file and component of the
// SSTable.
func FuzzSSTableComponent(f *testing.F) {
	targets, err := fuzzTargets()
	if err != nil {
		f.Fatal(err)
	}
	for i, t := range targets {
		for j, c := range t.Components() {
			f.Add(uint16(i), uint8(j), t.Files[c])
		}
	}
	if len(targets) == 0 {
		f.Skip("reference test data not found")
	}
	f.Fuzz(func(tt *testing.T, which uint16, comp uint8, data []byte) {
		t := targets[int(which)%len(targets)]
		comps := t.Components()
		c := comps[int(comp)%len(comps)]
		fsys := t.NewFS()
		desc := t.memDesc()
		fsys.Set(desc.Path(c), data)
		g := Guard(20*time.Second, func() Probe { return ProbeLibrary(t.SSTable, fsys, desc, t.GetKeys) })
		switch {
		case g.Panic != "":
			tt.Fatalf("%s with %s replaced: panic: %s", t.Name, c, g.Panic)
		case g.Hung:
			tt.Fatalf("%s with %s replaced: hang", t.Name, c)
		case g.Alloc > 64<<20:
			tt.Fatalf("%s with %s replaced (%d bytes): allocated %d MiB", t.Name, c, len(data), g.Alloc>>20)
		}
		p := &g.Result
		for _, err := range []error{p.Open, p.Scan, p.Get, p.Verify} {
			if err == nil {
				continue
			}
			if msg := checkCorruption(t, err); msg != "" {
				tt.Fatalf("%s with %s replaced: %s", t.Name, c, msg)
			}
		}
		if p.Open == nil && p.Verify == nil && (p.Scan != nil || p.Get != nil) {
			tt.Fatalf("%s with %s replaced: Verify passes what reading rejects: %v", t.Name, c, p.ReadError())
		}
	})
}
