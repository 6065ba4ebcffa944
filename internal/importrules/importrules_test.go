// Package importrules enforces the package dependency table of the
// architecture (README "Architecture"): leaves import nothing of the
// project, the version packages never import each other, flush knows only
// the Format interface, and only commands, perf tools and internal/cli pick
// a version.
package importrules

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/castable-db/castable/"

// allowed lists, per package, the project packages it may import. Packages
// not listed (commands, perf tools, internal/cli and other internal tools)
// may import anything.
var allowed = map[string][]string{
	"checksummer":       {"checksummer/internal/clib"}, // its cgo bindings (only with -tags zlib/libdeflate)
	"compress":          {},
	"schema":            {"internal/bytecomparable", "internal/vint"},
	"dht":               {"internal/bytecomparable"},
	"mutation":          {"schema", "dht"},
	"cql":               {"schema", "mutation", "dht"},
	"jsondump":          {"schema", "mutation", "dht"},
	"memtable":          {"schema", "mutation", "dht", "internal/prefetch"},
	"sstables/version":  {},
	"sstables":          {"compress", "checksummer", "schema", "mutation", "dht", "internal/prefetch", "internal/vint", "sstables/version"},
	"sstables/big":      {"sstables", "sstables/version", "sstables/internal/rows", "sstables/internal/sorted", "compress", "checksummer", "schema", "mutation", "dht", "internal/vint"},
	"sstables/la":       {"sstables", "sstables/version", "compress", "checksummer", "schema", "mutation", "dht"},
	"sstables/mc":       {"sstables", "sstables/version", "sstables/big", "schema"}, // a thin face over big
	"sstables/formats":  {"sstables/big", "sstables/bti", "sstables/la"},
	"flush":             {"memtable", "sstables", "sstables/version", "compress", "checksummer", "schema", "mutation", "dht"},
	"sstables/scrub":    {"sstables", "sstables/version", "compress", "schema", "mutation", "dht"},                     // like flush: formats through the registry
	"bulk":              {"flush", "memtable", "sstables", "cql", "jsondump", "compress", "schema", "mutation", "dht"}, // like flush: no version package
	"internal/faultfs":  {"sstables", "compress", "checksummer", "schema", "mutation", "dht"},
	"internal/memfs":    {"sstables"},
	"internal/prefetch": {},
	"table":             {"sstables", "sstables/version", "memtable", "schema", "mutation", "dht"},                                                                                 // like flush: formats through the registry
	"compaction":        {"table", "sstables", "sstables/version", "memtable", "compress", "checksummer", "schema", "mutation", "dht", "internal/vint", "internal/bytecomparable"}, // likewise
	"export":            {"table", "schema", "mutation", "dht", "internal/vint"},                                                                                                   // the merged view and its writers; no version package, no internal/cli
	"query":             {"cql", "export", "table", "schema", "mutation", "dht"},                                                                                                   // SELECT over a table.Set

	"internal/bytecomparable":  {},
	"internal/vint":            {},
	"sstables/internal/trie":   {},
	"sstables/internal/rows":   {"sstables", "sstables/version", "schema", "mutation", "dht", "internal/vint"},                      // the 3.x+ row format, shared by big and bti
	"sstables/internal/sorted": {"sstables", "sstables/version", "sstables/internal/rows", "compress", "schema", "mutation", "dht"}, // the writer state machine and whole-file reader big and bti share
	"sstables/bti":             {"schema", "mutation", "dht", "sstables", "sstables/version", "sstables/internal/trie", "sstables/internal/rows", "sstables/internal/sorted", "internal/bytecomparable", "internal/vint"},

	// Below flush (the compaction service in flush uses it), above the data
	// model; like flush, no version package.
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func TestImportRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	cmd := exec.Command("go", "list", "-json", module+"...")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p.ImportPath, module)
		rules, ok := allowed[name]
		if !ok {
			continue
		}
		seen++
		ok2 := map[string]bool{}
		for _, r := range rules {
			ok2[r] = true
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			if !ok2[dep] {
				t.Errorf("%s imports %s, which the architecture does not allow (allowed: %v)", name, dep, rules)
			}
		}
	}
	if seen != len(allowed) {
		t.Errorf("checked %d packages, the table lists %d: a package was renamed or removed", seen, len(allowed))
	}
}
