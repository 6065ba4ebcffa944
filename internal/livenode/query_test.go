package livenode

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/internal/node"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/query"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

// compositeWorkload is a table with a composite partition key and a
// descending first clustering column, for the query tests (the random
// workload's key is one int).
func compositeWorkload(ks string, seed uint64) *workload.Workload {
	r := rand.New(rand.NewPCG(seed, seed+1))
	w := &workload.Workload{Keyspace: ks, Table: "c",
		Create: fmt.Sprintf("CREATE TABLE %s.c (a int, b text, c int, d int, s text static, v int, x text, PRIMARY KEY ((a, b), c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC)", ks)}
	ts := int64(1700000000000000)
	bs := []string{"p", "q", "r"}
	for i := 0; i < 300; i++ {
		ts += int64(r.IntN(100)) + 1
		a, b, c, d := r.IntN(6), bs[r.IntN(3)], r.IntN(4), r.IntN(4)
		var st string
		switch x := r.IntN(20); {
		case x < 12:
			st = fmt.Sprintf("INSERT INTO %s.c (a, b, c, d, v, x) VALUES (%d, '%s', %d, %d, %d, 'x%d') USING TIMESTAMP %d", ks, a, b, c, d, r.IntN(50), r.IntN(5), ts)
			if r.IntN(5) == 0 {
				st += fmt.Sprintf(" AND TTL %d", 86400+r.IntN(100))
			}
		case x < 15:
			st = fmt.Sprintf("UPDATE %s.c USING TIMESTAMP %d SET s = 's%d' WHERE a = %d AND b = '%s'", ks, ts, r.IntN(4), a, b)
		case x < 17:
			st = fmt.Sprintf("UPDATE %s.c USING TIMESTAMP %d SET v = %d WHERE a = %d AND b = '%s' AND c = %d AND d = %d", ks, ts, r.IntN(50), a, b, c, d)
		case x < 18:
			st = fmt.Sprintf("DELETE FROM %s.c USING TIMESTAMP %d WHERE a = %d AND b = '%s' AND c = %d AND d = %d", ks, ts, a, b, c, d)
		case x < 19:
			st = fmt.Sprintf("DELETE FROM %s.c USING TIMESTAMP %d WHERE a = %d AND b = '%s' AND c > %d", ks, ts, a, b, c)
		default:
			st = fmt.Sprintf("DELETE FROM %s.c USING TIMESTAMP %d WHERE a = %d AND b = '%s'", ks, ts, a, b)
		}
		w.Statements = append(w.Statements, st)
	}
	return w
}

// TestQueryEqualsNodeSelect: seeded random SELECTs of every form castable
// query supports, over the SSTables a node flushed of a random workload
// (every type, statics, deletions, TTLs) and of a composite-key table, are
// answered by castable exactly as the node answers them through the
// driver: the same columns, the same rows in the same order, the same
// bytes — or an error where the node refuses the statement (the same
// message). ttl() values may differ by the seconds between the two reads.
func TestQueryEqualsNodeSelect(t *testing.T) {
	node.Start(node.Cassandra311, node.Cassandra50)
	perTable := 300
	if testing.Short() {
		perTable = 20
	}
	if s := os.Getenv("CASTABLE_QUERY_COUNT"); s != "" {
		perTable, _ = strconv.Atoi(s)
	}
	for _, f := range []*node.Flavour{node.Cassandra311, node.Cassandra50} {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			n := node.Get(t, f)
			ks := n.Keyspace(t)
			dir := keepDir(t, "query-"+f.Name)
			w := workload.Generate(ks, workload.Options{Seed: 23, Statements: 300, Vectors: f.Release == "5.0"})
			createTypes(t, n, w)
			create(t, n, w, w.Table)
			cw := compositeWorkload(ks, 23)
			if err := n.ExecInOrder(cw.Create); err != nil {
				t.Fatal(err)
			}
			release := ""
			if f.Release == "3.11" {
				release = "3.11"
			}
			for i, wl := range []*workload.Workload{w, cw} {
				inputs := flushBatches(t, n, wl, 3, filepath.Join(dir, wl.Table))
				sch, err := cql.ParseSchema(w.Schema() + cw.Create + ";\n")
				if err != nil {
					t.Fatal(err)
				}
				var descs []sstables.Descriptor
				for _, p := range inputs {
					d, _, _, err := sstables.ParseDescriptor(p)
					if err != nil {
						t.Fatal(err)
					}
					descs = append(descs, d)
				}
				now := time.Now()
				set, err := table.Open(descs, nil, table.Options{Now: now, Table: sch.Table(ks + "." + wl.Table)})
				if err != nil {
					t.Fatal(err)
				}
				defer set.Close()
				g := newQueryGen(t, set, uint64(100+i))
				mismatched := 0
				var failed []string // by the node
				for k := 0; k < perTable; k++ {
					stmt := g.next()
					ok, refused, nodeFailed := compareQuery(t, n, set, stmt, release, now)
					if nodeFailed {
						// A Cassandra 5.0 failure, not castable's: after a
						// flush (and after a compaction as well) its range
						// reads with DISTINCT or PER PARTITION LIMIT fail
						// ("The UnfilteredRowIterator returned by the last
						// call to next() was initialized: it must be closed
						// before calling hasNext() or next() again").
						failed = append(failed, stmt)
						continue
					}
					if refused {
						g.refused++
					} else if ok {
						g.answered++
					}
					if !ok {
						mismatched++
						if mismatched > 10 {
							t.Fatal("too many differences")
						}
					}
				}
				t.Logf("%s: %d queries, %d answered, %d refused by both, %d failed on the node", wl.Table, perTable, g.answered, g.refused, len(failed))
			}
		})
	}
}

