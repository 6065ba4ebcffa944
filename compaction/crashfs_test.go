package compaction

import (
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/castable-db/castable/sstables"
)

// crashFS is an in-memory sstables.FS that keeps, beside what a running
// process sees, what a crash would leave: a file's content as of its last
// Sync, a directory's entries as of its last SyncDir. Every change (create,
// write, sync, close, rename, remove, directory sync) counts as one
// operation; once limit operations have run the process is dead and every
// later change fails with errCrashed, doing nothing. Image then gives a
// state the disk may be found in after the crash.
type crashFS struct {
	mu      sync.Mutex
	cur     map[string]*cnode // the namespace the process sees
	dur     map[string]*cnode // the namespace as of each directory's last sync
	ops     int
	limit   int // operations allowed; < 0: unlimited
	now     time.Time
	opNames []string
}

// cnode is a file (an inode: renames move it).
type cnode struct {
	data, synced        []byte
	mtime, syncedMtime  time.Time
	everSynced, created bool
}

var errCrashed = errors.New("crashfs: the process crashed")

func newCrashFS() *crashFS {
	return &crashFS{cur: map[string]*cnode{}, dur: map[string]*cnode{}, limit: -1, now: time.Unix(1_700_000_000, 0)}
}

// step counts a change; false means the process is dead.
func (c *crashFS) step(what string) bool {
	if c.limit >= 0 && c.ops >= c.limit {
		return false
	}
	c.ops++
	c.opNames = append(c.opNames, what)
	c.now = c.now.Add(7 * time.Millisecond) // file times cross seconds now and then
	return true
}

func (c *crashFS) Create(name string) (sstables.File, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name = filepath.Clean(name)
	if !c.step("create " + name) {
		return nil, errCrashed
	}
	n := c.cur[name]
	if n == nil {
		n = &cnode{created: true}
		c.cur[name] = n
	}
	n.data, n.mtime = nil, c.now // O_TRUNC
	return &cfile{fs: c, n: n, name: name, writable: true}, nil
}

func (c *crashFS) Open(name string) (sstables.File, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.cur[filepath.Clean(name)]
	if n == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &cfile{fs: c, n: n, name: name, snapshot: slices.Clone(n.data)}, nil
}

func (c *crashFS) Rename(oldname, newname string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	oldname, newname = filepath.Clean(oldname), filepath.Clean(newname)
	n := c.cur[oldname]
	if n == nil {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	if !c.step("rename " + oldname + " " + newname) {
		return errCrashed
	}
	delete(c.cur, oldname)
	c.cur[newname] = n
	return nil
}

func (c *crashFS) Remove(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	name = filepath.Clean(name)
	if c.cur[name] == nil {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	if !c.step("remove " + name) {
		return errCrashed
	}
	delete(c.cur, name)
	return nil
}

func (c *crashFS) SyncDir(dir string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	dir = filepath.Clean(dir)
	if !c.step("syncdir " + dir) {
		return errCrashed
	}
	for name := range c.dur {
		if filepath.Dir(name) == dir {
			delete(c.dur, name)
		}
	}
	for name, n := range c.cur {
		if filepath.Dir(name) == dir {
			c.dur[name] = n
		}
	}
	return nil
}

func (c *crashFS) ReadDir(dir string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dir = filepath.Clean(dir)
	var out []string
	for name := range c.cur {
		if filepath.Dir(name) == dir {
			out = append(out, filepath.Base(name))
		}
	}
	slices.Sort(out)
	return out, nil
}

func (c *crashFS) MkdirAll(string) error { return nil }

func (c *crashFS) ModTime(name string) (time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.cur[filepath.Clean(name)]
	if n == nil {
		return time.Time{}, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return n.mtime, nil
}

// put installs a durable file (written and synced before the test).
func (c *crashFS) put(name string, data []byte, mtime time.Time) {
	n := &cnode{data: data, synced: data, mtime: mtime, syncedMtime: mtime, everSynced: true}
	c.cur[filepath.Clean(name)] = n
	c.dur[filepath.Clean(name)] = n
}

// imageKind is a state a crash may leave.
type imageKind int

const (
	imageDurable  imageKind = iota // only what was synced: synced directories, synced content
	imageAll                       // everything the process did reached the disk
	imageTornLogs                  // everything, but the unsynced end of each log only half
	imageDataOnly                  // synced directories, but every file's content as last written
)

var imageKinds = []imageKind{imageDurable, imageAll, imageTornLogs, imageDataOnly}

func (k imageKind) String() string {
	return [...]string{"durable", "all", "torn-logs", "data-only"}[k]
}

// image returns a new, unlimited crashFS holding what kind says the crash
// left.
func (c *crashFS) image(kind imageKind) *crashFS {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := newCrashFS()
	out.now = c.now.Add(time.Hour)
	ns := c.cur
	if kind == imageDurable || kind == imageDataOnly {
		ns = c.dur
	}
	for name, n := range ns {
		data, mtime := n.data, n.mtime
		switch kind {
		case imageDurable:
			data, mtime = n.synced, n.syncedMtime
			if !n.everSynced {
				mtime = n.mtime
			}
		case imageTornLogs:
			if strings.HasSuffix(name, ".log") && len(n.data) > len(n.synced) && hasPrefix(n.data, n.synced) {
				tail := n.data[len(n.synced):]
				data = append(slices.Clone(n.synced), tail[:len(tail)/2]...)
			}
		}
		out.put(name, slices.Clone(data), mtime)
	}
	return out
}

func hasPrefix(b, p []byte) bool { return len(b) >= len(p) && string(b[:len(p)]) == string(p) }

// files returns every file's content.
func (c *crashFS) files() map[string][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]byte{}
	for name, n := range c.cur {
		out[name] = n.data
	}
	return out
}

type cfile struct {
	fs       *crashFS
	n        *cnode
	name     string
	writable bool
	snapshot []byte
	off      int64
}

func (f *cfile) content() []byte {
	if f.writable {
		return f.n.data
	}
	return f.snapshot
}

func (f *cfile) Read(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	b := f.content()
	if f.off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[f.off:])
	f.off += int64(n)
	return n, nil
}

func (f *cfile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	b := f.content()
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *cfile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if !f.writable {
		return 0, fs.ErrPermission
	}
	if !f.fs.step("write " + f.name) {
		return 0, errCrashed
	}
	f.n.data = append(f.n.data, p...)
	f.n.mtime = f.fs.now
	return len(p), nil
}

func (f *cfile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if !f.writable {
		return nil
	}
	if !f.fs.step("sync " + f.name) {
		return errCrashed
	}
	f.n.synced, f.n.syncedMtime, f.n.everSynced = slices.Clone(f.n.data), f.n.mtime, true
	return nil
}

func (f *cfile) Close() error {
	if !f.writable {
		return nil
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if !f.fs.step("close " + f.name) {
		return errCrashed
	}
	return nil
}

func (f *cfile) Size() (int64, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return int64(len(f.content())), nil
}
