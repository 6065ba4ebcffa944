package compaction

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// Operation is the kind of a transaction, as its log file is named
// (Cassandra's OperationType.fileName).
type Operation string

// The operations a transaction log may be written for: the ones Cassandra
// 3.11 and 5.0 both know, so that either reads the log.
const (
	OpCompaction          Operation = "compaction"
	OpTombstoneCompaction Operation = "tombstonecompaction"
	OpCleanup             Operation = "cleanup"
	OpScrub               Operation = "scrub"
	OpUpgradeSSTables     Operation = "upgradesstables"
	OpAnticompaction      Operation = "anticompactionafterrepair"
	OpGarbageCollect      Operation = "removedeleteddata"
	OpRelocate            Operation = "relocatesstablestocorrectdisk"
	OpFlush               Operation = "flush"
	OpWrite               Operation = "write"
	OpStream              Operation = "stream"
)

// operations311 are every OperationType.fileName of Cassandra 3.11; 5.0
// adds operations50. A log of another name stops Cassandra's start-up.
var (
	operations311 = []Operation{OpCompaction, "validation", "keycachesave", "rowcachesave", "countercachesave", OpCleanup,
		OpScrub, OpUpgradeSSTables, "secondaryindexbuild", OpTombstoneCompaction, "unknowncompactiontype", OpAnticompaction,
		"verify", OpFlush, OpStream, OpWrite, "viewbuild", "indexsummaryredistribution", OpRelocate, OpGarbageCollect}
	operations50 = []Operation{"cancelalloperations", "majorcompaction"}
)

// Errors of a transaction.
var (
	// ErrCommitUnknown is returned when writing the COMMIT record failed
	// after it may have reached the disk: whether the transaction committed
	// is decided by what the disk kept, which only ReplayTransactions at
	// the next start can tell. Both SSTable sets are complete on disk until
	// then; Abort and Finish refuse to touch either.
	ErrCommitUnknown = errors.New("compaction: the commit record may or may not be durable; replay the directory's transactions before using it again")
	// ErrTxnFailed is returned by every record after one failed to be
	// written: the log may end in a partial line, after which Cassandra
	// reads nothing more. The transaction can only be aborted.
	ErrTxnFailed = errors.New("compaction: an earlier record of the transaction could not be written")
)

// TxnOptions configure a transaction's log.
type TxnOptions struct {
	// LogVersion is the SSTable version the log file's name starts with
	// ("me_txn_compaction_<uuid>.log"; "bti-da_…" for a BTI version, as 5.0
	// names its BTI logs): Cassandra writes its newest version there and
	// reads nothing from it. Zero: the version of the first SSTable the
	// transaction records.
	LogVersion version.Version
	// SeparatorInPath writes record paths with the separator after the
	// SSTable's prefix (".../nb-5-big-"), as Cassandra 4.1 and later do.
	// Those releases read either form, Cassandra 3.0–4.0 only the form
	// without (the default), so a log written with it is left unapplied by
	// them.
	SeparatorInPath bool
}

// txnState is where a transaction is.
type txnState uint8

const (
	txnOpen txnState = iota
	txnCommitted
	txnAborted
	txnUnknown // the COMMIT record's fate is unknown
	txnFinished
)

// Txn is a transaction that replaces SSTables (the obsolete set) by others
// (the new set) in one directory, crash-safely, with a log Cassandra's own
// start-up cleanup reads (Cassandra's LogTransaction, 3.0+). Every record
// is synced before the call that writes it returns, and the directory
// after the log file appears:
//
//  1. TrackNew each output before creating any of its files (an ADD
//     record: on a crash before the commit they are deleted);
//  2. write the outputs (sstables.FileSet: temporary names, TOC.txt last);
//  3. Obsolete each input (a REMOVE record: its files' newest modification
//     time and count, which the cleanup checks before deleting them);
//  4. Commit (a COMMIT record: from then on the new set is the table's);
//  5. once nothing reads the inputs any more, Finish: their files are
//     deleted, oldest first, then the log.
//
// Abort instead of Commit (an ABORT record) and Finish delete the outputs.
// A crash anywhere leaves the old set or the new set once
// ReplayTransactions has run — never both, never neither. A Txn is safe
// for concurrent use.
type Txn struct {
	mu   sync.Mutex
	fs   sstables.FS
	dir  string // canonical
	op   Operation
	id   string
	opts TxnOptions

	name    string // the log's file name, from the first record
	f       sstables.File
	records []logRecord // as written
	added   []trackedSSTable
	removed []trackedSSTable
	state   txnState
	failed  error // the error of a record that could not be written
}

