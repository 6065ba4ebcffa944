package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/jsondump"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
	buildOut  []byte
)

// TestMain removes the binary the end-to-end tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// castableBinary builds cmd/castable once into a temporary directory.
func castableBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "castable-e2e-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "castable")
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goTool); err != nil {
			goTool = "go"
		}
		cmd := exec.Command(goTool, "build", "-o", binPath, "github.com/castable-db/castable/cmd/castable")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	return binPath
}

// runCastable runs the binary and returns stdout, stderr and the exit code.
func runCastable(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(castableBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("castable %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

// TestEndToEndExitCodes runs the built binary: exit 0 for sound work, 1 for
// data problems, 2 for usage errors, and messages only on stderr.
func TestEndToEndExitCodes(t *testing.T) {
	sound := testdata.Path(t, "cassandra", "3.x", "uncompressed", "simple", "mc-1-big-Data.db")
	corrupt := testdata.Path(t, "cassandra", "3.x", "lz4", "integrity_check", "invalid_checksums")
	dir := t.TempDir()
	schemaFile := writeBenchSchema(t, dir, "")
	badJSON := filepath.Join(dir, "bad.json")
	os.WriteFile(badJSON, []byte(`[{"partition": {"key": ["x"]}, "rows": []}]`), 0o644)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"verify", sound}, 0},
		{[]string{"--quiet", "verify", corrupt}, 1},
		{[]string{"metadata", sound}, 0},
		{[]string{"layout", sound}, 0},
		{[]string{"version"}, 0},
		{[]string{"help", "write"}, 0},
		{[]string{"--help"}, 0},
		{[]string{"dump"}, 2},
		{[]string{"dump", sound, "extra"}, 2},
		{[]string{"dump", "--no-such-flag", sound}, 2},
		{[]string{"no-such-command"}, 2},
		{[]string{"write", badJSON}, 2},
		{[]string{"write", "--schema", schemaFile, "--out", filepath.Join(dir, "o"), "--compression", "brotli", badJSON}, 2},
		{[]string{"write", "--schema", schemaFile, "--out", filepath.Join(dir, "o"), badJSON}, 1},
		{[]string{"dump", filepath.Join(dir, "mc-9-big-Data.db")}, 2},
	} {
		stdout, stderr, code := runCastable(t, nil, tc.args...)
		if code != tc.code {
			t.Errorf("castable %s: exit %d, want %d\nstderr: %s", strings.Join(tc.args, " "), code, tc.code, stderr)
		}
		if code != 0 && stdout != "" {
			t.Errorf("castable %s failed but wrote to stdout: %q", strings.Join(tc.args, " "), stdout)
		}
		if code != 0 && !strings.HasPrefix(stderr, "castable") && !strings.Contains(stderr, "FAILED") {
			t.Errorf("castable %s: stderr %q does not say what failed", strings.Join(tc.args, " "), stderr)
		}
	}
	if out, _, _ := runCastable(t, nil, "--help"); !strings.Contains(out, "Exit status") {
		t.Errorf("--help does not document the exit codes:\n%s", out)
	}
}

// TestEndToEndPipeline: dump --canonical -l | write - | dump --canonical
// through pipes, with only data on stdout.
func TestEndToEndPipeline(t *testing.T) {
	c := mcWriteCases(t)[0]
	ref := filepath.Join(c.dir, "mc-1-big-Data.db")
	schemaFile := filepath.Join(c.dir, "schema.cql")
	dump, stderr, code := runCastable(t, nil, "dump", "--canonical", "-l", "--schema", schemaFile, ref)
	if code != 0 {
		t.Fatalf("dump: exit %d: %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	paths, stderr, code := runCastable(t, []byte(dump), "write", "--schema", schemaFile, "--out", out, "--generation", "7", "-")
	if code != 0 {
		t.Fatalf("write: exit %d: %s", code, stderr)
	}
	if want := filepath.Join(out, "nb-7-big-Data.db") + "\n"; paths != want { // nb: the default
		t.Errorf("write printed %q on stdout, want %q", paths, want)
	}
	if !strings.Contains(stderr, "castable write:") {
		t.Errorf("no summary on stderr: %q", stderr)
	}
	again, stderr, code := runCastable(t, nil, "dump", "--canonical", "--schema", schemaFile, strings.TrimSpace(paths))
	if code != 0 {
		t.Fatalf("dump of the written SSTable: exit %d: %s", code, stderr)
	}
	table, err := loadTable(schemaFile, "")
	if err != nil {
		t.Fatal(err)
	}
	diff, err := jsondump.DiffBytes(table, []byte(dump), []byte(again), jsondump.DiffOptions{ComparePositions: true})
	if err != nil || diff != "" {
		t.Errorf("round trip through the binary: %v %s", err, diff)
	}
}
