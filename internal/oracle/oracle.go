// Package oracle runs Cassandra's own SSTable readers
// (../shared/tools/cassandra-oracle, built from Cassandra's source as
// commands) for tests: can Cassandra load what castable wrote, and does it
// see the same data?
//
// Two oracles exist: Cassandra 5.0's code (versions ma … oa and BTI da) and
// Cassandra 3.11.17's (ka, la, ma … me). Each is built once per machine into
// the temporary directory (about two minutes; later runs reuse the build)
// the first time a test asks for it. A test that needs an oracle is skipped
// with the reason when no JDK is installed, unless CASTABLE_REQUIRE_ORACLE
// or CASTABLE_REQUIRE_TESTDATA is 1 (as in CI), when it fails instead.
package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables/version"
)

// Oracle is one built Cassandra reader.
type Oracle struct {
	// Name is "cassandra-5.0" or "cassandra-3.11".
	Name string
	// Release is the Cassandra release whose readers it runs, as the
	// version table names it ("5.0", "3.11"): Reads asks the table.
	Release string
	script  string
}

// Reads reports whether this Cassandra release reads version v
// (version.Version.ReadBy), the versions to give the oracle.
func (o *Oracle) Reads(v version.Version) bool { return v.ReadBy(o.Release) }

type build struct {
	once   sync.Once
	oracle *Oracle
	err    error
}

var (
	cassandra50  build
	cassandra311 build
)

// Cassandra50 returns the oracle built from Cassandra 5.0's code, which reads
// what version.Version.ReadBy("5.0") says.
func Cassandra50(tb testing.TB) *Oracle {
	return get(tb, &cassandra50, "cassandra-5.0", "build.sh")
}

// Cassandra311 returns the oracle built from Cassandra 3.11.17, which reads
// what version.Version.ReadBy("3.11") says.
func Cassandra311(tb testing.TB) *Oracle {
	return get(tb, &cassandra311, "cassandra-3.11", filepath.Join("cassandra-3.11", "build.sh"))
}

func required() bool {
	return os.Getenv("CASTABLE_REQUIRE_ORACLE") == "1" || os.Getenv("CASTABLE_REQUIRE_TESTDATA") == "1"
}

func get(tb testing.TB, b *build, name, script string) *Oracle {
	tb.Helper()
	o, unavailable, err := b.get(name, script)
	switch {
	case unavailable != "":
		if required() {
			tb.Fatalf("the %s oracle is required here: %s", name, unavailable)
		}
		tb.Skipf("skipping: the %s oracle is not available: %s", name, unavailable)
	case err != nil:
		if required() {
			tb.Fatal(err)
		}
		tb.Skipf("skipping: %v", err)
	}
	return o
}

// Build311 and Build50 build (once per process) and return the oracles
// without a test: unavailable says why this machine cannot build one (no
// JDK, no tools), err why the build failed. They are safe to call from any
// goroutine; the live-node harness (internal/node) starts servers from
// these builds.
func Build311() (o *Oracle, unavailable string, err error) {
	return cassandra311.get("cassandra-3.11", filepath.Join("cassandra-3.11", "build.sh"))
}

// Build50 is Build311 for Cassandra 5.0's code.
func Build50() (o *Oracle, unavailable string, err error) {
	return cassandra50.get("cassandra-5.0", "build.sh")
}

func (b *build) get(name, script string) (*Oracle, string, error) {
	tools := filepath.Join(filepath.Dir(testdata.Root()), "tools", "cassandra-oracle")
	if _, err := os.Stat(filepath.Join(tools, script)); err != nil {
		return nil, fmt.Sprintf("%s not found (it lives beside the project in ../shared/tools)", filepath.Join(tools, script)), nil
	}
	if _, err := exec.LookPath("javac"); err != nil {
		return nil, fmt.Sprintf("no JDK (install openjdk-17-jdk-headless and the packages of %s)", filepath.Join(tools, "debian-packages.txt")), nil
	}
	b.once.Do(func() {
		out := filepath.Join(os.TempDir(), "castable-"+name+"-oracle")
		b.oracle, b.err = buildOracle(filepath.Join(tools, script), out, name)
	})
	return b.oracle, "", b.err
}

