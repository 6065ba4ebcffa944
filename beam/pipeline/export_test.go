package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/parquet-go/parquet-go"

	"github.com/castable-db/castable/bulk"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// exportNow is the moment the export tests show: after every write of the
// workloads, before their TTLs of a day run out.
var exportNow = time.Unix(1700000500, 0)

// snapshotSpec describes the SSTables of a test cluster: a ring of nodes
// holding, with replication factor 2, the partitions they replicate — each
// replica receiving a statement with a chance of 7 in 10 and at least one
// of them always — each node in its own format and memtable size, so that
// every node has several overlapping SSTables; plus an old backup of every
// partition holding the first half of the statements.
type snapshotSpec struct {
	seed       uint64
	statements int
	partitions int
	counters   bool
	formats    []string // one per node, the last one the backup's
}

// writeSnapshots writes the test cluster's SSTables under
// base/<node>/ks/t-<id>/ through the core's public API — the workload's
// CQL read by bulk.ReadCQL and routed by token to each replica's
// bulk.MemtableSink — and returns the schema file and the node directories.
func writeSnapshots(t *testing.T, base string, spec snapshotSpec) (schemaFile string, dirs []string) {
	t.Helper()
	w := workload.Generate("ks", workload.Options{Seed: spec.seed, Statements: spec.statements, Partitions: spec.partitions, Counters: spec.counters})
	schemaFile = filepath.Join(base, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(w.Schema()), 0o644); err != nil {
		t.Fatal(err)
	}
	sch, table, err := loadTable(w.Schema(), "schema", "", "")
	if err != nil {
		t.Fatal(err)
	}
	nodes := len(spec.formats) - 1
	ranges, err := dht.SplitRing(dht.Murmur3, nodes)
	if err != nil {
		t.Fatal(err)
	}
	ring := make([]Node, nodes)
	for i, r := range ranges {
		ring[i] = Node{Name: fmt.Sprintf("node%d", i), Tokens: []string{dht.Murmur3.String(r.Right)}}
	}
	p, err := newPlan(planSpec{Partitioner: dht.Murmur3Name, Ring: ring, RF: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sinks := make([]*bulk.MemtableSink, len(spec.formats))
	for i, f := range spec.formats {
		name := fmt.Sprintf("node%d", i)
		if i == nodes {
			name = "backup"
		}
		dir := filepath.Join(base, name, "ks", "t-"+tableID(table))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
		format, err := sstables.Lookup(f)
		if err != nil {
			t.Fatal(err)
		}
		sinks[i] = bulk.NewMemtableSink(ctx, table, bulk.SinkOptions{Format: format, Writer: sstables.WriterOptions{Dir: dir, Generation: 1},
			MemtableSize: int64(384+64*i) << 10, Now: exportNow})
	}
	keep := func(node, line int) bool {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d/%d/%d", spec.seed, node, line)
		return h.Sum64()%10 < 7
	}
	route := sinkFunc(func(part *mutation.Partition, line int) error {
		replicas := p.writersOf(dht.Murmur3.Token(part.Key))
		kept := 0
		for k, n := range replicas {
			if keep(n, line) || (k == len(replicas)-1 && kept == 0) {
				kept++
				if err := sinks[n].Apply(part, line); err != nil {
					return err
				}
			}
		}
		if line <= spec.statements/2 {
			return sinks[nodes].Apply(part, line)
		}
		return nil
	})
	if _, err := bulk.Read(bulk.CQL, strings.NewReader(w.CQL()), bulk.ReadOptions{Name: "workload.cql", Table: table, Schema: sch, Now: exportNow.Add(-time.Minute)}, route); err != nil {
		t.Fatal(err)
	}
	for i, s := range sinks {
		res, err := s.Close(true)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) < 2 {
			t.Fatalf("%s: %d SSTables, want several", dirs[i], len(res))
		}
	}
	return schemaFile, dirs
}

type sinkFunc func(*mutation.Partition, int) error

func (f sinkFunc) Apply(p *mutation.Partition, line int) error { return f(p, line) }

// singleExport is `castable export` of the SSTables in dirs with eo's
// columns and views (one file), restricted to ranges when there are any.
func singleExport(t *testing.T, schemaFile string, dirs []string, to string, eo export.Options, ranges ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "single."+to)
	eo.MaxFileSize = 0
	if _, err := cli.Export(context.Background(), &cli.Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true}, cli.ExportOptions{
		SSTables: dirs, Schema: schemaFile, To: to, Out: out, Now: exportNow, TokenRanges: ranges, Export: eo,
	}); err != nil {
		t.Fatal(err)
	}
	return must(os.ReadFile(out))
}

