package rows

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// workloadData serializes a seeded random workload (every column type,
// statics, TTLs, counters or not, every kind of deletion) through one
// memtable into Data.db bytes of version v, and returns them with the
// table and the serialization header. simpleOnly leaves the complex
// columns out of the header and the rows.
func workloadData(t *testing.T, seed uint64, counters, simpleOnly bool, v version.Version) ([]byte, *schema.Table, *Header, [2][]*schema.Column) {
	t.Helper()
	now := time.Unix(1_750_000_000, 0)
	w := workload.Generate("ks", workload.Options{Seed: seed, Statements: 400, Partitions: 12, Clusterings: 30, Counters: counters})
	schemaCQL, stmts := w.Schema(), w.Statements
	if seed%4 == 1 {
		schemaCQL, stmts = fixedClusteringWorkload(seed)
	}
	sch, err := cql.ParseSchema(schemaCQL)
	if err != nil {
		t.Fatal(err)
	}
	tab := sch.Table("ks.t")
	mt := memtable.New(tab, memtable.Options{Now: func() time.Time { return now }})
	ms, err := cql.NewBuilder(sch, cql.Options{Now: now}).Exec(strings.Join(stmts, ";\n") + ";")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if err := mt.Apply(m.Partition); err != nil {
			t.Fatal(err)
		}
	}
	fr := mt.Freeze()
	static, regular := tab.Static, tab.Regular
	if simpleOnly {
		static, regular = simpleColumns(static), simpleColumns(regular)
	}
	h := sstables.NewSerializationHeader(tab, EncodingStats{MinTimestamp: 1_600_000_000_000_000, MinLocalDeletionTime: 1_600_000_000}, static, regular)
	coll := NewCollector(tab, h.ClusteringTypes, CollectorOptions{WholePrefix: true, DropTime: func(int64) {}})
	var sink memSink
	ser := NewSerializer(tab, h, static, regular, SerializerOptions{Version: v, BlockSize: 1024, Sink: &sink, Collector: coll})
	for i := 0; i < int(fr.Len()); i++ {
		p := fr.Partition(i)
		if simpleOnly {
			p = dropComplex(p)
		}
		if err := ser.StartPartition(p.Key, p.Deletion, &p.Static); err != nil {
			t.Fatal(err)
		}
		r, m := 0, 0
		for r < len(p.Rows) || m < len(p.Markers) {
			if r < len(p.Rows) && (m >= len(p.Markers) ||
				mutation.ComparePrefix(tab, mutation.ClusteringKind, p.Rows[r].Clustering, p.Markers[m].Kind, p.Markers[m].Clustering) < 0) {
				err = ser.WriteRow(&p.Rows[r])
				r++
			} else {
				err = ser.WriteMarker(&p.Markers[m])
				m++
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := ser.FinishPartition(); err != nil {
			t.Fatal(err)
		}
	}
	if err := ser.flush(); err != nil {
		t.Fatal(err)
	}
	return sink.Bytes(), tab, h, [2][]*schema.Column{static, regular}
}

// fixedClusteringWorkload is a random workload over a table whose
// clustering columns all have fixed lengths (int, bigint descending):
// inserts with and without TTLs, updates, cell, row and range deletions.
func fixedClusteringWorkload(seed uint64) (string, []string) {
	r := rand.New(rand.NewPCG(seed, 11))
	schemaCQL := "CREATE TABLE ks.t (pk int, c1 int, c2 bigint, a text, b int, s int static, PRIMARY KEY (pk, c1, c2)) WITH CLUSTERING ORDER BY (c1 ASC, c2 DESC);"
	var stmts []string
	ts := int64(1_700_000_000_000_000)
	for i := 0; i < 400; i++ {
		ts += int64(r.IntN(3))
		pk, c1, c2 := r.IntN(8), r.IntN(20)-10, r.Int64N(1<<40)-1<<39
		if r.IntN(3) == 0 {
			c2 = int64(r.IntN(3))
		}
		switch r.IntN(10) {
		case 0:
			stmts = append(stmts, fmt.Sprintf("DELETE FROM ks.t USING TIMESTAMP %d WHERE pk = %d AND c1 = %d AND c2 = %d", ts, pk, c1, c2))
		case 1:
			stmts = append(stmts, fmt.Sprintf("DELETE FROM ks.t USING TIMESTAMP %d WHERE pk = %d AND c1 > %d AND c1 <= %d", ts, pk, c1, c1+1+r.IntN(5)))
		case 2:
			stmts = append(stmts, fmt.Sprintf("DELETE a FROM ks.t USING TIMESTAMP %d WHERE pk = %d AND c1 = %d AND c2 = %d", ts, pk, c1, c2))
		case 3:
			stmts = append(stmts, fmt.Sprintf("UPDATE ks.t USING TIMESTAMP %d AND TTL %d SET b = %d, s = %d WHERE pk = %d AND c1 = %d AND c2 = %d", ts, 100+r.IntN(1000), r.IntN(100), r.IntN(9), pk, c1, c2))
		default:
			ttl := ""
			if r.IntN(3) == 0 {
				ttl = fmt.Sprintf(" AND TTL %d", 100+r.IntN(1000))
			}
			stmts = append(stmts, fmt.Sprintf("INSERT INTO ks.t (pk, c1, c2, a, b) VALUES (%d, %d, %d, '%s', %d) USING TIMESTAMP %d%s", pk, c1, c2, strings.Repeat("x", r.IntN(50)), r.IntN(1000), ts, ttl))
		}
	}
	return schemaCQL, stmts
}

func simpleColumns(cols []*schema.Column) []*schema.Column {
	var out []*schema.Column
	for _, c := range cols {
		if !c.Type.IsComplex() {
			out = append(out, c)
		}
	}
	return out
}

// dropComplex returns a copy of p without its complex columns' data, and
// without the rows left empty.
func dropComplex(p *mutation.Partition) *mutation.Partition {
	q := *p
	strip := func(r mutation.Row) mutation.Row {
		r.ComplexDeletions = nil
		var cells []mutation.Cell
		for _, c := range r.Cells {
			if !c.Column.Type.IsComplex() {
				cells = append(cells, c)
			}
		}
		r.Cells = cells
		return r
	}
	q.Static = strip(p.Static)
	q.Rows = nil
	for _, r := range p.Rows {
		if r = strip(r); !r.IsEmpty() {
			q.Rows = append(q.Rows, r)
		}
	}
	return &q
}

// choppyReader returns at most a few bytes per Read.
type choppyReader struct {
	r   io.Reader
	rnd *rand.Rand
}

func (c *choppyReader) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), 1+c.rnd.IntN(40))])
}

