package bulkbench

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/oracle"
	"github.com/castable-db/castable/internal/testdata"
)

var (
	flagCassandra = flag.String("bulkbench.cassandra", "5.0", "the Cassandra build whose CQLSSTableWriter runs: 5.0 (the 5.0-era trunk; both writers write oa) or 3.11 (3.11.17; both write me)")
	flagRounds    = flag.Int("bulkbench.rounds", 3, "rounds per dataset: every writer once a round, the order rotating")
	flagRows      = flag.Int64("bulkbench.rows", 1_000_000, "rows of each dataset")
	flagJVM       = flag.String("bulkbench.jvm", "", "extra JVM options of the Java writer, space-separated (default: the JVM's own heap and collector)")
	flagData      = flag.String("bulkbench.data", "", "only the datasets whose name contains this")
)

//go:embed testdata/CQLSSTableWriterBench.java
var javaRunner []byte

// benchTimestamp is the write time of every row, given to both writers
// (castable --timestamp, USING TIMESTAMP in the Java writer's INSERT), so
// that their outputs hold the same cells.
const benchTimestamp = 1700000000000000

// The table (cli.BenchmarkSchema, what castable gen-csv writes rows for)
// and what the Java writer needs to write it.
const (
	benchInsert = "INSERT INTO ks.bench (pk, ck, v) VALUES (?, ?, ?) USING TIMESTAMP 1700000000000000"
	benchTypes  = "Int32Type,Int32Type,UTF8Type" // pk int, ck int, v text
)

// dataset is one input: rows rows of gen-csv, rowsPerPartition a
// partition.
type dataset struct {
	name             string
	rowsPerPartition int
}

var datasets = []dataset{
	{"clustered", 10}, // 100,000 partitions of 10 rows (with the default 1M rows)
	{"small", 1},      // 1M one-row partitions
}

// The writers compared, each run once a round.
const (
	implCastable       = "castable"        // castable write --csv of the CSV as generated
	implCastableTokens = "castable-tokens" // the same of the token-ordered CSV (through the memtable still)
	implCastableSorted = "castable-sorted" // castable write --csv --sorted of the token-ordered CSV
	implJava           = "cqlsstablewriter"
	implJavaSorted     = "cqlsstablewriter-sorted" // sorted(), fed the token-ordered CSV
)

var impls = []string{implCastable, implJava, implCastableSorted, implJavaSorted, implCastableTokens}

// run is what one writer did in one round.
type run struct {
	// wall and cpu are the child process's (user + system, every thread),
	// JVM start-up included for the Java writer; rss is its peak RSS in
	// bytes (getrusage of the child).
	wall, cpu time.Duration
	rss       int64
	// For the Java writer: the time of the write itself as the JVM measured
	// it (first CSV line to close() returning; class initialisation and
	// Builder.build() excluded), and of its whole main().
	jvmWall, jvmCPU   time.Duration
	mainWall, mainCPU time.Duration
	initWall          time.Duration // CQLSSTableWriter's class initialisation
}

// timed returns the figures the comparison uses: castable's whole process,
// the Java writer's write inside the JVM.
func (r run) timed(impl string) (wall, cpu time.Duration) {
	if isJava(impl) {
		return r.jvmWall, r.jvmCPU
	}
	return r.wall, r.cpu
}

func isJava(impl string) bool { return strings.HasPrefix(impl, "cqlsstablewriter") }

// BenchmarkCQLSSTableWriter runs castable write --csv (the built binary, as
// a child process: its peak RSS is getrusage's) and Cassandra's
// CQLSSTableWriter, alternating, on the same CSV rows, into the same
// SSTable version: castable on the rows as generated (keys ascending, not
// in token order) against the default writer (unsorted and buffered), and
// castable --sorted on the rows in token order against sorted() fed the
// same file; castable without --sorted on that file too, to show what the
// memtable costs. It reports rows/s, CPU seconds, rows per CPU second
// (rows/s per core), peak RSS and the ratios. The Java writer's figures
// are its write as timed inside the JVM (JVM start-up, class
// initialisation and Builder.build() excluded); the log adds them with
// start-up. The first round's outputs are checked to hold the same rows.
func BenchmarkCQLSSTableWriter(b *testing.B) {
	if testing.Short() {
		b.Skip("skipping the CQLSSTableWriter comparison under -short (minutes of Java)")
	}
	env := setup(b)
	for _, ds := range datasets {
		if *flagData != "" && !strings.Contains(ds.name, *flagData) {
			continue
		}
		b.Run(fmt.Sprintf("data=%s/rows=%d/format=%s", ds.name, *flagRows, env.version), func(b *testing.B) {
			res := env.results(b, ds)
			report(b, ds, res)
		})
	}
}

