// Command perf_fast_forward measures castable's flush throughput (rows per
// second of flush time, "frag/s") and read scenarios on ScyllaDB's
// perf_fast_forward datasets. See internal/fastforward.
//
//	perf_fast_forward --populate --datasets small-part --sstable-format nb --compression lz4
//	perf_fast_forward --data-directory DIR --datasets small-part   # read tests on populated data
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/fastforward"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats" // every format, for --sstable-format
	"github.com/castable-db/castable/sstables/version"
	"github.com/urfave/cli/v2"
)

func main() {
	app := &cli.App{
		Name:  "perf_fast_forward",
		Usage: "flush and read benchmarks on ScyllaDB's perf_fast_forward datasets",
		Description: "With --populate, writes each dataset into memtables and flushes them into SSTables,\n" +
			"reporting the median flush in frag/s (rows flushed per second of flush time) with its\n" +
			"MAD, max and min over all flushes. Without it, runs the read test groups on data an\n" +
			"earlier --populate left in --data-directory.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "populate", Usage: "populate the datasets (the flush benchmark)"},
			&cli.Int64Flag{Name: "rows", Value: 1_000_000, Usage: "rows per large partition, or partitions for small-partition datasets"},
			&cli.IntFlag{Name: "value-size", Value: 100, Usage: "bytes in the value blob"},
			&cli.StringSliceFlag{Name: "datasets", Usage: "datasets to use (repeatable or comma-separated; default: large-part-ds1, small-part)"},
			&cli.StringFlag{Name: "data-directory", Usage: "where SSTables go (default: a temporary directory, removed at exit)"},
			&cli.StringSliceFlag{Name: "sstable-format", Value: cli.NewStringSlice(version.Default), Usage: "SSTable `VERSION`s to populate and read: " + version.Summarize(version.Select(version.Version.Writable)) + " (repeatable or comma-separated)"},
			&cli.StringFlag{Name: "partitioner", Usage: "partitioner `NAME` (short or full class name): " + strings.Join(dht.Names(), ", ") + " (default Murmur3Partitioner)"},
			&cli.StringSliceFlag{Name: "compression", Value: cli.NewStringSlice("none"), Usage: "lz4, snappy, deflate, zstd or none (repeatable)"},
			&cli.StringFlag{Name: "flush-threshold", Aliases: []string{"memtable-size"}, Value: "300MiB", Usage: "memtable memory that triggers a flush (bytes, or with KiB/MiB/GiB)"},
			&cli.IntFlag{Name: "jobs", Usage: "compression workers per flush (0: all cores)"},
			&cli.Uint64Flag{Name: "random-seed", Usage: "seed of the value blob"},
			&cli.StringFlag{Name: "json-output", Usage: "write the results as JSON to this file"},
			&cli.StringSliceFlag{Name: "run-tests", Usage: "read test groups to run (default: all)"},
			&cli.DurationFlag{Name: "test-case-duration", Value: 1_000_000_000, Usage: "repeat each read case this long (at least 4 runs; 0: once)"},
			&cli.BoolFlag{Name: "list-tests", Usage: "list the read test groups"},
			&cli.BoolFlag{Name: "list-datasets", Usage: "list the datasets"},
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a CPU profile of the run to this file"},
		},
		Action: run,
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "perf_fast_forward:", err)
		os.Exit(1)
	}
}

func run(c *cli.Context) error {
	if c.Bool("list-datasets") {
		for _, d := range fastforward.Datasets {
			fmt.Printf("%-20s %s\n", d.Name, d.Description)
		}
		return nil
	}
	if c.Bool("list-tests") {
		for _, g := range fastforward.ReadGroups {
			kind := "small"
			if g.Large {
				kind = "large"
			}
			fmt.Printf("%-28s %s partition\n", g.Name, kind)
		}
		return nil
	}
	threshold, err := parseSize(c.String("flush-threshold"))
	if err != nil {
		return fmt.Errorf("--flush-threshold: %w", err)
	}
	part, err := dht.Lookup(c.String("partitioner"))
	if err != nil {
		return fmt.Errorf("--partitioner: %w", err)
	}
	opts := fastforward.Options{
		Partitioner:    part,
		Populate:       c.Bool("populate"),
		Rows:           c.Int64("rows"),
		ValueSize:      c.Int("value-size"),
		FlushThreshold: threshold,
		Jobs:           c.Int("jobs"),
		Seed:           c.Uint64("random-seed"),
		Datasets:       splitList(c.StringSlice("datasets")),
		DataDir:        c.String("data-directory"),
		JSONOutput:     c.String("json-output"),
		Read: fastforward.ReadOptions{
			CaseDuration: c.Duration("test-case-duration"),
			Groups:       splitList(c.StringSlice("run-tests")),
		},
	}
	for _, name := range splitList(c.StringSlice("sstable-format")) {
		f, err := sstables.Lookup(name)
		if err != nil {
			return fmt.Errorf("--sstable-format: %w", err)
		}
		if !f.Version().Writable() {
			return fmt.Errorf("--sstable-format: castable reads %s but does not write it", name)
		}
		opts.Formats = append(opts.Formats, f)
	}
	for _, name := range splitList(c.StringSlice("compression")) {
		codec, err := compress.ParseCodec(name)
		if err != nil {
			return fmt.Errorf("--compression: %w", err)
		}
		opts.Codecs = append(opts.Codecs, codec)
	}
	if path := c.String("cpuprofile"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	_, err = fastforward.Run(ctx, opts, os.Stdout)
	return err
}

func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// parseSize parses "314572800", "300MiB", "64KiB", "1GiB" (also KB/MB/GB,
// taken as binary units).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
