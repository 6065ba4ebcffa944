package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
)

// filterInOtherHashOrder names the file of Cassandra's BloomFilterTest: an la
// SSTable whose Filter.db was hashed in the order of ma and later, which its
// version does not say; verify reports the keys a reader of la would not find.
var filterInOtherHashOrder = map[string]bool{"cassandra-legacy/other/bloom-filter/la/foo/la-1-big": true}

// TestVerifyAndDumpEveryRealFile runs the castable binary's verify, dump,
// metadata (text and JSON) and layout on every SSTable of the shared corpus that castable reads (every version
// and partitioner; the walker names what it skips): verify exits 0 on the
// sound files and 1 on the deliberately broken integrity_check ones, and
// dump prints the data of every one of them.
func TestVerifyAndDumpEveryRealFile(t *testing.T) {
	all := testdata.Supported(t)
	if len(all) < 50 {
		t.Fatalf("only %d SSTables in the corpus", len(all))
	}
	for _, s := range all {
		t.Run(s.Name, func(t *testing.T) {
			want := 0
			if s.Corrupt != "" || filterInOtherHashOrder[s.Name] {
				want = 1
			}
			if _, stderr, code := runCastable(t, nil, "verify", s.Path("Data.db")); code != want {
				t.Errorf("verify: exit %d, want %d: %s", code, want, stderr)
			}
			if s.Corrupt != "" {
				return
			}
			if filterInOtherHashOrder[s.Name] {
				t.Logf("verify refuses it, as expected: its Filter.db was hashed in ma's order, so a Cassandra 2.2 lookup would miss its keys")
			}
			out, stderr, code := runCastable(t, nil, "dump", s.Path("Data.db"))
			if code != 0 {
				t.Fatalf("dump: exit %d: %s", code, stderr)
			}
			if !strings.HasPrefix(strings.TrimSpace(out), "[") {
				t.Errorf("dump printed no JSON array: %.200q", out)
			}
			for _, args := range [][]string{{"metadata"}, {"metadata", "--json"}, {"layout"}} {
				out, stderr, code := runCastable(t, nil, append(args, s.Path("Data.db"))...)
				if code != 0 || out == "" {
					t.Errorf("%s: exit %d, %d bytes out: %s", strings.Join(args, " "), code, len(out), stderr)
				}
				if args[len(args)-1] == "--json" && !json.Valid([]byte(out)) {
					t.Errorf("metadata --json printed invalid JSON: %.200q", out)
				}
			}
		})
	}
}
