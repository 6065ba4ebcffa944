// Command corruption-table damages every component of every reference
// SSTable of the shared test data (truncations and byte flips), reads each
// damaged SSTable through the library and the castable CLI, and prints the
// Markdown table of the README's Reliability section: per format and
// component, the damage tried, caught, and undetectable by the format.
//
//	go run ./internal/reliability/cmd/corruption-table > table.md
//
// It exits 1 when any case failed (a panic, a hang, too much memory, an
// error that is not a CorruptionError, a truncation or Data.db flip that
// went unnoticed), listing the failures on stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/castable-db/castable/internal/reliability"
	"github.com/castable-db/castable/internal/testdata"
)

func main() {
	root := flag.String("root", testdata.Root(), "the shared test data folder")
	quick := flag.Bool("quick", false, "use the quick plan of the default test run instead of the full one")
	cliEvery := flag.Int("cli", 16, "run castable dump and verify on every N-th case (0: never)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "cases run at once")
	getKeys := flag.Int("keys", 16, "keys looked up per case (an even sample of larger SSTables)")
	only := flag.String("only", "", "sweep only the SSTables whose name contains this")
	verbose := flag.Bool("v", false, "print progress per SSTable on stderr")
	undetected := flag.Bool("undetected", false, "list examples of the undetectable flips on stderr")
	flag.Parse()

	corpus, err := reliability.LoadCorpus(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var picked []*reliability.SSTable
	for _, s := range corpus {
		if strings.Contains(s.Name, *only) {
			picked = append(picked, s)
		}
	}
	plan := reliability.FullPlan
	if *quick {
		plan = reliability.QuickPlan
	}
	opts := reliability.CorpusOptions{
		SweepOptions: reliability.SweepOptions{Plan: plan, CLIEvery: *cliEvery, Workers: *workers},
		GetKeys:      *getKeys,
	}
	if *verbose {
		opts.Progress = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
	start := time.Now()
	tally, err := reliability.SweepCorpus(context.Background(), picked, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := tally.WriteMarkdown(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if *undetected {
		tally.WriteUndetected(os.Stderr)
	}
	total := tally.Total()
	tr, fl := total.Tried()
	fmt.Fprintf(os.Stderr, "%d SSTables, %d truncations, %d flips, %d through the CLI, in %s\n",
		len(total.Files), tr, fl, total.CLIRuns, time.Since(start).Round(time.Second))
	if failures := tally.Failures(); len(failures) > 0 {
		for _, o := range failures {
			fmt.Fprintf(os.Stderr, "FAILED %s: %s\n", o.Name(), o.Problem)
		}
		os.Exit(1)
	}
}
