package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/sstables"
)

// setT0 is the write time of the set fixtures; setLater is a time past
// every TTL they write (100 s).
var (
	setT0    = time.Unix(1800000000, 0)
	setLater = setT0.Add(time.Hour)
)

// setFixture writes a random workload (every type, TTLs of 100 s, every
// kind of deletion, overlapping keys) split at random into one SSTable per
// version in dir/in, generations 1, 2, …; legacy leaves out what la cannot
// hold. It returns the schema file and the Data.db paths.
func setFixture(t *testing.T, dir string, seed uint64, versions ...string) (string, []string) {
	t.Helper()
	legacy := slices.Contains(versions, "la")
	w := workload.Generate("ks", workload.Options{Seed: seed, Statements: 300, Partitions: 40, TTL: 100, Legacy: legacy})
	schemaFile := filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(w.Schema()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	parts := make([][]string, len(versions))
	for _, s := range w.Statements {
		k := r.IntN(len(parts))
		parts[k] = append(parts[k], s)
	}
	var paths []string
	for i, v := range versions {
		cqlFile := filepath.Join(dir, fmt.Sprintf("part-%d.cql", i))
		if err := os.WriteFile(cqlFile, []byte(strings.Join(parts[i], ";\n")+";\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: filepath.Join(dir, "in"), Format: v, Generation: i + 1, Now: setT0, ChunkLengthKB: 1})
		if err != nil {
			t.Fatalf("write %s: %v", v, err)
		}
		for _, r := range sum.Results {
			paths = append(paths, r.Descriptor.Path(sstables.ComponentData))
		}
	}
	return schemaFile, paths
}

var keyField = regexp.MustCompile(`"key":\s*\[([^\]]*)\]`)

var dumpPosition = regexp.MustCompile(`,\s*"position":\s*[0-9]+`)

// setDump is the canonical JSON Lines dump of SSTables: merged (purged
// unless noPurge) when there are several, positions removed.
func setDump(t *testing.T, schemaFile string, paths []string, noPurge bool, now time.Time) string {
	t.Helper()
	var out bytes.Buffer
	if err := Dump(&Env{Stdout: &out, Stderr: io.Discard}, DumpOptions{SSTables: paths, Schema: schemaFile, Canonical: true, Lines: true, NoPurge: noPurge, Now: now}); err != nil {
		t.Fatalf("dump %v: %v", paths, err)
	}
	return dumpPosition.ReplaceAllString(out.String(), "")
}

// outputPaths are the Data.db paths of what a command wrote.
func outputPaths(rs []*sstables.WriteResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Descriptor.Path(sstables.ComponentData))
	}
	return out
}

// hashTree hashes every file below dir, to show a command left it alone.
func hashTree(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, a, b map[string][32]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d files, then %d", what, len(a), len(b))
	}
	for p, h := range a {
		if b[p] != h {
			t.Errorf("%s: %s changed", what, p)
		}
	}
}

func verifyAll(t *testing.T, schemaFile string, paths []string) {
	t.Helper()
	if len(paths) == 0 {
		return
	}
	var errOut bytes.Buffer
	if err := Verify(&Env{Stdout: io.Discard, Stderr: &errOut}, VerifyOptions{SSTables: paths, Schema: schemaFile, Strict: true}); err != nil {
		t.Fatalf("verify: %v\n%s", err, errOut.String())
	}
}

// partitionTokens lists the tokens and keys of an SSTable's partitions.
func partitionTokens(t *testing.T, path, schemaFile string) (tokens []dht.Token, keys [][]byte) {
	t.Helper()
	d, _, _, err := sstables.ParseDescriptor(path)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := loadTable(schemaFile, "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := sstables.OpenAny(d, tab, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			return tokens, keys
		}
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, p.Token)
		keys = append(keys, slices.Clone(p.Key))
	}
}

