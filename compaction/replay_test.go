package compaction

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/sstables"
)

const testUUID = "3f1d2c80-8d0b-11ee-9c5b-5f3e1d2c8a11"

// replayFixture is a directory with old SSTables 1 and 2 and the new
// SSTable 5, complete, and the records a compaction between them writes.
type replayFixture struct {
	fs                  *crashFS
	add5, rm1, rm2      logRecord
	commit, abort       logRecord
	t1, t2              int64 // the old SSTables' newest modification times (ms)
	logName             string
	oldPrefix, newFiles []string
}

func newReplayFixture() *replayFixture {
	c := newCrashFS()
	base := time.UnixMilli(1_700_000_000_250)
	putSSTable(c, 1, base)
	putSSTable(c, 2, base.Add(2*time.Second))
	putSSTable(c, 5, base.Add(10*time.Second))
	f := &replayFixture{fs: c, logName: "me_txn_compaction_" + testUUID + ".log"}
	f.t1 = tocTime(base).UnixMilli() // TOC.txt, the newest
	f.t2 = tocTime(base.Add(2 * time.Second)).UnixMilli()
	f.add5 = newRecord(recAdd, testDir+"/me-5-big", 0, 8)
	f.rm1 = newRecord(recRemove, testDir+"/me-1-big", f.t1, 8)
	f.rm2 = newRecord(recRemove, testDir+"/me-2-big", f.t2, 8)
	f.commit = newRecord(recCommit, "", 0, 0)
	f.abort = newRecord(recAbort, "", 0, 0)
	return f
}

func (f *replayFixture) writeLog(name string, lines ...string) {
	content := ""
	for _, l := range lines {
		content += l + "\n"
	}
	f.fs.put(filepath.Join(testDir, name), []byte(content), f.fs.now)
}

// left returns the generations whose TOC.txt remains, and whether the
// directory holds anything else than complete SSTables.
func (f *replayFixture) left() (gens []int, logs []string) {
	names, _ := f.fs.ReadDir(testDir)
	for _, n := range names {
		if IsLogFile(n) {
			logs = append(logs, n)
			continue
		}
		d, c, _, err := sstables.ParseDescriptor(n)
		if err == nil && c == sstables.ComponentTOC {
			gens = append(gens, d.Generation)
		}
	}
	return gens, logs
}