// decodeDump decodes every partition of data with in-place decoding given
// by window (0: every row copied, the fallback path) and the simple-body
// decoder or not, and returns a dump of everything decoded — values,
// spans, and the first error.
func decodeDump(tab *schema.Table, h *Header, cols [2][]*schema.Column, v version.Version, data []byte, window int, simple bool, choppy *rand.Rand) string {
	dec := NewDecoder(v, h, cols[0], cols[1], len(tab.Static), len(tab.Regular), 0)
	dec.inPlace, dec.simpleBodies = window, simple
	var src io.Reader = bytes.NewReader(data)
	if choppy != nil {
		src = &choppyReader{src, choppy}
	}
	s := NewScanner(dec, "Data.db", dht.Murmur3, src, 0, int64(len(data)), nil)
	var b strings.Builder
	for {
		p, err := s.NextPartition()
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			return b.String()
		}
		st := CloneRow(&p.Static)
		fmt.Fprintf(&b, "partition %x %v static %s\n", p.Key, p.Deletion, dumpRow(&st))
		for {
			r, m, err := s.Next()
			if err != nil {
				fmt.Fprintf(&b, "error: %v\n", err)
				return b.String()
			}
			start, size, prev := dec.LastSpan()
			switch {
			case r != nil:
				fmt.Fprintf(&b, "  row@%d+%d/%d %s\n", start, size, prev, dumpRow(r))
			case m != nil:
				fmt.Fprintf(&b, "  marker@%d+%d/%d %v %x %v %v\n", start, size, prev, m.Kind, [][]byte(m.Clustering), m.Close, m.Open)
			}
			if r == nil && m == nil {
				break
			}
		}
	}
}

func dumpRow(r *mutation.Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%x %+v %v %v %v", [][]byte(r.Clustering), r.Liveness, r.Deletion, r.DeletionShadowable, r.ShadowableDeletion)
	for _, c := range r.Cells {
		fmt.Fprintf(&b, " [%s %x %d %d %d %x]", c.Column.Name, c.Path, c.Timestamp, c.TTL, c.LocalDeletionTime, c.Value)
	}
	for _, cd := range r.ComplexDeletions {
		fmt.Fprintf(&b, " {%s %v}", cd.Column.Name, cd.Deletion)
	}
	return b.String()
}

// TestInPlaceRowsMatchCopied decodes random workloads' Data.db with rows
// decoded in place (in windows of every size, through reads of a few
// bytes that cut rows anywhere) or copied, with the simple-body decoder or
// not, and requires what the general decoding of copied rows gives: the
// same rows, markers and spans; then flips bytes and requires the same
// rows up to the same error.
func TestInPlaceRowsMatchCopied(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		for _, vs := range []string{"nb", "oa"} {

			v, err := version.Parse(vs)
			if err != nil {
				t.Fatal(err)
			}
			data, tab, h, cols := workloadData(t, seed, seed%3 == 0, seed%2 == 0, v)
			want := decodeDump(tab, h, cols, v, data, 0, false, nil)
			if strings.Contains(want, "error") {
				t.Fatalf("seed %d %s: the copied decoding fails:\n%s", seed, vs, want)
			}
			rnd := rand.New(rand.NewPCG(seed, 7))
			for _, window := range []int{inPlaceWindow, 0, 1, 2, 7, 30, 100, 1000} {
				for _, simple := range []bool{true, false} {
					for _, choppy := range []*rand.Rand{nil, rnd} {
						if got := decodeDump(tab, h, cols, v, data, window, simple, choppy); got != want {
							t.Fatalf("seed %d %s window %d simple %v choppy %v: %s", seed, vs, window, simple, choppy != nil, firstDiffLine(got, want))
						}
					}
				}
			}
			// Damage: the same rows up to the same error (or the same
			// wrong rows).
			for i := 0; i < 200; i++ {
				bad := bytes.Clone(data)
				bad[rnd.IntN(len(bad))] ^= byte(1 + rnd.IntN(255))
				want := decodeDump(tab, h, cols, v, bad, 0, false, nil)
				for _, simple := range []bool{true, false} {
					if got := decodeDump(tab, h, cols, v, bad, inPlaceWindow, simple, nil); got != want {
						t.Fatalf("seed %d %s damaged (simple %v): %s", seed, vs, simple, firstDiffLine(got, want))
					}
				}
			}
		}
	}
}

func firstDiffLine(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\nin place: %s\ncopied:   %s", i, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines in place, %d copied", len(g), len(w))
}
