package reliability

import (
	"context"
	"fmt"
	"os"
	"time"
)

// CorpusOptions configure SweepCorpus.
type CorpusOptions struct {
	SweepOptions
	// GetKeys is the number of keys each case looks up (see NewTarget); 0
	// means DefaultGetKeys.
	GetKeys int
	// Progress, when set, receives a line per SSTable swept.
	Progress func(format string, args ...any)
}

// SweepCorpus sweeps every SSTable of the corpus into a new Tally.
func SweepCorpus(ctx context.Context, corpus []*SSTable, opts CorpusOptions) (*Tally, error) {
	tally := NewTally()
	if opts.CLIEvery > 0 && opts.TempDir == "" {
		dir, err := os.MkdirTemp("", "castable-corruption-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		opts.TempDir = dir
	}
	for i, s := range corpus {
		start := time.Now()
		t, err := NewTarget(s, opts.GetKeys)
		if err != nil {
			return tally, err
		}
		so := opts.SweepOptions
		if so.TempDir != "" {
			so.TempDir = fmt.Sprintf("%s/%d", opts.TempDir, i)
		}
		n := 0
		if err := Sweep(ctx, t, so, func(o *Outcome) { n++; tally.Add(o) }); err != nil {
			return tally, fmt.Errorf("%s: %w", s.Name, err)
		}
		if opts.Progress != nil {
			opts.Progress("%-90s %6d cases %8s", s.Name, n, time.Since(start).Round(time.Millisecond))
		}
	}
	return tally, nil
}
