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
	if !beam.Initialized() {
		beam.Init()
	}
	p, s := beam.NewPipelineWithRoot()
	if _, err := Build(s, opts); err != nil {
		return nil, err
	}
	res, err := beam.Run(ctx, runner, p)
	if err != nil {
		return nil, err
	}
	out := joinPath(trimSlash(opts.Out), SummaryFile)
	b, err := readFile(ctx, out, 64<<20)
	if err != nil {
		return nil, fmt.Errorf("the pipeline ended but its summary cannot be read: %w", err)
	}
	var sum Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, fmt.Errorf("%s: %w", out, err)
	}
	if res != nil {
		sum.Counters = map[string]int64{}
		for _, c := range res.Metrics().AllMetrics().Counters() {
			if c.Namespace() == metricNamespace {
				sum.Counters[c.Name()] += c.Result()
			}
		}
	}
	return &sum, nil
}

func trimSlash(s string) string {
	for len(s) > 1 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
