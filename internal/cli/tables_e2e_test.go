package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTableCommandsEndToEnd runs the built binary's compact, filter,
// split and merged dump with their flags as a user types them: Data.db
// paths on stdout, the summary on stderr, exit 2 for usage errors.
func TestTableCommandsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	schemaFile, inputs := setFixture(t, dir, 9, "mc", "nb")
	in := filepath.Join(dir, "in")
	now := fmt.Sprint(setLater.Unix())
	ok := func(args ...string) (string, string) {
		t.Helper()
		out, errOut, code := runCastable(t, nil, args...)
		if code != 0 {
			t.Fatalf("castable %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
		}
		return out, errOut
	}
	dataLines := func(out string) int {
		n := 0
		for _, l := range strings.Fields(out) {
			if !strings.HasSuffix(l, "-Data.db") {
				t.Errorf("stdout line %q is not a Data.db path", l)
			}
			n++
		}
		return n
	}
	out, errOut := ok("compact", "--schema", schemaFile, "--now", now, "--gc-grace-seconds", "0", "--to", "oa", "--generation", "3", "--host-id", "3f2d5a1e-8c4b-4f7e-9a6d-1b2c3d4e5f60", "--overlapping", inputs[0], "--out", filepath.Join(dir, "c"), inputs[1])
	if dataLines(out) != 1 || !strings.Contains(out, "oa-3-big-Data.db") || !strings.Contains(errOut, "castable compact: 1 SSTables") {
		t.Errorf("compact: %q %q", out, errOut)
	}
	ok("compact", "-q", "--schema", schemaFile, "--no-purge", "--only-purge-repaired-tombstones", "--out", filepath.Join(dir, "c2"), in)
	keys := filepath.Join(dir, "keys")
	os.WriteFile(keys, []byte("1\n2\n"), 0o644)
	out, _ = ok("filter", "--schema", schemaFile, "--key", "3", "--keys-file", keys, "--token-range", "(0, 100]", "--exclude", "--out", filepath.Join(dir, "f"), in)
	if dataLines(out) != 1 {
		t.Errorf("filter: %q", out)
	}
	out, errOut = ok("split", "--schema", schemaFile, "--ranges", "2", "--max-sstable-size", "1GiB", "--to", "me", "--out", filepath.Join(dir, "s"), in)
	if dataLines(out) != 2 || !strings.Contains(errOut, "range-001: range (0, -9223372036854775808]") {
		t.Errorf("split: %q %q", out, errOut)
	}
	tokens := filepath.Join(dir, "tokens")
	os.WriteFile(tokens, []byte("-4000000000000000000\n4000000000000000000\n"), 0o644)
	out, _ = ok("split", "--schema", schemaFile, "--tokens", tokens, "--out", filepath.Join(dir, "s2"), in)
	if dataLines(out) != 2 {
		t.Errorf("split --tokens: %q", out)
	}
	live, _ := ok("dump", "--schema", schemaFile, "--now", now, "-l", inputs[0], inputs[1])
	all, _ := ok("dump", "--schema", schemaFile, "--now", now, "--no-purge", "-l", in)
	if live == "" || len(all) <= len(live) || strings.Contains(live, "position") {
		t.Errorf("merged dumps: %d and %d bytes", len(live), len(all))
	}
	for _, args := range [][]string{
		{"split", "--out", dir, in},
		{"filter", "--out", dir, in},
		{"compact", "--out", dir},
		{"compact", "--out", dir, "--max-sstable-size", "12XB", in},
		{"compact", "--out", dir, "--now", "yesterday", in},
	} {
		if _, errOut, code := runCastable(t, nil, args...); code != 2 {
			t.Errorf("castable %s: exit %d, want 2\n%s", strings.Join(args, " "), code, errOut)
		}
	}
}