// benchEnv is what every dataset shares: the castable binary, the compiled
// Java runner and its JVM command line.
type benchEnv struct {
	dir      string
	castable string
	version  string // the SSTable version both write
	release  string
	java     []string // java OPTIONS -cp CP (the runner's class path included)
	storage  string

	mu   sync.Mutex
	done map[string]map[string][]run
}

var (
	envOnce sync.Once
	envVal  *benchEnv
	envErr  error
	envSkip string
)

// setup builds castable and compiles the Java runner, once per process.
func setup(b *testing.B) *benchEnv {
	b.Helper()
	envOnce.Do(func() { envVal, envSkip, envErr = newBenchEnv() })
	if envSkip != "" {
		b.Skip("skipping: " + envSkip)
	}
	if envErr != nil {
		b.Fatal(envErr)
	}
	return envVal
}

func newBenchEnv() (*benchEnv, string, error) {
	var o *oracle.Oracle
	var unavailable string
	var err error
	e := &benchEnv{release: *flagCassandra, done: map[string]map[string][]run{}}
	switch *flagCassandra {
	case "5.0":
		o, unavailable, err = oracle.Build50()
		e.version = "oa" // what CQLSSTableWriter of the trunk build writes (its default big format)
	case "3.11":
		o, unavailable, err = oracle.Build311()
		e.version = "me"
	default:
		return nil, "", fmt.Errorf("-bulkbench.cassandra %q: want 5.0 or 3.11", *flagCassandra)
	}
	if unavailable != "" || err != nil {
		return nil, unavailable, err
	}
	// The benchmark's files stay in one directory removed at exit.
	if e.dir, err = os.MkdirTemp("", "castable-bulkbench-"); err != nil {
		return nil, "", err
	}
	cleanups = append(cleanups, func() { os.RemoveAll(e.dir) })
	if e.castable, err = buildCastable(e.dir); err != nil {
		return nil, "", err
	}
	if e.java, err = javaCommand(e.dir, e.release, o.Dir()); err != nil {
		return nil, "", err
	}
	e.storage = filepath.Join(e.dir, "storage")
	return e, "", nil
}

var cleanups []func()

// launchEnv, set in a child's environment, makes this test binary a
// launcher: it runs its arguments as a command and writes the command's
// rusage and wall time to the file the variable names. Peak RSS needs it:
// Go starts a child with vfork semantics (CLONE_VM), so the kernel carries
// the parent's RSS high-water mark into the child's ru_maxrss at exec, and
// a benchmark process that has grown to hundreds of MB would report its own
// size as every child's. The launcher is small when it forks, so its
// child's ru_maxrss is the command's own (at least the launcher's few MB).
const launchEnv = "CASTABLE_BULKBENCH_RUSAGE"

func TestMain(m *testing.M) {
	if path := os.Getenv(launchEnv); path != "" {
		os.Exit(launch(path, os.Args[1:]))
	}
	code := m.Run()
	for _, f := range cleanups {
		f()
	}
	os.Exit(code)
}

// buildCastable builds cmd/castable with the build tags and cgo setting of
// this test binary, so that the benchmark measures the binary a user runs,
// built as the rest of the run is.
func buildCastable(dir string) (string, error) {
	bin := filepath.Join(dir, "castable")
	args := []string{"build", "-o", bin}
	cgo := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "-tags":
				args = append(args, "-tags", s.Value)
			case "CGO_ENABLED":
				cgo = s.Value
			}
		}
	}
	args = append(args, "github.com/castable-db/castable/cmd/castable")
	cmd := exec.Command("go", args...)
	if cgo != "" {
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin, nil
}

