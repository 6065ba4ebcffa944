package la

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/sstables"
)

// TestInferColumnIndexSizeRealFiles: the column index size Cassandra wrote
// the la corpus with comes back from its promoted indexes: 1 KiB for the
// legacy clust table (100 blocks a partition), column_index_size_in_kb 0
// for promoted_index_read (a zero-width block: −1 in WriterOptions), and
// the default where no partition has more than one block.
func TestInferColumnIndexSizeRealFiles(t *testing.T) {
	cases := map[string]int{
		"cassandra-legacy/la/legacy_la_clust/la-1-big":  1 << 10,
		"cassandra-legacy/la/legacy_la_simple/la-1-big": 64 << 10,
		"cassandra/promoted_index_read/la-1-big":        -1,
		"cassandra/counter_test/la-5-big":               64 << 10,
	}
	for _, f := range fixtures {
		if _, ok := cases["cassandra/"+f.name()+"-big"]; !ok {
			cases["cassandra/"+f.name()+"-big"] = 64 << 10
		}
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			desc, _, _, err := sstables.ParseDescriptor(testdata.Path(t, strings.Split(name+"-Data.db", "/")...))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Open(desc, nil, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, ok, err := r.InferColumnIndexSize(64 << 10)
			if err != nil || !ok || got != want {
				t.Fatalf("inferred %d (ok %v, %v), want %d", got, ok, err, want)
			}
		})
	}
}

// TestInferColumnIndexSizeCompactAndCounter: COMPACT STORAGE and counter
// tables, whose rows are their cells alone (no row marker; a counter cell
// carries its timestampOfLastDelete), written by this package's
// reproduction of 2.2's ColumnIndex at several sizes with blocks that end
// inside and between rows, infer the size they were written with.
func TestInferColumnIndexSizeCompactAndCounter(t *testing.T) {
	for _, c := range []struct{ name, ddl, row string }{
		{"compact", "CREATE TABLE ks.c (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE;",
			"INSERT INTO ks.c (pk, ck, v) VALUES (%d, %d, '%s') USING TIMESTAMP 1;"},
		{"compact-dense", "CREATE TABLE ks.d (pk int, c1 int, c2 text, v text, PRIMARY KEY (pk, c1, c2)) WITH COMPACT STORAGE;",
			"INSERT INTO ks.d (pk, c1, c2, v) VALUES (%d, %d, 'x', '%s') USING TIMESTAMP 1;"},
		{"counter", "CREATE TABLE ks.n (pk int, ck int, a counter, b counter, PRIMARY KEY (pk, ck));",
			"UPDATE ks.n SET a = a + %[2]d, b = b + %[2]d WHERE pk = %[1]d AND ck = %[2]d;"},
		{"cql", "CREATE TABLE ks.q (pk int, ck int, v text, w text, PRIMARY KEY (pk, ck));",
			"INSERT INTO ks.q (pk, ck, v, w) VALUES (%d, %d, '%s', 'w') USING TIMESTAMP 1;"},
	} {
		for _, kb := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/%dKiB", c.name, kb), func(t *testing.T) {
				sch, err := cql.ParseSchema(c.ddl)
				if err != nil {
					t.Fatal(err)
				}
				table := sch.Tables[0]
				var stmts strings.Builder
				for pk := 0; pk < 3; pk++ {
					for ck := 0; ck < 400; ck++ {
						fmt.Fprintf(&stmts, c.row+"\n", pk, ck, strings.Repeat("v", 1+ck%37))
					}
				}
				muts, err := cql.NewBuilder(sch, cql.Options{DefaultTimestamp: 1, Now: time.Unix(1700000000, 0)}).Exec(stmts.String())
				if err != nil {
					t.Fatal(err)
				}
				m := memtable.New(table, memtable.Options{NoPurge: true})
				for _, mu := range muts {
					if err := m.Apply(mu.Partition); err != nil {
						t.Fatal(err)
					}
				}
				dir := t.TempDir()
				w, err := NewWriter(table, sstables.WriterOptions{Dir: dir, Generation: 1, ColumnIndexSize: kb << 10}, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := m.Freeze().Ascend(w.Append); err != nil {
					t.Fatal(err)
				}
				res, err := w.Finish()
				if err != nil {
					t.Fatal(err)
				}
				r, err := Open(res.Descriptor, table, sstables.ReaderOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				blocks := 0
				r.Layout(func(pl *PartitionLayout) error { blocks += len(pl.Blocks); return nil })
				if blocks < 10 {
					t.Fatalf("only %d blocks", blocks)
				}
				got, ok, err := r.InferColumnIndexSize(64 << 10)
				if err != nil || !ok || got != kb<<10 {
					t.Fatalf("inferred %d (ok %v, %v), want %d", got, ok, err, kb<<10)
				}
			})
		}
	}
}
