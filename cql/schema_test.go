package cql

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/schema"
)

// writeCases returns the mc-write case directories.
func writeCases(t testing.TB) []string {
	dirs, err := filepath.Glob(filepath.Join(testdata.Dir(t), "mc-write", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no mc-write cases: %v", err)
	}
	return dirs
}

func TestParseSchemaReferenceCases(t *testing.T) {
	for _, dir := range writeCases(t) {
		src, err := os.ReadFile(filepath.Join(dir, "schema.cql"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseSchema(string(src))
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(dir), err)
			continue
		}
		if len(s.Tables) != 1 {
			t.Errorf("%s: %d tables", filepath.Base(dir), len(s.Tables))
			continue
		}
		tab := s.Tables[0]
		if tab.Keyspace != "ks" || tab.Name != filepath.Base(dir) {
			t.Errorf("%s: table %s.%s", filepath.Base(dir), tab.Keyspace, tab.Name)
		}
		if c := tab.Options.Compression; c == nil || c["sstable_compression"] != "" || len(c) != 1 {
			t.Errorf("%s: compression %v", filepath.Base(dir), c)
		}
	}
}

// placeholder matches the <table>-style placeholders of statements that
// source.txt only infers.
var placeholder = regexp.MustCompile(`<(table|key|ks|keyspace)>`)

// sourceCQL returns the cql: lines of the read corpus' source.txt files
// that are CQL statements (not comments or notes).
func sourceCQL(t testing.TB) map[string][]string {
	out := map[string][]string{}
	root := filepath.Join(testdata.Dir(t), "cassandra")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "source.txt" {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "cql: ")
			if !ok || strings.HasPrefix(line, "(") || strings.HasPrefix(line, "--") ||
				strings.HasPrefix(line, "likely") || placeholder.MatchString(line) || strings.Contains(line, "...") {
				continue
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			out[rel] = append(out[rel], line)
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestParseSourceStatements(t *testing.T) {
	n := 0
	for dir, lines := range sourceCQL(t) {
		s := &Schema{}
		for _, line := range lines {
			stmts, err := ParseStatements(line)
			if err != nil {
				t.Errorf("%s: %q: %v", dir, line, err)
				continue
			}
			for _, st := range stmts {
				if err := s.Apply(st); err != nil {
					t.Errorf("%s: %q: %v", dir, line, err)
				}
				n++
			}
		}
		if len(s.Tables) != 1 {
			t.Errorf("%s: %d tables", dir, len(s.Tables))
		}
	}
	if n < 50 {
		t.Errorf("only %d statements parsed", n)
	}
}

func TestCreateTableForms(t *testing.T) {
	src := `
-- a comment
CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
USE ks;
CREATE TYPE address (street text, "Zip" int, tags list<text>);
CREATE TABLE IF NOT EXISTS "Events" (
    "Day" date,
    bucket int,
    ts timeuuid,
    seq int,
    "Payload" blob,
    addr frozen<address>,
    home address,
    meta map<text, frozen<list<int>>>,
    s text STATIC,
    PRIMARY KEY (("Day", bucket), ts, seq)
) WITH CLUSTERING ORDER BY (ts DESC, seq ASC)
  AND compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}
  AND bloom_filter_fp_chance = 0.1 AND min_index_interval = 64 AND max_index_interval = 4096
  AND crc_check_chance = 0.5 AND default_time_to_live = 3600
  AND comment = 'hello' AND gc_grace_seconds = 10 AND caching = {'keys': 'ALL'};
CREATE TABLE other.kv (k text PRIMARY KEY, v int) WITH COMPACT STORAGE;
`
	s, err := ParseSchema(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Types) != 1 || len(s.Tables) != 2 || s.Keyspace != "ks" {
		t.Fatalf("schema %+v", s)
	}
	u := s.Type("address")
	if u == nil || u.Keyspace != "ks" || u.FieldNames[1] != "Zip" || !u.Params[2].Equal(schema.ListOf(schema.Text, true)) {
		t.Fatalf("type %+v", u)
	}
	tab := s.Table("Events")
	if tab == nil || s.Table("ks.Events") != tab || s.Table("events") != nil {
		t.Fatal("table lookup")
	}
	if len(tab.PartitionKey) != 2 || tab.PartitionKey[0].Name != "Day" || len(tab.Clustering) != 2 ||
		!tab.Clustering[0].Type.Reversed || tab.Clustering[1].Type.Reversed {
		t.Errorf("keys %+v %+v", tab.PartitionKey, tab.Clustering)
	}
	if tab.Column("s").Kind != schema.Static || !tab.Column("home").Type.IsComplex() || tab.Column("addr").Type.IsComplex() {
		t.Error("column kinds")
	}
	o := tab.Options
	if o.Compression["class"] != "LZ4Compressor" || o.Compression["chunk_length_in_kb"] != "16" || o.BloomFilterFPChance != 0.1 ||
		o.MinIndexInterval != 64 || o.MaxIndexInterval != 4096 || o.CRCCheckChance != 0.5 || o.DefaultTimeToLive != 3600 ||
		o.Extra["comment"] != "hello" || o.GCGrace() != 10 || o.Extra["caching"] != "{'keys': 'ALL'}" {
		t.Errorf("options %+v", o)
	}
	kv := s.Table("other.kv")
	if kv == nil || !kv.Options.CompactStorage || len(kv.Static) != 1 || kv.IsDense() || kv.IsCompound() {
		t.Errorf("compact %+v", kv)
	}
}

func TestSchemaErrors(t *testing.T) {
	cases := map[string]string{
		"CREATE TABLE t (a int, b int)":                                                       "line 1, column 1: table t has no PRIMARY KEY",
		"CREATE TABLE t (a int PRIMARY KEY, b nope)":                                          "line 1, column 38: unknown type nope near \"nope\"",
		"CREATE TABLE t (a int PRIMARY KEY,\n  b list<int)":                                   "line 2, column 13: unexpected ')' in a type",
		"CREATE TABLE t (a int PRIMARY KEY, b list<list<int>>)":                               "line 1, column 43: non-frozen collection",
		"CREATE TABLE t (a int, PRIMARY KEY (b))":                                             "PRIMARY KEY column b is not declared",
		"CREATE TABLE t (a int PRIMARY KEY, a text)":                                          "declared twice",
		"CREATE TABLE t (a int, b int, PRIMARY KEY (a, b)) WITH CLUSTERING ORDER BY (a DESC)": "not a clustering column",
		"CREATE TABLE t (a int PRIMARY KEY) WITH bloom_filter_fp_chance = 2":                  "not a number in",
		"CREATE TABLE t (a int PRIMARY KEY, s int STATIC)":                                    "static columns need",
		"CREATE TABLE t (a int PRIMARY KEY, b counter, c int)":                                "mix counter",
		"CREATE TABLE t (a int PRIMARY KEY); CREATE TABLE t (a int PRIMARY KEY)":              "already exists",
		"INSERT INTO t (a) VALUES (1)":                                                        "only CREATE and USE",
		"CREATE TABLE t (a int PRIMARY KEY) WITH compression = 'x'":                           "takes a map",
		"CREATE TABLE t (a int PRIMARY KEY, b 'org.apache.cassandra.db.marshal.DateType')":    "",
		"CREATE TABLE t (a int PRIMARY KEY) extra":                                            "expected ';'",
		"CREATE TABLE t (a int PRIMARY KEY, b text) /* unterminated":                          "unterminated comment",
	}
	for src, want := range cases {
		_, err := ParseSchema(src)
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", src, err)
			}
			continue
		}
		var se *SyntaxError
		if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}