// javaCommand compiles the runner against the build's class path and
// returns the java command line that runs it. The 3.11 build runs as its
// oracle does (client mode needs no cassandra.yaml, so the build's own
// SnakeYAML is fine); the trunk build needs what the live node's start
// scripts give it (../shared/tools/cassandra-node/flavor-5.0.sh): the
// javac-recompiled classes its ECJ pass left broken (BigTableWriter among
// them) and a version.properties, compiled here into a patch directory of
// the benchmark's own.
func javaCommand(dir, release, build string) ([]string, error) {
	tools := filepath.Join(filepath.Dir(testdata.Root()), "tools")
	var cp, opts string
	switch release {
	case "3.11":
		jars, err := filepath.Glob(filepath.Join(build, "src", "lib", "*.jar"))
		if err != nil || len(jars) == 0 {
			return nil, fmt.Errorf("no jars in %s/src/lib", build)
		}
		sort.Strings(jars)
		cp = strings.Join(append([]string{filepath.Join(build, "classes"), filepath.Join(build, "ecjclasses"), filepath.Join(build, "stubclasses")},
			append(jars, "/usr/share/java/jsr305.jar")...), ":")
		o, err := os.ReadFile(filepath.Join(tools, "cassandra-oracle", "cassandra-3.11", "jvmopts.txt"))
		if err != nil {
			return nil, err
		}
		opts = string(o) + " -Dlogback.configurationFile=" + filepath.Join(tools, "cassandra-oracle", "cassandra-3.11", "logback.xml")
	case "5.0":
		patch := filepath.Join(dir, "patch")
		if err := os.MkdirAll(patch, 0o755); err != nil {
			return nil, err
		}
		cmd := exec.Command("bash", "-c", `set -e; here="$1"; B="$2"; P="$3"; JMX=0; . "$here/flavor-5.0.sh" >&2; printf '%s\n%s\n' "$CP" "$OPTS"`,
			"bash", filepath.Join(tools, "cassandra-node"), build, patch)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("flavor-5.0.sh: %v\n%s", err, stderr.String())
		}
		lines := strings.SplitN(strings.TrimRight(string(out), "\n"), "\n", 2)
		if len(lines) != 2 {
			return nil, fmt.Errorf("flavor-5.0.sh printed %q, want the class path and the options", out)
		}
		cp, opts = lines[0], lines[1]+" -Dlogback.configurationFile="+filepath.Join(tools, "cassandra-oracle", "logback.xml")
	}
	src := filepath.Join(dir, "CQLSSTableWriterBench.java")
	if err := os.WriteFile(src, javaRunner, 0o644); err != nil {
		return nil, err
	}
	classes := filepath.Join(dir, "classes")
	if out, err := exec.Command("javac", "-nowarn", "-proc:none", "-encoding", "utf8", "-d", classes, "-cp", cp, src).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("compiling CQLSSTableWriterBench.java: %v\n%s", err, out)
	}
	args := []string{"java"}
	args = append(args, strings.Fields(*flagJVM)...)
	args = append(args, strings.Fields(opts)...)
	args = append(args, "-Dcassandra.storagedir="+filepath.Join(dir, "storage"), "-cp", classes+":"+cp, "CQLSSTableWriterBench")
	return args, nil
}

// launch runs args, passing its standard streams through, and writes
// "wall_ns cpu_ns maxrss_kb" of it to path; its exit status is the
// command's.
func launch(path string, args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, launchEnv+"=") })
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 2
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)
	if werr := os.WriteFile(path, fmt.Appendf(nil, "%d %d %d\n", wall.Nanoseconds(), cpu, ru.Maxrss), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "launch:", werr)
		return 2
	}
	return cmd.ProcessState.ExitCode()
}

// inputs are a dataset's files: the CSV as gen-csv writes it (partition
// keys ascending, so not in token order) and the same lines in token order.
type inputs struct {
	schema, csv, sorted string
}

