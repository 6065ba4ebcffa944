package bulk

import (
	"io"
	"math/rand/v2"
	"strconv"
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

// FuzzParseCSVInt: the integer fast path agrees with strconv.ParseInt
// (after the blank trimming parseCSVInt allows) for every width: the same
// value, or an error for both.
func FuzzParseCSVInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "7", "-128", "127", "128", "-129", "2147483647", "2147483648", "-2147483648",
		"-2147483649", "999999999999999999", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"+5", " 12 ", "007", "", "-", "1_000", "0x10", "１２"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkParseCSVInt(t, s)
	})
}

func checkParseCSVInt(t *testing.T, s string) {
	t.Helper()
	for _, bits := range []int{8, 16, 32, 64} {
		got, err := parseCSVInt(s, bits)
		want, werr := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if (err != nil) != (werr != nil) || err == nil && got != want {
			t.Errorf("parseCSVInt(%q, %d) = %d, %v; strconv says %d, %v", s, bits, got, err, want, werr)
		}
	}
}

// TestParseCSVIntMatchesStrconv runs the fuzz target's check over the
// boundaries of every width and random numbers of every length.
func TestParseCSVIntMatchesStrconv(t *testing.T) {
	inputs := []string{"0", "-0", "+5", " 12 ", "007", "", "-", "--1", "1-", "1 2", "0x10"}
	for _, bits := range []uint{8, 16, 32, 64} {
		lim := uint64(1) << (bits - 1)
		for _, d := range []int64{-2, -1, 0, 1, 2} {
			inputs = append(inputs, strconv.FormatUint(lim+uint64(d), 10), "-"+strconv.FormatUint(lim+uint64(d), 10))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		n := r.Uint64() >> r.UintN(64)
		s := strconv.FormatUint(n, 10)
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		inputs = append(inputs, s)
	}
	for _, s := range inputs {
		checkParseCSVInt(t, s)
	}
}