// parquetContent reads a Parquet file back with parquet-go: its schema and
// rows, as text.
func parquetContent(t *testing.T, b []byte) (schema string, rows []string, meta map[string]string) {
	t.Helper()
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	meta = map[string]string{}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		meta[kv.Key] = kv.Value
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	buf := make([]parquet.Row, 64)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			rows = append(rows, fmt.Sprint(row))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return pf.Schema().String(), rows, meta
}

// checkExport runs castable-beam export of the SSTables under base on
// Prism and checks its files against castable export of the same
// SSTables: their union, in range order, is the single export row for row
// (Parquet read back with parquet-go; JSON Lines byte for byte; CSV byte
// for byte once each range's header line is dropped), and each range's
// files are exactly the single export restricted to that token range.
func checkExport(t *testing.T, base, schemaFile string, dirs []string, to string, opts ExportOptions) *ExportSummary {
	t.Helper()
	opts.SchemaFile, opts.Now, opts.Format = schemaFile, exportNow, export.Format(to)
	opts.SSTables = []string{filepath.Join(base, "*", "ks", "t-*")}
	opts.Out = filepath.Join(t.TempDir(), "out")
	sum, err := RunExport(context.Background(), "prism", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s, %d ranges: %d rows in %d files from %d SSTables, %d read over the ranges", to, len(sum.Ranges), sum.Rows, sum.Files, sum.SSTables, sum.SSTablesRead)
	want := singleExport(t, schemaFile, dirs, to, opts.Export)
	var inputs int
	for _, d := range dirs {
		inputs += len(must(sstables.ListSSTables(nil, d)))
	}
	if sum.SSTables != inputs {
		t.Errorf("the summary counts %d input SSTables, the directories hold %d", sum.SSTables, inputs)
	}
	spans := tokenSpans(t, dirs)
	var union [][]byte
	var rows int64
	for i, r := range sum.Ranges {
		// It read exactly the SSTables holding partitions in its range's
		// token span (computed here by scanning every SSTable).
		rng, err := export.ParseTokenRange(dht.Murmur3, r.Range)
		if err != nil {
			t.Fatal(err)
		}
		seg := segment{Left: rng.Left, Right: rng.Right}
		var wantRead []string
		for data, sp := range spans {
			if seg.overlaps(sp[0], sp[1]) {
				wantRead = append(wantRead, data)
			}
		}
		slices.Sort(wantRead)
		if !slices.Equal(r.SSTables, wantRead) {
			t.Errorf("range %s read %d SSTables, %d overlap it", r.Range, len(r.SSTables), len(wantRead))
		}
		var got [][]byte
		for _, f := range r.Files {
			if filepath.Dir(f) != opts.Out || !strings.HasPrefix(filepath.Base(f), r.Name) {
				t.Errorf("range %s: file %s is not OUT/%s…", r.Name, f, r.Name)
			}
			got = append(got, must(os.ReadFile(f)))
		}
		if len(got) == 0 {
			t.Fatalf("range %s: no file", r.Name)
		}
		wantRange := singleExport(t, schemaFile, dirs, to, opts.Export, r.Range)
		switch to {
		case "parquet":
			ws, wr, _ := parquetContent(t, wantRange)
			var gr []string
			for _, b := range got {
				gs, rows, meta := parquetContent(t, b)
				if gs != ws {
					t.Errorf("range %s: schema\n%s\nwant\n%s", r.Name, gs, ws)
				}
				if meta["castable.token_range"] != r.Range || meta["castable.table"] != "ks.t" {
					t.Errorf("range %s: metadata %v", r.Name, meta)
				}
				gr = append(gr, rows...)
			}
			if !slices.Equal(gr, wr) {
				t.Errorf("range %s %s: %d rows, castable export --token-range gives %d (or other ones)", r.Name, r.Range, len(gr), len(wr))
			}
			rows += int64(len(gr))
		default:
			joined := bytes.Join(got, nil)
			if to == "csv" {
				joined = dropHeaders(joined, len(got))
				wantRange = dropHeaders(wantRange, 1)
			}
			if !bytes.Equal(joined, wantRange) {
				t.Errorf("range %s %s: its files differ from castable export --token-range", r.Name, r.Range)
			}
			rows += int64(bytes.Count(joined, []byte("\n")))
		}
		if i > 0 && sum.Ranges[i-1].Name >= r.Name {
			t.Errorf("ranges out of order: %s after %s", r.Name, sum.Ranges[i-1].Name)
		}
		union = append(union, got...)
	}
	switch to {
	case "parquet":
		_, wr, _ := parquetContent(t, want)
		var gr []string
		for _, b := range union {
			_, rows, _ := parquetContent(t, b)
			gr = append(gr, rows...)
		}
		if !slices.Equal(gr, wr) {
			t.Errorf("the union of the files (%d rows) is not castable export's %d rows, in order", len(gr), len(wr))
		}
	case "csv":
		if got := dropHeaders(bytes.Join(union, nil), len(union)); !bytes.Equal(got, dropHeaders(want, 1)) {
			t.Error("the union of the CSV files differs from castable export's")
		}
	default:
		if !bytes.Equal(bytes.Join(union, nil), want) {
			t.Errorf("the union of the files (%d bytes) differs from castable export's (%d bytes)", len(bytes.Join(union, nil)), len(want))
		}
	}
	if rows != sum.Rows || rows < 100 {
		t.Errorf("%d rows in the files, the summary says %d (want at least 100)", rows, sum.Rows)
	}
	if sum.Counters[mRows] != sum.Rows || sum.Counters[mFiles] != int64(sum.Files) || sum.Counters[mSSTablesRead] != int64(sum.SSTablesRead) {
		t.Errorf("counters %v, summary %d rows, %d files, %d SSTables read", sum.Counters, sum.Rows, sum.Files, sum.SSTablesRead)
	}
	if _, err := os.Stat(filepath.Join(opts.Out, tempDirName)); !os.IsNotExist(err) {
		t.Errorf("the temporary directory is left: %v", err)
	}
	b := must(os.ReadFile(filepath.Join(opts.Out, ExportSummaryFile)))
	var onDisk ExportSummary
	if err := json.Unmarshal(b, &onDisk); err != nil || onDisk.Rows != sum.Rows || len(onDisk.Ranges) != len(sum.Ranges) {
		t.Errorf("summary file: %v %+v", err, onDisk)
	}
	return sum
}

// tokenSpans scans every SSTable in dirs for the tokens of its first and
// last partitions, by Data.db path.
func tokenSpans(t *testing.T, dirs []string) map[string][2]dht.Token {
	t.Helper()
	out := map[string][2]dht.Token{}
	for _, dir := range dirs {
		for _, d := range must(sstables.ListSSTables(nil, dir)) {
			r, err := sstables.OpenAny(d, nil, sstables.ReaderOptions{OpaqueUnknownTypes: true})
			if err != nil {
				t.Fatal(err)
			}
			sc := must(r.Scan())
			var span [2]dht.Token
			for n := 0; ; n++ {
				p, err := sc.NextPartition()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					span[0] = p.Token
				}
				span[1] = p.Token
			}
			sc.Close()
			r.Close()
			out[d.Path(sstables.ComponentData)] = span
		}
	}
	return out
}

