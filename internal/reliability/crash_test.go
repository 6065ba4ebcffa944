package reliability

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/la"
	"github.com/castable-db/castable/sstables/mc"
)

// The crash child: TestMain runs runCrashChild instead of the tests when
// crashChildEnv is set.
const (
	crashChildEnv = "CASTABLE_RELIABILITY_CRASH_CHILD" // the directory to flush into
	crashBatchEnv = "CASTABLE_RELIABILITY_CRASH_BATCH" // the first batch number
	crashFmtEnv   = "CASTABLE_RELIABILITY_CRASH_FORMAT"
	crashSeedEnv  = "CASTABLE_RELIABILITY_CRASH_SEED"
	// crashPartitions and crashRows size each memtable the child flushes
	// (about 250 KB of Data.db, long enough to be killed inside).
	crashPartitions = 500
	crashRows       = 4
)

var (
	crashKills = flag.Int("crash.kills", 40, "SIGKILLs of TestCrashConsistency")
	crashSeed  = flag.Uint64("crash.seed", 0, "seed of TestCrashConsistency's kill delays and formats (0: from the clock)")
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		os.Exit(runCrashChild(dir))
	}
	if dir := os.Getenv(compactChildEnv); dir != "" {
		os.Exit(runCompactionChild(dir))
	}
	os.Exit(m.Run())
}

// crashFormat returns the format and codec a child run flushes with.
func crashFormat(name string) (sstables.Format, compress.Codec) {
	switch name {
	case "la-lz4":
		return la.Format{}, compress.LZ4
	case "mc-none":
		return mc.Format, compress.None
	case "la-none":
		return la.Format{}, compress.None
	}
	return mc.Format, compress.LZ4
}

var crashFormats = []string{"mc-lz4", "la-lz4", "mc-none", "la-none"}

func crashOptions(dir, format string) flush.ServiceOptions {
	f, codec := crashFormat(format)
	return flush.ServiceOptions{
		Options: flush.Options{
			Format: f,
			WriterOptions: sstables.WriterOptions{
				Dir:         dir,
				Jobs:        2,
				Compression: &compress.Params{Codec: codec, ChunkLength: 16 << 10},
			},
		},
		MaxConcurrent: 2,
		MaxPending:    2,
	}
}