// trackedSSTable is an SSTable a record names.
type trackedSSTable struct {
	desc      sstables.Descriptor
	untracked bool // UntrackNew deleted it
}

// BeginTransaction starts a transaction on the SSTables of dir over fsys
// (sstables.OSFS when nil), which must report modification times
// (sstables.ModTimeFS). The log file is created with the first record.
// Record paths are absolute: dir made absolute with symbolic links
// resolved on the OS filesystem (Java's getCanonicalPath), as given
// otherwise.
func BeginTransaction(fsys sstables.FS, dir string, op Operation, opts TxnOptions) (*Txn, error) {
	if fsys == nil {
		fsys = sstables.OSFS
	}
	if !slices.Contains(operations311, op) {
		return nil, fmt.Errorf("compaction: unknown operation %q", op)
	}
	if _, ok := fsys.(sstables.ModTimeFS); !ok {
		return nil, fmt.Errorf("compaction: %w", sstables.ErrNoModTime)
	}
	canon, err := canonicalDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	return &Txn{fs: fsys, dir: canon, op: op, id: newTimeUUID(), opts: opts}, nil
}

// canonicalDir is dir as records name it.
func canonicalDir(fsys sstables.FS, dir string) (string, error) {
	if fsys != sstables.OSFS {
		return filepath.Clean(dir), nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return abs, nil
}

// newTimeUUID returns a time-based (version 1) UUID as Cassandra's
// UUIDGen.getTimeUUID makes one, in its text form.
func newTimeUUID() string {
	u := sstables.NewUUIDID()
	msb := u.T<<32 | (u.T>>32&0xffff)<<16 | 0x1000 | u.T>>48&0x0fff
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", msb>>32, msb>>16&0xffff, msb&0xffff, u.LSB>>48, u.LSB&0xffffffffffff)
}

// ID returns the transaction's UUID, as its log file name carries it.
func (t *Txn) ID() string { return t.id }

// LogPath returns the path of the log file, "" before the first record.
func (t *Txn) LogPath() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.name == "" {
		return ""
	}
	return filepath.Join(t.dir, t.name)
}

// logName returns the log file name for SSTables of version v.
func (t *Txn) logName(v version.Version) string {
	if t.opts.LogVersion.IsValid() {
		v = t.opts.LogVersion
	}
	prefix := v.String()
	if kind := v.FileKind(); kind != "big" {
		prefix = kind + "-" + prefix
	}
	return prefix + "_txn_" + string(t.op) + "_" + t.id + ".log"
}

// recordPath returns desc's path as records name it, checking that it is
// in the transaction's directory.
func (t *Txn) recordPath(desc sstables.Descriptor) (string, error) {
	dir, err := canonicalDir(t.fs, desc.Dir)
	if err != nil {
		return "", err
	}
	if dir != t.dir {
		return "", fmt.Errorf("compaction: %s is not in the transaction's directory %s", desc, t.dir)
	}
	p := filepath.Join(dir, strings.TrimSuffix(desc.Filename(""), "-"))
	if t.opts.SeparatorInPath {
		p += "-"
	}
	return p, nil
}

// usable checks that records may be added.
func (t *Txn) usable() error {
	switch {
	case t.failed != nil:
		return fmt.Errorf("%w: %v", ErrTxnFailed, t.failed)
	case t.state == txnUnknown:
		return ErrCommitUnknown
	case t.state != txnOpen:
		return errors.New("compaction: transaction already completed")
	}
	return nil
}

// tracked reports whether desc is in a record already.
func (t *Txn) tracked(desc sstables.Descriptor) bool {
	same := func(s trackedSSTable) bool { return s.desc.SameSSTable(desc) }
	return slices.ContainsFunc(t.added, same) || slices.ContainsFunc(t.removed, same)
}

// TrackNew records that the transaction writes desc, an SSTable of
// components (TOC.txt included; their count goes into the record as
// Cassandra counts a writer's files): if the transaction does not commit,
// its files are deleted. Call it before creating any of them; when it
// fails, do not create them.
func (t *Txn) TrackNew(desc sstables.Descriptor, components ...sstables.Component) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.usable(); err != nil {
		return err
	}
	if t.tracked(desc) {
		return fmt.Errorf("compaction: %s is already in the transaction", desc)
	}
	path, err := t.recordPath(desc)
	if err != nil {
		return err
	}
	files, err := t.sstableFiles(desc)
	if err != nil {
		return err
	}
	n := max(len(components), len(files))
	if err := t.append(newRecord(recAdd, path, 0, int32(n)), desc.Version); err != nil {
		return err
	}
	t.added = append(t.added, trackedSSTable{desc: desc})
	return nil
}

