package livenode

import (
	"bytes"
	"context"
	"fmt"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/workload"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/internal/node"
	"github.com/castable-db/castable/internal/oracle"
	"github.com/castable-db/castable/sstables"
)

// nodeVectorTable is a table of vector columns: in the partition key, in
// both clustering columns (ASC: Cassandra 5.0 refuses a vector literal for
// a DESC vector clustering column, "Invalid vector literal"), static, of
// fixed-length elements (float, bigint, nested vector) and of
// variable-length ones (text, frozen and non-frozen list, tuple), and a
// non-frozen map of vectors. %s is the keyspace, %s the table.
const nodeVectorTable = `CREATE TABLE %s.%s (k vector<int, 2>, c vector<text, 2>, d vector<float, 2>,
  s vector<float, 2> static,
  f vector<float, 3>, t vector<text, 2>, n vector<vector<int, 2>, 2>, fl vector<frozen<list<int>>, 2>,
  l vector<list<int>, 2>, b vector<bigint, 2>, tu vector<tuple<int, text>, 2>, m map<text, vector<float, 2>>,
  PRIMARY KEY (k, c, d))`

// nodeVectorData are the writes, each with its own timestamp; %s is
// keyspace.table. Floats have short decimal forms, so that sstabledump's
// Java 17 Float.toString prints them as castable does.
func nodeVectorData(table string) []string {
	stmts := []string{
		"INSERT INTO %s (k, c, d, s, f, t, n, fl, l, b, tu, m) VALUES ([1, 2], ['a', 'bc'], [1.5, -2], [3, 4], [1, 2.5, -3], ['x', ''], [[1, 2], [3, 4]], [[5], []], [[1], [2, 3]], [-1, 9000000000], [(1, 'x'), (2, null)], {'a': [1, 2], 'b': [0.5, -0.25]}) USING TIMESTAMP 1000",
		"INSERT INTO %s (k, c, d, f) VALUES ([1, 2], ['', 'z'], [0, 0], [0.25, 0.5, 0.75]) USING TIMESTAMP 1001",
		"INSERT INTO %s (k, c, d, t, b) VALUES ([3, 4], ['q', 'r'], [-1, 1], ['" + strings.Repeat("long ", 60) + "', 'ü'], [0, 1]) USING TIMESTAMP 1002",
		"UPDATE %s USING TIMESTAMP 1003 SET b = null WHERE k = [1, 2] AND c = ['', 'z'] AND d = [0, 0]",
		"UPDATE %s USING TIMESTAMP 1004 SET s = [-0.5, 8] WHERE k = [3, 4]",
	}
	for i := 0; i < 30; i++ {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO %%s (k, c, d, f, n) VALUES ([%d, %d], ['p', '%d'], [%d.5, 1], [%d, 0.125, -%d], [[%d, 0], [0, %d]]) USING TIMESTAMP %d",
			i, -i, i, i, i, i, i, -i, 2000+i))
	}
	for i, s := range stmts {
		stmts[i] = fmt.Sprintf(s, table)
	}
	return stmts
}

// The simple columns castable's reading of the node's flush is compared
// on, in SELECT order.
var nodeVectorColumns = []string{"k", "c", "d", "s", "f", "t", "n", "fl", "l", "b", "tu"}

