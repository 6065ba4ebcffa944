package fastforward

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/sstables"
)

// Options are the settings of one perf_fast_forward invocation.
type Options struct {
	// Populate writes the datasets (the flush benchmark); otherwise the
	// read test groups run on data populated before in DataDir.
	Populate bool
	// Rows, ValueSize, FlushThreshold, Jobs, Seed and Partitioner: see
	// Config.
	Rows           int64
	ValueSize      int
	FlushThreshold int64
	Jobs           int
	Seed           uint64
	Partitioner    dht.Partitioner
	// Datasets are the dataset names; empty means the default ones.
	Datasets []string
	// Formats are the SSTable formats, each tried with each codec.
	Formats []sstables.Format
	// Codecs are the compressions; empty means none.
	Codecs []compress.Codec
	// DataDir is where SSTables go; empty means a temporary directory,
	// removed at the end (populate only).
	DataDir string
	// JSONOutput is the file the JSON results go to, if set.
	JSONOutput string
	// Read configures read mode.
	Read ReadOptions
}

// savedConfig is what populate records in the data directory so that read
// mode knows the data (ScyllaDB keeps it in a ks.config table).
type savedConfig struct {
	Rows      int64  `json:"rows"`
	ValueSize int    `json:"value_size"`
	Seed      uint64 `json:"seed"`
}

const configFile = "perf_fast_forward.json"

// Run executes perf_fast_forward, printing the text report to out.
func Run(ctx context.Context, opts Options, out io.Writer) (*Results, error) {
	datasets, err := selectDatasets(opts.Datasets)
	if err != nil {
		return nil, err
	}
	if len(opts.Formats) == 0 {
		return nil, errors.New("no SSTable format selected")
	}
	if len(opts.Codecs) == 0 {
		opts.Codecs = []compress.Codec{compress.None}
	}
	results := &Results{Results: map[string]JSONResult{}}
	if opts.Populate {
		err = runPopulate(ctx, opts, datasets, out, results)
	} else {
		err = runReads(ctx, opts, datasets, out, results)
	}
	if err != nil {
		return results, err
	}
	if opts.JSONOutput != "" {
		if err := results.WriteFile(opts.JSONOutput); err != nil {
			return results, err
		}
	}
	return results, nil
}

func selectDatasets(names []string) ([]*Dataset, error) {
	var out []*Dataset
	if len(names) == 0 {
		for _, d := range Datasets {
			if d.Default {
				out = append(out, d)
			}
		}
		return out, nil
	}
	for _, n := range names {
		d, err := FindDataset(n)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func runPopulate(ctx context.Context, opts Options, datasets []*Dataset, out io.Writer, results *Results) error {
	dir := opts.DataDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "perf_fast_forward-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	cfg := Config{Rows: opts.Rows, ValueSize: opts.ValueSize, FlushThreshold: opts.FlushThreshold, Jobs: opts.Jobs, Dir: dir, Seed: opts.Seed, Partitioner: opts.Partitioner}
	cfg.defaults()
	fmt.Fprintf(out, "Data directory: %s\nConfig: rows: %d, value size: %d, flush threshold: %d MiB, jobs: %d, partitioner: %s\n",
		dir, cfg.Rows, cfg.ValueSize, cfg.FlushThreshold>>20, cfg.Jobs, strings.TrimPrefix(cfg.Partitioner.Name(), "org.apache.cassandra.dht."))
	for _, d := range datasets {
		for _, f := range opts.Formats {
			for _, codec := range opts.Codecs {
				c := cfg
				c.Format, c.Codec = f, codec
				WritePopulationHeading(out, d, c)
				pop, err := Populate(ctx, d, c)
				if err != nil {
					return fmt.Errorf("populating %s (%s, %s): %w", d.Name, f.Version(), codec, err)
				}
				row := pop.Summarize()
				row.WriteRow(out)
				results.AddPopulation(pop, row)
				fmt.Fprintln(out)
			}
		}
	}
	b, _ := json.Marshal(savedConfig{Rows: cfg.Rows, ValueSize: cfg.ValueSize, Seed: cfg.Seed})
	return os.WriteFile(filepath.Join(dir, configFile), b, 0o644)
}

func runReads(ctx context.Context, opts Options, datasets []*Dataset, out io.Writer, results *Results) error {
	if opts.DataDir == "" {
		return errors.New("read mode needs --data-directory with data populated by --populate")
	}
	b, err := os.ReadFile(filepath.Join(opts.DataDir, configFile))
	if err != nil {
		return fmt.Errorf("read mode: %w (populate the directory first with --populate)", err)
	}
	var saved savedConfig
	if err := json.Unmarshal(b, &saved); err != nil {
		return fmt.Errorf("%s: %w", configFile, err)
	}
	fmt.Fprintf(out, "Config: rows: %d, value size: %d\n", saved.Rows, saved.ValueSize)
	for _, d := range datasets {
		for _, f := range opts.Formats {
			for _, codec := range opts.Codecs {
				t, err := d.Table()
				if err != nil {
					return err
				}
				pop := &Population{
					Dataset: d, Table: t,
					Config: Config{Rows: saved.Rows, ValueSize: saved.ValueSize, Format: f, Codec: codec, Dir: opts.DataDir},
					Dir:    TableDir(opts.DataDir, d, f, codec),
				}
				pop.Compacted = sstables.Descriptor{Dir: filepath.Join(pop.Dir, "compacted"), Version: f.Version(), Generation: 1}
				if _, err := os.Stat(pop.Compacted.Path(sstables.ComponentTOC)); err != nil {
					fmt.Fprintf(out, "skipping: %s: not populated (%v)\n", pop.Key(), err)
					continue
				}
				var last *ReadGroup
				start := time.Now()
				_, err = RunReads(ctx, pop, f, opts.Read, func(g *ReadGroup, r ReadResult) {
					if g != last {
						WriteReadHeading(out, g, pop.Key())
						last = g
					}
					r.WriteRow(out)
					results.AddRead(pop, r)
				})
				if err != nil {
					return fmt.Errorf("%s: %w", pop.Key(), err)
				}
				fmt.Fprintf(out, "(%s done in %.1fs)\n\n", pop.Key(), time.Since(start).Seconds())
			}
		}
	}
	return nil
}
