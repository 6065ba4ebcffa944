// Package node runs live single-node Apache Cassandra servers for tests
// (../shared/tools/cassandra-node): Cassandra 3.11.17 and the 5.0-era trunk,
// from the same source builds as the oracles (internal/oracle), on 127.0.0.1
// only. A test loads what castable wrote into a running node and reads it
// back with SELECT, or lets the node flush and compact and compares what
// Cassandra wrote with what castable writes.
//
// One node per flavour runs per test binary: Get starts it on first use
// (about 8–17 s) and every later caller shares it; each test works in a
// keyspace of its own (Node.Keyspace). A package whose tests use nodes
// calls Main from its TestMain, which stops them when the tests end; a
// watchdog process stops a node whose test binary died without that (a
// panic, a timeout, SIGKILL). Ports are free ones picked at start, work
// directories are temporary, so several test binaries run nodes at once.
//
// A test that needs a node is skipped with the reason when the machine
// cannot run one (no JDK, no python3-cassandra, no ../shared/tools), unless
// CASTABLE_REQUIRE_NODE or CASTABLE_REQUIRE_TESTDATA is 1 (as in CI), when
// it fails instead.
package node

import (
	"bufio"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/castable-db/castable/internal/oracle"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables/version"
)

// Flavour is a kind of node: a Cassandra release and its configuration.
type Flavour struct {
	// Name is "cassandra-3.11", "cassandra-5.0" or "cassandra-5.0-bti".
	Name string
	// Release is the Cassandra release, "3.11" or "5.0": which SSTable
	// versions it reads and writes (version.Version.ReadBy, WrittenBy).
	Release string
	// BTI says the node writes the trie-indexed format (sstable:
	// selected_format: bti); it still reads the big format.
	BTI bool

	build       func() (*oracle.Oracle, string, error)
	once        sync.Once
	node        *Node
	unavailable string
	err         error
}

// The flavours.
var (
	Cassandra311   = &Flavour{Name: "cassandra-3.11", Release: "3.11", build: oracle.Build311}
	Cassandra50    = &Flavour{Name: "cassandra-5.0", Release: "5.0", build: oracle.Build50}
	Cassandra50BTI = &Flavour{Name: "cassandra-5.0-bti", Release: "5.0", BTI: true, build: oracle.Build50}
)

// Reads reports whether a node of this flavour reads SSTables of version v
// (the version table's ReadBy of its release).
func (f *Flavour) Reads(v version.Version) bool { return v.ReadBy(f.Release) }

// Flushes returns the version a node of this flavour writes when it
// flushes or compacts: the newest version its release writes in the index
// layout it is configured for (3.11: me; 5.0: oa, whose node runs without
// the CASSANDRA_4 compatibility mode; 5.0 BTI: da).
func (f *Flavour) Flushes() version.Version {
	family := version.Big
	if f.BTI {
		family = version.BTI
	}
	var last version.Version
	for _, v := range version.OfFamily(family) {
		if v.WrittenBy(f.Release) {
			last = v
		}
	}
	return last
}

// Flavours lists every flavour.
func Flavours() []*Flavour { return []*Flavour{Cassandra311, Cassandra50, Cassandra50BTI} }

// Node is a running Cassandra server.
type Node struct {
	Flavour *Flavour
	// Dir is the node's work directory (data in Dir/data).
	Dir string
	// NativePort is the CQL port; JMXPort nodetool's.
	NativePort, JMXPort int
	// PID is the server's process.
	PID int

	tools    string
	watchdog *os.Process
	build    string

	toolMu  sync.Mutex
	tool    *exec.Cmd
	toolIn  io.WriteCloser
	toolOut *bufio.Reader

	cqlMu  sync.Mutex
	cql    *exec.Cmd
	cqlIn  io.WriteCloser
	cqlOut *bufio.Reader

	keyspaces atomic.Int64
}

func required() bool {
	return os.Getenv("CASTABLE_REQUIRE_NODE") == "1" || os.Getenv("CASTABLE_REQUIRE_TESTDATA") == "1"
}

// Available reports why this machine cannot run a node ("" when it can):
// the tools beside the project, a JDK, Debian's python3-cassandra.
func Available() string {
	tools := toolsDir()
	if _, err := os.Stat(filepath.Join(tools, "start.sh")); err != nil {
		return fmt.Sprintf("%s not found (it lives beside the project in ../shared/tools)", filepath.Join(tools, "start.sh"))
	}
	if _, err := exec.LookPath("java"); err != nil {
		return "no JDK (install openjdk-17-jdk-headless)"
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import cassandra").Run(); err != nil {
		return "no CQL driver (apt-get install python3-cassandra; it must import under /usr/bin/python3)"
	}
	return ""
}

