package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRunShapes runs every test with a tiny duration and checks the table
// and the JSON: three config lines, a heading and header per size, one row
// per test in the 40/11-column layout, and JSON entries for every test and
// size (marked unavailable exactly where the table says so).
func TestRunShapes(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	var out bytes.Buffer
	sizes := []int{64, 514}
	err := run(&out, config{sizes: sizes, duration: 2 * time.Millisecond, runs: 3, jsonPath: jsonPath})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	wantStart := []string{
		"single run iterations:    0",
		"single run duration:      0.002s",
		"number of runs:           3",
		"",
		"== buffer size / len2 = 64 ==",
		"test                                      iterations      median         mad         min         max",
	}
	for i, w := range wantStart {
		if i >= len(lines) || lines[i] != w {
			t.Fatalf("line %d = %q, want %q\n%s", i, lines[i], w, out.String())
		}
	}
	rowRE := regexp.MustCompile(`^(crc_test\.perf_\w+) +( {0,10}\d+)( +\d+\.\d{3}(ns|us|ms|s)){4}$`)
	unavailRE := regexp.MustCompile(`^(crc_test\.perf_\w+) +unavailable: .+$`)
	tests := perfTests()
	var rows, unavailable []string
	for _, l := range lines {
		switch {
		case rowRE.MatchString(l):
			if len(l) != 40+5*12 || l[40] != ' ' {
				t.Errorf("row not in 40/11 columns (%d chars): %q", len(l), l)
			}
			rows = append(rows, rowRE.FindStringSubmatch(l)[1])
		case unavailRE.MatchString(l):
			unavailable = append(unavailable, unavailRE.FindStringSubmatch(l)[1])
		}
	}
	if got, want := len(rows)+len(unavailable), len(tests)*len(sizes); got != want {
		t.Fatalf("%d rows, want %d\n%s", got, want, out.String())
	}
	for _, must := range []string{"crc_test.perf_crc32_checksum", "crc_test.perf_fast_adler_checksum", "crc_test.perf_fast_crc32_combine", "crc_test.perf_gf2_crc32_combine", "crc_test.perf_adler_combine"} {
		if !strings.Contains(strings.Join(rows, " "), must) {
			t.Errorf("%s has no result row", must)
		}
	}

	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results map[string]map[string]any `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != len(tests)*len(sizes) {
		t.Errorf("JSON has %d results, want %d", len(doc.Results), len(tests)*len(sizes))
	}
	for key, r := range doc.Results {
		name := key[:strings.LastIndex(key, "/")]
		if r["unavailable"] == true {
			if !strings.Contains(strings.Join(unavailable, " "), name) {
				t.Errorf("%s unavailable in JSON but not in the table", key)
			}
			continue
		}
		for _, field := range []string{"iterations", "median", "mad", "min", "max"} {
			if _, ok := r[field].(float64); !ok {
				t.Errorf("%s: field %q missing or not a number: %v", key, field, r)
			}
		}
		if r["min"].(float64) > r["median"].(float64) || r["median"].(float64) > r["max"].(float64) {
			t.Errorf("%s: min ≤ median ≤ max violated: %v", key, r)
		}
	}
}

func TestSummarize(t *testing.T) {
	r := summarize(10, []float64{5, 1, 3, 100, 4})
	// sorted 1 3 4 5 100: median 4; deviations 0 1 1 3 96 → MAD 1.
	if r.Median != 4 || r.MAD != 1 || r.Min != 1 || r.Max != 100 || r.Iterations != 10 {
		t.Errorf("summarize = %+v", r)
	}
}

func TestDurationFormat(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		want string
	}{
		{3.4834, "3.483ns"}, {999.4, "999.400ns"}, {16711, "16.711us"}, {38393000, "38.393ms"}, {1.5e9, "1.500s"},
	} {
		if got := duration(c.ns); got != c.want {
			t.Errorf("duration(%v) = %q, want %q", c.ns, got, c.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"1": time.Second, "0.25": 250 * time.Millisecond, "10ms": 10 * time.Millisecond} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"0", "-1", "soon"} {
		if _, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q) accepted", bad)
		}
	}
}

// TestCommandLine drives the urfave/cli wiring: --list with a filter, and
// bad arguments that must fail with a clear error.
func TestCommandLine(t *testing.T) {
	var out bytes.Buffer
	if err := newApp(&out).Run([]string{"perf_checksum", "--list", "-t", "combine$"}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasPrefix(l, "crc_test.perf_") || !strings.Contains(l[:40], "_combine") {
			t.Errorf("--list -t combine$ printed %q", l)
		}
	}
	out.Reset()
	if err := newApp(&out).Run([]string{"perf_checksum", "--size", "100", "-t", "fast_adler", "-i", "10", "-r", "2"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "== buffer size / len2 = 100 ==") || strings.Contains(out.String(), "= 514 ==") {
		t.Errorf("--size 100 should replace the default sizes:\n%s", out.String())
	}
	for _, args := range [][]string{
		{"--runs", "0"}, {"--size", "0"}, {"-t", "no-such-test"}, {"-t", "("}, {"-d", "soon"},
	} {
		if err := newApp(&out).Run(append([]string{"perf_checksum"}, args...)); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