// dropHeaders removes the first line of each of n CSV files joined in b
// (every file starts with the same header).
func dropHeaders(b []byte, n int) []byte {
	header, _, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return b
	}
	return bytes.Replace(b, append(header, '\n'), nil, n)
}

// TestExportMatchesSingleExport is the acceptance test: the
// SSTables of 5 nodes' snapshots (RF 2, each node in another format: 3.11's
// me, 4.x's nb, 5.0's oa and BTI da, mc) and of a backup, many overlapping
// SSTables of a random workload of every CQL type and every kind of
// deletion, exported by castable-beam on Prism with 8 ranges, are in
// their union exactly castable export's rows of the same SSTables, row for
// row, and each range's file exactly castable export --token-range of its
// range. Each range reads only the SSTables whose tokens overlap it.
func TestExportMatchesSingleExport(t *testing.T) {
	statements, seeds := 4000, []uint64{7}
	if !testing.Short() {
		statements, seeds = 8000, []uint64{7, 8}
	}
	for _, seed := range seeds {
		base := t.TempDir()
		schemaFile, dirs := writeSnapshots(t, base, snapshotSpec{seed: seed, statements: statements, partitions: statements,
			formats: []string{"me", "nb", "oa", "da", "mc", "nb"}})
		sum := checkExport(t, base, schemaFile, dirs, "parquet", ExportOptions{Ranges: 8, Lanes: 2})
		if len(sum.Ranges) != 8 {
			t.Fatalf("%d ranges, want 8", len(sum.Ranges))
		}
		// Node SSTables hold 2 of the 5 ring ranges (checkExport checks
		// that each range reads exactly the SSTables overlapping it): about
		// 5.5 ranges of 8 read each SSTable.
		if sum.SSTablesRead > 6*sum.SSTables {
			t.Errorf("the ranges read %d SSTables of %d: too few were left out", sum.SSTablesRead, sum.SSTables)
		}
		if testing.Short() {
			continue
		}
		checkExport(t, base, schemaFile, dirs, "jsonl", ExportOptions{Ranges: 3, Lanes: 3})
		checkExport(t, base, schemaFile, dirs, "csv", ExportOptions{Ranges: 5, Lanes: 1, Export: export.Options{MaxFileSize: 16 << 10}})
	}
}