func TestReplayRules(t *testing.T) {
	type setup func(f *replayFixture) []string
	for _, tc := range []struct {
		name      string
		lines     setup
		logName   string
		prepare   func(f *replayFixture)
		gens      []int  // the SSTables left
		committed bool   // the report says so
		warn      bool   // the last record was corrupt, the log applied
		corrupt   string // ErrCorruptLog with this fragment: nothing touched
	}{
		{name: "committed", lines: func(f *replayFixture) []string { return []string{f.add5.raw, f.rm1.raw, f.rm2.raw, f.commit.raw} }, gens: []int{5}, committed: true},
		{name: "aborted", lines: func(f *replayFixture) []string { return []string{f.add5.raw, f.rm1.raw, f.rm2.raw, f.abort.raw} }, gens: []int{1, 2}},
		{name: "unfinished", lines: func(f *replayFixture) []string { return []string{f.add5.raw, f.rm1.raw, f.rm2.raw} }, gens: []int{1, 2}},
		{name: "only an ADD", lines: func(f *replayFixture) []string { return []string{f.add5.raw} }, gens: []int{1, 2}},
		{name: "empty log", lines: func(f *replayFixture) []string { return nil }, gens: []int{1, 2, 5}},
		{name: "torn commit", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, f.rm1.raw, f.rm2.raw, f.commit.raw[:len(f.commit.raw)-3]}
		}, gens: []int{1, 2}, warn: true},
		{name: "torn remove", lines: func(f *replayFixture) []string { return []string{f.add5.raw, f.rm1.raw, f.rm2.raw[:9]} }, gens: []int{1, 2}, warn: true},
		{name: "last checksum wrong", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, f.rm1.raw, f.rm2.raw, "COMMIT:[,0,0][1]"}
		}, gens: []int{1, 2}, warn: true},
		{name: "torn last, an obsolete SSTable incomplete", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, f.rm1.raw, f.rm2.raw, "COMM"}
		}, prepare: func(f *replayFixture) {
			f.fs.Remove(testDesc(1).Path(sstables.ComponentData))
		}, corrupt: "has 7 files, not 8"},
		{name: "committed, an obsolete SSTable partly deleted", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, f.rm1.raw, f.rm2.raw, f.commit.raw}
		}, prepare: func(f *replayFixture) {
			f.fs.Remove(testDesc(1).Path(sstables.ComponentData)) // oldest first: the newest time stays
		}, gens: []int{5}, committed: true},
		{name: "committed, an obsolete SSTable gone", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, f.rm1.raw, f.rm2.raw, f.commit.raw}
		}, prepare: func(f *replayFixture) {
			for _, n := range mustReadDir(f.fs, "me-1-big-") {
				f.fs.Remove(n)
			}
		}, gens: []int{5}, committed: true},
		{name: "corrupt middle record", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, "REMOVE:[" + testDir + "/me-1-big,1,8][1]", f.rm2.raw, f.commit.raw}
		}, corrupt: "record 2 of 4"},
		{name: "garbage in the middle", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, "#!", f.rm2.raw, f.commit.raw}
		}, corrupt: "Failed to parse"},
		{name: "empty line in the middle", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, "", f.rm2.raw}
		}, corrupt: "Failed to parse"},
		{name: "obsolete SSTable rewritten (restored from a backup)", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, f.rm1.raw, f.rm2.raw, f.commit.raw}
		}, prepare: func(f *replayFixture) {
			f.fs.cur[testDesc(1).Path(sstables.ComponentFilter)].mtime = time.UnixMilli(f.t1 + 5000)
		}, corrupt: "unexpected files detected"},
		{name: "update time differs within its second", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, f.rm1.raw, f.rm2.raw, f.commit.raw}
		}, prepare: func(f *replayFixture) {
			f.fs.cur[testDesc(1).Path(sstables.ComponentFilter)].mtime = time.UnixMilli(f.t1 + 400) // 1700000003.150 → .550
		}, gens: []int{5}, committed: true},
		{name: "duplicate record", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, f.add5.raw, f.rm1.raw}
		}, corrupt: "duplicate record"},
		{name: "two garbage lines are duplicates", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, "x", "y"}
		}, corrupt: "duplicate record"},
		{name: "record after commit", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, f.rm1.raw, f.commit.raw, f.rm2.raw}
		}, corrupt: "should have been the last"},
		{name: "blank line after commit", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw, f.rm1.raw, f.commit.raw, ""}
		}, corrupt: "should have been the last"},
		{name: "CRLF", lines: func(f *replayFixture) []string {
			return []string{f.add5.raw + "\r", f.rm1.raw + "\r", f.rm2.raw + "\r", f.commit.raw + "\r"}
		}, gens: []int{5}, committed: true},
		{name: "4.1+ paths", lines: func(f *replayFixture) []string {
			return []string{newRecord(recAdd, testDir+"/me-5-big-", 0, 8).raw, newRecord(recRemove, testDir+"/me-1-big-", f.t1, 8).raw, f.commit.raw}
		}, gens: []int{2, 5}, committed: true},
		{name: "5.0 BTI name", logName: "bti-da_txn_compaction_" + testUUID + ".log", lines: func(f *replayFixture) []string { return []string{f.add5.raw} }, gens: []int{1, 2}},
		{name: "name without version", logName: "txn_compaction_" + testUUID + ".log", lines: func(f *replayFixture) []string { return []string{f.add5.raw} }, gens: []int{1, 2}},
		{name: "unknown operation", logName: "me_txn_frobnicate_" + testUUID + ".log", lines: func(f *replayFixture) []string { return []string{f.add5.raw} }, corrupt: "operation"},
		{name: "bad uuid", logName: "me_txn_compaction_xyz.log", lines: func(f *replayFixture) []string { return []string{f.add5.raw} }, corrupt: "UUID"},
		{name: "temporary files of the losing side", lines: func(f *replayFixture) []string { return []string{f.add5.raw} }, prepare: func(f *replayFixture) {
			f.fs.put(testDesc(5).TempPath(sstables.ComponentData), []byte("x"), f.fs.now)
		}, gens: []int{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newReplayFixture()
			name := f.logName
			if tc.logName != "" {
				name = tc.logName
			}
			f.writeLog(name, tc.lines(f)...)
			if tc.prepare != nil {
				tc.prepare(f)
			}
			before := f.fs.files()
			rep, err := ReplayTransactions(f.fs, testDir)
			if len(rep.Logs) != 1 {
				t.Fatalf("%d logs reported", len(rep.Logs))
			}
			lr := rep.Logs[0]
			if tc.corrupt != "" {
				if !errors.Is(err, ErrCorruptLog) || !strings.Contains(err.Error(), tc.corrupt) || !errors.Is(lr.Err, ErrCorruptLog) {
					t.Fatalf("got %v, want a corrupt log error with %q", err, tc.corrupt)
				}
				if after := f.fs.files(); len(after) != len(before) {
					t.Errorf("a refused log changed the directory: %d files, then %d", len(before), len(after))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gens, logs := f.left()
			if !slices.Equal(gens, tc.gens) || len(logs) != 0 {
				t.Errorf("left SSTables %v and logs %v, want %v", gens, logs, tc.gens)
			}
			if lr.Committed != tc.committed || (lr.Warning != "") != tc.warn {
				t.Errorf("report %+v", lr)
			}
			if !slices.Contains(lr.Removed, name) {
				t.Errorf("removed %v", lr.Removed)
			}
			if tc.name == "temporary files of the losing side" && slices.Contains(mustReadDir(f.fs, "tmp-"), testDesc(5).TempPath(sstables.ComponentData)) {
				t.Error("temporary file of a new SSTable left")
			}
		})
	}
}

func mustReadDir(c *crashFS, prefix string) []string {
	names, _ := c.ReadDir(testDir)
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, filepath.Join(testDir, n))
		}
	}
	return out
}

func TestReplaySeveralLogs(t *testing.T) {
	f := newReplayFixture()
	// A committed compaction of 1 into 5, and a corrupt one of 2.
	f.writeLog("me_txn_compaction_"+testUUID+".log", f.add5.raw, f.rm1.raw, f.commit.raw)
	f.writeLog("me_txn_compaction_4f1d2c80-8d0b-11ee-9c5b-5f3e1d2c8a11.log", "ADD:[x][1]", f.rm2.raw, f.commit.raw)
	rep, err := ReplayTransactions(f.fs, testDir)
	if !errors.Is(err, ErrCorruptLog) || len(rep.Logs) != 2 || rep.Logs[0].Err != nil || rep.Logs[1].Err == nil {
		t.Fatalf("%v %+v", err, rep)
	}
	gens, logs := f.left()
	if !slices.Equal(gens, []int{2, 5}) || len(logs) != 1 {
		t.Errorf("%v %v", gens, logs)
	}
	// A directory that does not exist has nothing to replay.
	if rep, err := ReplayTransactions(f.fs, "/nowhere"); err != nil || len(rep.Logs) != 0 {
		t.Errorf("%v %v", rep, err)
	}
}