// UntrackNew deletes the files of desc, an SSTable TrackNew recorded that
// the transaction will not produce after all (its writer failed), so that
// Commit does not wait for it. Its ADD record stays in the log; it cannot
// be tracked again.
func (t *Txn) UntrackNew(desc sstables.Descriptor) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != txnOpen {
		return errors.New("compaction: transaction already completed")
	}
	i := slices.IndexFunc(t.added, func(s trackedSSTable) bool { return s.desc.SameSSTable(desc) })
	if i < 0 {
		return fmt.Errorf("compaction: %s is not tracked as new", desc)
	}
	path, err := t.recordPath(desc)
	if err != nil {
		return err
	}
	if err := t.deleteSSTableFiles(path, true); err != nil {
		return err
	}
	t.added[i].untracked = true
	return nil
}

// Obsolete records that the transaction replaces desc: once it commits,
// desc's files are deleted. The record carries the newest modification
// time of desc's files and their count (at least the count TOC.txt lists
// as present); Cassandra's cleanup deletes them only while the newest
// time still matches, so nothing may rewrite them before Finish.
func (t *Txn) Obsolete(desc sstables.Descriptor) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.usable(); err != nil {
		return err
	}
	if t.tracked(desc) {
		return fmt.Errorf("compaction: %s is already in the transaction", desc)
	}
	path, err := t.recordPath(desc)
	if err != nil {
		return err
	}
	files, err := t.sstableFiles(desc)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("compaction: %s has no files", desc)
	}
	updateTime, n, err := newestModTime(t.fs, files)
	if err != nil {
		return err
	}
	if toc, err := sstables.ReadTOC(t.fs, desc); err == nil {
		n = max(n, len(toc.Present))
	}
	if err := t.append(newRecord(recRemove, path, updateTime, int32(n)), desc.Version); err != nil {
		return err
	}
	t.removed = append(t.removed, trackedSSTable{desc: desc})
	return nil
}

// sstableFiles returns the paths of desc's files (final names).
func (t *Txn) sstableFiles(desc sstables.Descriptor) ([]string, error) {
	path, err := t.recordPath(desc)
	if err != nil {
		return nil, err
	}
	dir, prefix := (&logRecord{path: path}).prefix()
	return listPrefix(t.fs, dir, prefix)
}

// listPrefix returns the paths of the files in dir whose name starts with
// prefix (none when dir does not exist).
func listPrefix(fsys sstables.FS, dir, prefix string) ([]string, error) {
	names, err := fsys.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out, nil
}

// newestModTime returns the newest modification time of files in
// milliseconds and how many of them exist (LogRecord.make: files gone in
// the meantime do not count).
func newestModTime(fsys sstables.FS, files []string) (int64, int, error) {
	var newest int64
	n := 0
	for _, f := range files {
		mt, err := sstables.ModTime(fsys, f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, 0, err
		}
		if ms := mt.UnixMilli(); ms > 0 {
			newest = max(newest, ms)
			n++
		}
	}
	return newest, n, nil
}

// append writes r durably: the log file is created with the first record
// (and the directory synced after it), every record synced. A failure
// leaves the transaction unable to write more.
func (t *Txn) append(r logRecord, v version.Version) error {
	created := false
	if t.f == nil {
		t.name = t.logName(v)
		f, err := t.fs.Create(filepath.Join(t.dir, t.name))
		if err != nil {
			t.failed = err
			return err
		}
		t.f, created = f, true
	}
	line := r.raw + "\n"
	n, err := t.f.Write([]byte(line))
	if err == nil {
		err = t.f.Sync()
	}
	if err == nil && created {
		err = t.fs.SyncDir(t.dir)
	}
	if err != nil {
		t.failed = err
		if r.typ == recCommit && n >= len(r.raw) {
			// The whole record may be on disk (a failed sync says
			// nothing either way): it is committed if the disk kept it.
			t.state = txnUnknown
			return fmt.Errorf("%w: %v", ErrCommitUnknown, err)
		}
		return err
	}
	t.records = append(t.records, r)
	return nil
}

