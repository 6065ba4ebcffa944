package cql

import (
	"strings"
	"testing"
)

func TestParseSelect(t *testing.T) {
	for _, tc := range []struct {
		src   string
		check func(*Select) bool
	}{
		{"SELECT * FROM ks.t", func(s *Select) bool { return s.Star && s.Table.String() == "ks.t" }},
		{"select a, B, \"C\" from t;", func(s *Select) bool {
			return len(s.Selectors) == 3 && s.Selectors[1].Column.Name == "b" && s.Selectors[2].Column.Name == "C" && s.Table.Keyspace == ""
		}},
		{"SELECT DISTINCT pk, st FROM ks.t", func(s *Select) bool { return s.Distinct && len(s.Selectors) == 2 }},
		{"SELECT distinct FROM ks.t", func(s *Select) bool { return !s.Distinct && s.Selectors[0].Column.Name == "distinct" }},
		{"SELECT JSON * FROM ks.t", func(s *Select) bool { return s.JSON && s.Star }},
		{"SELECT writetime(v), TTL(v) AS left, count(*), COUNT(1) AS n FROM ks.t", func(s *Select) bool {
			x := s.Selectors
			return x[0].Kind == SelectWritetime && x[0].Column.Name == "v" && x[1].Kind == SelectTTL && x[1].Alias == "left" &&
				x[2].Kind == SelectCount && x[2].CountArg == "*" && x[3].CountArg == "1" && x[3].Alias == "n"
		}},
		{"SELECT * FROM ks.t WHERE pk = 1 AND ck > 2 AND ck <= 5", func(s *Select) bool {
			return len(s.Where) == 3 && s.Where[1].Op == ">" && s.Where[2].Op == "<="
		}},
		{"SELECT * FROM ks.t WHERE pk IN (1, 2, 3) AND ck IN ()", func(s *Select) bool {
			return s.Where[0].Op == "IN" && len(s.Where[0].Value.Elems) == 3 && len(s.Where[1].Value.Elems) == 0
		}},
		{"SELECT * FROM ks.t WHERE (c1, c2) >= (1, 'a') AND (c1, c2) IN ((1, 'a'), (2, 'b'))", func(s *Select) bool {
			return len(s.Where[0].Columns) == 2 && s.Where[0].Value.Kind == TermTuple && len(s.Where[1].Value.Elems) == 2
		}},
		{"SELECT * FROM ks.t WHERE token(a, b) > -5 AND token(a, b) <= token(1, 'x')", func(s *Select) bool {
			return s.Where[0].Token && len(s.Where[0].Columns) == 2 && s.Where[0].Value.Text == "-5" && s.Where[1].Value.Kind == TermFunction
		}},
		{"SELECT * FROM ks.t WHERE m CONTAINS KEY 'k' AND l CONTAINS 3 AND v != 4 ALLOW FILTERING", func(s *Select) bool {
			return s.Where[0].Op == OpContainsKey && s.Where[1].Op == OpContains && s.Where[2].Op == OpNotEqual && s.AllowFiltering
		}},
		{"SELECT * FROM ks.t PER PARTITION LIMIT 2 LIMIT 10 ALLOW FILTERING", func(s *Select) bool {
			return s.HasPerPartitionLimit && s.PerPartitionLimit == 2 && s.HasLimit && s.Limit == 10 && s.AllowFiltering
		}},
		{"SELECT * FROM ks.t WHERE pk = 1 ORDER BY ck DESC, ck2", func(s *Select) bool {
			return len(s.OrderBy) == 2 && s.OrderBy[0].Descending && !s.OrderBy[1].Descending
		}},
		{"SELECT * FROM ks.t GROUP BY pk", func(s *Select) bool { return len(s.GroupBy) == 1 }},
		{"SELECT token FROM ks.t WHERE token = 1", func(s *Select) bool { return !s.Where[0].Token && s.Where[0].Columns[0].Name == "token" }},
	} {
		s, err := ParseSelect(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if !tc.check(s) {
			t.Errorf("%s: parsed as %+v", tc.src, s)
		}
	}
}

func TestParseSelectErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", "expected SELECT"},
		{"INSERT INTO t (a) VALUES (1)", "expected SELECT"},
		{"SELECT FROM t", "expected a column name"},
		{"SELECT * t", "expected FROM"},
		{"SELECT * FROM", "expected a table name"},
		{"SELECT * FROM t WHERE", "expected a column name"},
		{"SELECT * FROM t WHERE a", "expected =, !=, <, <=, >, >=, IN or CONTAINS"},
		{"SELECT * FROM t WHERE a = ", "expected a value"},
		{"SELECT * FROM t WHERE a IN 1", "expected '('"},
		{"SELECT * FROM t WHERE a IN (1, 2", "expected ')'"},
		{"SELECT * FROM t WHERE token(a) IN (1)", "token() relations take"},
		{"SELECT * FROM t WHERE (a, b) CONTAINS 1", "a multi-column relation takes"},
		{"SELECT * FROM t WHERE a IS NOT NULL", "IS relations are not supported"},
		{"SELECT * FROM t WHERE a LIKE 'x'", "LIKE relations are not supported"},
		{"SELECT * FROM t WHERE a = ?", "bind markers are not supported"},
		{"SELECT * FROM t LIMIT 0", "LIMIT must be strictly positive"},
		{"SELECT * FROM t LIMIT -1", "LIMIT must be strictly positive"},
		{"SELECT * FROM t LIMIT 99999999999", "out of range"},
		{"SELECT * FROM t LIMIT x", "expected an integer after LIMIT"},
		{"SELECT * FROM t PER LIMIT 1", "expected PARTITION"},
		{"SELECT * FROM t ALLOW", "expected FILTERING"},
		{"SELECT count(v) FROM t", "only count(*) and count(1)"},
		{"SELECT max(v) FROM t", "the function max() is not supported"},
		{"SELECT writetime(1) FROM t", "expected a column name"},
		{"SELECT * FROM t; SELECT * FROM t", "expected the end of the statement"},
		{"SELECT * FROM t 'x'", "expected the end of the statement"},
		{"SELECT a AS FROM t", "expected an alias"},
	} {
		_, err := ParseSelect(tc.src)
		if err == nil {
			t.Errorf("%q: no error, want %q", tc.src, tc.want)
			continue
		}
		if _, ok := err.(*SyntaxError); !ok {
			t.Errorf("%q: error of type %T", tc.src, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
}
