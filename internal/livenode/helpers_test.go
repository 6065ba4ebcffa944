package livenode

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/node"
	"github.com/castable-db/castable/internal/workload"
)

func TestMain(m *testing.M) { node.Main(m) }

func quiet() *cli.Env { return &cli.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Quiet: true} }

// files writes w's schema and statements (for its table renamed table)
// into dir and returns the two paths.
func files(t *testing.T, dir string, w *workload.Workload, table string) (schemaFile, cqlFile string) {
	t.Helper()
	schema := w.Schema()
	stmts := w.CQL()
	if table != w.Table {
		schema = strings.Replace(schema, w.Keyspace+"."+w.Table+" ", w.Keyspace+"."+table+" ", 1)
		stmts = strings.Join(w.For(table), ";\n") + ";\n"
	}
	schemaFile = filepath.Join(dir, table+".cql")
	cqlFile = filepath.Join(dir, table+"-data.cql")
	if err := os.WriteFile(schemaFile, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cqlFile, []byte(stmts), 0o644); err != nil {
		t.Fatal(err)
	}
	return schemaFile, cqlFile
}

// createTypes makes w's user types on the node.
func createTypes(t *testing.T, n *node.Node, w *workload.Workload) {
	t.Helper()
	if err := n.ExecInOrder(w.Types...); err != nil {
		t.Fatal(err)
	}
}

// create makes ks.table on the node with w's schema (its types made
// already by createTypes).
func create(t *testing.T, n *node.Node, w *workload.Workload, table string) {
	t.Helper()
	ddl := w.DDL(table)[len(w.Types):]
	if err := n.ExecInOrder(ddl...); err != nil {
		t.Fatalf("%s: %v", strings.Join(ddl, "; "), err)
	}
}

// write writes w's statements for table with castable in version v into a
// new directory and returns it.
func write(t *testing.T, w *workload.Workload, table, v string) string {
	t.Helper()
	dir := t.TempDir()
	schemaFile, cqlFile := files(t, dir, w, table)
	out := filepath.Join(dir, "out")
	if _, err := cli.Write(context.Background(), quiet(), cli.WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: out, Format: v, Generation: 1}); err != nil {
		t.Fatalf("castable write --format %s: %v", v, err)
	}
	return out
}

// sameRows fails t when the two results differ, naming the first
// different row.
func sameRows(t *testing.T, what string, got, want *node.Result) {
	t.Helper()
	if len(got.Rows) != len(want.Rows) {
		t.Errorf("%s: %d rows, want %d", what, len(got.Rows), len(want.Rows))
	}
	for i := 0; i < min(len(got.Rows), len(want.Rows)); i++ {
		if d := diffRow(got.Columns, got.Rows[i], want.Rows[i]); d != "" {
			t.Errorf("%s: row %d differs: %s\n got %x\nwant %x", what, i, d, got.Rows[i], want.Rows[i])
			return
		}
	}
}

func diffRow(cols []node.Column, a, b [][]byte) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d columns, want %d", len(a), len(b))
	}
	for j := range a {
		if (a[j] == nil) != (b[j] == nil) || !bytes.Equal(a[j], b[j]) {
			name := fmt.Sprint(j)
			if j < len(cols) {
				name = cols[j].Name
			}
			return fmt.Sprintf("column %s: %x, want %x", name, a[j], b[j])
		}
	}
	return ""
}

// keepDir is t.TempDir(), or with CASTABLE_LIVENODE_KEEP=DIR a directory
// below DIR named name that stays after the test (for looking into what
// the node wrote).
func keepDir(t *testing.T, name string) string {
	t.Helper()
	root := os.Getenv("CASTABLE_LIVENODE_KEEP")
	if root == "" {
		return t.TempDir()
	}
	dir := filepath.Join(root, name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("keeping %s", dir)
	return dir
}
