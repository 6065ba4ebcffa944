package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is what the command line sets; its zero value is not meant to be
// used directly — main fills the defaults.
type config struct {
	// sizes are the buffer sizes (and combine second lengths) to measure.
	sizes []int
	// duration is the length of the dry run that sizes each run.
	duration time.Duration
	// iterations, when non-zero, replaces the dry run.
	iterations int
	// runs is the number of measured runs.
	runs int
	// tests select tests whose name matches any of them (all when empty).
	tests []*regexp.Regexp
	// jsonPath, when set, receives the results as JSON.
	jsonPath string
	// list prints the selected tests instead of running them.
	list bool
	// noStdout suppresses the table.
	noStdout bool
}

// result is one test at one size.
type result struct {
	Iterations  int     `json:"iterations,omitempty"`
	Median      float64 `json:"median,omitempty"`
	MAD         float64 `json:"mad"`
	Min         float64 `json:"min,omitempty"`
	Max         float64 `json:"max,omitempty"`
	Unavailable bool    `json:"unavailable,omitempty"`
	Reason      string  `json:"reason,omitempty"`
}

// run executes the tool: it measures every selected test at every size
// and prints the 2018 seastar perf_tests table to w.
func run(w io.Writer, cfg config) error {
	if cfg.runs < 1 {
		return fmt.Errorf("--runs must be at least 1, got %d", cfg.runs)
	}
	if cfg.iterations < 0 {
		return fmt.Errorf("--iterations must not be negative, got %d", cfg.iterations)
	}
	if cfg.iterations == 0 && cfg.duration <= 0 {
		return fmt.Errorf("--duration must be positive, got %v", cfg.duration)
	}
	for _, s := range cfg.sizes {
		if s < 1 || s > 1<<30 {
			return fmt.Errorf("--size %d out of range (1 B … 1 GiB)", s)
		}
	}
	var selected []perfTest
	for _, t := range perfTests() {
		if len(cfg.tests) == 0 || slices.ContainsFunc(cfg.tests, func(re *regexp.Regexp) bool { return re.MatchString(t.name) }) {
			selected = append(selected, t)
		}
	}
	if len(selected) == 0 {
		return errors.New("no test matches --test")
	}
	if cfg.list {
		for _, t := range selected {
			fmt.Fprintf(w, "%-40s %s\n", t.name, t.about())
		}
		return nil
	}

	out := w
	if cfg.noStdout {
		out = io.Discard
	}
	fmt.Fprintf(out, "%-25s %d\n", "single run iterations:", cfg.iterations)
	fmt.Fprintf(out, "%-25s %.3fs\n", "single run duration:", cfg.duration.Seconds())
	fmt.Fprintf(out, "%-25s %d\n", "number of runs:", cfg.runs)

	results := map[string]result{}
	for _, size := range cfg.sizes {
		fmt.Fprintf(out, "\n== buffer size / len2 = %d ==\n", size)
		fmt.Fprintln(out, header())
		f := newFixture(size)
		for _, t := range selected {
			key := t.name + "/" + strconv.Itoa(size)
			loop, ok, reason := t.prepare(f)
			if !ok {
				results[key] = result{Unavailable: true, Reason: reason}
				fmt.Fprintf(out, "%-40s unavailable: %s\n", t.name, reason)
				continue
			}
			r := measure(loop, cfg)
			results[key] = r
			fmt.Fprintln(out, row(t.name, r))
		}
	}
	var notes []string
	for _, t := range selected {
		if t.standIn != nil {
			if s := t.standIn(); s != "" {
				notes = append(notes, fmt.Sprintf("note: %s measures %s", t.name, s))
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(out)
		fmt.Fprintln(out, strings.Join(notes, "\n"))
	}
	if cfg.jsonPath != "" {
		b, err := json.MarshalIndent(map[string]any{"results": results}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(cfg.jsonPath, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("--json-output: %w", err)
		}
	}
	return nil
}

// measure sizes a run with a dry run of cfg.duration (unless
// cfg.iterations is set), then times cfg.runs runs of that many
// iterations and returns median, MAD, min and max of the per-run mean
// time per iteration — seastar perf_tests' method.
func measure(loop func(n int), cfg config) result {
	iters := cfg.iterations
	if iters == 0 {
		iters = calibrate(loop, cfg.duration)
	}
	perOp := make([]float64, cfg.runs)
	for i := range perOp {
		start := time.Now()
		loop(iters)
		perOp[i] = float64(time.Since(start).Nanoseconds()) / float64(iters)
	}
	return summarize(iters, perOp)
}

// calibrate runs loop until d has passed and returns the number of
// iterations done, checking the clock in batches that grow towards the
// remaining time so the clock is read rarely and d is not overshot much.
func calibrate(loop func(n int), d time.Duration) int {
	start := time.Now()
	total, batch := 0, 1
	for {
		loop(batch)
		total += batch
		elapsed := time.Since(start)
		if elapsed >= d {
			return total
		}
		perIter := float64(elapsed) / float64(total)
		remaining := int(float64(d-elapsed)/perIter) + 1
		batch = max(1, min(2*batch, remaining))
	}
}

// summarize computes the statistics of the per-run means: median is the
// [R/2] element of the sorted values, MAD the [R/2] element of the sorted
// absolute deviations from it.
func summarize(iters int, perOp []float64) result {
	v := slices.Clone(perOp)
	slices.Sort(v)
	median := v[len(v)/2]
	dev := make([]float64, len(v))
	for i, x := range v {
		dev[i] = abs(x - median)
	}
	slices.Sort(dev)
	return result{Iterations: iters, Median: median, MAD: dev[len(dev)/2], Min: v[0], Max: v[len(v)-1]}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// header is the table heading: the name padded to 40, then five columns
// right-aligned to 11.
func header() string {
	return fmt.Sprintf("%-40s %11s %11s %11s %11s %11s", "test", "iterations", "median", "mad", "min", "max")
}

// row formats one result like header.
func row(name string, r result) string {
	return fmt.Sprintf("%-40s %11d %11s %11s %11s %11s", name, r.Iterations,
		duration(r.Median), duration(r.MAD), duration(r.Min), duration(r.Max))
}

// duration prints nanoseconds with three decimals in ns, us, ms or s.
func duration(ns float64) string {
	switch {
	case ns < 1e3:
		return fmt.Sprintf("%.3fns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.3fus", ns/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.3fms", ns/1e6)
	}
	return fmt.Sprintf("%.3fs", ns/1e9)
}
