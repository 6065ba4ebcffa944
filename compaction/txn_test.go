package compaction

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/sstables"
)

// testDir is the table directory of the transaction tests; the tests
// against Cassandra set it to a real directory.
var testDir = "/data/ks/t-1b255f4def2540a60000000000000001"

// sstableComponents are the files a test SSTable has (TOC.txt written by
// FileSet.Commit).
var sstableComponents = []sstables.Component{sstables.ComponentData, sstables.ComponentIndex, sstables.ComponentStatistics,
	sstables.ComponentSummary, sstables.ComponentFilter, sstables.ComponentCompressionInfo, sstables.ComponentDigestCRC32}

func testDesc(gen int) sstables.Descriptor {
	return sstables.Descriptor{Dir: testDir, Version: mustVersion("me"), Generation: gen}
}

// componentBytes is the content of a test SSTable's component.
func componentBytes(gen int, c sstables.Component) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("%d/%s;", gen, c)), 3+gen%5)
}

// writeSSTable writes a test SSTable through a FileSet, as a flush or a
// compaction writer does (temporary names, TOC.txt last).
func writeSSTable(fsys sstables.FS, gen int) error {
	set, err := sstables.NewFileSet(fsys, testDesc(gen))
	if err != nil {
		return err
	}
	for _, c := range sstableComponents {
		if err := set.WriteComponent(c, componentBytes(gen, c)); err != nil {
			set.Abort()
			return err
		}
	}
	if _, err := set.Commit(); err != nil {
		set.Abort()
		return err
	}
	return nil
}

// putSSTable installs a complete, durable test SSTable whose files were
// written from mtime on, 300 ms apart, and TOC.txt more than a second after
// the last of them: alone in the newest second, so that deleting it first
// would change the newest time Cassandra's replay checks.
func putSSTable(c *crashFS, gen int, mtime time.Time) {
	d := testDesc(gen)
	for i, comp := range sstableComponents {
		c.put(d.Path(comp), componentBytes(gen, comp), mtime.Add(time.Duration(i)*300*time.Millisecond))
	}
	c.put(d.Path(sstables.ComponentTOC), tocBytes(d), tocTime(mtime))
}

// tocTime is the modification time putSSTable gives TOC.txt.
func tocTime(mtime time.Time) time.Time {
	return mtime.Add(time.Duration(len(sstableComponents)-1)*300*time.Millisecond + 1100*time.Millisecond)
}

func tocBytes(d sstables.Descriptor) []byte {
	return sstables.AppendVersionTOC(nil, append(slices.Clone(sstableComponents), sstables.ComponentTOC), d.Version)
}

// expectedFiles returns the names and contents of the given SSTables.
func expectedFiles(gens ...int) map[string][]byte {
	out := map[string][]byte{}
	for _, g := range gens {
		d := testDesc(g)
		for _, c := range sstableComponents {
			out[d.Path(c)] = componentBytes(g, c)
		}
		out[d.Path(sstables.ComponentTOC)] = tocBytes(d)
	}
	return out
}

var (
	oldGens = []int{1, 2, 3, 4}
	newGens = []int{5, 6}
)

// compactionRun is what a scenario run did.
type compactionRun struct {
	err        error
	committed  bool // Commit returned nil
	unknown    bool // Commit returned ErrCommitUnknown
	commitFrom int  // operations done before the COMMIT record's write
	commitOK   int  // operations done when Commit returned nil
}

// runCompaction replaces oldGens by newGens as the compaction service
// will: begin, track each output, write it, obsolete the inputs, commit,
// finish; on an error, abort and finish (unless the commit's outcome is
// unknown: then the next start decides).
func runCompaction(fsys sstables.FS, ops func() int) compactionRun {
	var run compactionRun
	txn, err := BeginTransaction(fsys, testDir, OpCompaction, TxnOptions{})
	if err != nil {
		run.err = err
		return run
	}
	fail := func(err error) compactionRun {
		run.err = err
		if errors.Is(err, ErrCommitUnknown) {
			run.unknown = true
			return run
		}
		if aerr := txn.Abort(); aerr == nil {
			txn.Finish()
		}
		return run
	}
	for _, g := range newGens {
		if err := txn.TrackNew(testDesc(g), append(slices.Clone(sstableComponents), sstables.ComponentTOC)...); err != nil {
			return fail(err)
		}
		if err := writeSSTable(fsys, g); err != nil {
			return fail(err)
		}
	}
	for _, g := range oldGens {
		if err := txn.Obsolete(testDesc(g)); err != nil {
			return fail(err)
		}
	}
	run.commitFrom = ops()
	if err := txn.Commit(); err != nil {
		return fail(err)
	}
	run.committed, run.commitOK = true, ops()
	if err := txn.Finish(); err != nil {
		run.err = err
	}
	return run
}