func toolsDir() string {
	return filepath.Join(filepath.Dir(testdata.Root()), "tools", "cassandra-node")
}

var (
	runningMu sync.Mutex
	running   []*Node
)

// Start starts the flavours' nodes in the background, so that a test that
// needs several waits for the slowest start, not for the sum; Get then
// returns them. It never fails: Get reports the error.
func Start(fs ...*Flavour) {
	if Available() != "" {
		return
	}
	for _, f := range fs {
		go f.start()
	}
}

// Get returns the running node of flavour f, starting it on first use; it
// skips (or, in CI, fails) tb when no node can run here.
func Get(tb testing.TB, f *Flavour) *Node {
	tb.Helper()
	if why := Available(); why != "" {
		if required() {
			tb.Fatalf("a live %s node is required here: %s", f.Name, why)
		}
		tb.Skipf("skipping: no live %s node: %s", f.Name, why)
	}
	f.start()
	if f.unavailable != "" {
		if required() {
			tb.Fatalf("a live %s node is required here: %s", f.Name, f.unavailable)
		}
		tb.Skipf("skipping: no live %s node: %s", f.Name, f.unavailable)
	}
	if f.err != nil {
		tb.Fatalf("starting a %s node: %v", f.Name, f.err)
	}
	return f.node
}

func (f *Flavour) start() {
	f.once.Do(func() {
		var o *oracle.Oracle
		if o, f.unavailable, f.err = f.build(); f.unavailable == "" && f.err == nil {
			f.node, f.err = launch(f, o.Dir())
		}
	})
}

// Main runs the tests and stops every node they started; call it from
// TestMain: func TestMain(m *testing.M) { node.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	StopAll()
	os.Exit(code)
}

// StopAll stops every node this process started.
func StopAll() {
	runningMu.Lock()
	nodes := running
	running = nil
	runningMu.Unlock()
	var wg sync.WaitGroup
	for _, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n.stop()
		}()
	}
	wg.Wait()
}

// freePorts returns n ports free on 127.0.0.1, each with the port after it
// free too (start.sh uses storage+1 for TLS).
func freePorts(n int) ([]int, error) {
	var out []int
	for tries := 0; len(out) < n && tries < 1000; tries++ {
		p := 20000 + rand.IntN(40000)
		ok := true
		for _, q := range []int{p, p + 1, p + 118} {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(q))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			out = append(out, p)
		}
	}
	if len(out) < n {
		return nil, fmt.Errorf("no free ports on 127.0.0.1")
	}
	return out, nil
}

// patchDir is the directory of javac-compiled replacement classes shared by
// every node of a build on this machine (compiled on the first start, under
// a lock, then only read).
func patchDir(build string) (dir string, unlock func(), err error) {
	dir = filepath.Join(os.TempDir(), "castable-node-patch-"+strings.ReplaceAll(strings.Trim(build, "/"), "/", "_"))
	if _, err := os.Stat(filepath.Join(dir, ".castable-done")); err == nil {
		return dir, func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return "", nil, err
	}
	return dir, func() {
		os.WriteFile(filepath.Join(dir, ".castable-done"), nil, 0o644)
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
	}, nil
}