// Dir is the build's directory: the compiled Cassandra a live node runs
// (../shared/tools/cassandra-node's BUILD_DIR).
func (o *Oracle) Dir() string { return filepath.Dir(o.script) }

// buildOracle runs the tool's build script into out under a file lock, so
// that test binaries of several packages running at once build it once.
func buildOracle(script, out, name string) (*Oracle, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(out+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	cmd := exec.Command("bash", script, out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building the %s oracle (%s %s): %v\n%s%s", name, script, out, err, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	path := lines[len(lines)-1]
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("the %s oracle build printed %q, which is not its command", name, path)
	}
	return &Oracle{Name: name, Release: strings.TrimPrefix(name, "cassandra-"), script: path}, nil
}

// Result is what one run of the oracle printed.
type Result struct {
	// Stdout is the partitions (text, or sstabledump JSON with JSON).
	Stdout []byte
	// Stderr holds the diagnostics ("# " lines) and, on failure, the
	// exception.
	Stderr []byte
}

// Options configure a run.
type Options struct {
	// JSON prints what Cassandra's sstabledump prints instead of the text
	// listing.
	JSON bool
	// Partitioner overrides the partitioner Statistics.db names.
	Partitioner string
}

// Read opens the SSTable (a directory or a component path) with Cassandra's
// reader and returns what it printed; schema is the CREATE TYPE/TABLE CQL
// ("" takes the schema from the serialization header). A failure of
// Cassandra's reader is an error holding its message.
func (o *Oracle) Read(sstable, schema string, opts Options) (*Result, error) {
	args := []string{o.script}
	if opts.JSON {
		args = append(args, "--json")
	}
	if opts.Partitioner != "" {
		args = append(args, "--partitioner", opts.Partitioner)
	}
	args = append(args, sstable)
	if schema != "" {
		args = append(args, schema)
	}
	cmd := exec.Command("bash", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := &Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	if err != nil {
		msg := stderr.String()
		if i := strings.Index(msg, "# ORACLE ERROR"); i >= 0 {
			msg = msg[i:]
		}
		if len(msg) > 4000 {
			msg = msg[:4000] + "…"
		}
		return res, fmt.Errorf("%s could not read %s: %v\n%s", o.Name, sstable, err, msg)
	}
	return res, nil
}

// DiffDumps compares castable's sstabledump JSON (dump -t) with what the
// oracle printed with Options.JSON, ignoring only what Cassandra 5.0's
// sstabledump adds: each partition's "table kind" and each row's
// "position". It returns "" when they hold the same partitions in the same
// order, else a description of the first difference.
func DiffDumps(castable, cassandra []byte) (string, error) {
	var a, b []any
	if err := json.Unmarshal(castable, &a); err != nil {
		return "", fmt.Errorf("castable's dump: %w", err)
	}
	if err := json.Unmarshal(cassandra, &b); err != nil {
		return "", fmt.Errorf("the oracle's dump: %w", err)
	}
	for _, p := range b {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		delete(m, "table kind")
		if rows, ok := m["rows"].([]any); ok {
			for _, r := range rows {
				if rm, ok := r.(map[string]any); ok {
					delete(rm, "position")
				}
			}
		}
	}
	for i := 0; i < max(len(a), len(b)); i++ {
		if i >= len(a) {
			return fmt.Sprintf("Cassandra sees %d partitions, castable %d; the first extra is %s", len(b), len(a), compact(b[i])), nil
		}
		if i >= len(b) {
			return fmt.Sprintf("castable sees %d partitions, Cassandra %d; the first extra is %s", len(a), len(b), compact(a[i])), nil
		}
		if x, y := compact(a[i]), compact(b[i]); x != y {
			return fmt.Sprintf("partition %d differs:\ncastable:  %s\ncassandra: %s", i, x, y), nil
		}
	}
	return "", nil
}

// compact renders a JSON value canonically (sorted keys), cut to a
// readable length.
func compact(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 3000 {
		return string(b[:3000]) + "…"
	}
	return string(b)
}
