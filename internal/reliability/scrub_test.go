package reliability

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/scrub"
)

var scrubCases = flag.Int("scrub.cases", 1500, "TestScrubSweep: the damaged copies scrubbed, sampled evenly from the quick plan's truncations and flips of Data.db and Index.db (0: all of them)")

// scrubPart is one partition of the sound SSTable: its Data.db range and a
// fingerprint of everything it holds.
type scrubPart struct {
	key        string
	start, end int64
	sum        uint64
}

// scrubBaseline reads the sound SSTable's partitions with their ranges.
func scrubBaseline(s *SSTable, fsys sstables.FS, desc sstables.Descriptor) ([]scrubPart, int64, error) {
	r, err := s.Format.Open(desc, s.Table, sstables.ReaderOptions{FS: fsys})
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	parts, err := fingerprints(r)
	if err != nil {
		return nil, 0, err
	}
	length := int64(len(s.Files[sstables.ComponentData]))
	if b, ok := s.Files[sstables.ComponentCompressionInfo]; ok {
		ci, err := sstables.ParseCompressionInfo(b, "", s.Desc.Version)
		if err != nil {
			return nil, 0, err
		}
		length = ci.DataLength
	}
	for i := range parts {
		parts[i].end = length
		if i+1 < len(parts) {
			parts[i].end = parts[i+1].start
		}
	}
	return parts, length, nil
}

// fingerprints reads every partition of r with its offset and fingerprint.
func fingerprints(r sstables.Reader) ([]scrubPart, error) {
	sc, err := r.Scan()
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	var out []scrubPart
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		h := fnv.New64a()
		hashPartition(h, p)
		key := string(p.Key)
		start := sc.Position()
		for {
			row, m, err := sc.Next()
			if err != nil {
				return out, err
			}
			if row == nil && m == nil {
				break
			}
			if row != nil {
				hashRow(h, row)
			} else {
				hashMarker(h, m)
			}
		}
		out = append(out, scrubPart{key: key, start: start, sum: h.Sum64()})
	}
}

// damageStart is the first uncompressed Data.db offset the damage d can
// change: the byte itself for an uncompressed Data.db, the start of the
// chunk holding it for a compressed one, the end of the data for damage
// to Index.db (which holds no data).
func damageStart(s *SSTable, d Damage, length int64) int64 {
	if d.Component != sstables.ComponentData {
		return length
	}
	b, ok := s.Files[sstables.ComponentCompressionInfo]
	if !ok {
		return int64(d.Offset)
	}
	ci, _ := sstables.ParseCompressionInfo(b, "", s.Desc.Version)
	i := sort.Search(len(ci.ChunkOffsets), func(i int) bool { return ci.ChunkOffsets[i] > int64(d.Offset) }) - 1
	return max(0, int64(i)) * int64(ci.ChunkLength)
}

// scrubOutcome is what scrubbing one damaged copy gave.
type scrubOutcome struct {
	err                 error
	total, required     int // partitions of the sound SSTable; wholly before the damage
	rescued, requiredOK int
	suspectKept         int
	falseAlarm          string // when the report says lost, yet everything came out intact: its first drop
}

// scrubCase scrubs one damaged copy in memory and checks the result.
func scrubCase(s *SSTable, t *Target, base []scrubPart, length int64, d Damage) scrubOutcome {
	fsys := t.NewFS()
	desc := t.memDesc()
	fsys.Set(desc.Path(d.Component), d.Apply(t.Files[d.Component]))
	o := scrubOutcome{total: len(base)}
	rep, err := scrub.Scrub(context.Background(), desc, scrub.Options{Dir: "/out", FS: fsys, Table: s.Table, Generation: 1, Jobs: 1})
	if err != nil {
		o.err = fmt.Errorf("scrub failed: %w", err)
		return o
	}
	got := map[string]uint64{}
	for _, path := range rep.Outputs {
		odesc, _, _, err := sstables.ParseDescriptor(path)
		if err != nil {
			o.err = err
			return o
		}
		f, err := sstables.LookupVersion(odesc.Version)
		if err != nil {
			o.err = err
			return o
		}
		r, err := f.Open(odesc, s.Table, sstables.ReaderOptions{FS: fsys})
		if err != nil {
			o.err = fmt.Errorf("the output %s does not open: %w", path, err)
			return o
		}
		if err := r.Verify(); err != nil {
			r.Close()
			o.err = fmt.Errorf("the output %s does not verify: %w", path, err)
			return o
		}
		parts, err := fingerprints(r)
		r.Close()
		if err != nil {
			o.err = fmt.Errorf("the output %s does not read: %w", path, err)
			return o
		}
		for _, p := range parts {
			got[p.key] = p.sum
		}
	}
	first := damageStart(s, d, length)
	var missing []string
	absent := 0
	for _, p := range base {
		if _, ok := got[p.key]; !ok {
			absent++
		}
		sum, ok := got[p.key]
		ok = ok && sum == p.sum
		if ok {
			o.rescued++
		}
		if p.end <= first {
			o.required++
			if ok {
				o.requiredOK++
			} else {
				missing = append(missing, fmt.Sprintf("%x at [%d, %d)", p.key, p.start, p.end))
			}
		}
	}
	if len(missing) > 0 {
		o.err = fmt.Errorf("lost %d partitions wholly before the first damaged byte (uncompressed offset %d): %s", len(missing), first, strings.Join(missing[:min(3, len(missing))], ", "))
	}
	o.suspectKept = len(rep.Suspect)
	if absent > 0 && !rep.Lost() && len(rep.Suspect) == 0 && o.err == nil {
		o.err = fmt.Errorf("%d partitions are missing from the output but the report says nothing was lost", absent)
	}
	if rep.Lost() && o.rescued == o.total && len(rep.Dropped) > 0 {
		o.falseAlarm = fmt.Sprintf("%+v", rep.Dropped[0])
	}
	return o
}

