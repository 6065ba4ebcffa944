package node

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/sstables/version"
)

// TestNodeLoadsEveryVersionItReads: what the version table says a release
// reads (version.Version.ReadBy, through Flavour.Reads), a live node of
// that release loads and serves — an SSTable castable writes in each such
// version, loaded as a user loads it (3.11: copy and nodetool refresh; 5.0:
// nodetool import), answers SELECT with its rows.
func TestNodeLoadsEveryVersionItReads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two live nodes")
	}
	Start(Cassandra311, Cassandra50)
	dir := t.TempDir()
	schema := filepath.Join(dir, "s.cql")
	if err := os.WriteFile(schema, []byte("CREATE TABLE w.t (k int PRIMARY KEY, v text);"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "d.cql")
	if err := os.WriteFile(data, []byte("INSERT INTO w.t (k, v) VALUES (1, 'one');\nINSERT INTO w.t (k, v) VALUES (2, 'two');\nINSERT INTO w.t (k, v) VALUES (3, 'three');\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*Flavour{Cassandra311, Cassandra50} {
		t.Run(f.Name, func(t *testing.T) {
			n := Get(t, f)
			ks := n.Keyspace(t)
			vs := version.Select(func(v version.Version) bool { return v.Writable() && f.Reads(v) })
			if len(vs) == 0 {
				t.Fatalf("%s reads no version castable writes", f.Name)
			}
			for _, v := range vs {
				t.Run(v.String(), func(t *testing.T) {
					table := "t_" + v.String()
					if err := n.ExecInOrder("CREATE TABLE " + ks + "." + table + " (k int PRIMARY KEY, v text)"); err != nil {
						t.Fatal(err)
					}
					out := filepath.Join(dir, f.Name, v.String())
					env := &cli.Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true}
					if _, err := cli.Write(context.Background(), env, cli.WriteOptions{Schema: schema, CQL: data, Out: out, Format: v.String(), Generation: 1, Timestamp: 1700000000000000}); err != nil {
						t.Fatal(err)
					}
					if err := n.Load(ks, table, out); err != nil {
						t.Fatal(err)
					}
					res, err := n.Query("SELECT v FROM "+ks+"."+table, 0)
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, r := range res.Rows {
						got = append(got, string(r[0]))
					}
					sort.Strings(got)
					if strings.Join(got, " ") != "one three two" {
						t.Fatalf("%s serves %q from the %s SSTable, want one, three, two", f.Name, got, v)
					}
				})
			}
		})
	}
}
