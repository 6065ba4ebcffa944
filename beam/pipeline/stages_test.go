package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestMoveIsRepeatable: the final stage may run again after a failure; a
// component it already moved is skipped, and TOC.txt goes last.
func TestMoveIsRepeatable(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "tmp"), filepath.Join(dir, "out", "ks", "t-1")
	os.MkdirAll(from, 0o755)
	info := sstableInfo{From: from, To: to, Prefix: "mc-1-big-", Components: []string{"TOC.txt", "Data.db", "Index.db"}}
	for _, c := range info.Components {
		os.WriteFile(filepath.Join(from, info.Prefix+c), []byte(c), 0o644)
	}
	if got := tocLast(info.Components); got[len(got)-1] != "TOC.txt" {
		t.Errorf("tocLast: %v", got)
	}
	// A first attempt that moved Data.db only.
	os.MkdirAll(to, 0o755)
	os.Rename(filepath.Join(from, "mc-1-big-Data.db"), filepath.Join(to, "mc-1-big-Data.db"))
	for range 2 {
		if err := move(context.Background(), info); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range info.Components {
		if b, err := os.ReadFile(filepath.Join(to, info.Prefix+c)); err != nil || string(b) != c {
			t.Errorf("%s: %q %v", c, b, err)
		}
	}
	// A component missing from both places is an error.
	info.Components = append(info.Components, "Summary.db")
	if err := move(context.Background(), info); err == nil {
		t.Error("a lost component was not reported")
	}
}
