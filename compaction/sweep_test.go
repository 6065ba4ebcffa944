package compaction

import (
	"fmt"
	"testing"

	"github.com/castable-db/castable/internal/faultfs"
)

// TestCompactionFaults fails the n-th create, write, sync, close, rename,
// remove and directory sync of a whole compaction (for every n, once and
// for good), and a write that fills the disk halfway: the compaction either
// completes or gives up, and after a restart (ReplayTransactions, then
// CleanupTemporary) the directory holds exactly the old SSTables or exactly
// the new ones — the new ones if and only if Commit succeeded, either when
// it could not tell (ErrCommitUnknown).
func TestCompactionFaults(t *testing.T) {
	cases := 0
	for _, op := range []faultfs.Op{faultfs.Create, faultfs.Write, faultfs.Sync, faultfs.Close, faultfs.Rename, faultfs.Remove, faultfs.SyncDir} {
		for _, mode := range []string{"once", "sticky", "nospace"} {
			if mode == "nospace" && op != faultfs.Write {
				continue
			}
			for n := 1; ; n++ {
				base := newOldSet()
				ffs := faultfs.New(base, op, n)
				ffs.Sticky = mode == "sticky"
				ffs.NoSpace = mode == "nospace"
				run := runCompaction(ffs, ffs.Count)
				if !ffs.Failed() {
					if run.err != nil || !run.committed {
						t.Fatalf("%v #%d %s: no fault injected, yet %+v", op, n, mode, run)
					}
					break
				}
				cases++
				name := fmt.Sprintf("%v #%d %s", op, n, mode)
				if run.err == nil && outcome(base.files()) != "new" {
					t.Fatalf("%s: compaction succeeded, directory %s", name, outcome(base.files()))
				}
				if run.err != nil && !run.committed && !run.unknown {
					// Given up in-process: the old set, and at most what a
					// failed Finish could not delete.
					if _, err := recoverDir(base, false); err != nil {
						t.Fatalf("%s (%v): recovery: %v", name, run.err, err)
					}
					if got := outcome(base.files()); got != "old" {
						t.Fatalf("%s (%v): after recovery %s", name, run.err, got)
					}
					continue
				}
				if _, err := recoverDir(base, false); err != nil {
					t.Fatalf("%s (%+v): recovery: %v", name, run, err)
				}
				got := outcome(base.files())
				switch {
				case run.committed && got != "new":
					t.Fatalf("%s: committed, after recovery %s", name, got)
				case run.unknown && got != "new" && got != "old":
					t.Fatalf("%s: commit unknown, after recovery %s", name, got)
				}
			}
		}
	}
	t.Logf("%d faults injected", cases)
}

// TestCompactionCrashes stops the process after every operation of a
// compaction and looks at each state the disk may then be in (only what
// was synced; everything; everything with the logs' unsynced ends half
// written; synced directories with the latest file contents). Opening the
// directory (ReplayTransactions, CleanupTemporary — in either order) must
// find exactly the old SSTables or exactly the new ones, never a mix, never
// a partial SSTable: the old ones while the COMMIT record has not been
// written, the new ones once it has been synced. Every recovery is crashed
// at each of its own operations too, and recovered again.
//
// Between two syncs the disk model keeps all or none of a directory's
// changes, and of a file's appended bytes all, none or (for the logs) half;
// it does not make a later change durable without an earlier one.
func TestCompactionCrashes(t *testing.T) {
	clean := newOldSet()
	full := runCompaction(clean, func() int { return clean.ops })
	if full.err != nil || !full.committed {
		t.Fatal(full)
	}
	total := clean.ops
	var states, replays int
	for limit := 0; limit <= total; limit++ {
		c := newOldSet()
		c.limit = limit
		run := runCompaction(c, func() int { return c.ops })
		if limit < total && run.err == nil {
			t.Fatalf("crash after %d of %d operations went unnoticed", limit, total)
		}
		for _, kind := range imageKinds {
			states++
			name := fmt.Sprintf("crash after %d/%d (%s), %s image", limit, total, lastOp(c), kind)
			var want string
			switch {
			case limit <= full.commitFrom:
				want = "old"
			case limit >= full.commitOK:
				want = "new"
			}
			var got [2]string
			for i, cleanupFirst := range []bool{false, true} {
				img := c.image(kind)
				if _, err := recoverDir(img, cleanupFirst); err != nil {
					t.Fatalf("%s: recovery: %v", name, err)
				}
				got[i] = outcome(img.files())
			}
			if got[0] != got[1] {
				t.Fatalf("%s: replay first gives %s, cleanup first %s", name, got[0], got[1])
			}
			if got[0] != "old" && got[0] != "new" || want != "" && got[0] != want {
				t.Fatalf("%s: %s, want %s", name, got[0], want)
			}
			// A crash during the recovery itself, then a second one (for
			// every fifth state under -short).
			if testing.Short() && limit%5 != 0 {
				continue
			}
			probe := c.image(kind)
			recoverDir(probe, false)
			for rlimit := 0; rlimit < probe.ops; rlimit++ {
				img := c.image(kind)
				img.limit = rlimit
				recoverDir(img, false)
				for _, kind2 := range []imageKind{imageDurable, imageAll} {
					replays++
					again := img.image(kind2)
					if _, err := recoverDir(again, false); err != nil {
						t.Fatalf("%s, recovery crashed after %d (%s), %s image: %v", name, rlimit, lastOp(img), kind2, err)
					}
					if g := outcome(again.files()); g != got[0] {
						t.Fatalf("%s, recovery crashed after %d (%s), %s image: %s, want %s", name, rlimit, lastOp(img), kind2, g, got[0])
					}
				}
			}
		}
	}
	t.Logf("%d operations, %d crash states, %d crashed recoveries", total, states, replays)
}

func lastOp(c *crashFS) string {
	if len(c.opNames) == 0 {
		return "before the first operation"
	}
	return c.opNames[len(c.opNames)-1]
}
