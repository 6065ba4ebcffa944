package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

const (
	testTimestamp = 1_700_000_000_000_000
	testShards    = 8
)

var testNow = time.UnixMicro(testTimestamp)

// writeShards writes rows of cli.BenchmarkSchema (cli.GenerateCSV's) as
// one file for castable write and as testShards shards for the pipeline,
// dealing blocks of 37 lines round-robin, so that a partition's rows are
// spread over several shards and the writers must merge them.
func writeShards(t *testing.T, dir string, rows int64) (schemaFile, whole string, shards []string) {
	t.Helper()
	schemaFile = filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(cli.BenchmarkSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := cli.GenerateCSV(&cli.Env{Stdout: &csv}, rows, 100); err != nil {
		t.Fatal(err)
	}
	whole = filepath.Join(dir, "whole.csv")
	if err := os.WriteFile(whole, csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(csv.String(), "\n")
	parts := make([]strings.Builder, testShards)
	for i := 0; i*37 < len(lines); i++ {
		for _, l := range lines[i*37 : min((i+1)*37, len(lines))] {
			parts[i%testShards].WriteString(l)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range parts {
		p := filepath.Join(dir, "in", fmt.Sprintf("part-%02d.csv", i))
		if err := os.WriteFile(p, []byte(parts[i].String()), 0o644); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, p)
	}
	return schemaFile, whole, shards
}

// content merges every partition of the SSTables in dirs (as Cassandra
// reconciles what several SSTables hold) and returns the canonical JSON
// lines of the result, in partition order, with the number of SSTables read.
func content(t *testing.T, table *schema.Table, sst []sstables.Descriptor) (string, int) {
	t.Helper()
	mt := memtable.New(table, memtable.Options{NoPurge: true, Now: func() time.Time { return testNow }})
	for _, d := range sst {
		r, err := sstables.OpenAny(d, table, sstables.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sc, err := r.Scan()
		if err != nil {
			t.Fatal(err)
		}
		for {
			hdr, err := sc.NextPartition()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			head := mutation.Partition{Key: slices.Clone(hdr.Key), Token: hdr.Token, Deletion: hdr.Deletion, Static: hdr.Static}
			if err := mt.Apply(&head); err != nil {
				t.Fatal(err)
			}
			head.Static = mutation.NewRow(nil)
			head.Deletion = mutation.Live
			var markers []mutation.RangeTombstoneMarker
			for {
				row, m, err := sc.Next()
				if err != nil {
					t.Fatal(err)
				}
				if row == nil && m == nil {
					break
				}
				if m != nil {
					mc := *m
					mc.Clustering = cloneClustering(m.Clustering)
					markers = append(markers, mc)
					continue
				}
				one := head
				one.Rows = []mutation.Row{*row}
				if err := mt.Apply(&one); err != nil {
					t.Fatal(err)
				}
			}
			if len(markers) > 0 {
				one := head
				one.Markers = markers
				if err := mt.Apply(&one); err != nil {
					t.Fatal(err)
				}
			}
		}
		sc.Close()
		r.Close()
	}
	var out bytes.Buffer
	enc := jsondump.NewEncoder(&out, table, jsondump.EncodeOptions{Format: jsondump.FormatCanonical, Layout: jsondump.LayoutLines, Now: testNow})
	if err := mt.Freeze().Ascend(func(p *mutation.Partition) error { return enc.Encode(p, -1) }); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String(), len(sst)
}

func cloneClustering(c mutation.Clustering) mutation.Clustering {
	out := make(mutation.Clustering, len(c))
	for i, v := range c {
		if v != nil {
			out[i] = slices.Clone(v)
		}
	}
	return out
}

// listSSTables returns the SSTables under dir (every level).
func listSSTables(t *testing.T, dir string) []sstables.Descriptor {
	t.Helper()
	var out []sstables.Descriptor
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		descs, err := sstables.ListSSTables(nil, p)
		out = append(out, descs...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func loadTestTable(t *testing.T, partitioner string) *schema.Table {
	_, table, err := loadTable(cli.BenchmarkSchema, "schema", "", partitioner)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// reference is what castable write writes from the whole input.
func reference(t *testing.T, dir, schemaFile, whole, format, partitioner string) string {
	t.Helper()
	out := filepath.Join(dir, "ref")
	if _, err := cli.Write(context.Background(), &cli.Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true}, cli.WriteOptions{
		Schema: schemaFile, CSV: whole, Out: out, Format: format, Partitioner: partitioner, Timestamp: testTimestamp, Now: testNow,
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := content(t, loadTestTable(t, partitioner), listSSTables(t, out))
	return got
}

// checkSSTables verifies every SSTable of a run and checks that each holds
// only tokens of its writer, as the run's summary describes them.
func checkSSTables(t *testing.T, out string, sum *Summary, p *plan, table *schema.Table) map[string][]string {
	t.Helper()
	whereKeys := map[string][]string{} // partition key (hex) -> directories holding it
	for wi, ws := range sum.Writers {
		for _, data := range ws.SSTables {
			d, _, _, err := sstables.ParseDescriptor(data)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(out, ws.Dir, table.Keyspace); filepath.Dir(filepath.Dir(data)) != want {
				t.Errorf("%s is not under %s", data, want)
			}
			r, err := sstables.OpenAny(d, table, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Verify(); err != nil {
				t.Errorf("verify %s: %v", data, err)
			}
			sc, err := r.Scan()
			if err != nil {
				t.Fatal(err)
			}
			for {
				h, err := sc.NextPartition()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if !p.holds(wi, h.Token) {
					t.Errorf("%s holds token %s, outside writer %s", data, p.part.String(h.Token), writerName(p, wi))
				}
				k := fmt.Sprintf("%x", h.Key)
				if !slices.Contains(whereKeys[k], ws.Dir) {
					whereKeys[k] = append(whereKeys[k], ws.Dir)
				}
			}
			sc.Close()
			r.Close()
		}
	}
	return whereKeys
}

// TestPipelineMatchesWrite is the acceptance test: 8 input shards
// and 4 ranges on Prism write, over all their SSTables, exactly the rows
// castable write writes from the same input; every SSTable verifies and
// holds only tokens of its range; the summary and the Beam counters add up.
func TestPipelineMatchesWrite(t *testing.T) { testPipelineMatchesWrite(t, false) }

// TestPipelineNoShuffleMatchesWrite: the same with Options.NoShuffle (the
// readers write the SSTables themselves).
func TestPipelineNoShuffleMatchesWrite(t *testing.T) { testPipelineMatchesWrite(t, true) }

func testPipelineMatchesWrite(t *testing.T, noShuffle bool) {
	dir := t.TempDir()
	const rows = 40_000
	schemaFile, whole, _ := writeShards(t, dir, rows)
	out := filepath.Join(dir, "out")
	opts := Options{
		SchemaFile: schemaFile, CSV: []string{filepath.Join(dir, "in", "part-*.csv")}, Out: out,
		Ranges: 4, Timestamp: testTimestamp, Now: testNow, InputLanes: 2,
		MemtableSize: 256 << 10, MaxSSTableSize: 64 << 10, // several flushes, several SSTables per flush
		NoShuffle: noShuffle,
	}
	if noShuffle {
		// Every bundle flushes into every range: larger memtables keep the
		// SSTables (each one fsynced) to a few dozen.
		opts.MemtableSize = 4 << 20
	}
	sum, err := Run(context.Background(), "prism", opts)
	if err != nil {
		t.Fatal(err)
	}
	table := loadTestTable(t, "")
	p, err := newPlan(planSpec{Partitioner: dht.Murmur3Name, Slices: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Writers) != 4 || sum.Rows != rows {
		t.Fatalf("summary: %d writers, %d rows; want 4 and %d", len(sum.Writers), sum.Rows, rows)
	}
	checkSSTables(t, out, sum, p, table)
	all := listSSTables(t, out)
	got, n := content(t, table, all)
	if n != sum.SSTables || n < 8 {
		t.Errorf("%d SSTables on disk, the summary says %d (want at least 8: sized)", n, sum.SSTables)
	}
	want := reference(t, dir, schemaFile, whole, "", "")
	if got != want {
		t.Errorf("the pipeline's SSTables hold other rows than castable write's (%d vs %d bytes of canonical JSON)", len(got), len(want))
	}
	if _, err := os.Stat(filepath.Join(out, tempDirName)); !os.IsNotExist(err) {
		t.Errorf("the temporary directory is left: %v", err)
	}
	// Beam counters: rows per range add up to the rows written.
	var counted int64
	for _, ws := range sum.Writers {
		c := sum.Counters[ws.Dir+"/"+mRows]
		if c != ws.Rows {
			t.Errorf("%s: counter says %d rows, summary %d", ws.Dir, c, ws.Rows)
		}
		counted += c
		if sum.Counters[ws.Dir+"/"+mSSTables] != int64(len(ws.SSTables)) {
			t.Errorf("%s: counter says %d SSTables, summary %d", ws.Dir, sum.Counters[ws.Dir+"/"+mSSTables], len(ws.SSTables))
		}
	}
	if counted != rows || sum.Counters[mInputRows] != rows || sum.Counters[mInputFiles] != testShards {
		t.Errorf("counters %v", sum.Counters)
	}
	// The summary file is what Run returned.
	b, err := os.ReadFile(filepath.Join(out, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk Summary
	if err := json.Unmarshal(b, &onDisk); err != nil || onDisk.Rows != rows || len(onDisk.Writers) != 4 {
		t.Errorf("summary file: %v %+v", err, onDisk)
	}
}

// TestPipelineRing: with a 3-node ring and RF 2 every partition lands in
// exactly the directories of its 2 replicas (SimpleStrategy: the node
// owning the first token at or after the partition's, and the next one
// clockwise), and the union per node is castable write's output limited to
// what the node replicates. It writes the newest format castable writes,
// with integer generations and the Random partitioner, to cover more than
// the defaults.
func TestPipelineRing(t *testing.T) {
	dir := t.TempDir()
	const rows = 12_000
	schemaFile, whole, _ := writeShards(t, dir, rows)
	ring := []Node{
		{Name: "10.0.0.1", Tokens: []string{"-1"}},
		{Name: "10.0.0.2", Tokens: []string{"56713727820156410577229101238628035242"}},
		{Name: "10.0.0.3", Tokens: []string{"113427455640312821154458202477256070484"}},
	}
	// The newest version castable writes (the registry grows as formats
	// land).
	writable := sstables.Formats(true)
	format := writable[len(writable)-1].Version().String()
	out := filepath.Join(dir, "out")
	sum, err := Run(context.Background(), "prism", Options{
		SchemaFile: schemaFile, CSV: []string{filepath.Join(dir, "in", "*.csv")}, Out: out,
		Ring: ring, ReplicationFactor: 2, Partitioner: "RandomPartitioner", Format: format, Generations: true,
		Timestamp: testTimestamp, Now: testNow, InputLanes: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	table := loadTestTable(t, "RandomPartitioner")
	p, err := newPlan(planSpec{Partitioner: dht.RandomName, Ring: ring, RF: 2})
	if err != nil {
		t.Fatal(err)
	}
	where := checkSSTables(t, out, sum, p, table)
	if len(where) != rows/100 {
		t.Errorf("%d partitions written, want %d", len(where), rows/100)
	}
	// Placement, computed here from the ring alone.
	tokens := make([]dht.Token, len(ring))
	for i, n := range ring {
		tokens[i], _ = dht.Random.ParseToken(n.Tokens[0])
	}
	for k, dirs := range where {
		var key []byte
		fmt.Sscanf(k, "%x", &key)
		tok := dht.Random.Token(key)
		primary := 0 // the first node token >= tok, wrapping to the first
		for primary < len(tokens) && dht.Compare(tokens[primary], tok) < 0 {
			primary++
		}
		primary %= len(tokens)
		want := []string{ring[primary].Name, ring[(primary+1)%3].Name}
		sort.Strings(want)
		sort.Strings(dirs)
		if !slices.Equal(dirs, want) {
			t.Errorf("partition %s (token %s) is in %v, want %v", k, dht.Random.String(tok), dirs, want)
		}
	}
	// Every node directory holds integer generations and the nb format.
	var union []sstables.Descriptor
	for _, d := range listSSTables(t, out) {
		if d.UUID != "" || d.Version.String() != format {
			t.Errorf("%s: want %s with an integer generation", d.Path(sstables.ComponentData), format)
		}
		union = append(union, d)
	}
	got, _ := content(t, table, union)
	if want := reference(t, dir, schemaFile, whole, format, "RandomPartitioner"); got != want {
		t.Error("the union of the node directories differs from castable write's output")
	}
}

// TestPipelineBadRecords: a record that does not fit either fails the job
// with its file and line, or, with BadRecords, goes to bad-records.jsonl
// while everything else is written.
func TestPipelineBadRecords(t *testing.T) {
	dir := t.TempDir()
	schemaFile, _, shards := writeShards(t, dir, 2_000)
	f, err := os.OpenFile(shards[3], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("7,x,not an int\n99999,1,fine\n")
	f.Close()
	lines := strings.Count(string(must(os.ReadFile(shards[3]))), "\n")
	base := Options{SchemaFile: schemaFile, CSV: []string{filepath.Join(dir, "in", "*.csv")}, Timestamp: testTimestamp, Now: testNow, Ranges: 2, InputLanes: 2}

	o := base
	o.Out = filepath.Join(dir, "fail")
	_, err = Run(context.Background(), "prism", o)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s:%d: column ck", shards[3], lines-1)) {
		t.Errorf("a bad record: %v, want an error at %s:%d", err, shards[3], lines-1)
	}

	o = base
	o.Out, o.BadRecords = filepath.Join(dir, "ok"), filepath.Join(dir, "bad")
	sum, err := Run(context.Background(), "prism", o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 2_001 || sum.Counters[mBadRecords] != 1 {
		t.Errorf("%d rows written, %d bad records counted; want 2001 and 1", sum.Rows, sum.Counters[mBadRecords])
	}
	b, err := os.ReadFile(filepath.Join(dir, "bad", "bad-records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rec badRecord
	if err := json.Unmarshal(bytes.TrimSpace(b), &rec); err != nil {
		t.Fatalf("bad-records.jsonl %q: %v", b, err)
	}
	if rec.File != shards[3] || rec.Line != lines-1 || rec.Record != "7,x,not an int" || !strings.Contains(rec.Error, "column ck") {
		t.Errorf("bad record %+v", rec)
	}
}

// TestBuildRejectsOptions: options that cannot work are errors before
// anything runs, OptionErrors where they are the user's to fix.
func TestBuildRejectsOptions(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.cql")
	os.WriteFile(schemaFile, []byte(cli.BenchmarkSchema), 0o644)
	ok := Options{SchemaFile: schemaFile, CSV: []string{"x.csv"}, Out: dir}
	for name, mod := range map[string]func(*Options){
		"no out":      func(o *Options) { o.Out = "" },
		"two inputs":  func(o *Options) { o.CQL = []string{"y.cql"} },
		"format":      func(o *Options) { o.Format = "zz" },
		"codec":       func(o *Options) { o.Compression = "brotli" },
		"rf, no ring": func(o *Options) { o.ReplicationFactor = 2 },
		"columns":     func(o *Options) { o.CSVOptions.Columns = []string{"pk", "nope"} },
		"rf > nodes":  func(o *Options) { o.Ring = []Node{{Name: "a", Tokens: []string{"1"}}}; o.ReplicationFactor = 2 },
		"partitioner": func(o *Options) { o.Partitioner = "Local" },
		"bop ranges":  func(o *Options) { o.Partitioner = "ByteOrdered"; o.Ranges = 300 },
	} {
		o := ok
		mod(&o)
		_, err := Build(beam.NewPipeline().Root(), o)
		if err == nil || !IsOptionError(err) {
			t.Errorf("%s: %v, want an option error", name, err)
		}
	}
	if _, err := Build(beam.NewPipeline().Root(), ok); err != nil {
		t.Errorf("good options: %v", err)
	}
	o := ok
	o.SchemaFile = filepath.Join(dir, "missing.cql")
	if _, err := Build(beam.NewPipeline().Root(), o); err == nil || IsOptionError(err) {
		t.Errorf("a missing schema: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
