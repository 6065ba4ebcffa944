package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castable-db/castable/internal/cli"
)

var (
	benchRows = flag.Int64("bench.rows", 1_000_000, "BenchmarkSideBySide: rows of the generated CSV input")
	benchTags = flag.String("bench.tags", "", "BenchmarkSideBySide: build tags of both binaries (make print-tags)")
	benchOnly = flag.String("bench.only", "", "BenchmarkSideBySide: run only these impls (comma-separated)")
)

// childRun is one run of a command as a child process.
type childRun struct {
	wall, cpu time.Duration
	rssKB     int64
}

// runChild runs a command to its end and measures it: wall time, CPU time
// (user + system) and peak RSS, from the child's rusage.
func runChild(b *testing.B, name string, args ...string) childRun {
	b.Helper()
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	wall := time.Since(start)
	ps := cmd.ProcessState
	ru := ps.SysUsage().(*syscall.Rusage)
	return childRun{wall: wall, cpu: ps.UserTime() + ps.SystemTime(), rssKB: ru.Maxrss}
}

// buildBinary builds a command of this module (or of the core, which the
// module replaces with ../) into dir.
func buildBinary(b *testing.B, dir, pkg string) string {
	b.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	args := []string{"build", "-o", out}
	if *benchTags != "" {
		args = append(args, "-tags", *benchTags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// writeBenchInput writes rows of cli.BenchmarkSchema (100 rows a
// partition, castable gen-csv's rows, as the core's BenchmarkWriteCSV
// writes them) as one file and as 8 contiguous shards of whole lines (as
// `split -n l/8` cuts them).
func writeBenchInput(b *testing.B, dir string, rows int64) (schemaFile, whole, shards string) {
	b.Helper()
	schemaFile = filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(cli.BenchmarkSchema), 0o644); err != nil {
		b.Fatal(err)
	}
	var csv bytes.Buffer
	if err := cli.GenerateCSV(&cli.Env{Stdout: &csv, Quiet: true}, rows, 100); err != nil {
		b.Fatal(err)
	}
	whole = filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(whole, csv.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "shards"), 0o755)
	data := csv.Bytes()
	const n = 8
	for i, start := 0, 0; i < n; i++ {
		end := len(data) * (i + 1) / n
		if i < n-1 {
			end += bytes.IndexByte(data[end:], '\n') + 1
		}
		if err := os.WriteFile(filepath.Join(dir, "shards", fmt.Sprintf("part-%02d.csv", i)), data[start:end], 0o644); err != nil {
			b.Fatal(err)
		}
		start = end
	}
	return schemaFile, whole, filepath.Join(dir, "shards", "*.csv")
}

// BenchmarkSideBySide measures `castable write` and `castable-beam` on
// Prism side by side, on the same generated CSV rows (-bench.rows, 1M by
// default): each iteration runs, as child processes one after the other,
// castable write of the whole file, then castable-beam of the same rows in
// 8 shards (--ranges 4, the default input lanes) with its shuffle and
// with --no-shuffle. Every run's wall time, CPU time and peak RSS is
// logged; the metrics are the means and castable-beam's throughput and
// peak RSS relative to castable write's (x-write: > 1 is faster; rss-x:
// < 1 is smaller). Both binaries are built here alike (-bench.tags).
//
//	go test -run '^$' -bench SideBySide -benchtime 3x ./cmd/castable-beam
func BenchmarkSideBySide(b *testing.B) {
	if testing.Short() {
		b.Skip("runs child processes for seconds: not in the -short pass")
	}
	dir := b.TempDir()
	castable := buildBinary(b, dir, "github.com/castable-db/castable/cmd/castable")
	beamBin := buildBinary(b, dir, "github.com/castable-db/castable/beam/cmd/castable-beam")
	schemaFile, whole, shards := writeBenchInput(b, dir, *benchRows)
	type impl struct {
		name string
		cmd  string
		args func(out string) []string
	}
	impls := []impl{
		{"write", castable, func(out string) []string {
			return []string{"write", "--schema", schemaFile, "--csv", whole, "--out", out, "-q"}
		}},
		{"beam", beamBin, func(out string) []string {
			return []string{"--schema", schemaFile, "--csv", shards, "--ranges", "4", "--out", out, "-q"}
		}},
		{"beam-noshuffle", beamBin, func(out string) []string {
			return []string{"--schema", schemaFile, "--csv", shards, "--ranges", "4", "--no-shuffle", "--out", out, "-q"}
		}},
	}
	if *benchOnly != "" {
		var keep []impl
		for _, im := range impls {
			if strings.Contains(","+*benchOnly+",", ","+im.name+",") {
				keep = append(keep, im)
			}
		}
		impls = keep
	}
	sums := make([]childRun, len(impls))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, im := range impls {
			out := filepath.Join(dir, "out-"+im.name)
			r := runChild(b, im.cmd, im.args(out)...)
			b.Logf("run %d %-15s wall %6.2f s  cpu %6.2f s  peak rss %5d MB  %s", i+1, im.name, r.wall.Seconds(), r.cpu.Seconds(), r.rssKB>>10, loadAverage())
			sums[k].wall += r.wall
			sums[k].cpu += r.cpu
			sums[k].rssKB += r.rssKB
			os.RemoveAll(out)
		}
	}
	b.StopTimer()
	n := float64(b.N)
	for k, im := range impls {
		b.ReportMetric(sums[k].wall.Seconds()/n, im.name+"-s")
		b.ReportMetric(sums[k].cpu.Seconds()/n, im.name+"-cpu-s")
		b.ReportMetric(float64(sums[k].rssKB>>10)/n, im.name+"-MB")
		if k > 0 && impls[0].name == "write" {
			b.ReportMetric(sums[0].wall.Seconds()/sums[k].wall.Seconds(), im.name+"-x-write")
			b.ReportMetric(float64(sums[k].rssKB)/float64(sums[0].rssKB), im.name+"-rss-x")
		}
	}
}

// loadAverage is /proc/loadavg's first three fields, to show how shared
// the machine was.
func loadAverage() string {
	f, err := os.Open("/proc/loadavg")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return ""
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 3 {
		return ""
	}
	return "load " + strings.Join(fields[:3], " ")
}

// BenchmarkNoShuffleInProcess runs castable-beam --no-shuffle on Prism in
// this process (1M generated rows, 8 shards, 4 ranges), so that a CPU
// profile covers the runner and the pipeline alike:
//
//	go test -run '^$' -bench NoShuffleInProcess -benchtime 2x -cpuprofile cpu.prof ./cmd/castable-beam
func BenchmarkNoShuffleInProcess(b *testing.B) {
	dir := b.TempDir()
	schemaFile, _, shards := writeBenchInput(b, dir, *benchRows)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(dir, fmt.Sprint("out-", i))
		var stdout bytes.Buffer
		if rc := run([]string{"castable-beam", "--schema", schemaFile, "--csv", shards, "--ranges", "4", "--no-shuffle", "--out", out, "-q"}, nil, &stdout, io.Discard); rc != 0 {
			b.Fatalf("castable-beam exited %d", rc)
		}
		os.RemoveAll(out)
	}
}
