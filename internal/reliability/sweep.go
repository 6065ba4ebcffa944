package reliability

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/sstables"
)

// SweepOptions configure Sweep. The zero value of every field means the
// default given in its comment.
type SweepOptions struct {
	// Plan chooses the damage; the zero value means QuickPlan.
	Plan Plan
	// CLIEvery runs the castable dump and verify commands on every
	// CLIEvery-th case of each component (the first one included); 0 means
	// never. They read from disk, so they cost more than the library
	// probe.
	CLIEvery int
	// TempDir holds the disk copies the CLI reads (required when CLIEvery
	// is set).
	TempDir string
	// Timeout bounds each probe; 0 means 30 s.
	Timeout time.Duration
	// MaxAlloc bounds the heap bytes a probe may allocate; 0 means 64 MiB.
	MaxAlloc uint64
	// Workers is the number of cases run at once; 0 means 1. With more than
	// one, an allocation over MaxAlloc is re-measured alone before it is
	// reported.
	Workers int
	// Components restricts the sweep to these components; nil means all.
	Components []sstables.Component
}

func (o SweepOptions) withDefaults() SweepOptions {
	if o.Plan.Masks == nil {
		o.Plan = QuickPlan
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxAlloc == 0 {
		o.MaxAlloc = 64 << 20
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	return o
}

// caseJob is one damage to run.
type caseJob struct {
	d   Damage
	cli bool
}

// Sweep damages every component of t as the plan says and reports each
// outcome, in no particular order; report is called by one goroutine at a
// time. It stops early when ctx is done or a
// probe hangs (its goroutine cannot be stopped).
func Sweep(ctx context.Context, t *Target, opts SweepOptions, report func(*Outcome)) error {
	opts = opts.withDefaults()
	var jobs []caseJob
	for _, c := range t.Components() {
		if opts.Components != nil && !containsComponent(opts.Components, c) {
			continue
		}
		damages := opts.Plan.budget(opts.Plan.Damages(c, len(t.Files[c]), t.Boundaries[c]), t.size())
		for i, d := range damages {
			jobs = append(jobs, caseJob{d: d, cli: opts.CLIEvery > 0 && i%opts.CLIEvery == 0})
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan caseJob)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	// Cases run holding alone for reading; a re-measure holds it for
	// writing, so that no other case allocates meanwhile.
	var alone sync.RWMutex
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			run, err := newCaseRunner(t, opts, w)
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				cancel()
				return
			}
			for j := range ch {
				alone.RLock()
				o := run.run(j)
				alone.RUnlock()
				if o.Lib.Hung || o.CLI.Hung {
					cancel()
				}
				if o.Verdict == Failed && opts.Workers > 1 && (o.Lib.Alloc > opts.MaxAlloc || o.CLI.Alloc > opts.MaxAlloc) {
					// Another worker's allocations may be counted: measure
					// again while the others wait.
					alone.Lock()
					o = run.run(j)
					alone.Unlock()
				}
				mu.Lock()
				report(o)
				mu.Unlock()
			}
		}(w)
	}
feed:
	for _, j := range jobs {
		select {
		case ch <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

func containsComponent(cs []sstables.Component, c sstables.Component) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// caseRunner runs cases on one worker's own copies of the SSTable.
type caseRunner struct {
	t       *Target
	opts    SweepOptions
	fs      *memfs.FS
	diskDir string
	disk    sstables.Descriptor
}

func newCaseRunner(t *Target, opts SweepOptions, worker int) (*caseRunner, error) {
	r := &caseRunner{t: t, opts: opts, fs: t.NewFS()}
	if opts.CLIEvery > 0 {
		r.diskDir = cliDir(opts.TempDir, worker)
		if err := os.MkdirAll(r.diskDir, 0o755); err != nil {
			return nil, err
		}
		var err error
		if r.disk, err = t.WriteDir(r.diskDir); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *caseRunner) run(j caseJob) *Outcome {
	t := r.t
	c := j.d.Component
	orig := t.Files[c]
	damaged := j.d.Apply(orig)
	o := &Outcome{Target: t, Damage: j.d}

	mdesc := t.memDesc()
	r.fs.Set(mdesc.Path(c), damaged)
	o.Lib = Guard(r.opts.Timeout, func() Probe { return ProbeLibrary(t.SSTable, r.fs, mdesc, t.GetKeys) })
	r.fs.Set(mdesc.Path(c), orig)

	if j.cli && !o.Lib.Hung {
		path := r.disk.Path(c)
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			o.Verdict, o.Problem = Failed, "writing the CLI copy: "+err.Error()
			return o
		}
		o.CLIRan = true
		o.CLI = Guard(r.opts.Timeout, func() CLIProbe { return probeCLI(r.disk) })
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			o.Verdict, o.Problem = Failed, "restoring the CLI copy: "+err.Error()
			return o
		}
	}
	judge(o, r.opts.MaxAlloc)
	return o
}

// probeCLI runs castable dump and castable verify on the SSTable desc.
func probeCLI(desc sstables.Descriptor) CLIProbe {
	env := &cli.Env{Stdin: eofReader{}, Stdout: io.Discard, Stderr: io.Discard, Quiet: true}
	data := desc.Path(sstables.ComponentData)
	return CLIProbe{
		Dump:         cli.Dump(env, cli.DumpOptions{SSTable: data}),
		Verify:       cli.Verify(env, cli.VerifyOptions{SSTables: []string{data}}),
		StrictVerify: cli.Verify(env, cli.VerifyOptions{SSTables: []string{data}, Strict: true}),
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