func launch(f *Flavour, build string) (*Node, error) {
	tools := toolsDir()
	dir, err := os.MkdirTemp("", "castable-node-"+f.Name+"-")
	if err != nil {
		return nil, err
	}
	watchdog := watch(dir)
	patch, unlock, err := patchDir(build)
	if err != nil {
		return nil, err
	}
	if f.Release == "5.0" {
		if err := shadowStreamLib(patch); err != nil {
			unlock()
			return nil, err
		}
	}
	var n *Node
	for attempt := 0; attempt < 3; attempt++ {
		var ports []int
		if ports, err = freePorts(3); err != nil {
			break
		}
		cmd := exec.Command("bash", filepath.Join(tools, "start.sh"), build, dir,
			strconv.Itoa(ports[0]), strconv.Itoa(ports[1]), strconv.Itoa(ports[2]))
		cmd.Env = append(os.Environ(), "PATCH_DIR="+patch)
		if f.BTI {
			cmd.Env = append(cmd.Env, "EXTRA_YAML=sstable:\n  selected_format: bti\n")
		}
		if os.Getenv("HEAP") == "" {
			cmd.Env = append(cmd.Env, "HEAP=768m")
		}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		pid, _ := strconv.Atoi(strings.TrimSpace(lastLine(stdout.String())))
		if err != nil || pid == 0 {
			err = fmt.Errorf("%s: %v\n%s", filepath.Join(tools, "start.sh"), err, stderr.String())
			if p, perr := os.ReadFile(filepath.Join(dir, "cassandra.pid")); perr == nil {
				// It started but did not answer in time: do not leave it.
				if pid, _ := strconv.Atoi(strings.TrimSpace(string(p))); pid > 0 {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				os.Remove(filepath.Join(dir, "cassandra.pid"))
			}
			if strings.Contains(stderr.String(), "already in use") {
				continue // another process took a port meanwhile
			}
			break
		}
		n = &Node{Flavour: f, Dir: dir, NativePort: ports[0], JMXPort: ports[2], PID: pid, tools: tools, build: build}
		break
	}
	unlock()
	if n == nil {
		os.RemoveAll(dir)
		if watchdog != nil {
			watchdog.Kill()
		}
		return nil, err
	}
	n.watchdog = watchdog
	runningMu.Lock()
	running = append(running, n)
	runningMu.Unlock()
	if err := n.startCQL(); err != nil {
		n.stop()
		return nil, err
	}
	return n, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// watch starts a process of its own session that kills the node of work
// directory dir (the PID start.sh writes there) and removes the directory
// once this process is gone, however it ended — also during start-up.
func watch(dir string) *os.Process {
	script := fmt.Sprintf(`while kill -0 %d 2>/dev/null; do sleep 1; done; [ -f %q ] && kill -9 "$(cat %q)" 2>/dev/null; sleep 1; rm -rf %q`,
		os.Getpid(), filepath.Join(dir, "cassandra.pid"), filepath.Join(dir, "cassandra.pid"), dir)
	cmd := exec.Command("bash", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil
	}
	go cmd.Wait()
	return cmd.Process
}

func (n *Node) stop() {
	n.toolMu.Lock()
	if n.tool != nil {
		n.toolIn.Close()
		n.tool.Process.Kill()
		n.tool.Wait()
		n.tool = nil
	}
	n.toolMu.Unlock()
	n.cqlMu.Lock()
	if n.cql != nil {
		n.cqlIn.Close()
		n.cql.Process.Kill()
		n.cql.Wait()
		n.cql = nil
	}
	n.cqlMu.Unlock()
	// A test node's data is thrown away: no need for stop.sh's graceful
	// SIGTERM (5–7 s).
	syscall.Kill(n.PID, syscall.SIGKILL)
	for i := 0; i < 100 && syscall.Kill(n.PID, 0) == nil; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if n.watchdog != nil {
		n.watchdog.Kill()
	}
	os.RemoveAll(n.Dir)
}

//go:embed cqlclient.py
var cqlClient []byte

func (n *Node) startCQL() error {
	script := filepath.Join(n.Dir, "castable-cqlclient.py")
	if err := os.WriteFile(script, cqlClient, 0o644); err != nil {
		return err
	}
	cmd := exec.Command("/usr/bin/python3", script, strconv.Itoa(n.NativePort))
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	n.cql, n.cqlIn, n.cqlOut = cmd, in, bufio.NewReaderSize(out, 1<<20)
	var hello struct{ Ready bool }
	line, err := n.cqlOut.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &hello)
	}
	if err != nil || !hello.Ready {
		return fmt.Errorf("the CQL client did not connect to %s: %v\n%s", n.Flavour.Name, err, stderr.String())
	}
	return nil
}

type answer struct {
	OK      bool        `json:"ok"`
	Error   string      `json:"error"`
	Columns [][2]string `json:"columns"`
	Rows    [][]*string `json:"rows"`
}

func (n *Node) request(req any) (*answer, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	n.cqlMu.Lock()
	defer n.cqlMu.Unlock()
	if n.cql == nil {
		return nil, fmt.Errorf("the %s node is stopped", n.Flavour.Name)
	}
	if _, err := n.cqlIn.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("CQL client: %w", err)
	}
	line, err := n.cqlOut.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("CQL client: %w", err)
	}
	var a answer
	if err := json.Unmarshal(line, &a); err != nil {
		return nil, fmt.Errorf("CQL client answered %q: %w", line, err)
	}
	if a.Error != "" {
		return nil, fmt.Errorf("%s", a.Error)
	}
	return &a, nil
}

