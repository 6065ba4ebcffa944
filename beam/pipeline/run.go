package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Run builds a pipeline of the bulk write alone and runs it on runner
// ("prism", "flink", "spark", "dataflow", "universal" … whatever runners
// the program links; the Beam flags of flag.CommandLine configure them),
// waits for it and returns the summary the pipeline wrote, with the Beam
// counters when the runner reports them.
//
// As in every Beam Go program, main should call beam.Init() after parsing
// flags and before Run (a worker process started by a remote runner runs
// its harness there); Run calls it when it has not been.
func Run(ctx context.Context, runner string, opts Options) (*Summary, error) {
	var sum Summary
	counters, err := runPipeline(ctx, runner, func(s beam.Scope) error {
		_, err := Build(s, opts)
		return err
	}, joinPath(trimSlash(opts.Out), SummaryFile), &sum)
	if err != nil {
		return nil, err
	}
	sum.Counters = counters
	return &sum, nil
}

// runPipeline builds a pipeline with build, runs it on runner and waits for
// it, then decodes the JSON summary the pipeline wrote at summaryPath into
// sum. It returns the Beam counters of castable's namespace when the runner
// reports them (nil otherwise).
func runPipeline(ctx context.Context, runner string, build func(beam.Scope) error, summaryPath string, sum any) (map[string]int64, error) {
	if !beam.Initialized() {
		beam.Init()
	}
	p, s := beam.NewPipelineWithRoot()
	if err := build(s); err != nil {
		return nil, err
	}
	res, err := beam.Run(ctx, runner, p)
	if err != nil {
		return nil, err
	}
	b, err := readFile(ctx, summaryPath, 64<<20)
	if err != nil {
		return nil, fmt.Errorf("the pipeline ended but its summary cannot be read: %w", err)
	}
	if err := json.Unmarshal(b, sum); err != nil {
		return nil, fmt.Errorf("%s: %w", summaryPath, err)
	}
	if res == nil {
		return nil, nil
	}
	counters := map[string]int64{}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == metricNamespace {
			counters[c.Name()] += c.Result()
		}
	}
	return counters, nil
}

func trimSlash(s string) string {
	for len(s) > 1 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
