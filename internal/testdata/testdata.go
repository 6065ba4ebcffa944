// Package testdata locates the shared reference SSTables
// (../shared/testdata relative to the project root) for tests.
//
// Tests that need them call Dir or Path: when the folder is absent the test
// is skipped with a clear message, unless CASTABLE_REQUIRE_TESTDATA=1 is set
// (as .ci/run does), in which case it fails — in CI these tests must run.
package testdata

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the absolute path of ../shared/testdata relative to the
// project root, whether or not it exists.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	// file is <root>/internal/testdata/testdata.go
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	return filepath.Join(root, "..", "shared", "testdata")
}

// Dir returns Root, skipping (or, in CI, failing) tb when it is absent.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := Root()
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CASTABLE_REQUIRE_TESTDATA") == "1" {
			tb.Fatalf("reference test data not found at %s (required: CASTABLE_REQUIRE_TESTDATA=1)", dir)
		}
		tb.Skipf("reference test data not found at %s: skipping (it lives beside the project as ../shared/testdata)", dir)
	}
	return dir
}

// Path returns the absolute path of rel below Root, skipping or failing like
// Dir when the test data is absent.
func Path(tb testing.TB, rel ...string) string {
	tb.Helper()
	return filepath.Join(append([]string{Dir(tb)}, rel...)...)
}

// FirstDiff describes the first difference of two byte strings (the
// offset and the bytes around it), for byte-for-byte comparisons.
func FirstDiff(got, want []byte) string {
	n := min(len(got), len(want))
	for i := 0; i < n; i++ {
		if got[i] != want[i] {
			lo := max(0, i-8)
			return fmt.Sprintf("first difference at offset %d: got % x, want % x (lengths %d, %d)",
				i, got[lo:min(len(got), i+8)], want[lo:min(len(want), i+8)], len(got), len(want))
		}
	}
	return fmt.Sprintf("lengths differ: got %d, want %d", len(got), len(want))
}
