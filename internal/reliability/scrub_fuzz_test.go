package reliability

import (
	"context"
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/scrub"
)

var scrubSeed = flag.Uint64("scrub.seed", 0, "TestScrubRandomDamage: replay this seed (0: a new one, logged)")

// scrubFuzzTargets are the small reference SSTables the random damage and
// the fuzz target scrub (every version and codec family, small enough to
// scrub in a millisecond).
func scrubFuzzTargets(t testing.TB) []*Target {
	var out []*Target
	for _, s := range loadCorpus(t) {
		if s.DeliberatelyCorrupt || len(s.Files[sstables.ComponentData]) > 64<<10 {
			continue
		}
		tg, err := NewTarget(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tg)
	}
	return out
}

// scrubDamaged scrubs t with component c replaced by b, in memory, and
// checks that whatever it writes opens and verifies.
func scrubDamaged(tb testing.TB, t *Target, c sstables.Component, b []byte, what string) {
	fsys := t.NewFS()
	desc := t.memDesc()
	fsys.Set(desc.Path(c), b)
	g := Guard(30*time.Second, func() error {
		rep, err := scrub.Scrub(context.Background(), desc, scrub.Options{Dir: "/out", FS: fsys, Table: t.Table, Generation: 1, Jobs: 1})
		if err != nil {
			return nil // the input does not open at all: an error, not a crash
		}
		for _, path := range rep.Outputs {
			odesc, _, _, err := sstables.ParseDescriptor(path)
			if err != nil {
				return err
			}
			f, err := sstables.LookupVersion(odesc.Version)
			if err != nil {
				return err
			}
			r, err := f.Open(odesc, t.Table, sstables.ReaderOptions{FS: fsys})
			if err != nil {
				return err
			}
			err = r.Verify()
			r.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case g.Hung:
		tb.Fatalf("%s, %s: scrub hung", t.Name, what)
	case g.Panic != "":
		tb.Fatalf("%s, %s: scrub panicked: %s", t.Name, what, g.Panic)
	case g.Result != nil:
		tb.Fatalf("%s, %s: the scrubbed SSTable fails: %v", t.Name, what, g.Result)
	}
}

// TestScrubRandomDamage damages Data.db or Index.db of the small reference
// SSTables at random (seeded, logged): several bytes flipped at once, a run
// of random bytes written over a stretch, or a cut followed by random
// bytes. Scrub must never panic or hang, and what it writes must verify.
// -scrub.seed replays a run.
func TestScrubRandomDamage(t *testing.T) {
	targets := scrubFuzzTargets(t)
	seed := *scrubSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 15))
	for i := 0; i < 400; i++ {
		tg := targets[rng.IntN(len(targets))]
		c := sstables.ComponentData
		if rng.IntN(3) == 0 {
			c = sstables.ComponentIndex
		}
		b := append([]byte(nil), tg.Files[c]...)
		if len(b) == 0 {
			continue
		}
		var what string
		switch rng.IntN(3) {
		case 0:
			n := 1 + rng.IntN(8)
			for k := 0; k < n; k++ {
				b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			}
			what = "random flips"
		case 1:
			off := rng.IntN(len(b))
			for k := off; k < min(len(b), off+1+rng.IntN(256)); k++ {
				b[k] = byte(rng.Uint32())
			}
			what = "random stretch"
		default:
			b = b[:rng.IntN(len(b))]
			for k := rng.IntN(64); k > 0; k-- {
				b = append(b, byte(rng.Uint32()))
			}
			what = "cut and random tail"
		}
		scrubDamaged(t, tg, c, b, what)
	}
}

// FuzzScrub replaces Data.db (even inputs) or Index.db (odd) of a small
// reference SSTable (the input's first byte picks which) by the fuzz input
// and scrubs it: never a panic or a hang, and what it writes verifies.
func FuzzScrub(f *testing.F) {
	targets := scrubFuzzTargets(f)
	for i, tg := range targets {
		for _, c := range []sstables.Component{sstables.ComponentData, sstables.ComponentIndex} {
			sel := byte(2 * i)
			if c == sstables.ComponentIndex {
				sel++
			}
			f.Add(append([]byte{sel}, tg.Files[c]...))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		tg := targets[int(in[0]/2)%len(targets)]
		c := sstables.ComponentData
		if in[0]%2 == 1 {
			c = sstables.ComponentIndex
		}
		scrubDamaged(t, tg, c, in[1:], "fuzz input")
	})
}
