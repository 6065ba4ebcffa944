package compaction

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/castable-db/castable/sstables"
)

// ErrCorruptLog is wrapped by the error of a log ReplayTransactions will
// not apply: Cassandra refuses to start on it, and so should the caller
// (the log and every file it names are left as they are for an operator).
var ErrCorruptLog = errors.New("compaction: transaction log failed verification")

// logFileRegex is the name of a transaction log (LogFile.FILE_REGEX, 5.0's,
// which also takes 3.x's "<version>_txn_<op>_<uuid>.log").
var logFileRegex = regexp.MustCompile(`^((?:[a-z]+-)?.{2}_)?txn_(.*)_(.*)\.log$`)

// uuidRegex is what java.util.UUID.fromString reads: five groups of hex
// digits.
var uuidRegex = regexp.MustCompile(`^[0-9a-fA-F]{1,8}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,12}$`)

// IsLogFile reports whether name is a transaction log's file name.
func IsLogFile(name string) bool { return logFileRegex.MatchString(name) }

// ReplayReport says what ReplayTransactions did.
type ReplayReport struct {
	// Logs are the transaction logs found, by name.
	Logs []LogReplay
}

// LogReplay is what happened to one transaction log.
type LogReplay struct {
	// Log is the log's file name.
	Log string
	// Operation and ID are what its name says.
	Operation Operation
	ID        string
	// Committed is whether the transaction committed: its obsolete
	// SSTables were deleted (else its new ones were).
	Committed bool
	// Removed are the names of the files deleted, the log's last.
	Removed []string
	// Warning is set when the last record was torn or corrupt and, the
	// records before it matching the disk, the log was applied as
	// unfinished anyway (Cassandra logs the same warning).
	Warning string
	// Err is why the log was not applied (wrapping ErrCorruptLog when it
	// failed verification), or the error that stopped its cleanup.
	Err error
}

// ReplayTransactions finishes what the transactions that left a log in dir
// were doing, as Cassandra does at start-up before it lists a table's
// SSTables (LogTransaction.removeUnfinishedLeftovers):
//
//   - a log whose last record is a valid COMMIT: the files of its REMOVE
//     records (the obsolete SSTables) are deleted, oldest first;
//   - any other log (ABORT, or no final record, or a torn or corrupt last
//     record): the files of its ADD records (the new SSTables) are deleted;
//   - then the log itself, the directory synced before and after.
//
// A log is applied only if it verifies: every record parses and its
// checksum matches, no two lines are the same record, a COMMIT or ABORT
// is last, and every REMOVE record's SSTable, if any of its files remain,
// still has the newest modification time the record holds (to the second:
// Cassandra compares them so since JDK 8 and 11 disagree on milliseconds).
// When only the last record fails — a crash while it was written — the log
// is applied as unfinished provided every REMOVE record's SSTable still has
// all its files; a failing record before the last, or a torn last record
// with an obsolete SSTable already partly deleted, leaves the log and all
// its files alone, with an error wrapping ErrCorruptLog. castable also
// deletes the temporary ("tmp-") files of the losing SSTables.
//
// Run it before anything lists or cleans dir — before
// sstables.CleanupTemporary and flush.NewService, which runs it: until a
// committed log is replayed its obsolete SSTables may still have a
// TOC.txt. fsys must report modification times when a log has REMOVE
// records. The error joins the logs' errors; the report is returned
// either way.
func ReplayTransactions(fsys sstables.FS, dir string) (*ReplayReport, error) {
	if fsys == nil {
		fsys = sstables.OSFS
	}
	names, err := fsys.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &ReplayReport{}, nil
		}
		return nil, err
	}
	slices.Sort(names)
	rep := &ReplayReport{}
	var errs []error
	for _, name := range names {
		m := logFileRegex.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		lr := LogReplay{Log: name, Operation: Operation(m[2]), ID: m[3]}
		lr.Err = replayLog(fsys, dir, &lr)
		if lr.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Join(dir, name), lr.Err))
		}
		rep.Logs = append(rep.Logs, lr)
	}
	return rep, errors.Join(errs...)
}

