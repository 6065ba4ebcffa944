package bulk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// sortedCase is a table and CSV records for it; key returns a record's
// serialized partition key components, for sorting the records by token.
type sortedCase struct {
	name    string
	schema  string
	opts    CSVOptions
	records []string
	key     func(rec string) [][]byte
}

func intKey(rec string) [][]byte {
	pk, _ := strconv.Atoi(rec[:strings.IndexByte(rec, ',')])
	return [][]byte{{byte(pk >> 24), byte(pk >> 16), byte(pk >> 8), byte(pk)}}
}

func textKey(rec string) [][]byte { return [][]byte{[]byte(rec[:strings.IndexByte(rec, ',')])} }

// sortedCases cover what the reader gives a sink: partitions of one
// update, partitions cut into several (more than maxBatchRows rows, rows
// out of clustering order, repeated rows, repeated static values,
// static-only records), nulls, TTLs, and non-frozen sets and maps (complex
// deletions).
func sortedCases() []sortedCase {
	var cases []sortedCase
	var recs []string
	for i := range 3000 {
		v := "value-" + strconv.Itoa(i*7919%1000)
		if i%17 == 0 {
			v = "" // null: a cell tombstone
		}
		recs = append(recs, fmt.Sprintf("%d,%d,%s", i/10, i%10, v))
	}
	cases = append(cases, sortedCase{name: "clustered", schema: testSchema, records: recs, key: intKey})

	recs = nil
	for i := range 10_000 { // one partition of more than maxBatchRows rows
		recs = append(recs, fmt.Sprintf("7,%d,v%d", i, i))
	}
	for i := range 40 { // rows out of clustering order and repeated rows
		recs = append(recs, fmt.Sprintf("%d,%d,w%d", 100+i%4, (i*7)%5, i))
	}
	cases = append(cases, sortedCase{name: "cut", schema: testSchema, records: recs, key: intKey})

	recs = nil
	for p := range 60 {
		st := fmt.Sprintf("static-%d", p)
		if p%9 == 0 {
			st = ""
		}
		if p%11 == 0 && st != "" { // a static-only record first
			recs = append(recs, fmt.Sprintf("k%d,,%s,,,", p, st))
		}
		for r := range 1 + p%5 {
			recs = append(recs, fmt.Sprintf("k%d,%d,%s,\"{'a%d', 'b'}\",\"{%d: 'x'}\",%d", p, r, st, r, r, p*r))
		}
	}
	cases = append(cases, sortedCase{name: "static-collections-ttl",
		schema:  "CREATE TABLE ks.s (pk text, ck int, st text static, tags set<text>, m map<int, text>, v bigint, PRIMARY KEY (pk, ck));\n",
		opts:    CSVOptions{Columns: []string{"pk", "ck", "st", "tags", "m", "v"}, TTL: 3600},
		records: recs, key: textKey})
	return cases
}

// tokenOrder returns the records stably sorted by their partition's token.
func tokenOrder(t testing.TB, table *schema.Table, c sortedCase) string {
	t.Helper()
	type rec struct {
		token dht.Token
		key   []byte
		line  string
	}
	rs := make([]rec, len(c.records))
	for i, r := range c.records {
		key, err := table.AppendPartitionKey(nil, c.key(r))
		if err != nil {
			t.Fatal(err)
		}
		rs[i] = rec{dht.Murmur3.Token(key), key, r}
	}
	slices.SortStableFunc(rs, func(a, b rec) int { return dht.ComparePartitions(a.token, a.key, b.token, b.key) })
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.line + "\n")
	}
	return b.String()
}

// closer is what both sinks are.
type closer interface {
	Sink
	Close(ok bool) ([]*sstables.WriteResult, error)
}

func writeWith(t *testing.T, sink closer, table *schema.Table, in string, co CSVOptions) []*sstables.WriteResult {
	t.Helper()
	if _, err := ReadCSV(strings.NewReader(in), ReadOptions{Name: "in.csv", Table: table, CSV: co,
		Timestamp: 1_700_000_000_000_000, Now: time.Unix(1_700_000_000, 0)}, sink); err != nil {
		t.Fatal(err)
	}
	res, err := sink.Close(true)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sameFiles compares two directories' files byte for byte.
func sameFiles(t *testing.T, what, a, b string) {
	t.Helper()
	names := func(dir string) []string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, e := range es {
			n = append(n, e.Name())
		}
		return n
	}
	na, nb := names(a), names(b)
	if !slices.Equal(na, nb) {
		t.Fatalf("%s: the memtable sink wrote %v, the sorted sink %v", what, na, nb)
	}
	for _, n := range na {
		x, _ := os.ReadFile(filepath.Join(a, n))
		y, _ := os.ReadFile(filepath.Join(b, n))
		if !bytes.Equal(x, y) {
			t.Errorf("%s: %s differs (%d bytes from the memtable sink, %d from the sorted sink)", what, n, len(x), len(y))
		}
	}
}

