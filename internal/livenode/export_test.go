package livenode

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/node"
	"github.com/castable-db/castable/internal/workload"
)

// TestExportJSONEqualsNodeSelectJSON: castable export --to jsonl of the
// SSTables a node flushed (three overlapping flushes, read merged) prints,
// line for line and byte for byte, the node's SELECT JSON * of the table:
// every type, collections, UDTs, statics, TTLs, every kind of deletion,
// counters, vectors on 5.0.
func TestExportJSONEqualsNodeSelectJSON(t *testing.T) {
	node.Start(node.Cassandra311, node.Cassandra50)
	for _, f := range []*node.Flavour{node.Cassandra311, node.Cassandra50} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			n := node.Get(t, f)
			for _, kind := range []string{"all", "counters"} {
				t.Run(kind, func(t *testing.T) {
					ks := n.Keyspace(t)
					w := workload.Generate(ks, workload.Options{Seed: 31, Counters: kind == "counters", Statements: 500, Vectors: f.Release == "5.0"})
					createTypes(t, n, w)
					create(t, n, w, w.Table)
					dir := keepDir(t, "export-"+f.Name+"-"+kind)
					inputs := flushBatches(t, n, w, 3, filepath.Join(dir, "flushed"))
					res, err := n.Query(fmt.Sprintf("SELECT JSON * FROM %s.%s", ks, w.Table), 0)
					if err != nil {
						t.Fatal(err)
					}
					schemaFile, _ := files(t, dir, w, w.Table)
					out := filepath.Join(dir, "export.jsonl")
					if _, err := cli.Export(context.Background(), quiet(), cli.ExportOptions{SSTables: inputs, Schema: schemaFile, To: "jsonl", Out: out, Now: time.Now()}); err != nil {
						t.Fatal(err)
					}
					b, err := os.ReadFile(out)
					if err != nil {
						t.Fatal(err)
					}
					got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
					if len(b) == 0 {
						got = nil
					}
					if len(got) != len(res.Rows) || len(res.Rows) < 50 {
						t.Errorf("%d lines, the node's SELECT JSON has %d rows", len(got), len(res.Rows))
					}
					for i := 0; i < min(len(got), len(res.Rows)); i++ {
						if want := string(res.Rows[i][0]); got[i] != want {
							t.Errorf("row %d:\n got %s\nwant %s", i, got[i], want)
							break
						}
					}
				})
			}
		})
	}
}

var exportSpeed = flag.Bool("export.speed", false, "run TestExportSpeedAgainstNode: castable export against a full-table SELECT * paged through the driver (minutes)")

// TestExportSpeedAgainstNode measures, side by side, castable export --to
// parquet of a table's SSTables and a full-table SELECT * of the same
// SSTables loaded into a live 5.0 node, paged (5,000 rows a page) through
// the Python driver the node tests use. It runs only with -export.speed
// (and CASTABLE_EXPORT_SPEED_ROWS rows, 1,000,000 by default).
func TestExportSpeedAgainstNode(t *testing.T) {
	if !*exportSpeed {
		t.Skip("a measurement: run with -export.speed")
	}
	rows := 1000000
	if s := os.Getenv("CASTABLE_EXPORT_SPEED_ROWS"); s != "" {
		fmt.Sscan(s, &rows)
	}
	n := node.Get(t, node.Cassandra50)
	ks := n.Keyspace(t)
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "schema.cql")
	ddl := fmt.Sprintf("CREATE TABLE %s.bench (pk int, ck int, v text, PRIMARY KEY (pk, ck))", ks)
	if err := os.WriteFile(schemaFile, []byte(ddl+";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := n.ExecInOrder(ddl); err != nil {
		t.Fatal(err)
	}
	// cli.GenerateCSV's rows: 100 a partition, a 24-40 character text.
	csvFile := filepath.Join(dir, "rows.csv")
	f, err := os.Create(csvFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.GenerateCSV(&cli.Env{Stdout: f}, int64(rows), 100); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data := filepath.Join(dir, "sstables")
	if _, err := cli.Write(context.Background(), quiet(), cli.WriteOptions{Schema: schemaFile, CSV: csvFile, Out: data, Generation: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := n.Load(ks, "bench", data); err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 3; run++ {
		start := time.Now()
		sum, err := cli.Export(context.Background(), quiet(), cli.ExportOptions{SSTables: []string{data}, Schema: schemaFile, Out: filepath.Join(dir, "out.parquet"),
			Export: export.Options{}})
		if err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		t.Logf("run %d: castable export --to parquet: %d rows in %s: %.0f rows/s", run, sum.Rows, d.Round(time.Millisecond), float64(sum.Rows)/d.Seconds())
	}
	for run := 1; run <= 2; run++ {
		start := time.Now()
		res, err := n.Query(fmt.Sprintf("SELECT * FROM %s.bench", ks), 5000)
		if err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		t.Logf("run %d: the 5.0 node's SELECT * (Python driver, 5,000-row pages): %d rows in %s: %.0f rows/s", run, len(res.Rows), d.Round(time.Millisecond), float64(len(res.Rows))/d.Seconds())
		if len(res.Rows) != rows {
			t.Errorf("the node returned %d rows, want %d", len(res.Rows), rows)
		}
	}
}
