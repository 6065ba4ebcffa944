package livenode

import (
	"bytes"
	"encoding/binary"
	"github.com/castable-db/castable/internal/node"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The harness itself: a 5.0 node starts, answers CQL with the raw bytes it
// serialized, flushes into the table's directory, and a second Get shares
// it.
func TestNodeAnswersAndFlushes(t *testing.T) {
	n := node.Get(t, node.Cassandra50)
	if node.Get(t, node.Cassandra50) != n {
		t.Fatal("a second Get started another node")
	}
	ks := n.Keyspace(t)
	if err := n.ExecInOrder("CREATE TABLE " + ks + ".t (k int PRIMARY KEY, v text, f vector<float, 2>)"); err != nil {
		t.Fatal(err)
	}
	if err := n.Exec("INSERT INTO "+ks+".t (k, v, f) VALUES (1, 'one', [1.5, -2]) USING TIMESTAMP 10",
		"INSERT INTO "+ks+".t (k, v) VALUES (2, null) USING TIMESTAMP 10"); err != nil {
		t.Fatal(err)
	}
	res, err := n.Query("SELECT k, v, f, writetime(v) FROM "+ks+".t WHERE k = 1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Columns) != 4 || res.Columns[3].Name != "writetime(v)" || res.Columns[2].Type != "vector<float, 2>" && !strings.Contains(res.Columns[2].Type, "Vector") {
		t.Fatalf("columns %+v", res.Columns)
	}
	if len(res.Rows) != 1 {
		t.Fatalf("%d rows", len(res.Rows))
	}
	r := res.Rows[0]
	want := []byte{0x3f, 0xc0, 0, 0, 0xc0, 0, 0, 0}
	if binary.BigEndian.Uint32(r[0]) != 1 || string(r[1]) != "one" || !bytes.Equal(r[2], want) || binary.BigEndian.Uint64(r[3]) != 10 {
		t.Fatalf("row %x", r)
	}
	res, err = n.Query("SELECT v FROM "+ks+".t WHERE k = 2", 0)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != nil {
		t.Fatalf("null: %v %v", res, err)
	}
	if _, err := n.Query("SELECT nope FROM "+ks+".t", 0); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("a bad query: %v", err)
	}
	if err := n.Flush(ks, "t"); err != nil {
		t.Fatal(err)
	}
	dir, err := n.TableDir(ks, "t")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*-Data.db"))
	if len(m) != 1 || !strings.HasPrefix(filepath.Base(m[0]), n.Flavour.Flushes().String()+"-") {
		t.Fatalf("flushed %v", m)
	}
	if _, err := os.Stat(n.Dir); err != nil {
		t.Fatal(err)
	}
}
