package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables/scrub"
)

// copySSTable copies the files of the folder src into a new temporary
// folder and returns it.
func copySSTable(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestScrubCommand: castable scrub of a damaged copy of a 65,536-partition
// SSTable (one byte flipped in the middle of its uncompressed Data.db) drops
// exactly the partition holding the flip, names its key and byte range in
// the human report and the JSON one, exits 1, leaves its input as it was,
// and writes an SSTable that verifies and holds the other 65,535
// partitions; the sound SSTable scrubs with exit 0; --out in the input's
// folder is refused.
func TestScrubCommand(t *testing.T) {
	in := copySSTable(t, testdata.Path(t, "mc-write", "many_deleted_partitions"))
	data := filepath.Join(in, "mc-1-big-Data.db")
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	b[600000] ^= 0xff
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}

	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	_, err = Scrub(context.Background(), &Env{Stdout: &stdout, Stderr: &stderr}, ScrubOptions{SSTables: []string{data}, Out: out, JSON: true, Jobs: 1})
	if ExitCode(err) != ExitData {
		t.Fatalf("exit %d (%v), want %d: a partition was lost", ExitCode(err), err, ExitData)
	}
	if !strings.Contains(stderr.String(), `DROPPED Data.db [599982, 600001)`) || !strings.Contains(stderr.String(), `["30011"]`) {
		t.Errorf("stderr does not name the dropped range and key:\n%s", stderr.String())
	}
	var reps []scrub.Report
	if err := json.Unmarshal(stdout.Bytes(), &reps); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout.String())
	}
	if len(reps) != 1 || reps[0].LostPartitions != 1 || reps[0].Partitions != 65535 || len(reps[0].Dropped) != 1 || reps[0].Dropped[0].Offset != 599982 {
		t.Fatalf("report %+v", reps)
	}
	if after, _ := os.ReadFile(data); !bytes.Equal(after, b) {
		t.Error("scrub changed its input")
	}
	if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{out}}); err != nil {
		t.Fatalf("the scrubbed SSTable does not verify: %v", err)
	}

	sound := testdata.Path(t, "mc-write", "many_deleted_partitions", "mc-1-big-Data.db")
	if _, err := Scrub(context.Background(), quietEnv(), ScrubOptions{SSTables: []string{sound}, Out: t.TempDir(), Jobs: 1}); err != nil {
		t.Fatalf("scrub of the sound SSTable: %v", err)
	}
	if _, err := Scrub(context.Background(), quietEnv(), ScrubOptions{SSTables: []string{data}, Out: in}); ExitCode(err) != ExitUsage {
		t.Fatalf("--out in the input's folder: %v, want a usage error", err)
	}
}
