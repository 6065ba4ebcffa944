package reliability

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

// The compaction crash child: TestMain runs runCompactionChild when
// compactChildEnv names a directory.
const (
	compactChildEnv = "CASTABLE_RELIABILITY_COMPACT_CHILD"
	compactBatchEnv = "CASTABLE_RELIABILITY_COMPACT_BATCH"
	compactKeys     = 300 // keys per batch, 5 rows each; each batch overlaps the previous by two thirds
	compactStep     = 100
)

func compactTable() *schema.Table {
	s, err := cql.ParseSchema(`CREATE TABLE ks.c (k int, c int, v text, PRIMARY KEY (k, c))`)
	if err != nil {
		panic(err)
	}
	return s.Table("ks.c")
}

// openEmbedded opens a table as an embedded node does: the compaction
// service first (it replays what a crash left), then the flush service,
// sharing the directory's generations; every flush is handed to the
// compaction service, which compacts as soon as two SSTables are alike.
func openEmbedded(dir string, tab *schema.Table, onFlushed func(), onErr func(error)) (*flush.Service, *compaction.Service, error) {
	gens, err := sstables.NewGenerations(nil, dir)
	if err != nil {
		return nil, nil, err
	}
	comp, err := compaction.NewService(context.Background(), compaction.ServiceOptions{Dir: dir, Table: tab, Generations: gens,
		STCS:    compaction.STCSOptions{MinThreshold: 2, MinSSTableSize: 1},
		OnError: func(_ []sstables.Descriptor, err error) { onErr(err) }})
	if err != nil {
		return nil, nil, err
	}
	f, err := sstables.Lookup("nb")
	if err != nil {
		return nil, nil, err
	}
	fl, err := flush.NewService(context.Background(), flush.ServiceOptions{
		Options:     flush.Options{Format: f, WriterOptions: sstables.WriterOptions{Dir: dir, Compression: &compress.Params{Codec: compress.LZ4, ChunkLength: 16 << 10}}},
		Generations: gens,
		OnFlushed: func(r *flush.Result) {
			if err := comp.Add(r.Descriptor); err != nil {
				onErr(err)
			}
			if onFlushed != nil {
				onFlushed()
			}
		},
		OnError: func(_ *memtable.Frozen, err error) { onErr(err) },
	})
	if err != nil {
		comp.Close()
		return nil, nil, err
	}
	return fl, comp, nil
}

// compactBatch is batch n's memtable: keys [n·step, n·step+keys), five
// rows each, every value "batch n" written at timestamp base+n.
func compactBatch(tab *schema.Table, n int) (*memtable.Frozen, error) {
	mt := memtable.New(tab, memtable.Options{})
	b := mutation.NewBuilder(tab)
	v := tab.Column("v")
	for k := n * compactStep; k < n*compactStep+compactKeys; k++ {
		b.Reset(schema.AppendInt(nil, int32(k)))
		for c := 0; c < 5; c++ {
			b.StartRow(mutation.Clustering{schema.AppendInt(nil, int32(c))})
			b.AddLiveCell(v, nil, []byte("batch "+strconv.Itoa(n)), int64(1700000000000000+n))
		}
		p, err := b.Finish()
		if err != nil {
			return nil, err
		}
		if err := mt.Apply(p); err != nil {
			return nil, err
		}
	}
	return mt.Freeze(), nil
}

// runCompactionChild flushes batch after batch into dir, the compaction
// service compacting behind, until it is killed; it prints "flushed N"
// once batch N's SSTable is part of the table.
func runCompactionChild(dir string) int {
	batch, _ := strconv.Atoi(os.Getenv(compactBatchEnv))
	tab := compactTable()
	fail := func(err error) { fmt.Fprintln(os.Stderr, "child:", err); os.Exit(3) }
	var flushed = make(chan struct{}, 1)
	fl, _, err := openEmbedded(dir, tab, func() { flushed <- struct{}{} }, fail)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("ready")
	for ; ; batch++ {
		f, err := compactBatch(tab, batch)
		if err != nil {
			fail(err)
		}
		if err := fl.Submit(context.Background(), f); err != nil {
			fail(err)
		}
		<-flushed
		fmt.Println("flushed", batch)
	}
}

// expectedContent is the table after batches [0, n): each row holds the
// value of the last batch that wrote it.
func expectedContent(n int) map[[2]int32]string {
	out := map[[2]int32]string{}
	for b := 0; b < n; b++ {
		for k := b * compactStep; k < b*compactStep+compactKeys; k++ {
			for c := 0; c < 5; c++ {
				out[[2]int32{int32(k), int32(c)}] = "batch " + strconv.Itoa(b)
			}
		}
	}
	return out
}