var (
	loggedMu          sync.Mutex
	loggedNodeFailure = map[*node.Node]bool{}
)

var nodeMessage = regexp.MustCompile(`message="(.*)"`)

// compareQuery runs stmt on the node and on castable and reports whether
// they agree (failing t when not), whether both refused it, and whether
// the node failed to run it (a ReadFailure: nothing compared).
func compareQuery(t *testing.T, n *node.Node, set *table.Set, stmt, release string, now time.Time) (ok, refused, nodeFailed bool) {
	t.Helper()
	want, nodeErr := n.Query(stmt, 0)
	got, err := castableQuery(set, stmt, release, now)
	if nodeErr != nil && strings.Contains(nodeErr.Error(), "ReadFailure") {
		// The node failed to run it (its log says why): nothing to compare.
		first, _, _ := strings.Cut(nodeErr.Error(), "\n")
		t.Logf("%s\n the node fails: %s", stmt, first)
		loggedMu.Lock()
		once := !loggedNodeFailure[n]
		loggedNodeFailure[n] = true
		loggedMu.Unlock()
		if once {
			if b, err := os.ReadFile(filepath.Join(n.Dir, "logs", "system.log")); err == nil {
				if i := strings.LastIndex(string(b), "ERROR ["); i >= 0 {
					t.Logf("the node's log: %.3000s", b[i:])
				}
			}
		}
		return true, false, true
	}
	switch {
	case nodeErr != nil && err != nil:
		msg := nodeErr.Error()
		if m := nodeMessage.FindStringSubmatch(msg); m != nil {
			msg = m[1]
		}
		if !strings.Contains(err.Error(), msg) {
			t.Errorf("%s\n refused with %q, the node with %q", stmt, err, msg)
			return false, true, false
		}
		return true, true, false
	case nodeErr != nil:
		first, _, _ := strings.Cut(nodeErr.Error(), "\n")
		t.Errorf("%s\n castable answers %d rows, the node refuses: %s", stmt, len(got.Rows), first)
		return false, false, false
	case err != nil:
		t.Errorf("%s\n castable refuses: %v; the node answers %d rows", stmt, err, len(want.Rows))
		return false, false, false
	}
	if len(got.Columns) != len(want.Columns) {
		t.Errorf("%s\n columns %v, the node's %v", stmt, got.Columns, want.Columns)
		return false, false, false
	}
	for i := range got.Columns {
		if got.Columns[i].Name != want.Columns[i].Name {
			t.Errorf("%s\n column %d is %s, the node's %s", stmt, i, got.Columns[i].Name, want.Columns[i].Name)
			return false, false, false
		}
	}
	if len(got.Rows) != len(want.Rows) {
		t.Errorf("%s\n %d rows, the node's %d:\n got %x\nwant %x", stmt, len(got.Rows), len(want.Rows), got.Rows, want.Rows)
		return false, false, false
	}
	for i := range got.Rows {
		for j := range got.Rows[i] {
			a, b := got.Rows[i][j], want.Rows[i][j]
			if strings.HasPrefix(got.Columns[j].Name, "ttl(") && len(a) == 4 && len(b) == 4 {
				d := int32(binary.BigEndian.Uint32(a)) - int32(binary.BigEndian.Uint32(b))
				if d >= -120 && d <= 120 {
					continue
				}
			}
			if (a == nil) != (b == nil) || string(a) != string(b) {
				t.Errorf("%s\n row %d column %s: %x, the node's %x", stmt, i, got.Columns[j].Name, a, b)
				return false, false, false
			}
		}
	}
	return true, false, false
}