// TestSortedSinkMatchesMemtableSink: for input in token order that fits
// one buffer, the sorted sink writes the files a memtable sink of the same
// size writes, byte for byte, in every format family.
func TestSortedSinkMatchesMemtableSink(t *testing.T) {
	for _, c := range sortedCases() {
		s, err := cql.ParseSchema(c.schema)
		if err != nil {
			t.Fatal(err)
		}
		table := s.Tables[0]
		in := tokenOrder(t, table, c)
		for _, v := range []string{"oa", "nb", "me", "mc", "da", "la"} {
			f, err := sstables.Lookup(v)
			if err != nil {
				t.Fatal(err)
			}
			what := c.name + "/" + v
			opts := func(dir string) SinkOptions {
				return SinkOptions{Format: f, Writer: sstables.WriterOptions{Dir: dir, Generation: 1}, MemtableSize: 1 << 30, Now: time.Unix(1_700_000_000, 0)}
			}
			dm, ds := t.TempDir(), t.TempDir()
			rm := writeWith(t, NewMemtableSink(context.Background(), table, opts(dm)), table, in, c.opts)
			rs := writeWith(t, NewSortedSink(context.Background(), table, opts(ds)), table, in, c.opts)
			if len(rm) != 1 || len(rs) != 1 {
				t.Fatalf("%s: %d and %d SSTables, want one each", what, len(rm), len(rs))
			}
			if rm[0].Partitions != rs[0].Partitions || rm[0].Rows != rs[0].Rows {
				t.Errorf("%s: %d partitions, %d rows from the memtable sink; %d, %d from the sorted sink", what,
					rm[0].Partitions, rm[0].Rows, rs[0].Partitions, rs[0].Rows)
			}
			sameFiles(t, what, dm, ds)
		}
	}
}

// TestSortedSinkSplits: small buffers and a size cap make several
// SSTables, of successive generations, holding every row once; a
// partition cut by a buffer boundary lies in two of them.
func TestSortedSinkSplits(t *testing.T) {
	c := sortedCases()[1]
	s, err := cql.ParseSchema(c.schema)
	if err != nil {
		t.Fatal(err)
	}
	table := s.Tables[0]
	in := tokenOrder(t, table, c)
	f, _ := sstables.Lookup("oa")
	for _, maxSize := range []int64{0, 32 << 10} {
		dir := t.TempDir()
		var flushed int
		res := writeWith(t, NewSortedSink(context.Background(), table, SinkOptions{Format: f,
			Writer: sstables.WriterOptions{Dir: dir, Generation: 5}, MemtableSize: 128 << 10, MaxSSTableSize: maxSize,
			OnFlushed: func(r []*sstables.WriteResult) { flushed += len(r) }}), table, in, c.opts)
		if len(res) < 3 || flushed != len(res) {
			t.Fatalf("max %d: %d SSTables, %d reported; want several, all reported", maxSize, len(res), flushed)
		}
		var rows int64
		for i, r := range res {
			rows += r.Rows
			if r.Descriptor.Generation != 5+i {
				t.Errorf("max %d: SSTable %d has generation %d", maxSize, i, r.Descriptor.Generation)
			}
		}
		// 10,000 rows of partition 7, and the distinct rows of 100..103.
		if want := int64(10_000 + 4*5 - 0); rows < want {
			t.Errorf("max %d: %d rows written, want at least %d", maxSize, rows, want)
		}
	}
}

// TestSortedSinkOrder: a partition before the previous one in token order
// is an error located in the input, and the SSTables written before it
// are removed.
func TestSortedSinkOrder(t *testing.T) {
	c := sortedCases()[0]
	s, _ := cql.ParseSchema(c.schema)
	table := s.Tables[0]
	in := tokenOrder(t, table, c)
	lines := strings.SplitAfter(in, "\n")
	// Move the first partition's first record to the end.
	bad := strings.Join(append(slices.Clone(lines[1:len(lines)-1]), lines[0]), "")
	f, _ := sstables.Lookup("oa")
	dir := t.TempDir()
	sink := NewSortedSink(context.Background(), table, SinkOptions{Format: f, Writer: sstables.WriterOptions{Dir: dir, Generation: 1}, MemtableSize: 16 << 10})
	_, err := ReadCSV(strings.NewReader(bad), ReadOptions{Name: "in.csv", Table: table, Timestamp: 1}, sink)
	if err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("in.csv:%d: ", len(lines)-1)) || !strings.Contains(err.Error(), "token order") {
		t.Fatalf("out-of-order input: %v", err)
	}
	if _, err := sink.Close(false); !errors.Is(err, ErrStopped) {
		t.Errorf("Close(false): %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("a failed run left %v", left)
	}
}