// closeLog closes the log file (its records are synced already).
func (t *Txn) closeLog() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// Commit makes the new set the table's: it checks that every SSTable
// tracked as new is complete (its TOC.txt exists), then writes the COMMIT
// record durably. Until it returns nil the old set is the table's; when it
// returns an error wrapping ErrCommitUnknown, nobody knows until the next
// ReplayTransactions. Delete the old set's files with Finish.
func (t *Txn) Commit() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.usable(); err != nil {
		return err
	}
	for _, s := range t.added {
		if s.untracked {
			continue
		}
		f, err := t.fs.Open(s.desc.Path(sstables.ComponentTOC))
		if err != nil {
			return fmt.Errorf("compaction: %s is not complete: %w", s.desc, err)
		}
		f.Close()
	}
	if len(t.records) > 0 {
		if err := t.append(newRecord(recCommit, "", 0, 0), version.Version{}); err != nil {
			return err
		}
	}
	t.closeLog()
	t.state = txnCommitted
	return nil
}

// Abort keeps the old set: it writes the ABORT record (when the log can
// still be written; without it the log reads as unfinished, which is
// aborted too). Delete the new set's files with Finish. It does nothing
// after Abort, and fails after Commit and after ErrCommitUnknown.
func (t *Txn) Abort() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch t.state {
	case txnAborted:
		return nil
	case txnUnknown:
		return ErrCommitUnknown
	case txnCommitted, txnFinished:
		return errors.New("compaction: transaction already committed")
	}
	if t.failed == nil && len(t.records) > 0 {
		// A failure here changes nothing: no COMMIT record exists.
		_ = t.append(newRecord(recAbort, "", 0, 0), version.Version{})
	}
	t.closeLog()
	t.state = txnAborted
	return nil
}

// Finish deletes the losing set — the obsolete SSTables after Commit, the
// new ones after Abort — oldest file first (so that the newest
// modification time a REMOVE record holds stays on disk until the last
// file goes, as Cassandra's cleanup deletes them), their temporary
// ("tmp-") files with them, syncs the directory, then deletes the log and
// syncs again. Call it when nothing reads the losing set any more. It may
// be retried after an error; what it leaves, ReplayTransactions finishes.
func (t *Txn) Finish() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var losing []trackedSSTable
	switch t.state {
	case txnFinished:
		return nil
	case txnCommitted:
		losing = t.removed
	case txnAborted:
		losing = t.added
	case txnUnknown:
		return ErrCommitUnknown
	default:
		return errors.New("compaction: transaction neither committed nor aborted")
	}
	if t.name == "" { // nothing was ever recorded
		t.state = txnFinished
		return nil
	}
	if err := t.fs.SyncDir(t.dir); err != nil {
		return err
	}
	for _, s := range losing {
		path, err := t.recordPath(s.desc)
		if err != nil {
			return err
		}
		if err := t.deleteSSTableFiles(path, false); err != nil {
			return err
		}
	}
	if err := t.fs.SyncDir(t.dir); err != nil {
		return err
	}
	if err := t.fs.Remove(filepath.Join(t.dir, t.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := t.fs.SyncDir(t.dir); err != nil {
		return err
	}
	t.state = txnFinished
	return nil
}

// deleteSSTableFiles deletes the files of the SSTable a record path names,
// oldest first, and its temporary files; sync syncs the directory after.
func (t *Txn) deleteSSTableFiles(path string, sync bool) error {
	dir, prefix := (&logRecord{path: path}).prefix()
	if err := deleteRecordFiles(t.fs, dir, prefix, nil); err != nil {
		return err
	}
	if sync {
		return t.fs.SyncDir(dir)
	}
	return nil
}

// deleteRecordFiles deletes the files in dir whose names start with
// prefix, in ascending modification time (then name: TOC.txt sorts after
// the other components), then those starting with the temporary prefix
// and prefix; a file already gone is no error. It appends the names
// deleted to *removed when removed is not nil.
func deleteRecordFiles(fsys sstables.FS, dir, prefix string, removed *[]string) error {
	files, err := listPrefix(fsys, dir, prefix)
	if err != nil {
		return err
	}
	type file struct {
		path string
		ms   int64
	}
	var sorted []file
	for _, f := range files {
		mt, err := sstables.ModTime(fsys, f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		sorted = append(sorted, file{f, mt.UnixMilli()})
	}
	slices.SortStableFunc(sorted, func(a, b file) int {
		switch {
		case a.ms < b.ms:
			return -1
		case a.ms > b.ms:
			return 1
		}
		return strings.Compare(a.path, b.path)
	})
	temp, err := listPrefix(fsys, dir, sstables.TempPrefix+prefix)
	if err != nil {
		return err
	}
	order := make([]string, 0, len(sorted)+len(temp))
	for _, f := range sorted {
		order = append(order, f.path)
	}
	order = append(order, temp...)
	for _, p := range order {
		if err := fsys.Remove(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
		if removed != nil {
			*removed = append(*removed, filepath.Base(p))
		}
	}
	return nil
}
