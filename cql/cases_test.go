package cql

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// caseNow is the node time (local deletion and expiry times) each
// reference case was written with, from its case.txt notes.
var caseNow = map[string][]int64{
	"deleted_row":                 {1543907978},
	"ttled_row":                   {1543905466 - 1135},
	"overlapped_range_tombstones": {1527821291, 1527821308},
	"many_range_tombstones":       {1528226962},
}

// caseStatements returns the CQL statements of a reference case: its
// complete cql: lines, and for the cases whose comments abbreviate the
// statements ("...") or describe them in words, the statements spelled
// out from the case notes. ok is false for cases without CQL (counter
// contexts and view data built in C++).
func caseStatements(t *testing.T, dir string) (stmts []string, ok bool) {
	name := filepath.Base(dir)
	const ts = "1525385507816568"
	switch name {
	case "counter_table", "shadowable_deletion":
		return nil, false
	case "large_clustering_key":
		var cols, vals []string
		for i := 1; i <= 35; i++ {
			cols = append(cols, fmt.Sprintf("ck%d", i))
			if i%2 == 1 {
				vals = append(vals, fmt.Sprintf("'%d'", i))
			} else {
				vals = append(vals, "''")
			}
		}
		return []string{fmt.Sprintf("INSERT INTO large_clustering_key (pk, %s, rc) VALUES (0, %s, 1) USING TIMESTAMP %s",
			strings.Join(cols, ", "), strings.Join(vals, ", "), ts)}, true
	case "missing_columns_large_set":
		var cols, vals []string
		for i := 1; i <= 62; i++ {
			cols = append(cols, fmt.Sprintf("rc%d", i))
			vals = append(vals, fmt.Sprint(i))
		}
		return []string{
			fmt.Sprintf("INSERT INTO missing_columns_large_set (pk, ck, %s) VALUES (0, 0, %s) USING TIMESTAMP %s",
				strings.Join(cols, ", "), strings.Join(vals, ", "), ts),
			"INSERT INTO missing_columns_large_set (pk, ck, rc63, rc64) VALUES (0, 1, 63, 64) USING TIMESTAMP 1525385507816578",
		}, true
	case "many_deleted_partitions":
		for i := 0; i < 65536; i++ {
			stmts = append(stmts, fmt.Sprintf("DELETE FROM many_deleted_partitions USING TIMESTAMP %s WHERE pk = %d", ts, i))
		}
		return stmts, true
	case "many_range_tombstones":
		a := strings.Repeat("a", 650)
		for i := 1000; i < 1100; i++ {
			stmts = append(stmts, fmt.Sprintf("DELETE FROM many_range_tombstones USING TIMESTAMP %s WHERE pk = 'key1' AND ck1 > '%s%d' AND ck1 < '%s%d'",
				ts, a, 2*i, a, 2*i+1))
		}
		return stmts, true
	case "static_row_with_missing_columns":
		return []string{"INSERT INTO static_row_with_missing_columns (pk, ck, st1, rc) VALUES (0, 1, 2, 3) USING TIMESTAMP " + ts}, true
	}
	f, err := os.Open(filepath.Join(dir, "case.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, isCQL := strings.CutPrefix(sc.Text(), "cql: ")
		if isCQL && !strings.HasPrefix(line, "(") {
			if strings.Contains(line, "...") {
				t.Fatalf("%s: abbreviated statement %q needs spelling out", name, line)
			}
			stmts = append(stmts, line)
		}
	}
	return stmts, len(stmts) > 0
}

// TestReferenceCasesFromCQL builds every mc-write case from its CQL and
// compares the partitions with the case's data.json.
func TestReferenceCasesFromCQL(t *testing.T) {
	checked := 0
	for _, dir := range writeCases(t) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			stmts, ok := caseStatements(t, dir)
			if !ok {
				t.Skip("no CQL: the reference content was built in C++")
			}
			src, err := os.ReadFile(filepath.Join(dir, "schema.cql"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := ParseSchema(string(src))
			if err != nil {
				t.Fatal(err)
			}
			s.Keyspace = "ks"
			nows := caseNow[name]
			if nows == nil {
				nows = []int64{1525385507}
			}
			var ms []Mutation
			if len(nows) == 1 {
				// One node time: run the statements as one script.
				b := NewBuilder(s, Options{Now: time.Unix(nows[0], 0)})
				if ms, err = b.Exec(strings.Join(stmts, ";\n")); err != nil {
					t.Fatal(err)
				}
			}
			for i, text := range stmts {
				if len(nows) == 1 {
					break
				}
				b := NewBuilder(s, Options{Now: time.Unix(nows[min(i, len(nows)-1)], 0)})
				got, err := b.Exec(text)
				if err != nil {
					t.Fatalf("%q: %v", text, err)
				}
				ms = append(ms, got...)
			}
			tab := s.Tables[0]
			parts := mergeByKey(t, tab, ms, nows[len(nows)-1])
			got := renderPartitions(t, tab, parts)
			raw, err := os.ReadFile(filepath.Join(dir, "data.json"))
			if err != nil {
				t.Fatal(err)
			}
			want := stripPositions(decodeUseNumber(t, raw))
			if d := diffJSON(any(got), want); d != "" {
				if len(d) > 4000 {
					d = d[:4000]
				}
				t.Fatalf("%s", d)
			}
			checked++
		})
	}
	if testing.Verbose() {
		t.Logf("%d cases built from CQL match their data.json", checked)
	}
	_ = testdata.Root
}

