package bulk

import (
	"io"
	"strings"
	"testing"
)

// TestStatementScanner: statements split at the ';' that ends them, not
// inside strings, quoted names, comments or batches; each with its line.
func TestStatementScanner(t *testing.T) {
	src := `-- a comment; with a semicolon
INSERT INTO t (a, b) VALUES (1, 'x;y');
/* block ; comment */ UPDATE t SET b = 'it''s;' WHERE a = 2;

BEGIN BATCH
  INSERT INTO t (a) VALUES (3);
  DELETE FROM t WHERE a = 4;
APPLY   BATCH;
INSERT INTO "we;ird" (a) VALUES ($$x;y$$);
DELETE FROM t WHERE a = 5`
	sc := newStatementScanner(strings.NewReader(src))
	type stmt struct {
		prefix string
		line   int
	}
	want := []stmt{
		{"INSERT INTO t (a, b) VALUES (1, 'x;y');", 2},
		{"UPDATE t SET b = 'it''s;' WHERE a = 2;", 3},
		{"BEGIN BATCH", 5},
		{`INSERT INTO "we;ird" (a) VALUES ($$x;y$$);`, 9},
		{"DELETE FROM t WHERE a = 5", 10},
	}
	for i, w := range want {
		got, line, err := sc.next()
		if err != nil {
			t.Fatalf("statement %d: %v", i, err)
		}
		if !strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(got, "/* block ; comment */")), w.prefix) || line != w.line {
			t.Errorf("statement %d: %q at line %d, want %q at line %d", i, got, line, w.prefix, w.line)
		}
		if i == 2 && !strings.HasSuffix(got, "APPLY   BATCH;") {
			t.Errorf("batch cut early: %q", got)
		}
	}
	if _, _, err := sc.next(); err != io.EOF {
		t.Errorf("after the last statement: %v, want io.EOF", err)
	}
	if _, _, err := newStatementScanner(strings.NewReader("INSERT INTO t (a) VALUES ('open")).next(); err == nil {
		t.Error("an unterminated string is not an error")
	}
}
