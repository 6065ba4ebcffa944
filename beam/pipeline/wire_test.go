package pipeline

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/bulk"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// wireSchema has every kind of data the model holds: static and regular
// columns, a non-frozen collection (complex cells and deletions), a UDT.
const wireSchema = `CREATE TYPE ks.addr (street text, zip int);
CREATE TABLE ks.w (pk int, ck text, s int static, v text, m map<text, int>, l list<int>, a frozen<addr>, PRIMARY KEY (pk, ck));
`

// wireCQL writes rows, static values, TTLs, cell tombstones, a row
// deletion, a range deletion and a partition deletion.
const wireCQL = `INSERT INTO ks.w (pk, ck, s, v, m, l, a) VALUES (1, 'a', 7, 'x', {'k': 1, 'j': 2}, [3, 4], {street: 'main', zip: 9}) USING TIMESTAMP 10;
INSERT INTO ks.w (pk, ck, v) VALUES (1, 'b', null) USING TTL 600 AND TIMESTAMP 11;
UPDATE ks.w SET m = m + {'z': 26} WHERE pk = 2 AND ck = 'c';
DELETE FROM ks.w USING TIMESTAMP 12 WHERE pk = 3 AND ck = 'd';
DELETE FROM ks.w USING TIMESTAMP 13 WHERE pk = 4 AND ck > 'e' AND ck <= 'f';
DELETE FROM ks.w USING TIMESTAMP 14 WHERE pk = 5;
INSERT INTO ks.w (pk, ck, v) VALUES (6, '', '') USING TIMESTAMP 15;
`

type collect struct {
	t     *schema.Table
	json  bytes.Buffer
	enc   *jsondump.Encoder
	batch *batchWriter
	lines []int
}

func (c *collect) Apply(p *mutation.Partition, line int) error {
	c.lines = append(c.lines, line)
	c.batch.add(p, line)
	return c.enc.Encode(p, -1)
}

func canonical(t *testing.T, table *schema.Table) (*jsondump.Encoder, *bytes.Buffer) {
	var b bytes.Buffer
	return jsondump.NewEncoder(&b, table, jsondump.EncodeOptions{Format: jsondump.FormatCanonical, Layout: jsondump.LayoutLines, Now: time.Unix(100, 0)}), &b
}

// TestWireRoundTrip: partitions read from CQL survive a batch: their
// canonical JSON is the same before and after, and so are their lines.
func TestWireRoundTrip(t *testing.T) {
	sch, err := cql.ParseSchema(wireSchema)
	if err != nil {
		t.Fatal(err)
	}
	table := sch.Tables[0]
	enc, want := canonical(t, table)
	c := &collect{t: table, enc: enc, batch: newBatchWriter("in.cql", 0)}
	if _, err := bulk.ReadCQL(strings.NewReader(wireCQL), bulk.ReadOptions{Name: "in.cql", Table: table, Schema: sch, Timestamp: 5, Now: time.Unix(100, 0)}, c); err != nil {
		t.Fatal(err)
	}
	enc.Close()
	if c.batch.n != 7 {
		t.Fatalf("%d entries, want 7", c.batch.n)
	}
	r, err := newBatchReader(table, dht.Murmur3, c.batch.buf)
	if err != nil {
		t.Fatal(err)
	}
	if r.source != "in.cql" {
		t.Errorf("source %q", r.source)
	}
	genc, got := canonical(t, table)
	var lines []int
	for {
		p, line, ok := r.next()
		if !ok {
			break
		}
		if !p.Token.Equal(dht.Murmur3.Token(p.Key)) {
			t.Error("token not recomputed")
		}
		lines = append(lines, line)
		if err := genc.Encode(p, -1); err != nil {
			t.Fatal(err)
		}
	}
	genc.Close()
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got.String() != want.String() {
		t.Errorf("after the batch:\n%s\nbefore:\n%s", got, want)
	}
	if len(lines) != len(c.lines) || lines[6] != 7 || lines[0] != 1 {
		t.Errorf("lines %v, want %v", lines, c.lines)
	}
	for _, needle := range []string{`"ttl"`, `"deletion_info"`, `"start"`, `"static_block"`} {
		if !strings.Contains(want.String(), needle) {
			t.Errorf("the test data lacks %s", needle)
		}
	}
}

// TestWireCorrupt: every truncation of a batch is an error wrapping
// errWire, or a shorter batch that decodes; never a panic.
func TestWireCorrupt(t *testing.T) {
	sch, _ := cql.ParseSchema(wireSchema)
	table := sch.Tables[0]
	enc, _ := canonical(t, table)
	c := &collect{t: table, enc: enc, batch: newBatchWriter("in.cql", 0)}
	if _, err := bulk.ReadCQL(strings.NewReader(wireCQL), bulk.ReadOptions{Table: table, Schema: sch, Timestamp: 5}, c); err != nil {
		t.Fatal(err)
	}
	full := c.batch.buf
	errs := 0
	for n := 0; n < len(full); n++ {
		for _, flip := range []bool{false, true} {
			b := append([]byte(nil), full[:n]...)
			if flip && n > 0 {
				b = append([]byte(nil), full...)
				b[n] ^= 0xff
			}
			r, err := newBatchReader(table, dht.Murmur3, b)
			if err == nil {
				for {
					if _, _, ok := r.next(); !ok {
						break
					}
				}
				err = r.err
			}
			if err != nil {
				errs++
				if !errors.Is(err, errWire) {
					t.Fatalf("cut at %d: %v does not wrap errWire", n, err)
				}
			}
		}
	}
	if errs < len(full)/2 {
		t.Errorf("only %d of %d damaged batches were errors", errs, 2*len(full))
	}
}