// runCrashChild flushes memtable after memtable into dir through a
// flush.Service until it is killed. It prints "ready" once the service has
// started (and cleaned the directory).
func runCrashChild(dir string) int {
	batch, _ := strconv.Atoi(os.Getenv(crashBatchEnv))
	seed, _ := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64)
	opts := crashOptions(dir, os.Getenv(crashFmtEnv))
	opts.OnFlushed = func(*flush.Result) { fmt.Println("flushed") }
	opts.OnError = func(_ *memtable.Frozen, err error) {
		fmt.Fprintln(os.Stderr, "flush failed:", err)
		os.Exit(3)
	}
	svc, err := flush.NewService(context.Background(), opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("ready")
	for ; ; batch++ {
		f, err := buildWorkload(seed, batch, crashPartitions, crashRows)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		if err := svc.Submit(context.Background(), f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
}

// TestCrashConsistency runs a child process (this test binary) that
// flushes memtables through flush.Service, SIGKILLs it after a random delay,
// and checks the directory it leaves: every SSTable with a TOC.txt is
// complete (it verifies and holds exactly the bytes an undisturbed flush of
// its memtable writes), every other file is a leftover castable recognises
// (a temporary name, or a final name of a generation without TOC.txt), and
// the next start (flush.NewService, or sstables.CleanupTemporary) removes
// exactly those leftovers. Formats and codecs rotate between runs in the
// same directory; the seed is logged (-crash.seed replays it).
func TestCrashConsistency(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process tens of times")
	}
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -crash.seed=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	dir := t.TempDir()
	checked := map[sstables.Descriptor]bool{}
	var complete, leftovers, killedMidFlush int
	// The first run measures how long the first flush takes (building the
	// memtable included) on this machine, in this build (-race is several
	// times slower); the kills then land anywhere in [0, 3×) that time.
	var flushTime time.Duration
	for kill := 0; kill < *crashKills; kill++ {
		format := crashFormats[kill%len(crashFormats)]
		before := listNames(t, dir)
		if kill == 0 {
			flushTime = runAndKill(t, dir, format, seed, kill*1000, -1)
			t.Logf("first flush after %v", flushTime)
		} else {
			delay := time.Duration(rng.Int64N(int64(3*flushTime))) + time.Millisecond
			runAndKill(t, dir, format, seed, kill*1000, delay)
		}

		names := listNames(t, dir)
		descs, err := sstables.ListSSTables(nil, dir)
		if err != nil {
			t.Fatal(err)
		}
		var keep []string
		for _, d := range descs {
			for _, n := range names {
				if strings.HasPrefix(n, d.Filename("")) {
					keep = append(keep, n)
				}
			}
			if !checked[d] {
				checkCrashSSTable(t, d, seed)
				checked[d] = true
				complete++
			}
		}
		slices.Sort(keep)
		var rest []string
		for _, n := range names {
			if slices.Contains(keep, n) {
				continue
			}
			if _, _, _, err := sstables.ParseDescriptor(filepath.Join(dir, n)); err != nil {
				t.Fatalf("kill %d: %s is neither part of a complete SSTable nor a recognised leftover", kill, n)
			}
			rest = append(rest, n)
		}
		if len(rest) > 0 {
			killedMidFlush++
			leftovers += len(rest)
		}
		// The next start removes exactly the leftovers.
		var removed []string
		if kill%2 == 0 {
			removed, err = sstables.CleanupTemporary(nil, dir)
		} else {
			var svc *flush.Service
			svc, err = flush.NewService(context.Background(), crashOptions(dir, format))
			if err == nil {
				err = svc.Close()
			}
			removed = slices.DeleteFunc(slices.Clone(rest), func(n string) bool { return slices.Contains(listNames(t, dir), n) })
		}
		if err != nil {
			t.Fatalf("kill %d: cleanup: %v", kill, err)
		}
		slices.Sort(removed)
		if after := listNames(t, dir); !slices.Equal(after, keep) || !slices.Equal(removed, rest) {
			t.Fatalf("kill %d: cleanup removed %v and left %v; want %v removed and %v left (before the run: %d files)", kill, removed, after, rest, keep, len(before))
		}
	}
	t.Logf("%d kills: %d complete SSTables verified, %d kills left leftovers (%d files), all removed at the next start",
		*crashKills, complete, killedMidFlush, leftovers)
	if complete == 0 {
		t.Fatal("no SSTable was ever completed: the kill delays are too short to test anything")
	}
	if killedMidFlush == 0 {
		t.Log("no kill landed inside a flush this time")
	}
}

// runAndKill starts the child flushing into dir, waits until it is ready,
// lets it run for delay and SIGKILLs it. A negative delay waits for its
// first finished flush instead; runAndKill returns the time the child ran
// after it was ready.
func runAndKill(t *testing.T, dir, format string, seed uint64, batch int, delay time.Duration) time.Duration {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		crashChildEnv+"="+dir,
		crashBatchEnv+"="+strconv.Itoa(batch),
		crashFmtEnv+"="+format,
		crashSeedEnv+"="+strconv.FormatUint(seed, 10))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := func() {
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // nobody listens any more
			}
		}
		close(lines)
	}()
	wait := func(want string) {
		select {
		case line, ok := <-lines:
			if !ok || line != want {
				kill()
				t.Fatalf("child said %q (want %q); stderr: %s", line, want, stderr.String())
			}
		case <-time.After(60 * time.Second):
			kill()
			t.Fatalf("child did not say %q within 60s; stderr: %s", want, stderr.String())
		}
	}
	wait("ready")
	start := time.Now()
	if delay < 0 {
		wait("flushed")
	} else {
		time.Sleep(delay)
	}
	ran := time.Since(start)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended on its own (%v) instead of being killed; stderr: %s", err, stderr.String())
	}
	return ran
}

// checkCrashSSTable requires the complete SSTable d to verify and to hold
// exactly the bytes an undisturbed flush of its memtable writes.
func checkCrashSSTable(t *testing.T, d sstables.Descriptor, seed uint64) {
	t.Helper()
	var format string
	var f sstables.Format
	for _, name := range crashFormats {
		ff, _ := crashFormat(name)
		if ff.Version() == d.Version {
			f = ff
			break
		}
	}
	_, table := workloadTable(t)
	r, err := f.Open(d, table, sstables.ReaderOptions{})
	if err != nil {
		t.Fatalf("%s: %v", d, err)
	}
	defer r.Close()
	if err := r.Verify(); err != nil {
		t.Fatalf("%s: a complete SSTable does not verify: %v", d, err)
	}
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	p, err := sc.NextPartition()
	if err != nil {
		t.Fatalf("%s: %v", d, err)
	}
	batch := int(int32(binary.BigEndian.Uint32(p.Key))) / crashPartitions
	sc.Close()
	frozen := workloadMemtable(t, seed, batch, crashPartitions, crashRows)
	// Which codec: CompressionInfo.db exists for LZ4.
	_, statErr := os.Stat(d.Path(sstables.ComponentCompressionInfo))
	format = d.Version.String() + "-none"
	if statErr == nil {
		format = d.Version.String() + "-lz4"
	}
	opts := crashOptions("/ref", format).Options
	m := memfs.New()
	opts.FS = m
	opts.Generation = d.Generation
	if _, err := flush.Flush(context.Background(), frozen, opts); err != nil {
		t.Fatal(err)
	}
	for _, name := range m.Names() {
		want, _ := m.Get(name)
		got, err := os.ReadFile(filepath.Join(d.Dir, filepath.Base(name)))
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if string(got) != string(want) {
			t.Fatalf("%s: %s differs from an undisturbed flush of batch %d", d, filepath.Base(name), batch)
		}
	}
}

func listNames(t *testing.T, dir string) []string {
	t.Helper()
	names, err := sstables.OSFS.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}