// TestMergedDump: the merged dump of several SSTables (any versions, la
// among them) is the live data only — equal to the dump of the one SSTable
// a full purge of the same data leaves (compact --gc-grace-seconds 0 at a
// time past every TTL) — and with --no-purge the merged stream, equal to
// the dump of compact --no-purge; -k and -x look keys up through the set;
// a directory of one table's SSTables dumps merged; one SSTable dumps as
// it always did (with positions, tombstones and all).
func TestMergedDump(t *testing.T) {
	for _, versions := range [][]string{{"mc", "nb", "oa", "da"}, {"la", "me", "nb"}} {
		t.Run(strings.Join(versions, "+"), func(t *testing.T) {
			dir := t.TempDir()
			schemaFile, inputs := setFixture(t, dir, 3, versions...)
			before := hashTree(t, filepath.Join(dir, "in"))
			zero := int64(0)
			purged, err := Compact(context.Background(), quietEnv(), CompactOptions{SetOptions: SetOptions{SSTables: inputs, Out: filepath.Join(dir, "purged"), Schema: schemaFile, Now: setLater, GCGraceSeconds: &zero}})
			if err != nil {
				t.Fatal(err)
			}
			live := setDump(t, schemaFile, inputs, false, setLater)
			if strings.Count(live, "\n") < 10 {
				t.Fatalf("only %d live partitions", strings.Count(live, "\n"))
			}
			want := ""
			if len(purged.Outputs) > 0 {
				want = setDump(t, schemaFile, outputPaths(purged.Outputs), true, setLater)
			}
			if live != want {
				t.Errorf("merged dump differs from the fully purged compaction:\n%s", firstLineDiff(live, want))
			}
			if strings.Contains(live, "deletion") {
				t.Errorf("the live dump shows a deletion")
			}
			if got := setDump(t, schemaFile, []string{filepath.Join(dir, "in")}, false, setLater); got != live {
				t.Errorf("the directory's dump differs from the SSTables':\n%s", firstLineDiff(got, live))
			}

			all := setDump(t, schemaFile, inputs, true, setLater)
			kept, err := Compact(context.Background(), quietEnv(), CompactOptions{SetOptions: SetOptions{SSTables: inputs, Out: filepath.Join(dir, "kept"), Schema: schemaFile, Now: setLater}, NoPurge: true})
			if err != nil {
				t.Fatal(err)
			}
			if want := setDump(t, schemaFile, outputPaths(kept.Outputs), true, setLater); all != want {
				t.Errorf("--no-purge merged dump differs from compact --no-purge:\n%s", firstLineDiff(all, want))
			}
			if !strings.Contains(all, "deletion") || len(all) <= len(live) {
				t.Errorf("--no-purge shows no deletion")
			}

			// -k through the set: each key's line of the full dumps; -x.
			lines := strings.Split(strings.TrimSpace(all), "\n")
			for _, line := range lines[:5] {
				key := keyOfLine(t, line)
				for _, noPurge := range []bool{false, true} {
					var out bytes.Buffer
					if err := Dump(&Env{Stdout: &out, Stderr: io.Discard}, DumpOptions{SSTables: inputs, Schema: schemaFile, Canonical: true, Lines: true, Keys: []string{key}, NoPurge: noPurge, Now: setLater}); err != nil {
						t.Fatal(err)
					}
					whole := all
					if !noPurge {
						whole = live
					}
					got := out.String()
					if got != "" && !strings.Contains(whole, got) || got == "" && strings.Contains(whole, `"key":[`+jsonKey(line)+`]`) {
						t.Errorf("-k %s (no purge %v): %q is not its line of the full dump", key, noPurge, got)
					}
				}
				var out bytes.Buffer
				if err := Dump(&Env{Stdout: &out, Stderr: io.Discard}, DumpOptions{SSTables: inputs, Schema: schemaFile, Canonical: true, Lines: true, Exclude: []string{key}, NoPurge: true, Now: setLater}); err != nil {
					t.Fatal(err)
				}
				if got := dumpPosition.ReplaceAllString(out.String(), ""); got != strings.Replace(all, line+"\n", "", 1) {
					t.Errorf("-x %s: not the full dump without it", key)
				}
			}

			// One SSTable: today's dump, positions and tombstones as
			// written.
			var one, again bytes.Buffer
			if err := Dump(&Env{Stdout: &one}, DumpOptions{SSTable: inputs[0], Schema: schemaFile}); err != nil {
				t.Fatal(err)
			}
			if err := Dump(&Env{Stdout: &again}, DumpOptions{SSTables: inputs[:1], Schema: schemaFile, Now: setLater}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(one.Bytes(), again.Bytes()) || !strings.Contains(one.String(), `"position"`) {
				t.Errorf("one SSTable does not dump as it is")
			}
			sameTree(t, "the inputs", before, hashTree(t, filepath.Join(dir, "in")))
		})
	}
}

// keyOfLine returns the partition key of a canonical dump line in the
// string form -k takes.
func keyOfLine(t *testing.T, line string) string {
	t.Helper()
	m := keyField.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no key in %s", line)
	}
	var parts []string
	for _, p := range strings.Split(m[1], ",") {
		parts = append(parts, strings.Trim(strings.TrimSpace(p), `"`))
	}
	return strings.Join(parts, ":")
}

