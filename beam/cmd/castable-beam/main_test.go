package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/internal/cli"
)

// TestCommand runs castable-beam end to end on Prism: a CQL input and a
// ring file in nodetool's format; the Data.db paths go to stdout, the
// report to stderr, and usage errors exit 2.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "s.cql")
	os.WriteFile(schema, []byte(cli.BenchmarkSchema), 0o644)
	var cqlText strings.Builder
	for i := range 300 {
		cqlText.WriteString("INSERT INTO ks.bench (pk, ck, v) VALUES (" + strconv.Itoa(i/3) + ", " + strconv.Itoa(i%3) + ", 'v');\n")
	}
	os.Mkdir(filepath.Join(dir, "in"), 0o755)
	os.WriteFile(filepath.Join(dir, "in", "a.cql"), []byte(cqlText.String()), 0o644)
	ring := filepath.Join(dir, "ring.txt")
	os.WriteFile(ring, []byte("Address Rack Status State Load Owns Token\n  3074457345618258602\n"+
		"10.0.0.1 r1 Up Normal 1 KiB 33% -9223372036854775808\n10.0.0.2 r1 Up Normal 1 KiB 33% -3074457345618258603\n"+
		"10.0.0.3 r1 Up Normal 1 KiB 33% 3074457345618258602\n"), 0o644)
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := run([]string{"castable-beam", "--schema", schema, "--cql", filepath.Join(dir, "in", "*.cql"), "--ring", ring, "--rf", "2",
		"--out", out, "--timestamp", "1", "--input-lanes", "1"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	paths := strings.Fields(stdout.String())
	if len(paths) != 3 {
		t.Errorf("stdout %q: want one Data.db per node", stdout.String())
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil || !strings.HasSuffix(p, "-big-Data.db") {
			t.Errorf("%s: %v", p, err)
		}
	}
	if !strings.Contains(stderr.String(), "total") || !strings.Contains(stderr.String(), " 600 ") {
		t.Errorf("report %q: want a total of 600 rows (300, each on 2 replicas)", stderr.String())
	}
	nodes, _ := os.ReadDir(out)
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name())
	}
	if !slices.Equal(names, []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "castable-beam.json"}) {
		t.Errorf("out holds %v", names)
	}

	for _, args := range [][]string{
		{"castable-beam", "--schema", schema, "--out", out},                                    // no input
		{"castable-beam", "--schema", schema, "--csv", "x", "--out", out, "--rf", "2"},         // RF without ring
		{"castable-beam", "--schema", schema, "--csv", "x", "--out", out, "--delimiter", "ab"}, // bad delimiter
		{"castable-beam", "--schema", schema, "--csv", "x", "--out", out, "--memtable-size", "1XB"},
	} {
		stderr.Reset()
		if code := run(args, nil, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args[3:], code, stderr.String())
		}
	}
	if code := run([]string{"castable-beam", "--schema", schema, "--csv", filepath.Join(dir, "none-*.csv"), "--out", out}, nil, &stdout, &stderr); code != 1 {
		t.Errorf("a glob matching nothing: exit %d, want 1", code)
	}
}

// TestExportCommand runs castable-beam export end to end on Prism: the
// files' paths go to stdout, one a range, the report to stderr, and what
// they hold together is castable export's; usage errors exit 2.
func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "s.cql")
	os.WriteFile(schema, []byte(cli.BenchmarkSchema), 0o644)
	var cqlText strings.Builder
	for i := range 300 {
		cqlText.WriteString("INSERT INTO ks.bench (pk, ck, v) VALUES (" + strconv.Itoa(i/3) + ", " + strconv.Itoa(i%3) + ", 'v') USING TIMESTAMP 1;\n")
	}
	in := filepath.Join(dir, "in.cql")
	os.WriteFile(in, []byte(cqlText.String()), 0o644)
	sst := filepath.Join(dir, "sst")
	env := &cli.Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true}
	if _, err := cli.Write(context.Background(), env, cli.WriteOptions{Schema: schema, CQL: in, Out: sst}); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(dir, "single.jsonl")
	if _, err := cli.Export(context.Background(), env, cli.ExportOptions{SSTables: []string{sst}, Schema: schema, To: "jsonl", Out: single, Now: time.Unix(100, 0)}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := run([]string{"castable-beam", "export", "--schema", schema, "--to", "jsonl", "--ranges", "3", "--lanes", "2", "--now", "100",
		"--out", out, filepath.Join(dir, "ss*")}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	paths := strings.Fields(stdout.String())
	var got []byte
	for i, p := range paths {
		if want := filepath.Join(out, "range-00"+strconv.Itoa(i)+".jsonl"); p != want {
			t.Errorf("file %d is %s, want %s", i, p, want)
		}
		got = append(got, must(os.ReadFile(p))...)
	}
	if len(paths) != 3 || !bytes.Equal(got, must(os.ReadFile(single))) {
		t.Errorf("stdout %q: the 3 files hold other rows than castable export's", stdout.String())
	}
	if !strings.Contains(stderr.String(), "total") || !strings.Contains(stderr.String(), " 300 ") {
		t.Errorf("report %q: want a total of 300 rows", stderr.String())
	}
	for _, args := range [][]string{
		{"castable-beam", "export", "--schema", schema, "--out", out},                                     // no input
		{"castable-beam", "export", "--schema", schema, "--out", out, "--to", "xml", sst},                 // bad format
		{"castable-beam", "export", "--schema", schema, "--out", out, "--ranges", "2", "--ring", in, sst}, // a ring that does not parse
		{"castable-beam", "export", "--out", out, sst},                                                    // no schema
	} {
		stderr.Reset()
		if code := run(args, nil, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args[2:], code, stderr.String())
		}
	}
	if code := run([]string{"castable-beam", "export", "--schema", schema, "--out", out, filepath.Join(dir, "none")}, nil, &stdout, &stderr); code != 1 {
		t.Errorf("an input that does not exist: exit %d, want 1", code)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestSplitArgs(t *testing.T) {
	ours, theirs := splitArgs([]string{"castable-beam", "--out", "o", "a.json", "--", "--project", "p"})
	if !slices.Equal(ours, []string{"castable-beam", "--out", "o", "a.json"}) || !slices.Equal(theirs, []string{"--project", "p"}) {
		t.Errorf("%v | %v", ours, theirs)
	}
	if !isWorker([]string{"--id=1", "--worker=true"}) || isWorker([]string{"--worker=false"}) || isWorker([]string{"--out", "w"}) {
		t.Error("isWorker")
	}
	for s, want := range map[string]int64{"64MiB": 64 << 20, "1.5K": 1536, "": 0, "12": 12} {
		if got, err := parseSize(s); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v", s, got, err)
		}
	}
}