// TestScrubSweep scrubs damaged copies of every reference SSTable —
// truncations and byte flips of Data.db and Index.db from the corruption
// sweep's quick plan, sampled evenly down to -scrub.cases — in memory,
// each under a 30 s timeout. Every scrub must return (no panic, no hang,
// no error), every SSTable it writes must open and verify, a partition
// missing from the output must be reported lost (or a kept one suspect),
// and every
// partition that lies wholly before the first damaged byte (for a
// compressed Data.db: before the chunk holding it; for Index.db damage:
// every partition) must come out with exactly its content. The overall
// rescued fraction — partitions of the sound SSTables found intact in the
// scrubbed ones — is logged. The deliberately corrupt integrity_check
// files are scrubbed for robustness but not counted (their Data.db is
// damaged before the sweep touches it).
func TestScrubSweep(t *testing.T) {
	corpus := loadCorpus(t)
	type job struct {
		s    *SSTable
		t    *Target
		base []scrubPart
		len  int64
		d    Damage
	}
	var jobs []job
	for _, s := range corpus {
		tg, err := NewTarget(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		base, length, err := scrubBaseline(s, tg.NewFS(), tg.memDesc())
		if err != nil && !s.DeliberatelyCorrupt {
			t.Fatalf("%s: %v", s.Name, err)
		}
		for _, c := range []sstables.Component{sstables.ComponentData, sstables.ComponentIndex} {
			for _, d := range QuickPlan.Damages(c, len(s.Files[c]), tg.Boundaries[c]) {
				jobs = append(jobs, job{s, tg, base, length, d})
			}
		}
	}
	all := len(jobs)
	n := *scrubCases
	if testing.Short() && n == 1500 {
		n = 300 // make test: a fifth of the default sample, spread as evenly
	}
	if n > 0 && n < len(jobs) {
		sampled := make([]job, 0, n)
		for k := 0; k < n; k++ {
			sampled = append(sampled, jobs[k*len(jobs)/n])
		}
		jobs = sampled
	}
	start := time.Now()
	var mu sync.Mutex
	var total, required, rescued, requiredOK, suspect, failed, falseAlarms int
	// Per component: cases counted and the sum of their rescued fractions.
	cases := map[sstables.Component]int{}
	fraction := map[sstables.Component]float64{}
	ch := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				g := Guard(30*time.Second, func() scrubOutcome { return scrubCase(j.s, j.t, j.base, j.len, j.d) })
				mu.Lock()
				switch {
				case g.Hung:
					t.Errorf("%s, %v: scrub hung", j.s.Name, j.d)
					failed++
				case g.Panic != "":
					t.Errorf("%s, %v: scrub panicked: %s", j.s.Name, j.d, g.Panic)
					failed++
				case g.Result.err != nil && !(j.s.DeliberatelyCorrupt && strings.Contains(g.Result.err.Error(), "wholly before")):
					if failed < 20 {
						t.Errorf("%s, %v: %v", j.s.Name, j.d, g.Result.err)
					}
					failed++
				}
				if !j.s.DeliberatelyCorrupt && !g.Hung && g.Panic == "" {
					o := g.Result
					cases[j.d.Component]++
					fraction[j.d.Component] += float64(o.rescued) / float64(max(1, o.total))
					total += o.total
					required += o.required
					rescued += o.rescued
					requiredOK += o.requiredOK
					suspect += o.suspectKept
					if o.falseAlarm != "" {
						falseAlarms++
						t.Logf("%s, %v: reported lost although intact: %s", j.s.Name, j.d, o.falseAlarm)
					}
				}
				mu.Unlock()
				if g.Hung {
					return
				}
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	if failed > 0 {
		t.Errorf("%d of %d scrubs failed", failed, len(jobs))
	}
	t.Logf("%d SSTables, %d damaged copies scrubbed (of the plan's %d) in %s: %d of %d partitions rescued (%.1f%%); wholly before the first damaged byte %d of %d (%.1f%%); %d kept partitions reported suspect",
		len(corpus), len(jobs), all, time.Since(start).Round(time.Millisecond), rescued, total, 100*float64(rescued)/float64(max(1, total)),
		requiredOK, required, 100*float64(requiredOK)/float64(max(1, required)), suspect)
	t.Logf("%d scrubs reported a loss although every partition came out intact", falseAlarms)
	for _, c := range []sstables.Component{sstables.ComponentData, sstables.ComponentIndex} {
		t.Logf("%s damage: %d copies, mean rescued fraction per copy %.1f%%", c, cases[c], 100*fraction[c]/float64(max(1, cases[c])))
	}
}