func castableQuery(set *table.Set, stmt, release string, now time.Time) (*node.Result, error) {
	q, err := query.Parse(stmt, set.Table(), query.Options{Now: now, Release: release})
	if err != nil {
		return nil, err
	}
	rows, err := q.Run(set)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	res := &node.Result{}
	for _, c := range q.Columns() {
		res.Columns = append(res.Columns, node.Column{Name: c.Name, Type: c.Type.String()})
	}
	for {
		r, err := rows.Next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		row := make([][]byte, len(r))
		for i, v := range r {
			if v != nil {
				row[i] = append([]byte{}, v...)
			}
		}
		res.Rows = append(res.Rows, row)
	}
}

// queryGen draws SELECTs over a table from the values its rows hold.
type queryGen struct {
	r     *rand.Rand
	t     *schema.Table
	name  string
	rows  []export.Row // SELECT * of the table, values copied
	cols  []*schema.Column
	index map[*schema.Column]int
	// filterable: simple non-key columns a relation can compare.
	filterable, statics, collections []*schema.Column

	answered, refused int
}

func newQueryGen(t *testing.T, set *table.Set, seed uint64) *queryGen {
	t.Helper()
	tab := set.Table()
	sc, err := set.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	v := export.NewView(sc, tab, export.ViewOptions{Now: time.Unix(set.NowInSec(), 0)})
	g := &queryGen{r: rand.New(rand.NewPCG(seed, seed^0x5bd1e995)), t: tab, name: tab.Keyspace + "." + tab.Name, cols: v.Columns(), index: map[*schema.Column]int{}}
	for i, c := range g.cols {
		g.index[c] = i
	}
	for {
		r, err := v.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		c := *r
		c.Values = make([][]byte, len(r.Values))
		for i, x := range r.Values {
			if x != nil {
				c.Values[i] = append([]byte{}, x...)
			}
		}
		g.rows = append(g.rows, c)
	}
	if len(g.rows) == 0 {
		t.Fatal("the table has no live rows")
	}
	for _, c := range g.cols {
		typ := c.Type.Unreversed()
		switch {
		case c.Kind == schema.PartitionKey || c.Kind == schema.ClusteringKey:
		case typ.Kind.IsCollection():
			g.collections = append(g.collections, c)
		case literalOK(typ):
			g.filterable = append(g.filterable, c)
			if c.Kind == schema.Static {
				g.statics = append(g.statics, c)
			}
		}
	}
	return g
}

// literalOK reports whether literal renders values of t.
func literalOK(t *schema.Type) bool {
	switch t.Kind {
	case schema.KindInt, schema.KindBigint, schema.KindSmallint, schema.KindTinyint, schema.KindVarint, schema.KindDecimal,
		schema.KindText, schema.KindAscii, schema.KindBoolean, schema.KindBlob, schema.KindUUID, schema.KindTimeuuid,
		schema.KindDouble, schema.KindFloat, schema.KindInet, schema.KindDate, schema.KindTime, schema.KindTimestamp:
		return true
	}
	return false
}

// literal is a CQL literal of v.
func literal(t *schema.Type, v []byte) string {
	t = t.Unreversed()
	switch t.Kind {
	case schema.KindText, schema.KindAscii:
		return "'" + strings.ReplaceAll(string(v), "'", "''") + "'"
	case schema.KindBlob:
		return "0x" + hex.EncodeToString(v)
	case schema.KindTimestamp:
		return fmt.Sprint(int64(binary.BigEndian.Uint64(v)))
	case schema.KindList, schema.KindSet, schema.KindMap, schema.KindTuple:
		// cqlsh's form is a CQL literal for these elements.
		return string(query.AppendCQLSH(nil, t, v))
	}
	s, err := t.AppendString(nil, v)
	if err != nil {
		return "null"
	}
	switch t.Kind {
	case schema.KindInet, schema.KindDate, schema.KindTime:
		return "'" + string(s) + "'"
	}
	if len(v) == 0 {
		return "null"
	}
	return string(s)
}

func (g *queryGen) row() *export.Row { return &g.rows[g.r.IntN(len(g.rows))] }

