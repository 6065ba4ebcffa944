// Command perf_checksum measures castable's checksums and combines the way
// ScyllaDB's test/perf/perf_checksum does: for each buffer size a dry run
// sizes the iteration count, then several runs of that count give the
// median, MAD, min and max time per call, printed in the 2018 seastar
// perf_tests table.
//
//	perf_checksum [--size N]… [--duration 1s] [--runs 5] [--test REGEX]… [--json-output FILE] [--list]
//
// Build with -tags libdeflate,zlib (and cgo) to include the C libraries;
// tests whose library is not built in are reported as unavailable, never
// replaced silently (where a pure-Go stand-in is measured under a library's
// name, a note under the table says so).
//
// Differences from seastar: each test runs its calls in a tight loop rather
// than one harness call per iteration (the harness call would add a few ns
// to every row), the combine tests vary the first checksum per call so
// nothing can be hoisted, and --duration also accepts Go durations.
package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"
)

func main() {
	if err := newApp(os.Stdout).Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "perf_checksum:", err)
		os.Exit(1)
	}
}

// newApp wires the command line to run, printing to w.
func newApp(w io.Writer) *cli.App {
	return &cli.App{
		Name:  "perf_checksum",
		Usage: "measure CRC-32 / Adler-32 checksums and combines (ScyllaDB perf_checksum method)",
		Flags: []cli.Flag{
			&cli.IntSliceFlag{Name: "size", Usage: "buffer size in bytes, also len2 of the combine tests (repeatable; default 514 and 65536)"},
			&cli.StringFlag{Name: "duration", Aliases: []string{"d"}, Value: "1", Usage: "dry run length sizing each run: seconds, or a Go duration such as 200ms"},
			&cli.IntFlag{Name: "iterations", Aliases: []string{"i"}, Usage: "iterations per run; 0 lets the dry run decide"},
			&cli.IntFlag{Name: "runs", Aliases: []string{"r"}, Value: 5, Usage: "number of measured runs"},
			&cli.StringSliceFlag{Name: "test", Aliases: []string{"t"}, Usage: "run only tests whose name matches this regular expression (repeatable)"},
			&cli.StringFlag{Name: "json-output", Usage: "also write the results as JSON to this file"},
			&cli.BoolFlag{Name: "list", Usage: "list the tests and what each measures"},
			&cli.BoolFlag{Name: "no-stdout", Usage: "do not print the table"},
		},
		Action: func(c *cli.Context) error {
			cfg := config{
				sizes:      c.IntSlice("size"),
				iterations: c.Int("iterations"),
				runs:       c.Int("runs"),
				jsonPath:   c.String("json-output"),
				list:       c.Bool("list"),
				noStdout:   c.Bool("no-stdout"),
			}
			if len(cfg.sizes) == 0 {
				cfg.sizes = []int{514, 65536}
			}
			d, err := parseDuration(c.String("duration"))
			if err != nil {
				return err
			}
			cfg.duration = d
			for _, expr := range c.StringSlice("test") {
				re, err := regexp.Compile(expr)
				if err != nil {
					return fmt.Errorf("--test %q: %w", expr, err)
				}
				cfg.tests = append(cfg.tests, re)
			}
			return run(w, cfg)
		},
		Writer:          w,
		HideHelpCommand: true,
	}
}

// parseDuration accepts seconds as a plain number (seastar's --duration)
// or a Go duration string.
func parseDuration(s string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs <= 0 {
			return 0, fmt.Errorf("--duration %q must be positive", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("--duration %q: want seconds or a duration such as 500ms", s)
	}
	return d, nil
}
