package bulk

import (
	"io"
	"strings"
	"testing"
)

// FuzzCQLLiteral: the CSV collection-literal parser returns a value or an
// error for any text and never panics (nesting is bounded).
func FuzzCQLLiteral(f *testing.F) {
	for _, s := range []string{"[1, 2, 3]", "{'a': 1, 'b': 2}", "{1, 2}", "(1, 'x', null)", "{f: 'v', g: [1]}", `["json", "text"]`, "'it''s'", "{}", "[[1], [2, 3]]", "[1.0, 2.5, -3]", "[[1, 2], [3, 4]]", "['a', '']"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parseCQLLiteral(s)
	})
}

// FuzzStatementScanner: the CQL splitter terminates on any input, returns
// statements that together hold every byte outside leading blanks and
// comments, and never panics.
func FuzzStatementScanner(f *testing.F) {
	for _, s := range []string{
		"INSERT INTO t (a) VALUES (1);", "BEGIN BATCH INSERT INTO t (a) VALUES (1); APPLY BATCH;",
		"-- c\n/* d */ DELETE FROM t WHERE a = 'x;y';", `UPDATE "a;b" SET c = $$;$$ WHERE d = 1`, "'unterminated",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc := newStatementScanner(strings.NewReader(s))
		total := 0
		for i := 0; ; i++ {
			stmt, _, err := sc.next()
			if err != nil {
				if err != io.EOF && !strings.Contains(err.Error(), "line") {
					t.Fatalf("error without a line: %v", err)
				}
				break
			}
			total += len(stmt)
			if total > len(s) || i > len(s) {
				t.Fatalf("statements hold %d bytes of a %d-byte input", total, len(s))
			}
		}
	})
}