func readContent(t *testing.T, tab *schema.Table, rs []sstables.Reader) map[[2]int32]string {
	t.Helper()
	out := map[[2]int32]string{}
	if len(rs) == 0 {
		return out
	}
	set, err := table.NewSet(rs, nil, table.Options{Table: tab})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := set.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		k := int32(uint32(p.Key[0])<<24 | uint32(p.Key[1])<<16 | uint32(p.Key[2])<<8 | uint32(p.Key[3]))
		for {
			r, m, err := sc.Next()
			if err != nil {
				t.Fatal(err)
			}
			if r == nil && m == nil {
				break
			}
			if r != nil {
				c := r.Clustering[0]
				out[[2]int32{k, int32(uint32(c[0])<<24 | uint32(c[1])<<16 | uint32(c[2])<<8 | uint32(c[3]))}] = string(r.Cells[0].Value)
			}
		}
	}
}

func sameContent(a, b map[[2]int32]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestCompactionCrashConsistency: a child process (this test binary) runs
// an embedded table — flushes into a directory while the compaction
// service compacts them in the background, transactions and all — and is
// SIGKILLed at random moments. After each kill the next open (the
// compaction service replays the transaction logs, then cleans temporary
// files) leaves a table that holds exactly the batches flushed so far
// (every batch the child reported, and possibly the one it was flushing),
// no transaction log, and only SSTables that verify: never an input beside
// its committed output, never a partial output. The seed is logged
// (-crash.seed replays it).
func TestCompactionCrashConsistency(t *testing.T) {
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	kills := 16
	if testing.Short() {
		kills = 5
	}
	dir := t.TempDir()
	tab := compactTable()
	next := 0 // the first batch the next child flushes
	committed, unfinished := 0, 0
	for kill := 0; kill < kills; kill++ {
		cmd := exec.Command(os.Args[0], "-test.run", "^$")
		cmd.Env = append(os.Environ(), compactChildEnv+"="+dir, compactBatchEnv+"="+strconv.Itoa(next))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		if l := <-lines; l != "ready" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child: %q %s", l, stderr.String())
		}
		delay := time.Duration(50+rng.IntN(700)) * time.Millisecond
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if strings.Contains(stderr.String(), "child:") {
			t.Fatalf("the child failed: %s", stderr.String())
		}
		reported := next - 1
		for l := range lines {
			if n, ok := strings.CutPrefix(l, "flushed "); ok {
				reported, _ = strconv.Atoi(n)
			}
		}
		// Reopen: replay, clean, and check.
		var openErrs []error
		fl, comp, err := openEmbedded(dir, tab, nil, func(err error) { openErrs = append(openErrs, err) })
		if err != nil {
			t.Fatalf("kill %d (after %v): reopening: %v", kill, delay, err)
		}
		for _, lr := range comp.Replayed().Logs {
			if lr.Committed {
				committed++
			} else {
				unfinished++
			}
		}
		v := comp.Acquire()
		for _, r := range v.Readers() {
			if err := r.Verify(); err != nil {
				t.Fatalf("kill %d: %s does not verify: %v", kill, r.Descriptor(), err)
			}
		}
		got := readContent(t, tab, v.Readers())
		v.Release()
		fl.Close()
		comp.Close()
		for _, err := range openErrs {
			t.Fatalf("kill %d: %v", kill, err)
		}
		// The replay finished what the crash left, and a compaction the
		// reopened service began was finished or aborted by Close.
		if logs, _ := filepath.Glob(filepath.Join(dir, "*.log")); len(logs) != 0 {
			t.Fatalf("kill %d: transaction logs left: %v", kill, logs)
		}
		switch {
		case sameContent(got, expectedContent(reported+1)):
			next = reported + 1
		case sameContent(got, expectedContent(reported+2)):
			next = reported + 2 // the batch being flushed made it
		default:
			t.Fatalf("kill %d (after %v): the table holds %d rows, not batches 0–%d (%d rows) or 0–%d", kill, delay, len(got), reported, len(expectedContent(reported+1)), reported+1)
		}
		t.Logf("kill %d after %v: batches 0–%d, %d SSTables", kill, delay, next-1, len(v.Readers()))
	}
	t.Logf("the kills left %d committed and %d unfinished compaction transactions, all replayed", committed, unfinished)
}
