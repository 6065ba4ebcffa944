package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castable-db/castable/sstables"
)

// crashFixture writes n SSTables (mc, nb, oa, …) of about 1.2 MiB of
// random text each, overlapping, so that a compaction of them runs long
// enough to be killed inside.
func crashFixture(t *testing.T, dir string, versions ...string) (string, []string) {
	t.Helper()
	schemaFile := filepath.Join(dir, "crash.cql")
	if err := os.WriteFile(schemaFile, []byte("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c));\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var paths []string
	for i, v := range versions {
		var b strings.Builder
		for j := 0; j < 6000; j++ {
			text := make([]byte, 200)
			for k := range text {
				text[k] = 'a' + byte(r.IntN(26))
			}
			if j%50 == 0 {
				fmt.Fprintf(&b, "DELETE FROM ks.t USING TIMESTAMP %d WHERE k = %d;\n", 1+j+i*100000, r.IntN(2000))
			}
			fmt.Fprintf(&b, "INSERT INTO ks.t (k, c, v) VALUES (%d, %d, '%s') USING TIMESTAMP %d;\n", r.IntN(2000), r.IntN(20), text, 1+j+i*100000)
		}
		cqlFile := filepath.Join(dir, v+".cql")
		if err := os.WriteFile(cqlFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := Write(t.Context(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: filepath.Join(dir, "in"), Format: v, Generation: i + 1, Now: setT0})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, outputPaths(sum.Results)...)
	}
	return schemaFile, paths
}

// TestCompactCrashConsistency runs `castable compact` (the built binary)
// over three SSTables, cutting its output at --max-sstable-size, and
// SIGKILLs it at random moments: after each kill every SSTable with a
// TOC.txt in the output directory verifies and is byte for byte one the
// undisturbed run writes, every other file is a leftover castable
// recognises (sstables.CleanupTemporary removes exactly those), and the
// inputs are byte-identical. The seed is logged.
func TestCompactCrashConsistency(t *testing.T) {
	kills := 12
	if testing.Short() {
		kills = 4
	}
	bin := castableBinary(t)
	dir := t.TempDir()
	schemaFile, inputs := crashFixture(t, dir, "mc", "nb", "oa")
	before := hashTree(t, filepath.Join(dir, "in"))
	args := func(out string) []string {
		return append([]string{"compact", "--out", out, "--schema", schemaFile, "--now", fmt.Sprint(setLater.Unix()),
			"--max-sstable-size", "256KiB", "--generation", "1", "-j", "2"}, inputs...)
	}
	// The undisturbed run.
	want := filepath.Join(dir, "want")
	start := time.Now()
	cmd := exec.Command(bin, args(want)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("castable compact: %v\n%s", err, stderr.String())
	}
	took := time.Since(start)
	wantFiles := readFiles(t, want)
	wantDescs, err := sstables.ListSSTables(nil, want)
	if err != nil || len(wantDescs) < 3 {
		t.Fatalf("the undisturbed run wrote %d SSTables (%v)", len(wantDescs), err)
	}
	// A second undisturbed run writes the same bytes (what a kill leaves
	// is compared with them).
	again := filepath.Join(dir, "again")
	if out, err := exec.Command(bin, args(again)...).CombinedOutput(); err != nil {
		t.Fatalf("castable compact: %v\n%s", err, out)
	}
	for name, b := range readFiles(t, again) {
		if !bytes.Equal(b, wantFiles[name]) {
			if os.Getenv("CASTABLE_KEEP_CRASH") != "" {
				exec.Command("cp", "-r", dir, os.Getenv("CASTABLE_KEEP_CRASH")).Run()
			}
			t.Fatalf("two undisturbed runs differ in %s", name)
		}
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("undisturbed run: %d SSTables in %v; seed %d", len(wantDescs), took, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var complete, partial, leftovers int
	for kill := 0; kill < kills; kill++ {
		out := filepath.Join(dir, fmt.Sprintf("kill-%d", kill))
		delay := time.Duration(rng.Int64N(int64(took)*11/10)) + time.Millisecond
		cmd := exec.Command(bin, args(out)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if _, err := os.Stat(out); os.IsNotExist(err) {
			continue // killed before it made the directory
		}
		descs, err := sstables.ListSSTables(nil, out)
		if err != nil {
			t.Fatal(err)
		}
		got := readFiles(t, out)
		var keep []string
		for _, d := range descs {
			verifyAll(t, schemaFile, []string{d.Path(sstables.ComponentData)})
			for name, b := range got {
				if strings.HasPrefix(name, d.Filename("")) {
					if w, ok := wantFiles[name]; !ok || !bytes.Equal(w, b) {
						t.Fatalf("kill %d after %v: %s is not what the undisturbed run writes", kill, delay, name)
					}
					keep = append(keep, name)
				}
			}
			complete++
		}
		var rest []string
		for name := range got {
			if slices.Contains(keep, name) {
				continue
			}
			if _, _, _, err := sstables.ParseDescriptor(filepath.Join(out, name)); err != nil {
				t.Fatalf("kill %d: %s is neither part of a complete SSTable nor a recognised leftover", kill, name)
			}
			rest = append(rest, name)
		}
		if len(rest) > 0 {
			partial++
			leftovers += len(rest)
		}
		removed, err := sstables.CleanupTemporary(nil, out)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(removed)
		slices.Sort(rest)
		slices.Sort(keep)
		var after []string
		for name := range readFiles(t, out) {
			after = append(after, name)
		}
		slices.Sort(after)
		if !slices.Equal(removed, rest) || !slices.Equal(after, keep) {
			t.Fatalf("kill %d: cleanup removed %v and left %v; want %v removed and %v left", kill, removed, after, rest, keep)
		}
		sameTree(t, fmt.Sprintf("kill %d: the inputs", kill), before, hashTree(t, filepath.Join(dir, "in")))
	}
	t.Logf("%d kills: %d complete SSTables checked, %d kills left leftovers (%d files), all removed by CleanupTemporary", kills, complete, partial, leftovers)
}