// TestNodeVectors: a Cassandra 5.0 node flushes vector columns; castable
// verifies the SSTable, reads every value as the node's SELECT returns it,
// dumps what the node's own sstabledump prints, and rewrites it (convert
// --to oa, same generation) byte for byte. Then the other way: castable
// writes the same rows as an oa SSTable, the node loads it, and SELECT
// returns what the same statements INSERTed over CQL give.
func TestNodeVectors(t *testing.T) {
	n := node.Get(t, node.Cassandra50)
	ks := n.Keyspace(t)
	if err := n.ExecInOrder(fmt.Sprintf(nodeVectorTable, ks, "vec"), fmt.Sprintf(nodeVectorTable, ks, "vec_cql"),
		fmt.Sprintf(nodeVectorTable, ks, "vec_loaded")); err != nil {
		t.Fatal(err)
	}
	if err := n.Exec(nodeVectorData(ks + ".vec")...); err != nil {
		t.Fatal(err)
	}
	if err := n.Flush(ks, "vec"); err != nil {
		t.Fatal(err)
	}
	dir, err := n.TableDir(ks, "vec")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	ddl := fmt.Sprintf(nodeVectorTable, ks, "vec") + ";\n"
	schemaFile := filepath.Join(work, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	descs, err := sstables.ListSSTables(sstables.OSFS, dir)
	if err != nil || len(descs) != 1 {
		t.Fatalf("the node's flush: %v, %v", descs, err)
	}
	desc := descs[0]
	if desc.Version.String() != "oa" || desc.Generation == 0 {
		t.Fatalf("the node flushed %s, want an oa SSTable with a generation", desc)
	}

	t.Run("verify", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if err := cli.Verify(&cli.Env{Stdout: &stdout, Stderr: &stderr}, cli.VerifyOptions{SSTables: []string{dir}, Strict: true}); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		if err := cli.Verify(&cli.Env{Stdout: &stdout, Stderr: &stderr}, cli.VerifyOptions{SSTables: []string{dir}, Schema: schemaFile, Strict: true}); err != nil {
			t.Fatalf("with the schema: %v\n%s", err, stderr.String())
		}
	})

	t.Run("read", func(t *testing.T) {
		res, err := n.Query(fmt.Sprintf("SELECT %s FROM %s.vec", strings.Join(nodeVectorColumns, ", "), ks), 0)
		if err != nil {
			t.Fatal(err)
		}
		got := castableRows(t, desc, schemaFile, nodeVectorColumns)
		if len(got) != len(res.Rows) {
			t.Fatalf("castable reads %d rows, the node returns %d", len(got), len(res.Rows))
		}
		for i, want := range res.Rows {
			if !reflect.DeepEqual(got[i], want) {
				t.Errorf("row %d:\ncastable %x\nnode     %x", i, got[i], want)
			}
		}
	})

	t.Run("dump", func(t *testing.T) {
		o := oracle.Cassandra50(t)
		theirs, err := o.Read(dir, ddl, oracle.Options{JSON: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, schema := range []string{schemaFile, ""} {
			var ours bytes.Buffer
			if err := cli.Dump(&cli.Env{Stdout: &ours, Stderr: io.Discard}, cli.DumpOptions{SSTable: dir, Schema: schema, RawTimestamps: true}); err != nil {
				t.Fatal(err)
			}
			if schema == "" {
				// Without a schema the names are sstabledump's for a
				// header-only table; compare the values only.
				if !bytes.Contains(ours.Bytes(), []byte(`"value": [[1, 2], [3, 4]]`)) || !bytes.Contains(ours.Bytes(), []byte(`"clustering": [["a", "bc"], [1.5, -2.0]]`)) {
					t.Errorf("dump without a schema:\n%s", ours.String())
				}
				continue
			}
			diff, err := oracle.DiffDumps(ours.Bytes(), theirs.Stdout)
			if err != nil {
				t.Fatal(err)
			}
			if diff != "" {
				t.Errorf("Cassandra's sstabledump differs from castable dump -t:\n%s", diff)
			}
		}
	})

	t.Run("convert", func(t *testing.T) {
		out := filepath.Join(work, "convert")
		if _, err := cli.Convert(context.Background(), quiet(), cli.ConvertOptions{SSTables: []string{dir}, Out: out, To: "oa", Generation: desc.Generation}); err != nil {
			t.Fatal(err)
		}
		ours := sstables.Descriptor{Dir: out, Version: desc.Version, Generation: desc.Generation}
		for _, c := range []sstables.Component{sstables.ComponentData, sstables.ComponentIndex, sstables.ComponentFilter,
			sstables.ComponentSummary, sstables.ComponentCompressionInfo, sstables.Component(desc.Version.DigestComponent()), sstables.ComponentTOC} {
			a, err := os.ReadFile(desc.Path(c))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(ours.Path(c))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs from the node's at byte %d (%d vs %d bytes)", c, firstDifference(a, b), len(b), len(a))
			}
		}
		a, _ := os.ReadFile(desc.Path(sstables.ComponentStatistics))
		b, _ := os.ReadFile(ours.Path(sstables.ComponentStatistics))
		if bytes.Equal(a, b) {
			t.Log("Statistics.db is byte-identical too")
			return
		}
		sa, err := sstables.DecodeStatistics(a, desc.Version, "node")
		if err != nil {
			t.Fatal(err)
		}
		sb, err := sstables.DecodeStatistics(b, desc.Version, "castable")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("informational: Statistics.db fields that differ from the node's: %s", strings.Join(statsFieldDiff(sa, sb), "; "))
	})

	t.Run("load", func(t *testing.T) {
		loadDDL := fmt.Sprintf(nodeVectorTable, ks, "vec_loaded") + ";\n"
		loadSchema := filepath.Join(work, "loaded.cql")
		stmts := nodeVectorData(ks + ".vec_loaded")
		cqlFile := filepath.Join(work, "loaded-data.cql")
		if err := os.WriteFile(loadSchema, []byte(loadDDL), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cqlFile, []byte(strings.Join(stmts, ";\n")+";\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(work, "write")
		wres, err := cli.Write(context.Background(), quiet(), cli.WriteOptions{Schema: loadSchema, CQL: cqlFile, Out: out, Format: "oa", Generation: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(wres.Results) != 1 || wres.Results[0].Partitions != 32 {
			t.Fatalf("castable wrote %d SSTables", len(wres.Results))
		}
		if err := n.Load(ks, "vec_loaded", out); err != nil {
			t.Fatal(err)
		}
		if err := n.Exec(nodeVectorData(ks + ".vec_cql")...); err != nil {
			t.Fatal(err)
		}
		loaded, err := n.Query("SELECT * FROM "+ks+".vec_loaded", 0)
		if err != nil {
			t.Fatal(err)
		}
		inserted, err := n.Query("SELECT * FROM "+ks+".vec_cql", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(loaded.Rows) != len(inserted.Rows) || len(loaded.Rows) != 33 {
			if log, err := os.ReadFile(filepath.Join(n.Dir, "logs", "system.log")); err == nil {
				for _, line := range strings.Split(string(log), "\n") {
					if strings.Contains(line, "SSTableImporter") || strings.Contains(line, "ERROR") {
						t.Log(line)
					}
				}
			}
			t.Fatalf("%d rows loaded, %d inserted over CQL (want 33)", len(loaded.Rows), len(inserted.Rows))
		}
		if !reflect.DeepEqual(loaded.Columns, inserted.Columns) {
			t.Fatalf("columns %v, %v", loaded.Columns, inserted.Columns)
		}
		for i := range loaded.Rows {
			if !reflect.DeepEqual(loaded.Rows[i], inserted.Rows[i]) {
				t.Errorf("row %d:\nloaded   %x\ninserted %x", i, loaded.Rows[i], inserted.Rows[i])
			}
		}
		// writetime() too: the cells carry the statements' timestamps.
		for _, table := range []string{"vec_loaded", "vec_cql"} {
			res, err := n.Query("SELECT writetime(f), writetime(t) FROM "+ks+"."+table+" WHERE k = [1, 2] AND c = ['a', 'bc'] AND d = [1.5, -2]", 0)
			if err != nil || len(res.Rows) != 1 || fmt.Sprintf("%x", res.Rows[0]) != "[00000000000003e8 00000000000003e8]" {
				t.Errorf("%s writetime: %v %v", table, res, err)
			}
		}
	})
}

// castableRows reads desc with the table of schemaFile and returns, in
// the order SELECT returns them (token, then clustering), every row's
// values of cols: the partition key, the clustering columns, the static
// and regular columns (nil for none or a tombstone).
func castableRows(t *testing.T, desc sstables.Descriptor, schemaFile string, cols []string) [][][]byte {
	t.Helper()
	src, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := cql.ParseSchema(string(src))
	if err != nil {
		t.Fatal(err)
	}
	r, err := sstables.OpenAny(desc, s.Tables[0], sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tab := r.Table()
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var out [][][]byte
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		static := map[string][]byte{}
		for _, c := range p.Static.Cells {
			if !c.IsTombstone() {
				static[c.Column.Name] = append([]byte(nil), c.Value...)
			}
		}
		for {
			row, _, err := sc.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil {
				break
			}
			vals := map[string][]byte{}
			for k, v := range static {
				vals[k] = v
			}
			for _, c := range row.Cells {
				if !c.IsTombstone() && c.Path == nil {
					vals[c.Column.Name] = append([]byte(nil), c.Value...)
				}
			}
			vals[tab.PartitionKey[0].Name] = append([]byte(nil), p.Key...)
			for i, c := range tab.Clustering {
				vals[c.Name] = append([]byte(nil), row.Clustering[i]...)
			}
			line := make([][]byte, len(cols))
			for i, name := range cols {
				line[i] = vals[name]
			}
			out = append(out, line)
		}
	}
	return out
}

// statsFieldDiff names the Statistics.db fields (STATS by name, the
// others as a whole) whose decoded values differ.
func statsFieldDiff(a, b *sstables.Statistics) []string {
	var out []string
	va, vb := reflect.ValueOf(a.Stats), reflect.ValueOf(b.Stats)
	for i := 0; i < va.NumField(); i++ {
		x, y := va.Field(i).Interface(), vb.Field(i).Interface()
		if fmt.Sprint(x) != fmt.Sprint(y) {
			out = append(out, fmt.Sprintf("%s: node %v, castable %v", va.Type().Field(i).Name, x, y))
		}
	}
	if !bytes.Equal(a.Cardinality, b.Cardinality) {
		out = append(out, "Cardinality")
	}
	if !bytes.Equal(sstables.AppendSerializationHeader(nil, a.Header), sstables.AppendSerializationHeader(nil, b.Header)) {
		out = append(out, "serialization header")
	}
	if a.Partitioner != b.Partitioner || a.BloomFilterFPChance != b.BloomFilterFPChance {
		out = append(out, "validation")
	}
	return out
}

func firstDifference(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestNodeVectorsBTI: a Cassandra 5.0 node writing BTI (da) flushes the
// same vector table; castable verifies it and rewrites it (convert --to da,
// same generation) byte for byte in Data.db, Partitions.db, Rows.db,
// Filter.db, CompressionInfo.db and the digest. Then the node loads a da
// SSTable castable wrote with vectors in both keys and a partition of 300
// rows cut into row-index blocks, and answers clustering lookups and
// slices, which it finds through Rows.db's byte-comparable vector
// separators, as the same rows INSERTed over CQL.
func TestNodeVectorsBTI(t *testing.T) {
	n := node.Get(t, node.Cassandra50BTI)
	ks := n.Keyspace(t)
	if err := n.ExecInOrder(fmt.Sprintf(nodeVectorTable, ks, "vec")); err != nil {
		t.Fatal(err)
	}
	if err := n.Exec(nodeVectorData(ks + ".vec")...); err != nil {
		t.Fatal(err)
	}
	if err := n.Flush(ks, "vec"); err != nil {
		t.Fatal(err)
	}
	dir, err := n.TableDir(ks, "vec")
	if err != nil {
		t.Fatal(err)
	}
	descs, err := sstables.ListSSTables(sstables.OSFS, dir)
	if err != nil || len(descs) != 1 || descs[0].Version.String() != "da" || descs[0].Generation == 0 {
		t.Fatalf("the node's flush: %v, %v", descs, err)
	}
	desc := descs[0]
	var stderr bytes.Buffer
	if err := cli.Verify(&cli.Env{Stdout: io.Discard, Stderr: &stderr}, cli.VerifyOptions{SSTables: []string{dir}, Strict: true}); err != nil {
		t.Fatalf("verify: %v\n%s", err, stderr.String())
	}
	work := t.TempDir()
	out := filepath.Join(work, "convert")
	if _, err := cli.Convert(context.Background(), quiet(), cli.ConvertOptions{SSTables: []string{dir}, Out: out, To: "da", Generation: desc.Generation}); err != nil {
		t.Fatal(err)
	}
	ours := sstables.Descriptor{Dir: out, Version: desc.Version, Generation: desc.Generation}
	for _, c := range []sstables.Component{sstables.ComponentData, sstables.ComponentPartitions, sstables.ComponentRows, sstables.ComponentFilter,
		sstables.ComponentCompressionInfo, sstables.Component(desc.Version.DigestComponent())} {
		a, err := os.ReadFile(desc.Path(c))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(ours.Path(c))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from the node's at byte %d (%d vs %d bytes)", c, firstDifference(a, b), len(b), len(a))
		}
	}

	// The other way, with vector clustering columns (ASC: the node refuses
	// vector literals for a DESC one) and a partition of many blocks.
	keysDDL := strings.NewReplacer("ks.vec_keys", ks+".keys", ") WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC);", ");").Replace(workload.VectorKeysSchema)
	stmts := strings.Split(strings.TrimSpace(strings.ReplaceAll(workload.VectorKeysData(), "ks.vec_keys", ks+".keys")), ";\n")
	for i := range stmts {
		stmts[i] = strings.TrimSuffix(stmts[i], ";") + " USING TIMESTAMP 1700000000000000"
		if strings.HasPrefix(stmts[i], "DELETE") {
			// DELETE takes USING before WHERE.
			stmts[i] = strings.Replace(strings.TrimSuffix(stmts[i], " USING TIMESTAMP 1700000000000000"), " WHERE ", " USING TIMESTAMP 1700000000000000 WHERE ", 1)
		}
	}
	schemaFile := filepath.Join(work, "keys.cql")
	cqlFile := filepath.Join(work, "keys-data.cql")
	if err := os.WriteFile(schemaFile, []byte(keysDDL), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cqlFile, []byte(strings.Join(stmts, ";\n")+";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(work, "write")
	if _, err := cli.Write(context.Background(), quiet(), cli.WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: written, Format: "da", Generation: 100, ColumnIndexSizeKB: 1}); err != nil {
		t.Fatal(err)
	}
	rowsDB, err := os.Stat(filepath.Join(written, "da-100-bti-Rows.db"))
	if err != nil || rowsDB.Size() == 0 {
		t.Fatalf("no row index: %v", err)
	}
	ddl := strings.TrimSuffix(strings.TrimSpace(keysDDL), ";")
	if err := n.ExecInOrder(ddl, strings.Replace(ddl, ks+".keys", ks+".keys_cql", 1)); err != nil {
		t.Fatal(err)
	}
	if err := n.Load(ks, "keys", written); err != nil {
		t.Fatal(err)
	}
	cqlStmts := make([]string, len(stmts))
	for i, s := range stmts {
		cqlStmts[i] = strings.Replace(s, ks+".keys ", ks+".keys_cql ", 1)
	}
	// The range deletion must follow the inserts it deletes, at the same
	// timestamp; order does not matter to the result (a tie is a delete).
	if err := n.Exec(cqlStmts...); err != nil {
		t.Fatal(err)
	}
	for _, where := range []string{
		"",
		" WHERE k = [7, 7]",
		" WHERE k = [7, 7] AND c1 = ['row 250', 'x']",
		" WHERE k = [7, 7] AND c1 = ['row 250', 'x'] AND c2 = [5, 0.5]",
		" WHERE k = [7, 7] AND c1 > ['row 250', 'x']",
		" WHERE k = [7, 7] AND c1 >= ['row 042', 'x'] AND c1 < ['row 130', 'x']",
		" WHERE k = [7, 7] AND c1 < ['row 005', 'x']",
		" WHERE k = [1, 2]",
	} {
		loaded, err := n.Query("SELECT * FROM "+ks+".keys"+where, 0)
		if err != nil {
			t.Fatal(err)
		}
		inserted, err := n.Query("SELECT * FROM "+ks+".keys_cql"+where, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(inserted.Rows) == 0 && where != "" && !strings.Contains(where, "[1, 2]") {
			t.Errorf("%s: the CQL table returns nothing", where)
		}
		if !reflect.DeepEqual(loaded.Rows, inserted.Rows) {
			t.Errorf("SELECT%s: %d rows from castable's da, %d from CQL", where, len(loaded.Rows), len(inserted.Rows))
		}
	}
}
