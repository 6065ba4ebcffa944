package compaction_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
	"github.com/castable-db/castable/table"
)

func testTable(t *testing.T) *schema.Table {
	t.Helper()
	s, err := cql.ParseSchema(`CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))`)
	if err != nil {
		t.Fatal(err)
	}
	return s.Table("ks.t")
}

// node is a table embedded as a node would: a flush service and a
// compaction service over one directory, sharing its generations.
type node struct {
	tab  *schema.Table
	fl   *flush.Service
	comp *compaction.Service
	mu   sync.Mutex
	errs []error
}

func openNode(t *testing.T, dir string, tab *schema.Table, minThreshold int) *node {
	t.Helper()
	ctx := context.Background()
	n := &node{tab: tab}
	gens, err := sstables.NewGenerations(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Compaction first: it replays the transactions before anything
	// cleans the directory.
	n.comp, err = compaction.NewService(ctx, compaction.ServiceOptions{Dir: dir, Table: tab, Generations: gens,
		STCS:    compaction.STCSOptions{MinThreshold: minThreshold, MinSSTableSize: 1},
		OnError: func(_ []sstables.Descriptor, err error) { n.mu.Lock(); n.errs = append(n.errs, err); n.mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := sstables.Lookup("nb")
	n.fl, err = flush.NewService(ctx, flush.ServiceOptions{Options: flush.Options{Format: f, WriterOptions: sstables.WriterOptions{Dir: dir}},
		Generations: gens,
		OnFlushed: func(r *flush.Result) {
			if err := n.comp.Add(r.Descriptor); err != nil {
				n.mu.Lock()
				n.errs = append(n.errs, err)
				n.mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *node) close(t *testing.T) {
	t.Helper()
	n.fl.Close()
	n.comp.Close()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, err := range n.errs {
		t.Error(err)
	}
}

// flushBatch writes rows k in [from, to), c in [0, 5), value tagged with
// batch, as one memtable and waits for its flush.
func (n *node) flushBatch(t *testing.T, batch, from, to int) {
	t.Helper()
	mt := memtable.New(n.tab, memtable.Options{})
	b := mutation.NewBuilder(n.tab)
	v := n.tab.Column("v")
	for k := from; k < to; k++ {
		b.Reset(schema.AppendInt(nil, int32(k)))
		for c := 0; c < 5; c++ {
			b.StartRow(mutation.Clustering{schema.AppendInt(nil, int32(c))})
			b.AddLiveCell(v, nil, []byte(fmt.Sprintf("batch %d", batch)), int64(1700000000000000+batch))
		}
		p, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if err := mt.Apply(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.fl.Submit(context.Background(), mt.Freeze()); err != nil {
		t.Fatal(err)
	}
	n.fl.Wait()
}

// content returns the view's rows as "k,c=v" lines.
func content(t *testing.T, tab *schema.Table, rs []sstables.Reader) []string {
	t.Helper()
	set, err := table.NewSet(rs, nil, table.Options{Table: tab})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := set.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var out []string
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for {
			r, m, err := sc.Next()
			if err != nil {
				t.Fatal(err)
			}
			if r == nil && m == nil {
				break
			}
			if r != nil {
				out = append(out, fmt.Sprintf("%x,%x=%s", p.Key, r.Clustering[0], r.Cells[0].Value))
			}
		}
	}
}

func dataFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The embedded node compacts its flushes by size tier in the background:
// four similar SSTables become one holding the same rows (the newest value
// of each), the transaction log is gone, and the inputs are deleted — but
// only once the view a reader took before the compaction is released.
func TestServiceCompactsFlushes(t *testing.T) {
	dir := t.TempDir()
	tab := testTable(t)
	n := openNode(t, dir, tab, 4)
	defer n.close(t)
	for batch := 0; batch < 3; batch++ {
		n.flushBatch(t, batch, batch*50, batch*50+200)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := n.comp.Idle(ctx); err != nil {
		t.Fatal(err)
	}
	if got := len(dataFiles(t, dir)); got != 3 {
		t.Fatalf("%d SSTables before the fourth flush", got)
	}
	before := n.comp.Acquire()
	want := content(t, tab, before.Readers())
	n.flushBatch(t, 3, 150, 350)
	if err := n.comp.Idle(ctx); err != nil {
		t.Fatal(err)
	}
	if st := n.comp.Stats(); st.Compactions != 1 {
		t.Fatalf("stats %+v", st)
	}
	// The old view still reads, and its files are still there.
	if got := content(t, tab, before.Readers()); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatal("the view taken before the compaction changed")
	}
	if got := len(dataFiles(t, dir)); got != 5 {
		t.Fatalf("%d Data.db files while a view holds the inputs, want 5 (4 inputs, 1 output)", got)
	}
	before.Release()
	files := dataFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("after the release: %v", files)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) != 0 {
		t.Fatalf("transaction logs left: %v", logs)
	}
	after := n.comp.Acquire()
	defer after.Release()
	got := content(t, tab, after.Readers())
	if len(got) != 350*5 {
		t.Fatalf("%d rows after the compaction, want %d", len(got), 350*5)
	}
	// Rows 150–199 were written by every batch from 0 to 3: batch 3 wins.
	for _, line := range got {
		if line[len(line)-1] < '0' {
			t.Fatalf("bad row %q", line)
		}
	}
	wantLast := fmt.Sprintf("%x,%x=batch 3", schema.AppendInt(nil, 199), schema.AppendInt(nil, 4))
	found := false
	for _, line := range got {
		if line == wantLast {
			found = true
		}
	}
	if !found {
		t.Fatalf("row 199/4 does not hold batch 3's value")
	}
}

// A service opened on a directory a crash left mid-compaction replays the
// transaction first: uncommitted outputs go, the inputs stay.
func TestServiceReplaysAtOpen(t *testing.T) {
	dir := t.TempDir()
	tab := testTable(t)
	n := openNode(t, dir, tab, 100) // no compaction
	for batch := 0; batch < 2; batch++ {
		n.flushBatch(t, batch, 0, 100)
	}
	v := n.comp.Acquire()
	want := content(t, tab, v.Readers())
	rs := v.Readers()
	// An interrupted compaction: its output tracked and written, no
	// commit.
	txn, err := compaction.BeginTransaction(nil, dir, compaction.OpCompaction, compaction.TxnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := compaction.Compact(context.Background(), rs, tab, compaction.Options{Out: out, Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Move it into the table's directory as generation 50, tracked.
	d := res.Outputs[0].Descriptor
	moved := d
	moved.Dir, moved.Generation = dir, 50
	if err := txn.TrackNew(moved); err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Outputs[0].Components {
		if err := os.Rename(d.Path(c), moved.Path(c)); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range rs {
		if err := txn.Obsolete(r.Descriptor()); err != nil {
			t.Fatal(err)
		}
	}
	v.Release()
	n.close(t)
	// "Crash" here: reopen.
	n2 := openNode(t, dir, tab, 100)
	defer n2.close(t)
	if got := len(dataFiles(t, dir)); got != 2 {
		t.Fatalf("%d SSTables after the replay, want the 2 inputs", got)
	}
	v2 := n2.comp.Acquire()
	defer v2.Release()
	if got := content(t, tab, v2.Readers()); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatal("content changed across the replay")
	}
}
