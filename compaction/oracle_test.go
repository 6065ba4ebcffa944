package compaction

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/oracle"
)

// javaTool compiles the test harness src (testdata/oracle) against the
// classes of a built Cassandra oracle and returns a runner of its main
// class.
type javaTool struct {
	cp, class string
	jvmOpts   []string
}

func newJavaTool(t *testing.T, o *oracle.Oracle, src string) *javaTool {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(o.Dir(), "oracle.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-cp "([^"]+)"`).FindSubmatch(script)
	if m == nil {
		t.Fatalf("no class path in %s/oracle.sh", o.Dir())
	}
	cp := string(m[1])
	out := t.TempDir()
	cmd := exec.Command("javac", "-nowarn", "-d", out, "-cp", cp, filepath.Join("testdata", "oracle", src))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("javac %s: %v\n%s", src, err, b)
	}
	class := strings.TrimSuffix(filepath.Base(src), ".java")
	if pkg := regexp.MustCompile(`(?m)^package ([\w.]+);`).FindStringSubmatch(mustRead(t, filepath.Join("testdata", "oracle", src))); pkg != nil {
		class = pkg[1] + "." + class
	}
	var opts []string
	if m := regexp.MustCompile(`(-D\S+|--add-\S+ \S+)`).FindAllString(string(script), -1); m != nil {
		for _, o := range m {
			opts = append(opts, strings.Fields(o)...)
		}
	}
	return &javaTool{cp: out + ":" + cp, class: class, jvmOpts: opts}
}

func mustRead(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (j *javaTool) run(stdin string, args ...string) (string, string, error) {
	cmdArgs := append([]string{"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"}, j.jvmOpts...)
	cmdArgs = append(cmdArgs, "-cp", j.cp, j.class)
	cmd := exec.Command("java", append(cmdArgs, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// TestBucketsAgainstCassandra runs Cassandra 3.11's own getBuckets on
// random inputs — the usual options, options outside 0 < low < 1 < high,
// repeated sizes, empty files, many buckets — and requires the same
// buckets in the same order.
func TestBucketsAgainstCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	tool := newJavaTool(t, oracle.Cassandra311(t), "BucketsOracle.java")
	rng := rand.New(rand.NewPCG(3, 4))
	type tcase struct {
		high, low float64
		min       int64
		sizes     []int64
	}
	var cases []tcase
	var in strings.Builder
	for i := range 3000 {
		c := tcase{high: 1.5, low: 0.5, min: 50 << 20}
		switch i % 6 {
		case 1:
			c.high, c.low, c.min = 1+3*rng.Float64(), rng.Float64(), int64(rng.IntN(4000))
		case 2: // outside 0 < low < 1 < high: several buckets may take a file, keys collide
			c.low = 0.5 + rng.Float64()
			c.high, c.min = c.low+0.01+rng.Float64(), int64(rng.IntN(3))*500
		case 3:
			c.high, c.low, c.min = 1.01, 0.99, 0
		}
		n := rng.IntN(80)
		if i%6 == 4 {
			n = 200 + rng.IntN(300) // many buckets: tables of 64 slots and more
			c.high, c.low, c.min = 1.02, 0.98, 0
		}
		for range n {
			var s int64
			switch rng.IntN(5) {
			case 0:
				s = int64(rng.IntN(8)) // small, zero, repeated
			case 1:
				s = int64(rng.IntN(200 << 20))
			case 2:
				s = rng.Int64N(1 << 40)
			default:
				s = int64(rng.IntN(100000))
			}
			c.sizes = append(c.sizes, s)
		}
		cases = append(cases, c)
		fmt.Fprintf(&in, "%s %s %d", strconv.FormatFloat(c.high, 'g', -1, 64), strconv.FormatFloat(c.low, 'g', -1, 64), c.min)
		for _, s := range c.sizes {
			fmt.Fprintf(&in, " %d", s)
		}
		in.WriteByte('\n')
	}
	out, stderr, err := tool.run(in.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("%d lines for %d cases\n%s", len(lines), len(cases), stderr)
	}
	treeified := 0
	for i, c := range cases {
		idx := make([]int, len(c.sizes))
		for k := range idx {
			idx[k] = k
		}
		var m longMap[[]int]
		got := sizeBuckets(idx, func(k int) int64 { return c.sizes[k] }, c.high, c.low, c.min, &m)
		if m.treeified {
			treeified++
			continue
		}
		var b strings.Builder
		for j, bucket := range got {
			if j > 0 {
				b.WriteByte(';')
			}
			for k, v := range bucket {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(v))
			}
		}
		if b.String() != lines[i] {
			t.Fatalf("case %d (high %v low %v min %d sizes %v):\ncastable  %s\ncassandra %s", i, c.high, c.low, c.min, c.sizes, b.String(), lines[i])
		}
	}
	t.Logf("%d cases equal to Cassandra's (%d skipped where Java would have treeified a slot)", len(cases)-treeified, treeified)
}