// Exec runs CQL statements (each without its trailing ';'), 64 at a time
// in any order: give every write a USING TIMESTAMP.
func (n *Node) Exec(stmts ...string) error {
	for len(stmts) > 0 {
		k := min(len(stmts), 2000)
		if _, err := n.request(map[string]any{"stmts": stmts[:k]}); err != nil {
			return err
		}
		stmts = stmts[k:]
	}
	return nil
}

// ExecInOrder runs statements one after the other (schema changes).
func (n *Node) ExecInOrder(stmts ...string) error {
	if len(stmts) == 0 {
		return nil
	}
	_, err := n.request(map[string]any{"stmts": stmts, "seq": true})
	return err
}

// Column is a result column: its name and CQL type as the driver names
// them ("count", "writetime(v)"; "list<int>").
type Column struct{ Name, Type string }

// Result is what a SELECT returned: the columns and every row's values as
// the node serialized them (the native protocol form; nil is null).
type Result struct {
	Columns []Column
	Rows    [][][]byte
}

// Query runs a SELECT and returns every row (all pages of fetch rows; 0
// means 5,000).
func (n *Node) Query(stmt string, fetch int) (*Result, error) {
	a, err := n.request(map[string]any{"query": stmt, "fetch": fetch})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	res := &Result{}
	for _, c := range a.Columns {
		res.Columns = append(res.Columns, Column{Name: c[0], Type: c[1]})
	}
	for _, r := range a.Rows {
		row := make([][]byte, len(r))
		for i, v := range r {
			if v == nil {
				continue
			}
			if row[i], err = hex.DecodeString(*v); err != nil {
				return nil, err
			}
			if row[i] == nil {
				row[i] = []byte{}
			}
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// Nodetool runs nodetool against the node and returns what it printed.
// The commands run in one JVM kept for the node (CastableNodetool, Cassandra's
// own NodeTool class), a few tens of milliseconds each instead of the 1.4 s
// of nodetool.sh's start.
func (n *Node) Nodetool(args ...string) (string, error) {
	for _, a := range args {
		if strings.ContainsAny(a, "\t\n") {
			return "", fmt.Errorf("nodetool argument %q holds a tab or newline", a)
		}
	}
	n.toolMu.Lock()
	defer n.toolMu.Unlock()
	if n.tool == nil {
		if err := n.startTool(); err != nil {
			return "", err
		}
	}
	fail := func(err error) (string, error) {
		n.toolIn.Close()
		n.tool.Process.Kill()
		n.tool.Wait()
		n.tool = nil
		return "", fmt.Errorf("nodetool %s: %w", strings.Join(args, " "), err)
	}
	if _, err := io.WriteString(n.toolIn, strings.Join(args, "\t")+"\n"); err != nil {
		return fail(err)
	}
	head, err := n.toolOut.ReadString('\n')
	if err != nil {
		return fail(err)
	}
	var status, length int
	if _, err := fmt.Sscanf(head, "=== %d %d\n", &status, &length); err != nil {
		return fail(fmt.Errorf("unexpected answer %q", head))
	}
	out := make([]byte, length)
	if _, err := io.ReadFull(n.toolOut, out); err != nil {
		return fail(err)
	}
	if status != 0 {
		return string(out), fmt.Errorf("nodetool %s: exit status %d\n%s", strings.Join(args, " "), status, out)
	}
	return string(out), nil
}

//go:embed java/CastableNodetool.java
var nodetoolSource []byte

// startTool compiles CastableNodetool once per build (into the shared
// patch directory, under its lock) and starts it with nodetool.sh's class
// path and options (node.env).
func (n *Node) startTool() error {
	patch, unlock, err := patchDir(n.build)
	if err != nil {
		return err
	}
	classes := filepath.Join(patch, "castable-nodetool")
	lock, err := os.OpenFile(classes+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		unlock()
		return err
	}
	syscall.Flock(int(lock.Fd()), syscall.LOCK_EX)
	if _, err := os.Stat(filepath.Join(classes, "org", "apache", "cassandra", "tools", "CastableNodetool.class")); err != nil {
		src := filepath.Join(n.Dir, "CastableNodetool.java")
		if err = os.WriteFile(src, nodetoolSource, 0o644); err == nil {
			cmd := exec.Command("bash", "-c", `. "$1/node.env"; mkdir -p "$2" && javac -nowarn -proc:none -d "$2" -cp "$CP" "$3"`, "bash", n.Dir, classes, src)
			if out, cerr := cmd.CombinedOutput(); cerr != nil {
				err = fmt.Errorf("compiling CastableNodetool: %v\n%s", cerr, out)
			}
		}
		if err != nil {
			syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
			lock.Close()
			unlock()
			return err
		}
	}
	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	lock.Close()
	unlock()
	cmd := exec.Command("bash", "-c", `. "$1/node.env"; exec java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 $OPTS -Dlogback.configurationFile="$3" -cp "$2:$CP" org.apache.cassandra.tools.CastableNodetool "$JMX_PORT"`,
		"bash", n.Dir, classes, filepath.Join(n.tools, "..", "cassandra-oracle", "logback.xml"))
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return err
	}
	n.tool, n.toolIn, n.toolOut = cmd, in, bufio.NewReaderSize(out, 1<<16)
	return nil
}

// Keyspace creates a keyspace of its own for a test (SimpleStrategy, RF 1)
// and returns its name; the test's tables live in it.
func (n *Node) Keyspace(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("ks%d", n.keyspaces.Add(1))
	if err := n.ExecInOrder(fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", name)); err != nil {
		tb.Fatal(err)
	}
	return name
}

// TableDir returns the data directory of ks.table (data/ks/table-<id>).
func (n *Node) TableDir(ks, table string) (string, error) {
	m, err := filepath.Glob(filepath.Join(n.Dir, "data", ks, table+"-*"))
	if err != nil {
		return "", err
	}
	if len(m) != 1 {
		return "", fmt.Errorf("%s.%s: %d data directories in %s", ks, table, len(m), filepath.Join(n.Dir, "data", ks))
	}
	return m[0], nil
}

// Load makes the node serve the SSTables in dir as ks.table's, as a user
// loads them: 5.0 `nodetool import` (from a copy: import moves the files),
// 3.11 a copy into the table's directory and `nodetool refresh`. The
// SSTables' generations must not collide with the table's own.
func (n *Node) Load(ks, table, dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var target string
	if n.Flavour.Release == "3.11" {
		if target, err = n.TableDir(ks, table); err != nil {
			return err
		}
	} else {
		// import takes the keyspace and table of a file from the two
		// directories above it and skips files of another table ("No new
		// SSTables were found" in the log, nothing on nodetool's output),
		// so the copy goes to <temp>/<ks>/<table>; a '-' in the table's
		// directory name would be read as its table id.
		base, err := os.MkdirTemp(n.Dir, "import")
		if err != nil {
			return err
		}
		defer os.RemoveAll(base)
		target = filepath.Join(base, ks, table)
		if err := os.MkdirAll(target, 0o755); err != nil {
			return err
		}
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(target, e.Name())); err == nil {
			return fmt.Errorf("loading %s: %s exists in the table already", dir, e.Name())
		}
		if err := copyFile(filepath.Join(dir, e.Name()), filepath.Join(target, e.Name())); err != nil {
			return err
		}
	}
	if n.Flavour.Release == "3.11" {
		_, err = n.Nodetool("refresh", ks, table)
		return err
	}
	out, err := n.Nodetool("import", ks, table, target)
	if err == nil && (strings.Contains(out, "failed") || strings.Contains(out, "No new SSTables")) {
		err = fmt.Errorf("nodetool import %s: %s", dir, out)
	}
	return err
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// Flush flushes ks.table's memtable into an SSTable.
func (n *Node) Flush(ks, table string) error {
	_, err := n.Nodetool("flush", ks, table)
	return err
}

// Compact runs a major compaction of ks.table and waits for it.
func (n *Node) Compact(ks, table string) error {
	_, err := n.Nodetool("compact", ks, table)
	return err
}

// WaitIdle waits until the node runs no compaction (nodetool
// compactionstats shows no pending task), at most d.
func (n *Node) WaitIdle(d time.Duration) error {
	end := time.Now().Add(d)
	for {
		out, err := n.Nodetool("compactionstats")
		if err != nil {
			return err
		}
		if strings.Contains(out, "pending tasks: 0") {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("compactions still running after %v:\n%s", d, out)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