// replayLog verifies and applies one log.
func replayLog(fsys sstables.FS, dir string, lr *LogReplay) error {
	if !slices.Contains(operations311, lr.Operation) && !slices.Contains(operations50, lr.Operation) {
		return fmt.Errorf("%w: invalid operation type %q in the file name", ErrCorruptLog, lr.Operation)
	}
	if !uuidRegex.MatchString(lr.ID) {
		return fmt.Errorf("%w: invalid UUID %q in the file name", ErrCorruptLog, lr.ID)
	}
	path := filepath.Join(dir, lr.Log)
	content, err := readFile(fsys, path)
	if err != nil {
		return err
	}
	if !utf8.Valid(content) {
		return fmt.Errorf("%w: not UTF-8", ErrCorruptLog)
	}
	records, warning, err := verifyLog(fsys, splitLines(content))
	if err != nil {
		return err
	}
	lr.Warning = warning
	last := len(records) - 1
	lr.Committed = last >= 0 && records[last].typ == recCommit && records[last].valid()
	losing := recAdd
	if lr.Committed {
		losing = recRemove
	}
	// LogFile.removeUnfinishedLeftovers: sync, delete the losing records'
	// files (every record of the type, as Cassandra does), sync, delete
	// the log, sync.
	if err := fsys.SyncDir(dir); err != nil {
		return err
	}
	for i := range records {
		if records[i].typ != losing {
			continue
		}
		rdir, prefix := records[i].prefix()
		if err := deleteRecordFiles(fsys, rdir, prefix, &lr.Removed); err != nil {
			return err
		}
	}
	if err := fsys.SyncDir(dir); err != nil {
		return err
	}
	if err := fsys.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	lr.Removed = append(lr.Removed, lr.Log)
	return fsys.SyncDir(dir)
}

// readFile reads a whole file through fsys.
func readFile(fsys sstables.FS, path string) ([]byte, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// onDisk is what a REMOVE record's SSTable has on disk now.
type onDisk struct {
	updateTime int64
	numFiles   int
}

// verifyLog parses and checks a log's lines as LogReplicaSet.readRecords
// and LogFile.verify do for a log of one replica. It returns the records,
// and a warning when the last one failed but the log may be applied.
func verifyLog(fsys sstables.FS, lines []string) ([]logRecord, string, error) {
	records := make([]logRecord, 0, len(lines))
	for i, line := range lines {
		r := parseRecord(line)
		for j := range records {
			if sameRecord(&records[j], &r) {
				return nil, "", fmt.Errorf("%w: duplicate record %q", ErrCorruptLog, line)
			}
		}
		records = append(records, r)
		if r.typ.final() && i != len(lines)-1 {
			return nil, "", fmt.Errorf("%w: %q should have been the last record", ErrCorruptLog, line)
		}
	}
	disk := make([]onDisk, len(records))
	for i := range records {
		r := &records[i]
		if r.typ == recUnknown {
			continue
		}
		if want := r.computeChecksum(); r.checksum != want {
			r.err = fmt.Sprintf("invalid checksum for sstable [%s]: [%d] should have been [%d]", r.path, r.checksum, want)
			continue
		}
		if r.typ != recRemove {
			continue
		}
		dir, prefix := r.prefix()
		files, err := listPrefix(fsys, dir, prefix)
		if err != nil {
			return nil, "", err
		}
		t, n, err := newestModTime(fsys, files)
		if err != nil {
			return nil, "", err
		}
		disk[i] = onDisk{t, n}
		if t > 0 && truncateMillis(t) != truncateMillis(r.updateTime) {
			r.err = fmt.Sprintf("unexpected files detected for sstable [%s]: last update time %d should have been %d", r.path, t, r.updateTime)
		}
	}
	first := slices.IndexFunc(records, func(r logRecord) bool { return !r.valid() })
	if first < 0 {
		return records, "", nil
	}
	if first != len(records)-1 {
		return nil, "", fmt.Errorf("%w: record %d of %d: %s", ErrCorruptLog, first+1, len(records), records[first].err)
	}
	// Only the last record failed: carry on if every obsolete SSTable
	// still has all its files (LogFile.verifyRecordWithCorruptedLastRecord).
	for i := range records[:first] {
		if r := &records[i]; r.typ == recRemove && disk[i].numFiles < int(r.numFiles) {
			return nil, "", fmt.Errorf("%w: the last record is corrupt (%s) and sstable [%s] has %d files, not %d", ErrCorruptLog, records[first].err, r.path, disk[i].numFiles, r.numFiles)
		}
	}
	return records, fmt.Sprintf("last record is corrupt or incomplete [%s], but all previous records match the disk; continuing", records[first].err), nil
}

// truncateMillis is LogFile.truncateMillis: a time in milliseconds to the
// second below.
func truncateMillis(ms int64) int64 { return ms - ms%1000 }