// newOldSet returns a crashFS holding the old SSTables.
func newOldSet() *crashFS {
	c := newCrashFS()
	for i, g := range oldGens {
		putSSTable(c, g, c.now.Add(time.Duration(i)*5*time.Second))
	}
	c.now = c.now.Add(time.Minute)
	return c
}

// recoverDir does what opening the table does: replay the logs, then
// clean temporary files (flush.NewService's sstables.CleanupTemporary), or
// the other way round when cleanupFirst.
func recoverDir(fsys sstables.FS, cleanupFirst bool) (*ReplayReport, error) {
	if cleanupFirst {
		if _, err := sstables.CleanupTemporary(fsys, testDir); err != nil {
			return nil, err
		}
	}
	rep, err := ReplayTransactions(fsys, testDir)
	if err != nil {
		return rep, err
	}
	if !cleanupFirst {
		if _, err := sstables.CleanupTemporary(fsys, testDir); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// outcome says which set a directory holds: "old", "new", or a
// description of what is wrong. Every file must belong to a complete
// SSTable of exactly one set, byte for byte.
func outcome(files map[string][]byte) string {
	for _, set := range []struct {
		name string
		gens []int
	}{{"old", oldGens}, {"new", newGens}} {
		want := expectedFiles(set.gens...)
		if maps.EqualFunc(files, want, bytes.Equal) {
			return set.name
		}
	}
	var names []string
	for n := range files {
		names = append(names, filepath.Base(n))
	}
	slices.Sort(names)
	return "neither set: " + strings.Join(names, " ")
}

func TestTxnCommitAndFinish(t *testing.T) {
	c := newOldSet()
	run := runCompaction(c, func() int { return c.ops })
	if run.err != nil || !run.committed {
		t.Fatalf("%+v", run)
	}
	if got := outcome(c.files()); got != "new" {
		t.Fatal(got)
	}
}

func TestTxnLogContent(t *testing.T) {
	m := memfs.New()
	clock := time.UnixMilli(1_700_000_000_123)
	m.SetClock(func() time.Time { clock = clock.Add(time.Millisecond); return clock })
	for _, g := range oldGens {
		if err := writeSSTable(m, g); err != nil {
			t.Fatal(err)
		}
	}
	txn, err := BeginTransaction(m, testDir, OpCompaction, TxnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.TrackNew(testDesc(5), append(slices.Clone(sstableComponents), sstables.ComponentTOC)...); err != nil {
		t.Fatal(err)
	}
	logName := filepath.Base(txn.LogPath())
	if !strings.HasPrefix(logName, "me_txn_compaction_") || !IsLogFile(logName) || !strings.HasSuffix(logName, txn.ID()+".log") {
		t.Errorf("log name %s", logName)
	}
	if err := writeSSTable(m, 5); err != nil {
		t.Fatal(err)
	}
	var times []int64
	for _, g := range oldGens {
		d := testDesc(g)
		mt, _ := m.ModTime(d.Path(sstables.ComponentTOC)) // written last
		times = append(times, mt.UnixMilli())
		if err := txn.Obsolete(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	b, _ := m.Get(txn.LogPath())
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	want := []string{newRecord(recAdd, testDir+"/me-5-big", 0, 8).raw}
	for i, g := range oldGens {
		want = append(want, newRecord(recRemove, fmt.Sprintf("%s/me-%d-big", testDir, g), times[i], 8).raw)
	}
	want = append(want, newRecord(recCommit, "", 0, 0).raw)
	if !slices.Equal(lines, want) {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// Replaying a committed log does what Finish does.
	rep, err := ReplayTransactions(m, testDir)
	if err != nil || len(rep.Logs) != 1 || !rep.Logs[0].Committed || rep.Logs[0].Operation != OpCompaction {
		t.Fatalf("%+v %v", rep, err)
	}
	if got := filesOf(m); !maps.EqualFunc(got, expectedFiles(5), bytes.Equal) {
		t.Errorf("after replay: %v", slices.Sorted(maps.Keys(got)))
	}
}

func filesOf(m *memfs.FS) map[string][]byte {
	out := map[string][]byte{}
	for _, n := range m.Names() {
		b, _ := m.Get(n)
		out[n] = b
	}
	return out
}

func TestTxnAbortAndFinish(t *testing.T) {
	c := newOldSet()
	txn, err := BeginTransaction(c, testDir, OpCompaction, TxnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range newGens {
		if err := txn.TrackNew(testDesc(g)); err != nil {
			t.Fatal(err)
		}
		if err := writeSSTable(c, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Obsolete(testDesc(1)); err != nil {
		t.Fatal(err)
	}
	if err := txn.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err == nil {
		t.Error("commit after abort")
	}
	if err := txn.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := outcome(c.files()); got != "old" {
		t.Fatal(got)
	}
}

func TestTxnMisuse(t *testing.T) {
	c := newOldSet()
	if _, err := BeginTransaction(c, testDir, "majorcompaction", TxnOptions{}); err == nil {
		t.Error("an operation 3.11 cannot read")
	}
	if _, err := BeginTransaction(nullModTimeFS{c}, testDir, OpCompaction, TxnOptions{}); !errors.Is(err, sstables.ErrNoModTime) {
		t.Errorf("FS without times: %v", err)
	}
	txn, _ := BeginTransaction(c, testDir, OpCompaction, TxnOptions{})
	if err := txn.TrackNew(sstables.Descriptor{Dir: "/elsewhere", Version: mustVersion("me"), Generation: 9}); err == nil {
		t.Error("an SSTable of another directory")
	}
	if err := txn.TrackNew(testDesc(5)); err != nil {
		t.Fatal(err)
	}
	if err := txn.TrackNew(testDesc(5)); err == nil {
		t.Error("tracked twice: Cassandra's replay refuses duplicate records")
	}
	if err := txn.Obsolete(testDesc(5)); err == nil {
		t.Error("obsoleting a new SSTable")
	}
	if err := txn.Obsolete(testDesc(99)); err == nil {
		t.Error("obsoleting an SSTable without files")
	}
	if err := txn.Commit(); err == nil || !strings.Contains(err.Error(), "not complete") {
		t.Errorf("commit before the output is written: %v", err)
	}
	if err := txn.Finish(); err == nil {
		t.Error("finish before commit or abort")
	}
	// The writer of 5 gave up: untrack it, and the commit goes through.
	if err := txn.UntrackNew(testDesc(5)); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := txn.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := outcome(c.files()); got != "old" {
		t.Error(got)
	}
	// A transaction that recorded nothing writes no log.
	empty, _ := BeginTransaction(c, testDir, OpCompaction, TxnOptions{})
	if err := empty.Commit(); err != nil || empty.LogPath() != "" {
		t.Errorf("%v %q", err, empty.LogPath())
	}
}

type nullModTimeFS struct{ sstables.FS }

func TestLogNames(t *testing.T) {
	c := newOldSet()
	for _, tc := range []struct {
		opts TxnOptions
		desc sstables.Descriptor
		want string
	}{
		{TxnOptions{}, testDesc(5), "me_txn_compaction_"},
		{TxnOptions{LogVersion: mustVersion("oa")}, testDesc(5), "oa_txn_compaction_"},
		{TxnOptions{}, sstables.Descriptor{Dir: testDir, Version: mustVersion("da"), Generation: 7}, "bti-da_txn_compaction_"},
	} {
		txn, _ := BeginTransaction(c, testDir, OpCompaction, tc.opts)
		if err := txn.TrackNew(tc.desc); err != nil {
			t.Fatal(err)
		}
		if name := filepath.Base(txn.LogPath()); !strings.HasPrefix(name, tc.want) || !IsLogFile(name) {
			t.Errorf("%s, want %s…", name, tc.want)
		}
		txn.Abort()
		txn.Finish()
	}
	// 4.1+'s path form.
	txn, _ := BeginTransaction(c, testDir, OpCompaction, TxnOptions{SeparatorInPath: true})
	txn.TrackNew(testDesc(5))
	b := c.files()[txn.LogPath()]
	if want := newRecord(recAdd, testDir+"/me-5-big-", 0, 0).raw + "\n"; string(b) != want {
		t.Errorf("%q, want %q", b, want)
	}
	txn.Abort()
	txn.Finish()
	// The UUID is a version-1 (time-based) one.
	if id := txn.ID(); len(id) != 36 || id[14] != '1' || !uuidRegex.MatchString(id) || !strings.ContainsAny(id[19:20], "89ab") {
		t.Errorf("uuid %s", id)
	}
}

func TestRecordFormatAndParse(t *testing.T) {
	r := newRecord(recRemove, "/d/me-1-big", 1_700_000_000_123, 8)
	if !strings.HasPrefix(r.raw, "REMOVE:[/d/me-1-big,1700000000123,8][") {
		t.Fatal(r.raw)
	}
	p := parseRecord(r.raw)
	if !p.valid() || p.computeChecksum() != p.checksum || !sameRecord(&p, &r) {
		t.Errorf("%+v", p)
	}
	for _, tc := range []struct {
		line  string
		typ   recordType
		valid bool // parses and its checksum matches
	}{
		{newRecord(recAdd, "/d/me-5-big", 0, 8).raw, recAdd, true},
		{strings.ToLower(newRecord(recAdd, "/d/me-5-big", 0, 8).raw[:3]) + newRecord(recAdd, "/d/me-5-big", 0, 8).raw[3:], recAdd, true},
		{newRecord(recCommit, "", 0, 0).raw, recCommit, true},
		{newRecord(recAbort, "", 0, 0).raw, recAbort, true},
		// What a reader ignores is not in the checksum.
		{"COMMIT:[anything,12,34][" + strings.Split(newRecord(recCommit, "", 0, 0).raw, "][")[1], recCommit, true},
		{"ADD:[/d/me-5-big,99,8][" + strings.Split(newRecord(recAdd, "/d/me-5-big", 0, 8).raw, "][")[1], recAdd, true},
		{"ADD:[/d/me-5-big,0,8][1]", recAdd, false},                 // checksum
		{"ADD:[/d/me-5-big,0,8][", recUnknown, false},               // torn
		{"ADD:[/d/me-5-big,0,8]", recUnknown, false},                // torn
		{"ADD:[/d/me-5-big,0,8][12", recUnknown, false},             // torn
		{"ADD:[/d/me-5-big,0,][123]", recUnknown, false},            // Integer.parseInt("")
		{"ADD:[/d/me-5-big,0,99999999999][123]", recUnknown, false}, // past an int
		{"ADD:[/d/me-5-big][123]", recUnknown, false},
		{"", recUnknown, false},
		{"DELETE:[/d/me-5-big,0,8][123]", recUnknown, false},
	} {
		p := parseRecord(tc.line)
		if tc.valid && p.valid() && p.checksum != p.computeChecksum() {
			p.err = "checksum"
		}
		if p.typ != tc.typ || (p.valid() && p.checksum == p.computeChecksum()) != tc.valid {
			t.Errorf("%q: type %v valid %v (%s)", tc.line, p.typ, p.valid(), p.err)
		}
	}
}

func TestSplitLines(t *testing.T) {
	for in, want := range map[string][]string{
		"":           nil,
		"a":          {"a"},
		"a\n":        {"a"},
		"a\nb":       {"a", "b"},
		"a\r\nb\r\n": {"a", "b"},
		"a\rb":       {"a", "b"},
		"a\n\nb":     {"a", "", "b"},
		"\n":         {""},
	} {
		if got := splitLines([]byte(in)); !slices.Equal(got, want) {
			t.Errorf("%q: %q", in, got)
		}
	}
}
