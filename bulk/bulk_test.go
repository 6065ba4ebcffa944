package bulk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
)

const testSchema = "CREATE TABLE ks.t (pk int, ck int, v text, PRIMARY KEY (pk, ck));\n"

func testTable(t *testing.T) (*cql.Schema, *schema.Table) {
	t.Helper()
	s, err := cql.ParseSchema(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s, s.Tables[0]
}

// applied records what a reader gave the sink: one line per partition
// update and its rows.
type applied struct {
	t     *schema.Table
	lines []int
	rows  int
	keys  []string
}

func (a *applied) Apply(p *mutation.Partition, line int) error {
	a.lines = append(a.lines, line)
	a.rows += len(p.Rows)
	a.keys = append(a.keys, mutation.FormatKey(a.t, p.Key))
	return nil
}

// TestReadCSVBadRecords: with OnBadRecord a record that does not fit is
// handed over with its name, line and text, and the others are read; without
// it the first one is the error, located.
func TestReadCSVBadRecords(t *testing.T) {
	_, table := testTable(t)
	in := "1,1,a\n1,x,b\n2,1,\"c,d\"\n3,1\n3,2,e\n"
	var bad []*BadRecord
	sink := &applied{t: table}
	n, err := ReadCSV(strings.NewReader(in), ReadOptions{Name: "in.csv", Table: table, Timestamp: 1,
		OnBadRecord: func(b *BadRecord) error { bad = append(bad, b); return nil }}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || sink.rows != 3 {
		t.Errorf("read %d records, %d rows applied; want 3 and 3", n, sink.rows)
	}
	if len(bad) != 2 {
		t.Fatalf("%d bad records, want 2: %v", len(bad), bad)
	}
	if b := bad[0]; b.Name != "in.csv" || b.Line != 2 || b.Record != "1,x,b" || !strings.Contains(b.Error(), "in.csv:2: column ck") {
		t.Errorf("first bad record %+v (%v)", b, b)
	}
	if b := bad[1]; b.Line != 4 || b.Record != "3,1" || !strings.Contains(b.Error(), "wrong number of fields") {
		t.Errorf("second bad record %+v (%v)", b, b)
	}
	if got := csvRecord([]string{"a", "b,c", `q"`, "", " x"}, ','); got != `a,"b,c","q""",," x"` {
		t.Errorf("csvRecord: %s", got)
	}

	_, err = ReadCSV(strings.NewReader(in), ReadOptions{Name: "in.csv", Table: table, Timestamp: 1}, &applied{t: table})
	var b *BadRecord
	if !errors.As(err, &b) || b.Line != 2 || !strings.HasPrefix(err.Error(), "in.csv:2: ") {
		t.Errorf("without OnBadRecord: %v", err)
	}
	stop := errors.New("stop")
	_, err = ReadCSV(strings.NewReader(in), ReadOptions{Table: table, Timestamp: 1,
		OnBadRecord: func(*BadRecord) error { return stop }}, &applied{t: table})
	if !errors.Is(err, stop) {
		t.Errorf("OnBadRecord's error: %v", err)
	}
	// A record that cannot be cut out (a quote left open) stops the read.
	_, err = ReadCSV(strings.NewReader("1,1,\"open\n"), ReadOptions{Table: table, Timestamp: 1,
		OnBadRecord: func(*BadRecord) error { return nil }}, &applied{t: table})
	if err == nil {
		t.Error("an unterminated quote was skipped")
	}
	// Option errors are OptionErrors.
	_, err = ReadCSV(strings.NewReader(in), ReadOptions{Table: table, CSV: CSVOptions{Columns: []string{"pk", "nope"}}}, &applied{t: table})
	var oe *OptionError
	if !errors.As(err, &oe) {
		t.Errorf("unknown column: %v, want an OptionError", err)
	}
}

// TestReadCQLBadRecords: a failing statement is a BadRecord whose error
// names the line in the whole input; the statements after it are read.
func TestReadCQLBadRecords(t *testing.T) {
	sch, table := testTable(t)
	in := "INSERT INTO ks.t (pk, ck, v) VALUES (1, 1, 'a');\n\nINSERT INTO ks.t (pk, ck, v)\n  VALUES (1, 'two', 'b');\nINSERT INTO ks.t (pk, ck, v) VALUES (2, 1, 'c');\n"
	var bad []*BadRecord
	sink := &applied{t: table}
	n, err := ReadCQL(strings.NewReader(in), ReadOptions{Name: "in.cql", Table: table, Schema: sch, Timestamp: 1,
		OnBadRecord: func(b *BadRecord) error { bad = append(bad, b); return nil }}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || len(sink.lines) != 2 || sink.lines[1] != 5 {
		t.Errorf("%d statements, updates from lines %v; want 2 from [1 5]", n, sink.lines)
	}
	if len(bad) != 1 || bad[0].Line != 3 || !strings.HasPrefix(bad[0].Record, "INSERT INTO ks.t (pk, ck, v)\n  VALUES (1, 'two'") ||
		!strings.HasPrefix(bad[0].Error(), "in.cql:4:") {
		t.Fatalf("bad records %v", bad)
	}
	_, err = ReadCQL(strings.NewReader(in), ReadOptions{Name: "in.cql", Table: table, Timestamp: 1}, &applied{t: table})
	if err == nil || !strings.HasPrefix(err.Error(), "in.cql:4:") {
		t.Errorf("without OnBadRecord: %v", err)
	}
}

// TestMemtableSinkIdentifiers: successive generations by default, fresh
// UUID-based identifiers with UUIDs; every SSTable is complete and a failed
// run leaves none.
func TestMemtableSinkIdentifiers(t *testing.T) {
	_, table := testTable(t)
	f, err := sstables.Lookup("mc")
	if err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	for i := range 3000 {
		csv.WriteString(strconv.Itoa(i/10) + "," + strconv.Itoa(i%10) + ",value-" + strconv.Itoa(i) + "\n")
	}
	for _, uuids := range []bool{false, true} {
		dir := t.TempDir()
		var flushed int
		sink := NewMemtableSink(context.Background(), table, SinkOptions{
			Format: f, Writer: sstables.WriterOptions{Dir: dir, Generation: 7}, UUIDs: uuids,
			MemtableSize: 64 << 10, Now: time.Unix(1, 0),
			OnFlushed: func(r []*sstables.WriteResult) { flushed += len(r) },
		})
		if _, err := ReadCSV(strings.NewReader(csv.String()), ReadOptions{Table: table, Timestamp: 1}, sink); err != nil {
			t.Fatal(err)
		}
		res, err := sink.Close(true)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) < 2 || flushed != len(res) {
			t.Fatalf("uuids=%v: %d SSTables, %d reported flushed; want several, all reported", uuids, len(res), flushed)
		}
		var rows int64
		for i, r := range res {
			rows += r.Rows
			d := r.Descriptor
			if uuids && (d.UUID == "" || d.Generation != 0) || !uuids && d.Generation != 7+i {
				t.Errorf("uuids=%v: SSTable %d is %s", uuids, i, d.Path(sstables.ComponentData))
			}
			if _, err := os.Stat(d.Path(sstables.ComponentTOC)); err != nil {
				t.Error(err)
			}
		}
		if rows != 3000 {
			t.Errorf("uuids=%v: %d rows written, want 3000", uuids, rows)
		}
		if uuids && res[0].Descriptor.UUID == res[1].Descriptor.UUID {
			t.Error("two SSTables share an identifier")
		}
		// A failed run removes what it wrote.
		dir2 := t.TempDir()
		sink = NewMemtableSink(context.Background(), table, SinkOptions{Format: f, Writer: sstables.WriterOptions{Dir: dir2, Generation: 1}, UUIDs: uuids, MemtableSize: 64 << 10})
		if _, err := ReadCSV(strings.NewReader(csv.String()), ReadOptions{Table: table, Timestamp: 1}, sink); err != nil {
			t.Fatal(err)
		}
		if _, err := sink.Close(false); !errors.Is(err, ErrStopped) {
			t.Errorf("Close(false): %v, want ErrStopped", err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir2, "*")); len(left) != 0 {
			t.Errorf("a failed run left %v", left)
		}
	}
}