// value is a literal of column c: from a row, or now and then one no row
// holds (for key columns of type int).
func (g *queryGen) value(c *schema.Column) string {
	if c.Type.Unreversed().Kind == schema.KindInt && g.r.IntN(8) == 0 {
		return fmt.Sprint(100 + g.r.IntN(10))
	}
	for range 20 {
		r := g.row()
		if v := r.Values[g.index[c]]; v != nil {
			return literal(c.Type, v)
		}
	}
	return literal(c.Type, g.rows[0].Values[g.index[c]])
}

func (g *queryGen) pick(cs []*schema.Column) *schema.Column { return cs[g.r.IntN(len(cs))] }

func (g *queryGen) op() string { return []string{"<", "<=", ">", ">="}[g.r.IntN(4)] }

// next returns a random SELECT.
func (g *queryGen) next() string {
	t := g.t
	var where []string
	pointQuery, needsFiltering, ckRestricted, regularFiltered := false, false, false, false
	pkNames := func() string {
		var n []string
		for _, c := range t.PartitionKey {
			n = append(n, c.Name)
		}
		return strings.Join(n, ", ")
	}
	keyOf := func() string {
		r := g.row()
		var vals []string
		for _, c := range t.PartitionKey {
			vals = append(vals, literal(c.Type, r.Values[g.index[c]]))
		}
		return strings.Join(vals, ", ")
	}
	switch x := g.r.IntN(10); {
	case x < 4: // every key column by = (or IN for the last)
		pointQuery = true
		for i, c := range t.PartitionKey {
			if i == len(t.PartitionKey)-1 && g.r.IntN(2) == 0 {
				vals := []string{g.value(c), g.value(c)}
				for g.r.IntN(2) == 0 {
					vals = append(vals, g.value(c))
				}
				where = append(where, fmt.Sprintf("%s IN (%s)", c.Name, strings.Join(vals, ", ")))
			} else {
				where = append(where, c.Name+" = "+g.value(c))
			}
		}
	case x < 6: // token ranges
		where = append(where, fmt.Sprintf("token(%s) %s token(%s)", pkNames(), []string{">", ">="}[g.r.IntN(2)], keyOf()))
		if g.r.IntN(2) == 0 {
			where = append(where, fmt.Sprintf("token(%s) %s token(%s)", pkNames(), []string{"<", "<="}[g.r.IntN(2)], keyOf()))
		}
	case x == 6:
		where = append(where, fmt.Sprintf("token(%s) %s %d", pkNames(), g.op(), int64(g.r.Uint64())))
	case x == 7 && len(t.PartitionKey) > 1: // a part of the key: filtering
		c := t.PartitionKey[0]
		where = append(where, c.Name+" = "+g.value(c))
		needsFiltering = true
	case x == 7:
		c := t.PartitionKey[0]
		where = append(where, c.Name+" "+g.op()+" "+g.value(c))
		needsFiltering = true
	}
	// Clustering.
	ck := t.Clustering
	if len(ck) >= 2 && g.r.IntN(3) > 0 {
		ckRestricted = true
		c0, c1 := ck[0], ck[1]
		switch g.r.IntN(9) {
		case 0:
			where = append(where, c0.Name+" = "+g.value(c0))
		case 1:
			where = append(where, c0.Name+" "+g.op()+" "+g.value(c0))
		case 2:
			where = append(where, c0.Name+" "+[]string{">", ">="}[g.r.IntN(2)]+" "+g.value(c0), c0.Name+" "+[]string{"<", "<="}[g.r.IntN(2)]+" "+g.value(c0))
		case 3:
			where = append(where, c0.Name+" = "+g.value(c0), c1.Name+" "+g.op()+" "+g.value(c1))
		case 4:
			where = append(where, fmt.Sprintf("%s IN (%s, %s)", c0.Name, g.value(c0), g.value(c0)))
		case 5:
			where = append(where, c0.Name+" = "+g.value(c0), fmt.Sprintf("%s IN (%s, %s)", c1.Name, g.value(c1), g.value(c1)))
		case 6:
			where = append(where, fmt.Sprintf("(%s, %s) %s (%s, %s)", c0.Name, c1.Name, g.op(), g.value(c0), g.value(c1)))
		case 7:
			where = append(where, fmt.Sprintf("(%s, %s) IN ((%s, %s), (%s, %s))", c0.Name, c1.Name, g.value(c0), g.value(c1), g.value(c0), g.value(c1)))
		case 8: // not a prefix: filtering
			where = append(where, c1.Name+" = "+g.value(c1))
			needsFiltering = true
		}
		if !pointQuery {
			needsFiltering = true
		}
	}
	// Filters.
	if g.r.IntN(10) < 3 {
		needsFiltering = true
		switch x := g.r.IntN(10); {
		case x < 5 || len(g.collections) == 0:
			c := g.pick(g.filterable)
			if x == 0 && len(g.statics) > 0 {
				c = g.pick(g.statics)
			}
			regularFiltered = regularFiltered || c.Kind == schema.Regular
			switch y := g.r.IntN(8); {
			case y < 3:
				where = append(where, c.Name+" = "+g.value(c))
			case y < 6:
				where = append(where, c.Name+" "+g.op()+" "+g.value(c))
			case y == 6:
				where = append(where, c.Name+" != "+g.value(c))
			default:
				where = append(where, fmt.Sprintf("%s IN (%s, %s)", c.Name, g.value(c), g.value(c)))
			}
		default:
			c := g.pick(g.collections)
			regularFiltered = regularFiltered || c.Kind == schema.Regular
			typ := c.Type.Unreversed()
			// An element of some row's value.
			var elems [][]byte
			var keys [][]byte
			for range 20 {
				v := g.row().Values[g.index[c]]
				if v == nil {
					continue
				}
				elems, keys = collectionParts(typ, v)
				if len(elems) > 0 {
					break
				}
			}
			if len(elems) == 0 {
				return g.next()
			}
			k := g.r.IntN(len(elems))
			switch {
			case typ.Kind == schema.KindMap && g.r.IntN(2) == 0:
				where = append(where, c.Name+" CONTAINS KEY "+literal(typ.Params[0], keys[k]))
			case typ.Kind == schema.KindMap:
				where = append(where, c.Name+" CONTAINS "+literal(typ.Params[1], elems[k]))
			default:
				if !literalOK(typ.Params[0].Unreversed()) {
					return g.next()
				}
				where = append(where, c.Name+" CONTAINS "+literal(typ.Params[0], elems[k]))
			}
		}
	}
	// Selection.
	var sel string
	distinct := false
	switch x := g.r.IntN(12); {
	case x < 3:
		sel = "*"
	case x < 8:
		var names []string
		for _, c := range g.cols {
			if g.r.IntN(4) == 0 {
				names = append(names, c.Name)
			}
		}
		for _, c := range g.filterable {
			if g.r.IntN(8) == 0 {
				names = append(names, "writetime("+c.Name+")")
			}
			if g.r.IntN(8) == 0 {
				names = append(names, "ttl("+c.Name+")")
			}
		}
		if len(names) == 0 {
			names = append(names, g.pick(g.cols).Name)
		}
		g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		sel = strings.Join(names, ", ")
	case x < 10:
		sel = []string{"COUNT(*)", "count(1)", "COUNT(*) AS n, " + g.pick(g.cols).Name}[g.r.IntN(3)]
	default:
		distinct = true
		names := []string{pkNames()}
		if len(g.statics) > 0 && g.r.IntN(2) == 0 {
			names = append(names, g.pick(g.statics).Name)
		}
		sel = "DISTINCT " + strings.Join(names, ", ")
	}
	stmt := "SELECT " + sel + " FROM " + g.name
	if len(where) > 0 {
		stmt += " WHERE " + strings.Join(where, " AND ")
	}
	if !distinct && g.r.IntN(7) == 0 {
		stmt += fmt.Sprintf(" PER PARTITION LIMIT %d", 1+g.r.IntN(3))
	}
	if g.r.IntN(5) == 0 {
		stmt += fmt.Sprintf(" LIMIT %d", 1+g.r.IntN(20))
	}
	if needsFiltering && g.r.IntN(10) > 0 || g.r.IntN(10) == 0 {
		stmt += " ALLOW FILTERING"
	}
	_, _ = ckRestricted, regularFiltered
	return stmt
}

// collectionParts splits a collection value into its elements (a map's
// values) and, for a map, its keys.
func collectionParts(t *schema.Type, v []byte) (elems, keys [][]byte) {
	if len(v) < 4 {
		return nil, nil
	}
	n := int(int32(binary.BigEndian.Uint32(v)))
	rest := v[4:]
	read := func() []byte {
		if len(rest) < 4 {
			return nil
		}
		l := int(int32(binary.BigEndian.Uint32(rest)))
		if l < 0 || l > len(rest)-4 {
			rest = nil
			return nil
		}
		x := rest[4 : 4+l]
		rest = rest[4+l:]
		return x
	}
	for i := 0; i < n && len(rest) > 0; i++ {
		e := read()
		if t.Kind == schema.KindMap {
			keys = append(keys, e)
			e = read()
		}
		elems = append(elems, e)
	}
	return elems, keys
}
