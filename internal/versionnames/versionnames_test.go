// Package versionnames checks that the version table (sstables/version) is
// the only place an SSTable version is named: no string in the project's
// non-test Go code, outside the table, holds a version's two letters as a
// word ("nb", "la, ma … oa", "mc-1-big-Data.db", strings.HasPrefix(g,
// "mc")). Defaults, help texts, messages, format registrations, corpus
// walkers and examples ask the table instead (version.Default,
// version.Summarize, OfFamily, WriteAs, ReadBy), so that a new version is a
// row of the table and a row of its test, and nothing else silently goes
// stale. Tests may name versions: they pin the behaviour of each.
package versionnames

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/castable-db/castable/sstables/version"
)

// table is the one file that names versions.
const table = "sstables/version/version.go"

// allowed are the strings that hold a version's letters without naming a
// version: per file, the literal text around the letters, and why.
var allowed = []struct{ file, text, why string }{
	{"schema/timefmt.go", "ms", "milliseconds, a unit of CQL durations"},
	{"cql/lexer.go", "ms", "milliseconds, a unit of CQL durations"},
	{"internal/reliability/corpus.go", "mc-write", "a folder of ../shared/testdata"},
	{"internal/reliability/corpus.go", "cassandra-legacy/da", "a folder of ../shared/testdata"},
}

// isWordByte reports whether b can be part of an identifier-like word.
func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// versionWords returns the versions s names as words, with their offsets.
func versionWords(s string, names map[string]bool) (found []string, at []int) {
	for i := 0; i+2 <= len(s); i++ {
		if !names[s[i:i+2]] {
			continue
		}
		if i > 0 && isWordByte(s[i-1]) || i+2 < len(s) && isWordByte(s[i+2]) {
			continue
		}
		found, at = append(found, s[i:i+2]), append(at, i)
	}
	return found, at
}

// isAllowed reports whether the occurrence of a version's letters at
// offset i of s, in file rel of package pkg, is one of the exceptions.
func isAllowed(rel, pkg, s, word string, i int) bool {
	// A package named after a version (sstables/la, the sstables/mc face)
	// names itself: its error prefix ("la: …") and its identity.
	if word == pkg {
		return true
	}
	for _, a := range allowed {
		if a.file != rel {
			continue
		}
		for j := 0; ; {
			k := strings.Index(s[j:], a.text)
			if k < 0 {
				break
			}
			k += j
			if k <= i && i+len(word) <= k+len(a.text) {
				return true
			}
			j = k + 1
		}
	}
	return false
}

func TestVersionsAreNamedOnlyInTheTable(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, table)); err != nil {
		t.Fatalf("the version table is not at %s: %v", table, err)
	}
	names := map[string]bool{}
	for _, n := range version.Names() {
		names[n] = true
	}
	used := map[int]bool{}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == table {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		imports := map[*ast.BasicLit]bool{}
		for _, im := range f.Imports {
			imports[im.Path] = true // package paths (sstables/la) are not versions
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || imports[lit] {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
				return true
			}
			words, at := versionWords(s, names)
			for k, w := range words {
				if isAllowed(rel, f.Name.Name, s, w, at[k]) {
					for i, a := range allowed {
						if a.file == rel && strings.Contains(s, a.text) {
							used[i] = true
						}
					}
					continue
				}
				t.Errorf("%s: %q names version %s outside the version table: ask sstables/version (Default, Summarize, OfFamily, WriteAs, ReadBy, a predicate) instead",
					fset.Position(lit.Pos()), short(s, at[k]), w)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 200 {
		t.Fatalf("only %d Go files found below %s", files, root)
	}
	for i, a := range allowed {
		if !used[i] {
			t.Errorf("allowed %q in %s (%s) matches nothing any more: remove it", a.text, a.file, a.why)
		}
	}
}

// short returns the part of s around offset i, for a message.
func short(s string, i int) string {
	lo, hi := max(0, i-30), min(len(s), i+32)
	return s[lo:hi]
}

// TestVersionWords pins what counts as naming a version.
func TestVersionWords(t *testing.T) {
	names := map[string]bool{"mc": true, "nb": true, "la": true, "ms": true}
	for s, want := range map[string]string{
		"nb":                    "nb",
		"dir/mc-1-big-Data.db":  "mc",
		"la, ma … oa":           "la",
		"mcx nba lame atoms":    "",
		"versions before nb.":   "nb",
		"the cell_ms_ value":    "",
		"%s: partition %s (mc)": "mc",
	} {
		got, _ := versionWords(s, names)
		if strings.Join(got, " ") != want {
			t.Errorf("versionWords(%q) = %v, want %q", s, got, want)
		}
	}
}