// normalizeTimes blanks what a CQL statement without USING TIMESTAMP
// cannot reproduce: write and deletion times, list cell paths (timeuuids
// made at write time) and counter shards (node ids and clocks).
func normalizeTimes(v any, listCols map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch k {
			case "tstamp", "marked_deleted", "local_delete_time", "expires_at":
				x[k] = "T"
			case "counter_shards":
				delete(x, k)
			case "path":
				if name, _ := x["name"].(string); listCols[name] {
					x[k] = "P"
				}
			default:
				x[k] = normalizeTimes(e, listCols)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeTimes(e, listCols)
		}
	}
	return v
}

// TestReadCorpusFromCQL replays the CQL of the read corpus folders that
// have an expected.json (real Cassandra sstables) and compares the content,
// flushed as Cassandra does (shadowed data purged), apart from times.
func TestReadCorpusFromCQL(t *testing.T) {
	sources := sourceCQL(t)
	root := filepath.Join(testdata.Dir(t), "cassandra")
	checked := 0
	for dir, lines := range sources {
		expected := filepath.Join(root, dir, "expected.json")
		raw, err := os.ReadFile(expected)
		if err != nil {
			continue
		}
		t.Run(dir, func(t *testing.T) {
			s := &Schema{}
			b := NewBuilder(s, Options{Now: time.Unix(1529519641, 0)})
			var ms []Mutation
			for _, line := range lines {
				if ks, ok := strings.CutPrefix(line, "CREATE KEYSPACE "); ok {
					// The statements ran in a session of that keyspace.
					line += " USE " + strings.Fields(ks)[0] + ";"
				}
				got, err := b.Exec(line)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				ms = append(ms, got...)
			}
			if len(s.Tables) != 1 {
				t.Fatalf("%d tables", len(s.Tables))
			}
			tab := s.Tables[0]
			parts := mergeByKey(t, tab, ms, 1529519641)
			for _, p := range parts {
				if err := mutation.PurgeShadowed(tab, p); err != nil {
					t.Fatal(err)
				}
			}
			lists := map[string]bool{}
			for _, c := range tab.Regular {
				if c.Type.Kind == schema.KindList {
					lists[c.Name] = true
				}
			}
			got := normalizeTimes(renderPartitions(t, tab, parts), lists)
			want := normalizeTimes(stripPositions(decodeUseNumber(t, raw)), lists)
			if d := diffJSON(any(got), want); d != "" {
				if len(d) > 30000 {
					d = d[:3000]
				}
				t.Fatal(d)
			}
			checked++
		})
	}
	if checked < 8 {
		t.Errorf("checked %d read-corpus folders, want 8", checked)
	}
}