// TestExportRing: split at a ring's tokens (a nodetool ring file's nodes),
// the ranges are the ring's, the one that wraps cut at the minimum token,
// each named after the node whose token ends it; an audit view with
// writetime and ttl columns, of a counter table too, still equals castable
// export's.
func TestExportRing(t *testing.T) {
	if testing.Short() {
		t.Skip("a long Prism run: the full tier")
	}
	base := t.TempDir()
	schemaFile, dirs := writeSnapshots(t, base, snapshotSpec{seed: 3, statements: 2000, partitions: 200, formats: []string{"nb", "me", "oa", "nb"}})
	ring := []Node{{Name: "10.0.0.1", Tokens: []string{"-6000000000000000000"}}, {Name: "10.0.0.2", Tokens: []string{"100"}}, {Name: "10.0.0.3", Tokens: []string{"7000000000000000000"}}}
	sum := checkExport(t, base, schemaFile, dirs, "jsonl", ExportOptions{Ring: ring, Lanes: 2,
		Export: export.Options{IncludeTombstones: true, WriteTime: []string{"c_int"}, TTL: []string{"c_text"}}})
	var got []string
	for _, r := range sum.Ranges {
		got = append(got, r.Node+" "+r.Range)
	}
	want := []string{
		"10.0.0.1 (-9223372036854775808, -6000000000000000000]",
		"10.0.0.2 (-6000000000000000000, 100]",
		"10.0.0.3 (100, 7000000000000000000]",
		"10.0.0.1 (7000000000000000000, -9223372036854775808]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ranges %q, want %q", got, want)
	}
	if sum.Tombstones == 0 {
		t.Error("the audit view holds no tombstone row")
	}

	cbase := t.TempDir()
	schemaFile, dirs = writeSnapshots(t, cbase, snapshotSpec{seed: 4, statements: 1500, partitions: 150, counters: true, formats: []string{"nb", "me", "da", "oa"}})
	checkExport(t, cbase, schemaFile, dirs, "parquet", ExportOptions{Ranges: 4, Lanes: 2})
}

