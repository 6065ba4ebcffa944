package flush

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/internal/faultfs"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/mc"
)

// TestStoreConcurrentWriters runs several writer goroutines and the flush
// service at once (run under -race): every row written is found in exactly
// one SSTable.
func TestStoreConcurrentWriters(t *testing.T) {
	tbl := testTable(t)
	dir := t.TempDir()
	var mu sync.Mutex
	var results []*Result
	svc, err := NewService(context.Background(), ServiceOptions{
		Options:       Options{Format: mc.Format, WriterOptions: sstables.WriterOptions{Dir: dir, Jobs: 2, Compression: &compress.Params{Codec: compress.LZ4}}},
		MaxConcurrent: 2,
		MaxPending:    1,
		OnFlushed: func(r *Result) {
			mu.Lock()
			results = append(results, r)
			mu.Unlock()
		},
		OnError: func(_ *memtable.Frozen, err error) { t.Errorf("flush failed: %v", err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	store := NewStore(tbl, svc, StoreOptions{MemtableSize: 256 << 10})
	const writers, perWriter = 6, 3000
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				// Each writer owns its partitions; rows are unique.
				p := update(tbl, int32(w*perWriter+i/3), int32(i%3), fmt.Sprintf("w%d-%d", w, i), 1)
				if err := store.Apply(context.Background(), p); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if err := store.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc.Wait()
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	descs, err := sstables.ListSSTables(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(descs) < 2 || len(descs) != len(results) {
		t.Fatalf("%d SSTables on disk, %d reported flushed: want several, equal", len(descs), len(results))
	}
	seen := map[string]int{}
	gens := map[int]bool{}
	for _, d := range descs {
		if gens[d.Generation] {
			t.Fatalf("generation %d used twice", d.Generation)
		}
		gens[d.Generation] = true
		for _, row := range rowsOf(t, mc.Format, d, tbl) {
			seen[row]++
		}
	}
	if len(seen) != writers*perWriter {
		t.Fatalf("%d distinct rows found, want %d", len(seen), writers*perWriter)
	}
	for row, n := range seen {
		if n != 1 {
			t.Fatalf("row %s found in %d SSTables", row, n)
		}
	}
	st := svc.Stats()
	if st.Fragments != writers*perWriter || st.Flushed != int64(len(descs)) || st.Failed != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestServiceBackPressure: with one flush running and MaxPending waiting,
// Submit blocks until the service catches up.
func TestServiceBackPressure(t *testing.T) {
	tbl := testTable(t)
	release := make(chan struct{})
	blockFS := &gateFS{FS: sstables.OSFS, gate: release}
	svc, err := NewService(context.Background(), ServiceOptions{
		Options:    Options{Format: mc.Format, WriterOptions: sstables.WriterOptions{Dir: t.TempDir(), FS: blockFS}},
		MaxPending: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	submit := func() chan error {
		done := make(chan error, 1)
		go func() { done <- svc.Submit(context.Background(), fill(t, tbl, 10, 1)) }()
		return done
	}
	// First: taken by the worker (blocked on the gate); second: waits in
	// the queue; third: must block.
	if err := <-submit(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(svc.Running()) == 1 })
	if err := <-submit(); err != nil {
		t.Fatal(err)
	}
	third := submit()
	select {
	case err := <-third:
		t.Fatalf("third Submit returned %v while the service was saturated", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-third; err != nil {
		t.Fatal(err)
	}
	svc.Wait()
	svc.Close()
	if st := svc.Stats(); st.Flushed != 3 {
		t.Fatalf("stats %+v", st)
	}
}

// TestServiceRetriesAndGivesUp: a transient fault is retried into a
// complete SSTable; a permanent one hands the intact memtable to OnError.
func TestServiceRetriesAndGivesUp(t *testing.T) {
	tbl := testTable(t)
	dir := t.TempDir()
	ffs := faultfs.New(nil, faultfs.Rename, 2)
	var failed []error
	svc, err := NewService(context.Background(), ServiceOptions{
		Options:    Options{Format: mc.Format, WriterOptions: sstables.WriterOptions{Dir: dir, FS: ffs}},
		RetryDelay: time.Millisecond,
		OnError:    func(_ *memtable.Frozen, err error) { failed = append(failed, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Submit(context.Background(), fill(t, tbl, 50, 1)); err != nil {
		t.Fatal(err)
	}
	svc.Wait()
	if st := svc.Stats(); st.Flushed != 1 || st.Retries != 1 || len(failed) != 0 {
		t.Fatalf("transient fault: stats %+v, failures %v", st, failed)
	}
	svc.Close()

	sticky := faultfs.New(nil, faultfs.Sync, 1)
	sticky.Sticky = true
	frozen := fill(t, tbl, 50, 1)
	var gaveUp *memtable.Frozen
	svc, err = NewService(context.Background(), ServiceOptions{
		Options:    Options{Format: mc.Format, WriterOptions: sstables.WriterOptions{Dir: dir, FS: sticky}},
		Retries:    2,
		RetryDelay: time.Millisecond,
		OnError:    func(f *memtable.Frozen, err error) { gaveUp = f; failed = append(failed, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Submit(context.Background(), frozen); err != nil {
		t.Fatal(err)
	}
	svc.Wait()
	svc.Close()
	if gaveUp != frozen || len(failed) != 1 || !errors.Is(failed[0], faultfs.ErrInjected) {
		t.Fatalf("permanent fault: gave up %p (want %p), errors %v", gaveUp, frozen, failed)
	}
	if descs, _ := sstables.ListSSTables(nil, dir); len(descs) != 1 {
		t.Fatalf("%d SSTables, want only the first", len(descs))
	}
}

// TestServiceCancel: cancelling the context aborts the running flush and
// hands back every memtable not flushed.
func TestServiceCancel(t *testing.T) {
	tbl := testTable(t)
	release := make(chan struct{})
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var returned int
	svc, err := NewService(ctx, ServiceOptions{
		Options:    Options{Format: mc.Format, WriterOptions: sstables.WriterOptions{Dir: dir, FS: &gateFS{FS: sstables.OSFS, gate: release}}},
		MaxPending: 2,
		OnError: func(*memtable.Frozen, error) {
			mu.Lock()
			returned++
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := svc.Submit(context.Background(), fill(t, tbl, 10, 1)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { return len(svc.Running()) == 1 })
	cancel()
	close(release)
	svc.Wait()
	svc.Close()
	if returned != 3 {
		t.Fatalf("%d memtables handed back, want 3", returned)
	}
	if descs, _ := sstables.ListSSTables(nil, dir); len(descs) != 0 {
		t.Fatalf("cancelled service left SSTables %v", descs)
	}
	if err := svc.Submit(context.Background(), fill(t, tbl, 1, 1)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit after Close = %v", err)
	}
}

// gateFS blocks every Create until gate is closed.
type gateFS struct {
	sstables.FS
	gate chan struct{}
}

func (g *gateFS) Create(name string) (sstables.File, error) {
	<-g.gate
	return g.FS.Create(name)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}
