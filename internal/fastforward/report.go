package fastforward

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// PopulationHeader is the column header of population results: ScyllaDB's
// columns that castable can measure (no AIO or cache counters), plus the
// allocations per fragment.
const PopulationHeader = "flush@ (MiB)   time (s)   iterations     frags     frag/s    mad f/s    max f/s    min f/s   allocs/f      (KiB)    cpu"

// WritePopulationHeading prints what ScyllaDB prints before a dataset's
// population table.
func WritePopulationHeading(w io.Writer, d *Dataset, cfg Config) {
	fmt.Fprintf(w, "Populating %s (format %s, compression %s)\n%s:\n%s\n",
		d.Name, cfg.Format.Version(), cfg.Codec, d.Description, PopulationHeader)
}

// PopulationRow is the reported row of a population: the flush with the
// median frag/s, with the spread over all flushes.
type PopulationRow struct {
	ThresholdMiB float64
	Median       FlushSample
	Flushes      int
	FragsPerS    Summary
	// AllocsPerFrag is the median flush's heap allocations per fragment.
	AllocsPerFrag float64
	// KiB is the median flush's output size.
	KiB float64
	// CPU is the median flush's CPU time over its wall time.
	CPU float64
}

// Summarize reduces the population's flushes to its reported row.
func (p *Population) Summarize() PopulationRow {
	rates := make([]float64, len(p.Samples))
	for i, s := range p.Samples {
		rates[i] = s.FragsPerSecond()
	}
	sum := Summarize(rates)
	m := p.Samples[sum.MedianIndex]
	return PopulationRow{
		ThresholdMiB:  float64(p.Config.FlushThreshold) / (1 << 20),
		Median:        m,
		Flushes:       len(p.Samples),
		FragsPerS:     sum,
		AllocsPerFrag: float64(m.Allocs) / float64(max(m.Frags, 1)),
		KiB:           float64(m.Result.BytesWritten) / 1024,
		CPU:           m.CPU.Seconds() / m.Duration.Seconds(),
	}
}

// WriteRow prints r under PopulationHeader.
func (r PopulationRow) WriteRow(w io.Writer) {
	fmt.Fprintf(w, "%12.1f %10.6f %12d %9d %10.0f %10.0f %10.0f %10.0f %10.4f %10.0f %5.1f%%\n",
		r.ThresholdMiB, r.Median.Duration.Seconds(), r.Flushes, r.Median.Frags,
		r.FragsPerS.Median, r.FragsPerS.MAD, r.FragsPerS.Max, r.FragsPerS.Min,
		r.AllocsPerFrag, r.KiB, 100*r.CPU)
}

// ReadHeader is the column header of read results.
const ReadHeader = "   time (s)   iterations     frags     frag/s    mad f/s    max f/s    min f/s"

// WriteReadHeading prints a group's heading.
func WriteReadHeading(w io.Writer, g *ReadGroup, key string) {
	fmt.Fprintf(w, "running: %s on dataset %s\n%s:\n%-24s %s\n", g.Name, key, g.Message, "params", ReadHeader)
}

// WriteRow prints r under ReadHeader.
func (r ReadResult) WriteRow(w io.Writer) {
	fmt.Fprintf(w, "%-24s %10.6f %12d %9d %10.0f %10.0f %10.0f %10.0f\n", r.Params,
		r.Time.Seconds(), r.Iterations, r.Frags, r.FragsPerS.Median, r.FragsPerS.MAD, r.FragsPerS.Max, r.FragsPerS.Min)
	if r.Error != "" {
		fmt.Fprintf(w, "^^^ ERROR: %s\n", r.Error)
	}
}

// JSONResult is one entry of the --json-output document.
type JSONResult struct {
	FragsPerS  float64 `json:"frag/s"`
	MAD        float64 `json:"mad"`
	Min        float64 `json:"min"`
	Max        float64 `json:"max"`
	Frags      int64   `json:"frags"`
	Time       float64 `json:"time"`
	Iterations int     `json:"iterations"`
	// Population only.
	AllocsPerFrag *float64 `json:"allocs/frag,omitempty"`
	CPU           *float64 `json:"cpu,omitempty"`
	Bytes         *int64   `json:"bytes,omitempty"`
	Error         string   `json:"error,omitempty"`
}

// Results collects the JSON document {"results": {key: result}}: keys are
// "<dataset>/<format>/<codec>/flush" for populations and
// "<dataset>/<format>/<codec>/<group>/<params>" for read cases.
type Results struct {
	Results map[string]JSONResult `json:"results"`
}

// AddPopulation records a population's row.
func (rs *Results) AddPopulation(p *Population, r PopulationRow) {
	if rs.Results == nil {
		rs.Results = map[string]JSONResult{}
	}
	allocs, cpu, bytes := r.AllocsPerFrag, r.CPU, r.Median.Result.BytesWritten
	rs.Results[p.Key()+"/flush"] = JSONResult{
		FragsPerS: r.FragsPerS.Median, MAD: r.FragsPerS.MAD, Min: r.FragsPerS.Min, Max: r.FragsPerS.Max,
		Frags: r.Median.Frags, Time: r.Median.Duration.Seconds(), Iterations: r.Flushes,
		AllocsPerFrag: &allocs, CPU: &cpu, Bytes: &bytes,
	}
}

// AddRead records a read case.
func (rs *Results) AddRead(p *Population, r ReadResult) {
	if rs.Results == nil {
		rs.Results = map[string]JSONResult{}
	}
	rs.Results[p.Key()+"/"+r.Group+"/"+r.Params] = JSONResult{
		FragsPerS: r.FragsPerS.Median, MAD: r.FragsPerS.MAD, Min: r.FragsPerS.Min, Max: r.FragsPerS.Max,
		Frags: r.Frags, Time: r.Time.Seconds(), Iterations: r.Iterations, Error: r.Error,
	}
}

// WriteFile writes the document as indented JSON.
func (rs *Results) WriteFile(path string) error {
	b, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