// TestExportSegments: the ring's split covers every token once, in order.
func TestExportSegments(t *testing.T) {
	segs, err := exportSegments(dht.Murmur3, 0, []Node{{Name: "b", Tokens: []string{"5"}}, {Name: "a", Tokens: []string{"-9223372036854775808", "-5"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range segs {
		got = append(got, s.Node+s.rangeOf().Format(dht.Murmur3))
	}
	if want := []string{"a(-9223372036854775808, -5]", "b(-5, 5]", "a(5, -9223372036854775808]"}; !slices.Equal(got, want) {
		t.Errorf("segments %q, want %q", got, want)
	}
	for _, tok := range []int64{-9223372036854775807, -5, -4, 5, 6, 9223372036854775807} {
		n := 0
		for _, s := range segs {
			if s.contains(dht.Murmur3Token(tok)) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("token %d is in %d segments", tok, n)
		}
	}
	s := segs[1]
	for _, c := range []struct {
		first, last int64
		want        bool
	}{{-10, -5, false}, {-10, -4, true}, {5, 9, true}, {6, 9, false}, {-100, 100, true}} {
		if got := s.overlaps(dht.Murmur3Token(c.first), dht.Murmur3Token(c.last)); got != c.want {
			t.Errorf("(-5, 5] overlaps [%d, %d]: %v", c.first, c.last, got)
		}
	}
	if _, err := exportSegments(dht.Murmur3, 0, []Node{{Name: "a", Tokens: []string{"1"}}, {Name: "b", Tokens: []string{"1"}}}); err == nil {
		t.Error("a token of two nodes")
	}
}

// TestBuildExportRejectsOptions: options that cannot work are option
// errors before anything runs.
func TestBuildExportRejectsOptions(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.cql")
	os.WriteFile(schemaFile, []byte(cli.BenchmarkSchema), 0o644)
	ok := ExportOptions{SchemaFile: schemaFile, SSTables: []string{dir}, Out: filepath.Join(dir, "out")}
	for name, mod := range map[string]func(*ExportOptions){
		"no out":        func(o *ExportOptions) { o.Out = "" },
		"no sstables":   func(o *ExportOptions) { o.SSTables = nil },
		"format":        func(o *ExportOptions) { o.Format = "xml" },
		"column":        func(o *ExportOptions) { o.Export.Columns = []string{"nope"} },
		"codec":         func(o *ExportOptions) { o.Export.Parquet.Compression = "lzo" },
		"csv option":    func(o *ExportOptions) { o.Export.CSV.NoHeader = true },
		"ranges & ring": func(o *ExportOptions) { o.Ranges = 2; o.Ring = []Node{{Name: "a", Tokens: []string{"1"}}} },
		"negative":      func(o *ExportOptions) { o.Ranges = -1 },
	} {
		o := ok
		mod(&o)
		if _, err := BuildExport(beam.NewPipeline().Root(), o); err == nil || !IsOptionError(err) {
			t.Errorf("%s: %v, want an option error", name, err)
		}
	}
	if _, err := BuildExport(beam.NewPipeline().Root(), ok); err != nil {
		t.Errorf("good options: %v", err)
	}
}

// TestExportRulesOfAllInputs: the reconciliation rules are those of the
// newest release among all the inputs, as for one castable export, even
// in a range whose own SSTables are all older. Two 3.11 (me) SSTables
// write one cell with equal timestamps, 'zebra' and 'éclair' — 3.x's
// signed byte comparison keeps 'zebra', 4.0's unsigned one 'éclair' — and
// a 4.x (nb) SSTable holds a partition of the other range.
func TestExportRulesOfAllInputs(t *testing.T) {
	base := t.TempDir()
	const schemaText = "CREATE TABLE ks.r (pk int PRIMARY KEY, v text);\n"
	schemaFile := filepath.Join(base, "schema.cql")
	os.WriteFile(schemaFile, []byte(schemaText), 0o644)
	sch, table, err := loadTable(schemaText, "schema", "", "")
	if err != nil {
		t.Fatal(err)
	}
	// A key in the other half of the ring than key 1's.
	half := func(k int32) bool {
		return dht.Compare(dht.Murmur3.Token(schema.AppendInt(nil, k)), dht.Murmur3Token(0)) > 0
	}
	other := int32(2)
	for half(other) == half(1) {
		other++
	}
	var dirs []string
	for i, c := range []struct{ format, cql string }{
		{"me", "INSERT INTO ks.r (pk, v) VALUES (1, 'zebra') USING TIMESTAMP 10"},
		{"me", "INSERT INTO ks.r (pk, v) VALUES (1, 'éclair') USING TIMESTAMP 10"},
		{"nb", fmt.Sprintf("INSERT INTO ks.r (pk, v) VALUES (%d, 'x') USING TIMESTAMP 10", other)},
	} {
		dir := filepath.Join(base, fmt.Sprintf("n%d", i), "ks", "r-1")
		os.MkdirAll(dir, 0o755)
		dirs = append(dirs, dir)
		format := must(sstables.Lookup(c.format))
		sink := bulk.NewMemtableSink(context.Background(), table, bulk.SinkOptions{Format: format, Writer: sstables.WriterOptions{Dir: dir, Generation: 1}, Now: exportNow})
		if _, err := bulk.Read(bulk.CQL, strings.NewReader(c.cql+";\n"), bulk.ReadOptions{Table: table, Schema: sch, Now: exportNow}, sink); err != nil {
			t.Fatal(err)
		}
		if _, err := sink.Close(true); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(base, "out")
	sum, err := RunExport(context.Background(), "prism", ExportOptions{SchemaFile: schemaFile, SSTables: []string{filepath.Join(base, "n*", "ks", "r-1")},
		Out: out, Ranges: 2, Lanes: 2, Format: export.JSONLines, Now: exportNow})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, r := range sum.Ranges {
		got += string(must(os.ReadFile(r.Files[0])))
		if len(r.SSTables) >= 3 {
			t.Errorf("range %s reads all %d SSTables", r.Range, len(r.SSTables))
		}
	}
	want := string(singleExport(t, schemaFile, dirs, "jsonl", export.Options{}))
	if got != want || !strings.Contains(got, `"éclair"`) {
		t.Errorf("castable-beam export:\n%s\ncastable export:\n%s", got, want)
	}
}