func jsonKey(line string) string {
	m := keyField.FindStringSubmatch(line)
	return m[1]
}

func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(la), len(lb))
}

// TestCompactOptions: each flag of castable compact does what it says;
// the inputs are never changed.
func TestCompactOptions(t *testing.T) {
	dir := t.TempDir()
	schemaFile, inputs := setFixture(t, dir, 5, "la", "mc", "nb")
	before := hashTree(t, filepath.Join(dir, "in"))
	base := func(out string) SetOptions {
		return SetOptions{SSTables: inputs, Out: filepath.Join(dir, out), Schema: schemaFile, Now: setLater}
	}
	zero := int64(0)
	run := func(o CompactOptions) *compactResult {
		t.Helper()
		env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
		res, err := Compact(context.Background(), env, o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		paths := outputPaths(res.Outputs)
		verifyAll(t, schemaFile, paths)
		if got := strings.Fields(env.Stdout.(*bytes.Buffer).String()); !slices.Equal(got, paths) {
			t.Errorf("stdout %v, want the Data.db paths %v", got, paths)
		}
		msg := env.Stderr.(*bytes.Buffer).String()
		for _, want := range []string{fmt.Sprintf("%d SSTables", len(o.SSTables)), "partitions", "rows", "MB/s of input", "rows/s"} {
			if !strings.Contains(msg, want) {
				t.Errorf("stderr %q lacks %q", msg, want)
			}
		}
		return &compactResult{paths: paths, dump: setDump(t, schemaFile, paths, true, setLater), res: res.Outputs}
	}
	live := setDump(t, schemaFile, inputs, false, setLater)
	all := setDump(t, schemaFile, inputs, true, setLater)

	// The default: the newest input's version (nb), gc grace the
	// schema's: deletions and expired cells (as tombstones) stay.
	def := run(CompactOptions{SetOptions: base("default")})
	if len(def.paths) != 1 || !strings.Contains(def.paths[0], "nb-1-big") {
		t.Errorf("default outputs %v", def.paths)
	}
	if def.dump == all || !strings.Contains(def.dump, "deletion") {
		t.Errorf("the default compaction kept everything or no deletion")
	}
	if got := setDump(t, schemaFile, []string{def.paths[0], def.paths[0]}, false, setLater); got != live {
		t.Errorf("the default compaction changed the live data:\n%s", firstLineDiff(got, live))
	}
	// --no-purge keeps the merged stream.
	if np := run(CompactOptions{SetOptions: base("nopurge"), NoPurge: true}); np.dump != all {
		t.Errorf("--no-purge:\n%s", firstLineDiff(np.dump, all))
	}
	// --gc-grace-seconds 0 past every TTL: live data only.
	g := base("grace0")
	g.GCGraceSeconds = &zero
	if gz := run(CompactOptions{SetOptions: g}); gz.dump != live {
		t.Errorf("--gc-grace-seconds 0:\n%s", firstLineDiff(gz.dump, live))
	}
	// --only-purge-repaired-tombstones: the inputs are unrepaired, so no
	// tombstone goes — the same as the schema's grace at --now.
	g = base("repaired")
	g.GCGraceSeconds = &zero
	if rp := run(CompactOptions{SetOptions: g, OnlyPurgeRepairedTombstones: true}); rp.dump == live || !strings.Contains(rp.dump, "deletion") {
		t.Errorf("--only-purge-repaired-tombstones purged unrepaired tombstones")
	}
	// --overlapping: a tombstone that may shadow data of an SSTable outside
	// the compaction stays (here: the first input compacted alone, the
	// others overlapping).
	g = base("overlap")
	g.SSTables = inputs[1:]
	g.GCGraceSeconds = &zero
	alone := run(CompactOptions{SetOptions: g})
	g.Out = filepath.Join(dir, "overlap2")
	ov := run(CompactOptions{SetOptions: g, Overlapping: []string{inputs[0]}})
	if strings.Count(ov.dump, "deletion") <= strings.Count(alone.dump, "deletion") {
		t.Errorf("--overlapping kept no more tombstones (%d) than without (%d)", strings.Count(ov.dump, "deletion"), strings.Count(alone.dump, "deletion"))
	}
	// --to across versions, la among the inputs and as the target;
	// --generation; --host-id in the versions that record it.
	for _, v := range []string{"la", "me", "oa", "da"} {
		o := base("to-" + v)
		o.To, o.Generation, o.HostID = v, 7, "3f2d5a1e-8c4b-4f7e-9a6d-1b2c3d4e5f60"
		c := run(CompactOptions{SetOptions: o, NoPurge: true})
		if len(c.paths) != 1 || !strings.Contains(filepath.Base(c.paths[0]), v+"-7-") {
			t.Errorf("--to %s --generation 7: %v", v, c.paths)
		}
		if c.dump != all {
			t.Errorf("--to %s:\n%s", v, firstLineDiff(c.dump, all))
		}
		if vv := c.res[0].Descriptor.Version; vv.HasOriginatingHostID() {
			r, err := sstables.OpenAny(c.res[0].Descriptor, nil, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%x", r.Statistics().Stats.OriginatingHostID); got != "3f2d5a1e8c4b4f7e9a6d1b2c3d4e5f60" {
				t.Errorf("--to %s: host id %s", v, got)
			}
			r.Close()
		}
	}
	// --reproduce-lost-complex-deletions runs (its bytes are checked
	// against a live 5.0 node in internal/livenode).
	o := base("lost")
	o.To, o.ReproduceLostComplexDeletions = "oa", true
	run(CompactOptions{SetOptions: o})
	// Usage errors.
	for name, bad := range map[string]CompactOptions{
		"no out":    {SetOptions: SetOptions{SSTables: inputs}},
		"bad to":    {SetOptions: SetOptions{SSTables: inputs, Out: dir, To: "zz"}},
		"host id":   {SetOptions: SetOptions{SSTables: inputs, Out: dir, Schema: schemaFile, HostID: "nope"}},
		"grace < 0": {SetOptions: SetOptions{SSTables: inputs, Out: dir, Schema: schemaFile, GCGraceSeconds: new(int64(-1))}},
	} {
		if _, err := Compact(context.Background(), quietEnv(), bad); ExitCode(err) != ExitUsage {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
	sameTree(t, "the inputs", before, hashTree(t, filepath.Join(dir, "in")))
}

type compactResult struct {
	paths []string
	dump  string
	res   []*sstables.WriteResult
}

// TestFilter: --key, --keys-file and --token-range keep exactly the
// partitions they name, --exclude the others; a filter and its --exclude
// together hold the input (merged dumps equal); nothing is purged unless
// --purge; every output verifies.
func TestFilter(t *testing.T) {
	dir := t.TempDir()
	schemaFile, inputs := setFixture(t, dir, 6, "me", "nb", "da")
	before := hashTree(t, filepath.Join(dir, "in"))
	all := setDump(t, schemaFile, inputs, true, setLater)
	lines := strings.Split(strings.TrimSpace(all), "\n")
	keyA, keyB := keyOfLine(t, lines[1]), keyOfLine(t, lines[len(lines)-2])
	keysFile := filepath.Join(dir, "keys.txt")
	if err := os.WriteFile(keysFile, []byte(keyA+"\n\n"+keyB+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rng, err := dht.ParseRange(dht.Murmur3, "(-4611686018427387904, 4611686018427387904]")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := loadTable(schemaFile, "")
	if err != nil {
		t.Fatal(err)
	}
	keyBytes := func(k string) string {
		b, err := parseKey(tab, k)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	n := 0
	for name, tc := range map[string]struct {
		opts  FilterOptions
		match func(dht.Token, []byte) bool
	}{
		"key":         {FilterOptions{Keys: []string{keyA, keyB}}, func(_ dht.Token, k []byte) bool { return string(k) == keyBytes(keyA) || string(k) == keyBytes(keyB) }},
		"keys-file":   {FilterOptions{KeysFile: keysFile}, func(_ dht.Token, k []byte) bool { return string(k) == keyBytes(keyA) || string(k) == keyBytes(keyB) }},
		"token-range": {FilterOptions{TokenRanges: []string{rng.Format(dht.Murmur3)}}, func(tok dht.Token, _ []byte) bool { return rng.Contains(tok) }},
		"key+range":   {FilterOptions{Keys: []string{keyA}, TokenRanges: []string{rng.Format(dht.Murmur3)}}, func(tok dht.Token, k []byte) bool { return rng.Contains(tok) || string(k) == keyBytes(keyA) }},
	} {
		t.Run(name, func(t *testing.T) {
			var halves []string
			for _, exclude := range []bool{false, true} {
				o := tc.opts
				o.SetOptions = SetOptions{SSTables: inputs, Out: filepath.Join(dir, fmt.Sprintf("%s-%v", name, exclude)), Schema: schemaFile, Now: setLater}
				o.Exclude = exclude
				res, err := Filter(context.Background(), quietEnv(), o)
				if err != nil {
					t.Fatal(err)
				}
				paths := outputPaths(res.Outputs)
				verifyAll(t, schemaFile, paths)
				for _, p := range paths {
					toks, keys := partitionTokens(t, p, schemaFile)
					for i := range toks {
						if tc.match(toks[i], keys[i]) == exclude {
							t.Errorf("exclude %v: partition %x does not belong", exclude, keys[i])
						}
					}
					n += len(toks)
				}
				if len(paths) > 0 {
					halves = append(halves, paths...)
				}
			}
			if got := setDump(t, schemaFile, halves, true, setLater); got != all {
				t.Errorf("a filter and its --exclude do not make up the input:\n%s", firstLineDiff(got, all))
			}
		})
	}
	if n == 0 {
		t.Fatal("nothing filtered")
	}
	// --purge purges as compact does.
	zero := int64(0)
	res, err := Filter(context.Background(), quietEnv(), FilterOptions{SetOptions: SetOptions{SSTables: inputs, Out: filepath.Join(dir, "purged"), Schema: schemaFile, Now: setLater, GCGraceSeconds: &zero}, TokenRanges: []string{"(-9223372036854775808, -9223372036854775808]"}, Purge: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, live := setDump(t, schemaFile, outputPaths(res.Outputs), true, setLater), setDump(t, schemaFile, inputs, false, setLater); got != live {
		t.Errorf("--purge over the whole ring:\n%s", firstLineDiff(got, live))
	}
	for name, bad := range map[string]FilterOptions{
		"nothing":   {SetOptions: SetOptions{SSTables: inputs, Out: dir, Schema: schemaFile}},
		"bad range": {SetOptions: SetOptions{SSTables: inputs, Out: dir, Schema: schemaFile}, TokenRanges: []string{"(1, 2)"}},
		"bad key":   {SetOptions: SetOptions{SSTables: inputs, Out: dir, Schema: schemaFile}, Keys: []string{"not-a-number"}},
	} {
		if _, err := Filter(context.Background(), quietEnv(), bad); ExitCode(err) != ExitUsage {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
	sameTree(t, "the inputs", before, hashTree(t, filepath.Join(dir, "in")))
}

// TestSplit: --ranges N and --tokens (a token list, and nodetool ring
// output with its wrapping range) write one directory per range holding
// only that range's partitions, together the input; --max-sstable-size
// alone cuts by size; each range has its own generations; --to.
func TestSplit(t *testing.T) {
	dir := t.TempDir()
	schemaFile, inputs := setFixture(t, dir, 8, "la", "mc", "oa")
	before := hashTree(t, filepath.Join(dir, "in"))
	all := setDump(t, schemaFile, inputs, true, setLater)
	tokensFile := filepath.Join(dir, "tokens.txt")
	if err := os.WriteFile(tokensFile, []byte("-3074457345618258603\n3074457345618258602\n-9000000000000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ringFile := filepath.Join(dir, "ring.txt")
	ring := "Datacenter: dc1\n==========\nAddress    Rack   Status State   Load       Owns    Token\n                                                           3074457345618258602\n127.0.0.1  rack1  Up     Normal  1 KiB      33.33%  -9000000000000000000\n127.0.0.2  rack1  Up     Normal  1 KiB      33.33%  -3074457345618258603\n127.0.0.3  rack1  Up     Normal  1 KiB      33.33%  3074457345618258602\n"
	if err := os.WriteFile(ringFile, []byte(ring), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]SplitOptions{
		"ranges": {Ranges: 5},
		"tokens": {TokensFile: tokensFile, SetOptions: SetOptions{To: "la"}},
		"ring":   {TokensFile: ringFile, SetOptions: SetOptions{To: "da"}},
	} {
		t.Run(name, func(t *testing.T) {
			o.SSTables, o.Out, o.Schema, o.Now = inputs, filepath.Join(dir, name), schemaFile, setLater
			res, err := Split(context.Background(), quietEnv(), o)
			if err != nil {
				t.Fatal(err)
			}
			paths := outputPaths(res.Outputs)
			verifyAll(t, schemaFile, paths)
			if got := setDump(t, schemaFile, paths, true, setLater); got != all {
				t.Errorf("the outputs do not make up the input:\n%s", firstLineDiff(got, all))
			}
			want := map[string]int{"ranges": 5, "tokens": 3, "ring": 3}[name]
			if len(res.Ranges) != want {
				t.Fatalf("%d ranges, want %d", len(res.Ranges), want)
			}
			for i, rr := range res.Ranges {
				if filepath.Base(rr.Dir) != fmt.Sprintf("range-%03d", i) {
					t.Errorf("range %d in %s", i, rr.Dir)
				}
				var n int64
				for j, r := range rr.Outputs {
					if r.Descriptor.Dir != rr.Dir || r.Descriptor.Generation != j+1 {
						t.Errorf("range %d: output %s (want generation %d in %s)", i, r.Descriptor, j+1, rr.Dir)
					}
					if o.To != "" && r.Descriptor.Version.String() != o.To {
						t.Errorf("--to %s wrote %s", o.To, r.Descriptor)
					}
					toks, _ := partitionTokens(t, r.Descriptor.Path(sstables.ComponentData), schemaFile)
					for _, tok := range toks {
						if !rr.Range.Contains(tok) {
							t.Errorf("range %s holds token %s", rr.Range.Format(dht.Murmur3), dht.Murmur3.String(tok))
						}
					}
					n += int64(len(toks))
				}
				if n != rr.Partitions {
					t.Errorf("range %d: %d partitions on disk, %d reported", i, n, rr.Partitions)
				}
			}
			if name == "ring" && (len(res.Ranges[0].Outputs) == 0 || !res.Ranges[0].Range.Wraps()) {
				t.Errorf("the ring's first range %s should wrap and hold data", res.Ranges[0].Range.Format(dht.Murmur3))
			}
		})
	}
	for name, bad := range map[string]SplitOptions{
		"nothing": {},
		"both":    {Ranges: 2, TokensFile: tokensFile},
		"tokens":  {TokensFile: schemaFile},
	} {
		bad.SSTables, bad.Out, bad.Schema = inputs, dir, schemaFile
		if _, err := Split(context.Background(), quietEnv(), bad); ExitCode(err) != ExitUsage {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
	sameTree(t, "the inputs", before, hashTree(t, filepath.Join(dir, "in")))
}

// bigFixture writes two SSTables (mc, nb) of about 400 KiB of random
// text each, overlapping, for the size cuts: the writers hand Data.db to
// the file in 64 KiB batches, so --max-sstable-size takes effect in
// steps of about that.
func bigFixture(t *testing.T, dir string) (string, []string) {
	t.Helper()
	schemaFile := filepath.Join(dir, "big.cql")
	if err := os.WriteFile(schemaFile, []byte("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c));\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var paths []string
	for i, v := range []string{"mc", "nb"} {
		var b strings.Builder
		for j := 0; j < 2000; j++ {
			text := make([]byte, 200)
			for k := range text {
				text[k] = 'a' + byte(r.IntN(26))
			}
			fmt.Fprintf(&b, "INSERT INTO ks.t (k, c, v) VALUES (%d, %d, '%s') USING TIMESTAMP %d;\n", r.IntN(300), r.IntN(20), text, 1+j+i*10000)
		}
		cqlFile := filepath.Join(dir, v+".cql")
		if err := os.WriteFile(cqlFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: filepath.Join(dir, "big"), Format: v, Generation: i + 1, Now: setT0})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, outputPaths(sum.Results)...)
	}
	return schemaFile, paths
}

// TestMaxSSTableSize: compact and split --max-sstable-size cut their
// outputs (each range its own generations 1, 2, …), together the input.
func TestMaxSSTableSize(t *testing.T) {
	dir := t.TempDir()
	schemaFile, inputs := bigFixture(t, dir)
	all := setDump(t, schemaFile, inputs, true, setLater)
	base := SetOptions{SSTables: inputs, Schema: schemaFile, Now: setLater, MaxSSTableSize: 100 << 10, Jobs: 1}
	o := base
	o.Out, o.UUIDIdentifiers = filepath.Join(dir, "compact"), true
	res, err := Compact(context.Background(), quietEnv(), CompactOptions{SetOptions: o, NoPurge: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) < 3 {
		t.Errorf("compact --max-sstable-size 100KiB wrote %d SSTables", len(res.Outputs))
	}
	for _, r := range res.Outputs {
		if r.Descriptor.UUID == "" {
			t.Errorf("--uuid-identifiers: %s", r.Descriptor)
		}
	}
	verifyAll(t, schemaFile, outputPaths(res.Outputs))
	if got := setDump(t, schemaFile, outputPaths(res.Outputs), true, setLater); got != all {
		t.Errorf("compact --max-sstable-size:\n%s", firstLineDiff(got, all))
	}
	o = base
	o.Out = filepath.Join(dir, "split")
	res, err = Split(context.Background(), quietEnv(), SplitOptions{SetOptions: o})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) < 3 {
		t.Errorf("split --max-sstable-size 100KiB wrote %d SSTables", len(res.Outputs))
	}
	for i, r := range res.Outputs {
		if r.Descriptor.Generation != i+1 {
			t.Errorf("output %d: %s", i, r.Descriptor)
		}
	}
	if got := setDump(t, schemaFile, outputPaths(res.Outputs), true, setLater); got != all {
		t.Errorf("split --max-sstable-size:\n%s", firstLineDiff(got, all))
	}
	o.Out = filepath.Join(dir, "ranges")
	res, err = Split(context.Background(), quietEnv(), SplitOptions{SetOptions: o, Ranges: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, rr := range res.Ranges {
		if len(rr.Outputs) < 2 {
			t.Errorf("range %d: %d SSTables", i, len(rr.Outputs))
		}
		for j, r := range rr.Outputs {
			if r.Descriptor.Generation != j+1 || r.Descriptor.Dir != rr.Dir {
				t.Errorf("range %d output %d: %s", i, j, r.Descriptor)
			}
		}
	}
	verifyAll(t, schemaFile, outputPaths(res.Outputs))
	if got := setDump(t, schemaFile, outputPaths(res.Outputs), true, setLater); got != all {
		t.Errorf("split --ranges 2 --max-sstable-size:\n%s", firstLineDiff(got, all))
	}
}