func (e *benchEnv) inputs(b *testing.B, ds dataset) inputs {
	b.Helper()
	dir := filepath.Join(e.dir, ds.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	in := inputs{schema: filepath.Join(dir, "schema.cql"), csv: filepath.Join(dir, "rows.csv"), sorted: filepath.Join(dir, "rows-tokens.csv")}
	if err := os.WriteFile(in.schema, []byte(cli.BenchmarkSchema), 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(in.csv)
	if err != nil {
		b.Fatal(err)
	}
	if err := cli.GenerateCSV(&cli.Env{Stdout: f, Stderr: io.Discard, Quiet: true}, *flagRows, ds.rowsPerPartition); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := writeTokenOrdered(in.sorted, in.csv); err != nil {
		b.Fatal(err)
	}
	return in
}

// writeTokenOrdered writes the lines of src (pk,ck,v with an int pk) to dst
// in the order of their partitions' Murmur3 tokens, the rows of a
// partition in their input order: what CQLSSTableWriter.sorted() needs.
func writeTokenOrdered(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	type keyed struct {
		token dht.Token
		key   [4]byte
		line  []byte
	}
	ks := make([]keyed, len(lines))
	for i, l := range lines {
		comma := bytes.IndexByte(l, ',')
		if comma < 0 {
			return fmt.Errorf("%s:%d: no comma", src, i+1)
		}
		pk, err := strconv.ParseInt(string(l[:comma]), 10, 32)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", src, i+1, err)
		}
		binary.BigEndian.PutUint32(ks[i].key[:], uint32(pk))
		ks[i].token, ks[i].line = dht.Murmur3.Token(ks[i].key[:]), l
	}
	slices.SortStableFunc(ks, func(x, y keyed) int { return dht.ComparePartitions(x.token, x.key[:], y.token, y.key[:]) })
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, k := range ks {
		w.Write(k.line)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// results runs the rounds of a dataset once per process (a repeated call,
// as -benchtime Nx makes, reports the same runs).
func (e *benchEnv) results(b *testing.B, ds dataset) map[string][]run {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r, ok := e.done[ds.name]; ok {
		return r
	}
	b.StopTimer()
	in := e.inputs(b, ds)
	res := map[string][]run{}
	for round := 0; round < *flagRounds; round++ {
		for i := range impls {
			impl := impls[(i+round)%len(impls)]
			out := filepath.Join(e.dir, ds.name, fmt.Sprintf("out-%s-%d", impl, round))
			if err := os.MkdirAll(out, 0o755); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			r, err := e.run(impl, in, out)
			b.StopTimer()
			if err != nil {
				b.Fatalf("round %d, %s: %v", round+1, impl, err)
			}
			res[impl] = append(res[impl], r)
			b.Logf("round %d %-24s %s", round+1, impl, describe(impl, r))
		}
		if round == 0 {
			e.checkSame(b, ds, in, filepath.Join(e.dir, ds.name), round)
		}
		for _, impl := range impls {
			os.RemoveAll(filepath.Join(e.dir, ds.name, fmt.Sprintf("out-%s-%d", impl, round)))
		}
	}
	os.Remove(in.csv)
	os.Remove(in.sorted)
	e.done[ds.name] = res
	return res
}

// run runs one writer into out.
func (e *benchEnv) run(impl string, in inputs, out string) (run, error) {
	var cmd *exec.Cmd
	switch impl {
	case implCastable, implCastableTokens, implCastableSorted:
		csv := in.csv
		if impl != implCastable {
			csv = in.sorted
		}
		cmd = exec.Command(e.castable, "write", "-q", "--schema", in.schema, "--csv", csv, "--out", out,
			"--format", e.version, "--timestamp", strconv.FormatInt(benchTimestamp, 10))
		if impl == implCastableSorted {
			cmd.Args = append(cmd.Args, "--sorted")
		}
	case implJava, implJavaSorted:
		csv := in.csv
		if impl == implJavaSorted {
			csv = in.sorted
		}
		args := append(slices.Clone(e.java[1:]), "--schema", strings.TrimSuffix(strings.TrimSpace(cli.BenchmarkSchema), ";"),
			"--insert", benchInsert, "--types", benchTypes, "--csv", csv, "--out", out)
		if impl == implJavaSorted {
			args = append(args, "--sorted")
		}
		cmd = exec.Command(e.java[0], args...)
	}
	// Run it through the launcher (see launchEnv).
	self, err := os.Executable()
	if err != nil {
		return run{}, err
	}
	usage := filepath.Join(out, "..", filepath.Base(out)+".rusage")
	defer os.Remove(usage)
	cmd.Args = append([]string{self}, append([]string{cmd.Path}, cmd.Args[1:]...)...)
	cmd.Path = self
	cmd.Env = append(os.Environ(), launchEnv+"="+usage)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return run{}, fmt.Errorf("%v\n%s", err, tail(stderr.String(), 4000))
	}
	var wall, cpu, maxrss int64
	if data, err := os.ReadFile(usage); err != nil {
		return run{}, err
	} else if _, err := fmt.Sscan(string(data), &wall, &cpu, &maxrss); err != nil {
		return run{}, fmt.Errorf("the launcher wrote %q: %v", data, err)
	}
	r := run{wall: time.Duration(wall), cpu: time.Duration(cpu), rss: maxrss << 10}
	if !isJava(impl) {
		return r, nil
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	fields := map[string]int64{}
	for _, f := range strings.Fields(lines[len(lines)-1]) {
		k, v, _ := strings.Cut(f, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return r, fmt.Errorf("the Java writer printed %q", lines[len(lines)-1])
		}
		fields[k] = n
	}
	if fields["rows"] != *flagRows {
		return r, fmt.Errorf("the Java writer wrote %d rows, want %d (%q)", fields["rows"], *flagRows, stdout.String())
	}
	r.jvmWall, r.jvmCPU = time.Duration(fields["write_ns"]), time.Duration(fields["write_cpu_ns"])
	r.mainWall, r.mainCPU = time.Duration(fields["main_ns"]), time.Duration(fields["main_cpu_ns"])
	r.initWall = time.Duration(fields["init_ns"] + fields["build_ns"])
	return r, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// checkSame exports each writer's output of the round with castable export
// (the merged view of the directory's SSTables, in token order, v's write
// time included) and requires them to be the same CSV of every row;
// castable verify must pass the Java writer's SSTables.
func (e *benchEnv) checkSame(b *testing.B, ds dataset, in inputs, dir string, round int) {
	b.Helper()
	var want [32]byte
	for i, impl := range impls {
		out := filepath.Join(dir, fmt.Sprintf("out-%s-%d", impl, round))
		if isJava(impl) {
			var log bytes.Buffer
			if err := cli.Verify(&cli.Env{Stdout: &log, Stderr: &log, Quiet: true}, cli.VerifyOptions{SSTables: []string{out}, Schema: in.schema}); err != nil {
				b.Fatalf("castable verify of %s's output: %v\n%s", impl, err, tail(log.String(), 2000))
			}
		}
		file := filepath.Join(dir, impl+".csv")
		if _, err := cli.Export(context.Background(), &cli.Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true}, cli.ExportOptions{
			SSTables: []string{out}, Schema: in.schema, To: "csv", Out: file,
			Export: export.Options{WriteTime: []string{"v"}},
		}); err != nil {
			b.Fatalf("castable export of %s's output: %v", impl, err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		if n := int64(bytes.Count(data, []byte("\n"))) - 1; n != *flagRows {
			b.Fatalf("%s's output holds %d rows, want %d", impl, n, *flagRows)
		}
		if !bytes.Contains(data, []byte(","+strconv.FormatInt(benchTimestamp, 10)+"\n")) {
			b.Fatalf("%s's output does not hold write time %d", impl, benchTimestamp)
		}
		sum := sha256.Sum256(data)
		if i == 0 {
			want = sum
		} else if sum != want {
			b.Fatalf("%s's output differs from %s's (castable export of both: %s, %s)", impl, impls[0], file, filepath.Join(dir, impls[0]+".csv"))
		}
		if i > 0 {
			os.Remove(file)
		}
	}
	os.Remove(filepath.Join(dir, impls[0]+".csv"))
	b.Logf("%s: the %d outputs hold the same %d rows (castable export, write times included); castable verify passes the Java writer's", ds.name, len(impls), *flagRows)
}

// describe renders one run for the log.
func describe(impl string, r run) string {
	rows := float64(*flagRows)
	wall, cpu := r.timed(impl)
	s := fmt.Sprintf("%6.2f s %5.2f cpu-s  %9.0f rows/s %9.0f rows/cpu-s  peak RSS %5.0f MB", wall.Seconds(), cpu.Seconds(),
		rows/wall.Seconds(), rows/cpu.Seconds(), float64(r.rss)/1e6)
	if isJava(impl) {
		s += fmt.Sprintf("  (inside the JVM, write only; whole process with JVM start-up: %.2f s %.2f cpu-s, %.0f rows/s; class init + build %.2f s)",
			r.wall.Seconds(), r.cpu.Seconds(), rows/r.wall.Seconds(), r.initWall.Seconds())
	}
	return s
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// report logs the medians and per-round ratios and reports them as
// metrics.
func report(b *testing.B, ds dataset, res map[string][]run) {
	rows := float64(*flagRows)
	metric := func(impl string, f func(r run) float64) (float64, []float64) {
		var xs []float64
		for _, r := range res[impl] {
			xs = append(xs, f(r))
		}
		return median(xs), xs
	}
	perSecond := func(impl string) func(run) float64 {
		return func(r run) float64 { w, _ := r.timed(impl); return rows / w.Seconds() }
	}
	perCPU := func(impl string) func(run) float64 {
		return func(r run) float64 { _, c := r.timed(impl); return rows / c.Seconds() }
	}
	short := map[string]string{implCastable: "castable", implCastableTokens: "castable-tok", implCastableSorted: "castable-sorted", implJava: "cqlw", implJavaSorted: "cqlw-sorted"}
	for _, impl := range impls {
		rs, _ := metric(impl, perSecond(impl))
		rc, _ := metric(impl, perCPU(impl))
		rss, _ := metric(impl, func(r run) float64 { return float64(r.rss) / 1e6 })
		b.ReportMetric(rs, short[impl]+"-rows/s")
		b.ReportMetric(rc, short[impl]+"-rows/cpu-s")
		b.ReportMetric(rss, short[impl]+"-MB-rss")
		line := fmt.Sprintf("median %-24s %9.0f rows/s %9.0f rows/cpu-s  peak RSS %5.0f MB", impl, rs, rc, rss)
		if isJava(impl) {
			ws, _ := metric(impl, func(r run) float64 { return rows / r.wall.Seconds() })
			wc, _ := metric(impl, func(r run) float64 { return rows / r.cpu.Seconds() })
			line += fmt.Sprintf("  (with JVM start-up: %.0f rows/s, %.0f rows/cpu-s)", ws, wc)
		}
		b.Log(line)
	}
	ratio := func(name, a, c string, f func(string) func(run) float64) {
		var xs []float64
		for i := range res[a] {
			xs = append(xs, f(a)(res[a][i])/f(c)(res[c][i]))
		}
		m := median(xs)
		b.ReportMetric(m, name)
		b.Logf("%-22s %s / %s: median %.2f, rounds %s", name, a, c, m, formatFloats(xs))
	}
	ratio("x-cpu-vs-default", implCastable, implJava, perCPU)
	ratio("x-wall-vs-default", implCastable, implJava, perSecond)
	ratio("x-cpu-vs-sorted", implCastableSorted, implJavaSorted, perCPU)
	ratio("x-wall-vs-sorted", implCastableSorted, implJavaSorted, perSecond)
	ratio("x-cpu-memtable-vs-sorted", implCastableTokens, implJavaSorted, perCPU)
	ratio("x-cpu-unsorted-vs-sorted", implCastable, implJavaSorted, perCPU)
}

func formatFloats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strings.Join(s, " ")
}
