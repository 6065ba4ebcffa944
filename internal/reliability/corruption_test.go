package reliability

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

var (
	longSweep = flag.Bool("long", false, "sweep with the full plan (every length and byte of components up to 16 KiB) instead of the quick one")
	tableOut  = flag.String("table", "", "write the corruption table (Markdown) to this file")
	only      = flag.String("only", "", "sweep only the SSTables whose name contains this")
)

func loadCorpus(t testing.TB) []*SSTable {
	t.Helper()
	corpus, err := LoadCorpus(testdata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(corpus) < 40 {
		t.Fatalf("only %d SSTables found in the corpus", len(corpus))
	}
	return corpus
}

// TestCorruptionSweep truncates and flips bytes of every component of every
// reference SSTable (mc, me, la; compressed and not; the deliberately
// corrupt integrity_check files included) and reads each result through
// Open, a full scan, Get of the keys, Verify, and on a share of the cases
// the castable dump and verify commands. Every case must end in a
// CorruptionError naming the file and component, or — for a flip in a
// component Cassandra does not checksum, in a field nothing cross-checks —
// in no error at all; never in a panic, a hang, more than 64 MiB of
// allocation, another kind of error, an unnoticed truncation or an
// unnoticed Data.db flip.
func TestCorruptionSweep(t *testing.T) {
	corpus := loadCorpus(t)
	plan, cliEvery, getKeys := QuickPlan, 8, 16
	if *longSweep || *tableOut != "" {
		plan, cliEvery = FullPlan, 16
	}
	if testing.Short() && !*longSweep && *tableOut == "" {
		plan, cliEvery = ShortPlan, 32
	}
	var picked []*SSTable
	for _, s := range corpus {
		if strings.Contains(s.Name, *only) {
			picked = append(picked, s)
		}
	}
	opts := CorpusOptions{
		SweepOptions: SweepOptions{Plan: plan, CLIEvery: cliEvery, TempDir: t.TempDir(), Workers: 2},
		GetKeys:      getKeys,
		Progress:     t.Logf,
	}
	tally, err := SweepCorpus(context.Background(), picked, opts)
	if err != nil {
		t.Fatal(err)
	}
	reportFailures(t, tally)
	total := tally.Total()
	tr, fl := total.Tried()
	t.Logf("%d SSTables: %d truncations (%d caught), %d flips (%d caught, %d undetectable by format), %d through the CLI",
		len(total.Files), tr, total.Truncations[Caught], fl, total.Flips[Caught],
		total.Flips[Undetectable]+total.Flips[UndetectableChanged], total.CLIRuns)
	if *tableOut != "" {
		f, err := os.Create(*tableOut)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := tally.WriteMarkdown(f); err != nil {
			t.Fatal(err)
		}
	}
}

// reportFailures fails t with the failed cases, grouped by what went wrong
// (a few examples each).
func reportFailures(t *testing.T, tally *Tally) {
	t.Helper()
	type key struct{ group, comp, kind, problem string }
	seen := map[key]int{}
	var order []key
	for _, o := range tally.Failures() {
		p := o.Problem
		if i := strings.IndexAny(p, ":\n"); i > 0 {
			p = p[:i]
		}
		k := key{o.Target.Group(), string(o.Damage.Component), o.Damage.Kind.String(), p}
		if seen[k] == 0 {
			order = append(order, k)
		}
		if seen[k]++; seen[k] <= 3 {
			t.Errorf("%s: %s", o.Name(), o.Problem)
		}
	}
	for _, k := range order {
		t.Logf("%d× %s %s %s: %s", seen[k], k.group, k.comp, k.kind, k.problem)
	}
}

// TestCorruptionSweepBTI sweeps the trie-indexed SSTables (Cassandra's da,
// ScyllaDB's ms and mt) as TestCorruptionSweep does the others: every
// component, Partitions.db and Rows.db (tries without checksums) included,
// must end in a CorruptionError naming file and component, or, for a flip
// nothing cross-checks, in no error; never a panic, a hang or another
// error.
func TestCorruptionSweepBTI(t *testing.T) {
	corpus, err := LoadBTICorpus(testdata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(corpus) < 8 {
		t.Fatalf("only %d BTI SSTables found", len(corpus))
	}
	plan, cliEvery := QuickPlan, 8
	if *longSweep {
		plan, cliEvery = FullPlan, 16
	}
	if testing.Short() && !*longSweep {
		plan, cliEvery = ShortPlan, 32
	}
	opts := CorpusOptions{
		SweepOptions: SweepOptions{Plan: plan, CLIEvery: cliEvery, TempDir: t.TempDir(), Workers: 2},
		GetKeys:      16,
		Progress:     t.Logf,
	}
	tally, err := SweepCorpus(context.Background(), corpus, opts)
	if err != nil {
		t.Fatal(err)
	}
	reportFailures(t, tally)
	total := tally.Total()
	tr, fl := total.Tried()
	t.Logf("%d SSTables: %d truncations (%d caught), %d flips (%d caught, %d undetectable by format), %d through the CLI",
		len(total.Files), tr, total.Truncations[Caught], fl, total.Flips[Caught],
		total.Flips[Undetectable]+total.Flips[UndetectableChanged], total.CLIRuns)
	for _, c := range []sstables.Component{sstables.ComponentPartitions, sstables.ComponentRows} {
		cell := tally.Component(c)
		tr, fl := cell.Tried()
		t.Logf("%s: %d truncations (%d caught), %d flips (%d caught, %d undetectable) in %d files", c, tr, cell.Truncations[Caught], fl, cell.Flips[Caught],
			cell.Flips[Undetectable]+cell.Flips[UndetectableChanged], len(cell.Files))
		if cell.Truncations[Caught] == 0 {
			t.Errorf("no truncation of %s swept and caught", c)
		}
	}
}
