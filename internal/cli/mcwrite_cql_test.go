package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cqlIncomplete lists the mc-write cases whose case.txt CQL cannot give the
// reference bytes, and why.
var cqlIncomplete = map[string]string{
	"counter_table":               "no CQL: the counter contexts (three fixed counter ids, global shards) are built directly in C++",
	"overlapped_range_tombstones": "the two DELETEs carry local deletion times from two C++ clock readings (1527821291, 1527821308); one run has one clock",
	"shadowable_deletion":         "materialized-view data: the view rows (ScyllaDB shadowable deletions) follow from base-table statements, which castable does not turn into view updates",
}

// caseCQL returns the statements of a case: its cql: lines, with the
// abbreviations and prose of case.txt expanded as the case describes them,
// and the clock (local deletion and expiry times) they need.
func (c mcWriteCase) caseCQL() (src string, now time.Time) {
	var b strings.Builder
	now = time.UnixMicro(1525385507816568)
	switch c.name {
	case "large_clustering_key":
		// ckX is the decimal string X for odd X and '' for even X.
		var cols, vals []string
		for i := 1; i <= 35; i++ {
			cols = append(cols, fmt.Sprintf("ck%d", i))
			if i%2 == 1 {
				vals = append(vals, fmt.Sprintf("'%d'", i))
			} else {
				vals = append(vals, "''")
			}
		}
		fmt.Fprintf(&b, "INSERT INTO large_clustering_key (pk, %s, rc) VALUES (0, %s, 1) USING TIMESTAMP 1525385507816568;\n",
			strings.Join(cols, ", "), strings.Join(vals, ", "))
		return b.String(), now
	case "missing_columns_large_set":
		var cols, vals []string
		for i := 1; i <= 62; i++ {
			cols = append(cols, fmt.Sprintf("rc%d", i))
			vals = append(vals, strconv.Itoa(i))
		}
		fmt.Fprintf(&b, "INSERT INTO missing_columns_large_set (pk, ck, %s) VALUES (0, 0, %s) USING TIMESTAMP 1525385507816568;\n",
			strings.Join(cols, ", "), strings.Join(vals, ", "))
		b.WriteString("INSERT INTO missing_columns_large_set (pk, ck, rc63, rc64) VALUES (0, 1, 63, 64) USING TIMESTAMP 1525385507816578;\n")
		return b.String(), now
	case "many_deleted_partitions":
		for i := 0; i < 65536; i++ {
			fmt.Fprintf(&b, "DELETE FROM many_deleted_partitions USING TIMESTAMP 1525385507816568 WHERE pk = %d;\n", i)
		}
		return b.String(), now
	case "many_range_tombstones":
		// RT i (i = 1000..1099) deletes 'a'*650+str(2i) < ck1 < 'a'*650+str(2i+1).
		pad := strings.Repeat("a", 650)
		for i := 1000; i < 1100; i++ {
			fmt.Fprintf(&b, "DELETE FROM many_range_tombstones USING TIMESTAMP 1525385507816568 WHERE pk = 'key1' AND ck1 > '%s%d' AND ck1 < '%s%d';\n", pad, 2*i, pad, 2*i+1)
		}
		return b.String(), time.Unix(1528226962, 0)
	case "ttled_row":
		// The expiry is a C++ time point (1543904331) plus the TTL.
		now = time.Unix(1543904331, 0)
	case "static_row_with_missing_columns":
		// The comment names table static_row; the C++ test writes
		// static_row_with_missing_columns at the run's timestamp.
		b.WriteString("INSERT INTO static_row_with_missing_columns (pk, ck, st1, rc) VALUES (0, 1, 2, 3);\n")
		return b.String(), now
	}
	for _, line := range c.facts["cql"] {
		if !strings.HasPrefix(line, "(") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String(), now
}

// TestWriteMCCasesFromCQL writes each case's CQL statements with --cql and
// compares the byte-exact components with expected.sha256.
func TestWriteMCCasesFromCQL(t *testing.T) {
	for _, c := range mcWriteCases(t) {
		t.Run(c.name, func(t *testing.T) {
			if why := cqlIncomplete[c.name]; why != "" {
				t.Skipf("the case's CQL cannot reproduce it: %s", why)
			}
			src, now := c.caseCQL()
			if src == "" {
				t.Fatal("no cql: statements")
			}
			cqlFile := filepath.Join(t.TempDir(), "data.cql")
			if err := os.WriteFile(cqlFile, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			opts := c.writeOptions(out)
			opts.CQL = cqlFile
			opts.Timestamp = 1525385507816568
			opts.Now = now
			var stderr bytes.Buffer
			if _, err := Write(context.Background(), &Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}, opts); err != nil {
				t.Fatalf("write: %v\n%s", err, stderr.String())
			}
			checkSums(t, c, out)
		})
	}
}
