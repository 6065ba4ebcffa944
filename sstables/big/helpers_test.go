package big

import (
	"bytes"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
	"os"
	"path/filepath"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables/version"
)

// vmc is the version most tests write.
var vmc = version.MustParse("mc")

// memSink is an in-memory dataSink.
type memSink struct{ bytes.Buffer }

func (m *memSink) Position() int64 { return int64(m.Len()) }

func (m *memSink) Submit(buf []byte) ([]byte, error) {
	m.Write(buf)
	return buf[:0], nil
}

// refSSTable is a real SSTable folder of the test corpus.
type refSSTable struct {
	name string // case name relative to the corpus root
	dir  string
	// prefix is "mc-1-big-" (or "me-1-big-" …).
	prefix  string
	version version.Version
}

func (r refSSTable) path(component string) string {
	return filepath.Join(r.dir, r.prefix+component)
}

func (r refSSTable) read(t testing.TB, component string) []byte {
	t.Helper()
	b, err := os.ReadFile(r.path(component))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (r refSSTable) has(component string) bool {
	_, err := os.Stat(r.path(component))
	return err == nil
}

// refSSTables lists every BIG SSTable of the 3.x+ row format in the shared
// test data that castable reads, deliberately corrupt ones included when
// withCorrupt; the others are named in the log and skipped
// (testdata.Supported).
func refSSTables(t testing.TB, withCorrupt bool) []refSSTable {
	t.Helper()
	var out []refSSTable
	for _, s := range testdata.Supported(t) {
		v := version.MustParse(s.Version)
		if v.LegacyCells() || v.Tries() {
			continue
		}
		if !withCorrupt && s.Corrupt != "" {
			continue
		}
		out = append(out, refSSTable{
			name:    filepath.Dir(s.Name),
			dir:     s.Dir,
			prefix:  s.Prefix,
			version: v,
		})
	}
	if len(out) == 0 {
		t.Fatal("no reference SSTables found")
	}
	return out
}

// unfiltered is one decoded row or marker, deep-copied, in file order.
type unfiltered struct {
	row    *mutation.Row
	marker *mutation.RangeTombstoneMarker
}

type decodedPartition struct {
	p     *mutation.Partition
	items []unfiltered
	pos   int64
}

// decodeReference decodes an uncompressed reference Data.db with the table
// rebuilt from its Statistics.db.
func decodeReference(t testing.TB, ref refSSTable, data []byte) (*sstables.Statistics, *schema.Table, []decodedPartition) {
	t.Helper()
	st, err := sstables.DecodeStatistics(ref.read(t, "Statistics.db"), ref.version, ref.path("Statistics.db"))
	if err != nil {
		t.Fatalf("%s: %v", ref.name, err)
	}
	table, err := rows.TableFromHeader(st.Header)
	if err != nil {
		t.Fatalf("%s: %v", ref.name, err)
	}
	table.Options.Partitioner = st.Partitioner
	static, err := rows.HeaderColumns(table, st.Header.Static, schema.Static)
	if err != nil {
		t.Fatal(err)
	}
	regular, err := rows.HeaderColumns(table, st.Header.Regular, schema.Regular)
	if err != nil {
		t.Fatal(err)
	}
	dec := rows.NewDecoder(ref.version, st.Header, static, regular, len(table.Static), len(table.Regular), 0)
	part, err := dht.Lookup(st.Partitioner)
	if err != nil {
		t.Fatal(err)
	}
	sc := rows.NewScanner(dec, ref.path("Data.db"), part, bytes.NewReader(data), 0, int64(len(data)), nil)
	var parts []decodedPartition
	for {
		p, err := sc.NextPartition()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("%s: %v", ref.name, err)
		}
		dp := decodedPartition{pos: sc.Position(), p: &mutation.Partition{
			Key: rows.CloneBytes(p.Key), Token: part.Token(rows.CloneBytes(p.Key)), Deletion: p.Deletion, Static: rows.CloneRow(&p.Static),
		}}
		for {
			r, m, err := sc.Next()
			if err != nil {
				t.Fatalf("%s: %v", ref.name, err)
			}
			if r == nil && m == nil {
				break
			}
			if r != nil {
				c := rows.CloneRow(r)
				dp.items = append(dp.items, unfiltered{row: &c})
				dp.p.Rows = append(dp.p.Rows, c)
			} else {
				c := rows.CloneMarker(m)
				dp.items = append(dp.items, unfiltered{marker: &c})
				dp.p.Markers = append(dp.p.Markers, c)
			}
		}
		parts = append(parts, dp)
	}
	return st, table, parts
}
