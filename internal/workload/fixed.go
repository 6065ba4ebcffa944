package workload

import (
	"fmt"
	"strings"
)

// VectorKeysSchema is a table whose partition and clustering keys are
// vectors (fixed and variable elements, one clustering column descending),
// in keyspace ks.
const VectorKeysSchema = `CREATE TABLE ks.vec_keys (k vector<int, 2>, c1 vector<text, 2>, c2 vector<float, 2>, v vector<bigint, 1>, w text,
  PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC);`

// VectorKeysData returns statements over VectorKeysSchema: a few rows, a
// 300-row partition whose row index has several blocks, a range deletion
// and a row deletion.
func VectorKeysData() string {
	var b strings.Builder
	b.WriteString("INSERT INTO ks.vec_keys (k, c1, c2, v) VALUES ([1, 2], ['a', 'b'], [1.5, -2], [9000000000]);\n")
	b.WriteString("INSERT INTO ks.vec_keys (k, c1, c2, v) VALUES ([1, 2], ['', 'b'], [0, 0], [-1]);\n")
	b.WriteString("INSERT INTO ks.vec_keys (k, c1, c2) VALUES ([-1, 0], ['z', ''], [-0.25, 0.125]);\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "INSERT INTO ks.vec_keys (k, c1, c2, w) VALUES ([7, 7], ['row %03d', 'x'], [%d, 0.5], '%s');\n", i, i%7, strings.Repeat("w", 40))
	}
	b.WriteString("DELETE FROM ks.vec_keys WHERE k = [7, 7] AND c1 > ['row 100', 'x'] AND c1 < ['row 120', 'x'];\n")
	b.WriteString("DELETE FROM ks.vec_keys WHERE k = [1, 2] AND c1 = ['a', 'b'] AND c2 = [1.5, -2];\n")
	return b.String()
}
