package conformance

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
)

// SeekClustering (sstables.ClusteringSeeker) is the same for every format
// of the 3.x+ row format; each finds the block through its own row index
// (BIG's promoted index in Index.db, BTI's Rows.db trie). It is
// cross-checked here against the simple path: for a target prefix ck,
// seeking then reading to the partition's end must give the full scan's
// sequence without what sorts at or before the inclusive start bound of
// ck, preceded by an inclusive start marker at ck when a deletion is open
// there (computed from the full scan, independently of any index).

// seekFormats are the versions the seek test writes: BIG before and after
// oa's deletion form, and the trie-indexed ones.
var seekFormats = []string{"mc", "oa", "da", "ms"}

const seekSchema = `CREATE TABLE ks.seek (pk int, ck1 int, ck2 int, s text static, v text, PRIMARY KEY (pk, ck1, ck2)) WITH CLUSTERING ORDER BY (ck1 ASC, ck2 DESC)`

func seekInt(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// item is one row or marker, deep-copied.
type item struct {
	row    *mutation.Row
	marker *mutation.RangeTombstoneMarker
}

func (u item) pos() (mutation.BoundKind, mutation.Clustering) {
	if u.row != nil {
		return mutation.ClusteringKind, u.row.Clustering
	}
	return u.marker.Kind, u.marker.Clustering
}

// readItems reads the rest of the current partition.
func readItems(t testing.TB, sc sstables.Scanner) []item {
	t.Helper()
	var out []item
	for {
		r, m, err := sc.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r != nil:
			c := rows.CloneRow(r)
			out = append(out, item{row: &c})
		case m != nil:
			c := rows.CloneMarker(m)
			out = append(out, item{marker: &c})
		default:
			return out
		}
	}
}

// expectedAfter is the reference: full filtered to after the inclusive
// start bound of ck, with the deletion open there as a leading marker.
func expectedAfter(table *schema.Table, full []item, ck mutation.Clustering) []item {
	open := mutation.Live
	i := 0
	for ; i < len(full); i++ {
		k, c := full[i].pos()
		if mutation.ComparePrefix(table, k, c, mutation.InclStartBound, ck) > 0 {
			break
		}
		if m := full[i].marker; m != nil {
			if m.Kind.IsStart() {
				open = m.Open
			} else {
				open = mutation.Live
			}
		}
	}
	var out []item
	if !open.IsLive() {
		m := mutation.RangeTombstoneMarker{Kind: mutation.InclStartBound, Clustering: rows.CloneClustering(ck), Close: mutation.Live, Open: open}
		if m.Clustering == nil {
			m.Clustering = mutation.Clustering{}
		}
		out = append(out, item{marker: &m})
	}
	return append(out, full[i:]...)
}

func describeItems(items []item) string {
	var b strings.Builder
	for _, u := range items {
		k, c := u.pos()
		fmt.Fprintf(&b, " %s%x", k, [][]byte(c))
	}
	return b.String()
}

// seekTargets are the empty prefix and every row's and marker's clustering
// with its shorter prefixes, and values between them; at most max of
// them, evenly sampled.
func seekTargets(full []item, max int) []mutation.Clustering {
	out := []mutation.Clustering{{}}
	for _, u := range full {
		_, c := u.pos()
		for n := 1; n <= len(c); n++ {
			out = append(out, rows.CloneClustering(c[:n]))
		}
		if len(c) > 0 && len(c[0]) == 4 {
			v := int(binary.BigEndian.Uint32(c[0]))
			out = append(out, mutation.Clustering{seekInt(v), seekInt(7)}) // between two rows (ck2 descending)
		}
	}
	out = append(out, mutation.Clustering{seekInt(1 << 30)}) // after everything
	if len(out) > max {
		step := float64(len(out)) / float64(max)
		var s []mutation.Clustering
		for i := 0; i < max; i++ {
			s = append(s, out[int(float64(i)*step)])
		}
		out = append(s, out[len(out)-1])
	}
	return out
}

// seekPartition builds a partition of nRows*3 rows (ck1 in [0, nRows),
// ck2 in 2, 1, 0; ck1 ≡ 3 mod 7 has no rows), a static row, and range
// deletions on ck1 prefixes and on whole clusterings: inclusive and
// exclusive bounds, both kinds of boundary, deletions open across many
// blocks.
func seekPartition(t testing.TB, table *schema.Table, pk, nRows int) *mutation.Partition {
	p := &mutation.Partition{Key: seekInt(pk), Deletion: mutation.Live, Static: mutation.NewRow(nil)}
	if pk%5 == 4 {
		p.Deletion = mutation.DeletionTime{MarkedForDeleteAt: 500, LocalDeletionTime: 1600000000}
	}
	p.Static.Cells = []mutation.Cell{{Column: table.Static[0], Value: []byte(fmt.Sprintf("static of %d", pk)), Timestamp: 900, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
	col := table.Regular[0]
	for c1 := 0; c1 < nRows; c1++ {
		if c1%7 == 3 {
			continue
		}
		for c2 := 2; c2 >= 0; c2-- {
			r := mutation.NewRow(mutation.Clustering{seekInt(c1), seekInt(c2)})
			r.Liveness = mutation.LivenessInfo{Timestamp: 1000, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
			r.Cells = []mutation.Cell{{Column: col, Value: []byte(fmt.Sprintf("value %d/%d of the seek test", c1, c2)), Timestamp: 1000, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
			p.Rows = append(p.Rows, r)
		}
	}
	del := func(i int) mutation.DeletionTime {
		return mutation.DeletionTime{MarkedForDeleteAt: int64(2000 + i), LocalDeletionTime: int64(1600000000 + i)}
	}
	one := func(v int) mutation.Clustering { return mutation.Clustering{seekInt(v)} }
	two := func(a, b int) mutation.Clustering { return mutation.Clustering{seekInt(a), seekInt(b)} }
	s := max(nRows/300, 1) // scale the ranges with the partition
	p.Markers = []mutation.RangeTombstoneMarker{
		{Kind: mutation.InclStartBound, Clustering: one(10 * s), Open: del(1)},
		{Kind: mutation.InclEndBound, Clustering: one(40 * s), Close: del(1)},
		{Kind: mutation.ExclStartBound, Clustering: one(50 * s), Open: del(2)},
		{Kind: mutation.ExclEndInclStartBoundary, Clustering: one(60 * s), Close: del(2), Open: del(3)},
		{Kind: mutation.InclEndBound, Clustering: one(120 * s), Close: del(3)},
		{Kind: mutation.InclStartBound, Clustering: one(130 * s), Open: del(4)},
		{Kind: mutation.InclEndExclStartBoundary, Clustering: one(150 * s), Close: del(4), Open: del(5)},
		{Kind: mutation.InclEndBound, Clustering: one(200 * s), Close: del(5)},
		{Kind: mutation.InclStartBound, Clustering: two(250*s, 1), Open: del(6)},
		{Kind: mutation.ExclEndBound, Clustering: two(252*s, 0), Close: del(6)},
		{Kind: mutation.InclStartBound, Clustering: one(280 * s), Open: del(7)},
		{Kind: mutation.InclEndBound, Clustering: mutation.Clustering{}, Close: del(7)},
	}
	for i := range p.Markers {
		if p.Markers[i].Open == (mutation.DeletionTime{}) {
			p.Markers[i].Open = mutation.Live
		}
		if p.Markers[i].Close == (mutation.DeletionTime{}) {
			p.Markers[i].Close = mutation.Live
		}
	}
	if err := p.Validate(table); err != nil {
		t.Fatalf("test partition: %v", err)
	}
	return p
}

func seekTable(t testing.TB) *schema.Table {
	t.Helper()
	s, err := cql.ParseSchema(seekSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s.Tables[0]
}

// writeParts writes parts (in partition order) in version v into dir.
func writeParts(t testing.TB, v string, table *schema.Table, parts []*mutation.Partition, dir string, blockSize int) sstables.Reader {
	t.Helper()
	f, err := sstables.Lookup(v)
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.NewWriter(table, sstables.WriterOptions{
		Dir: dir, Generation: 1, Jobs: 1, ColumnIndexSize: blockSize,
		Compression: &compress.Params{Codec: compress.LZ4, ChunkLength: 4096},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if err := w.Append(p); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	r, err := sstables.OpenAny(res.Descriptor, table, sstables.ReaderOptions{ReadAhead: 1, IndexCacheBytes: 2 * 4096})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// seekParts are the partitions of the seek test: large ones (the largest
// with a row index of more than a thousand blocks, whose BTI trie spans
// several pages) beside small ones without a row index.
func seekParts(t testing.TB, table *schema.Table, sizes []int) []*mutation.Partition {
	var parts []*mutation.Partition
	for i, n := range sizes {
		p := seekPartition(t, table, i, n)
		p.Token = dht.Murmur3.Token(p.Key)
		parts = append(parts, p)
	}
	slices.SortFunc(parts, func(a, b *mutation.Partition) int { return dht.ComparePartitions(a.Token, a.Key, b.Token, b.Key) })
	return parts
}

// TestSeekClusteringEveryFormat writes the same partitions in every
// format, with 1 KiB row-index blocks, and checks in each that Verify
// passes, that a scan reads back what the mc SSTable holds, that Get finds
// every partition, and that SeekClustering gives the reference result for
// a sample of targets in every partition, jumping through the row index.
func TestSeekClusteringEveryFormat(t *testing.T) {
	table := seekTable(t)
	sizes := []int{8000, 2, 300, 1, 600, 5, 40}
	if testing.Short() {
		sizes = []int{2000, 2, 300}
	}
	parts := seekParts(t, table, sizes)
	var reference [][]item
	for _, v := range seekFormats {
		t.Run(v, func(t *testing.T) {
			r := writeParts(t, v, table, parts, t.TempDir(), 1024)
			defer r.Close()
			if err := r.Verify(); err != nil {
				t.Fatal(err)
			}
			if d := r.Descriptor(); d.Version.Tries() && !testing.Short() {
				// The large partition's Rows.db trie spans pages.
				if st, err := os.Stat(d.Path(sstables.ComponentRows)); err != nil || st.Size() < 3*4096 {
					t.Fatalf("Rows.db: %v, %v", st, err)
				}
			}
			var keys [][]byte
			var fulls [][]item
			sc, err := r.Scan()
			if err != nil {
				t.Fatal(err)
			}
			for {
				p, err := sc.NextPartition()
				if err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, slices.Clone(p.Key))
				fulls = append(fulls, readItems(t, sc))
			}
			sc.Close()
			if reference == nil {
				reference = fulls
			} else if !reflect.DeepEqual(fulls, reference) {
				t.Fatalf("%s reads back other partitions than %s", v, seekFormats[0])
			}
			for i, k := range keys {
				p, err := r.Get(k)
				if err != nil || p == nil {
					t.Fatalf("Get(%x): %v", k, err)
				}
				if len(p.Rows)+len(p.Markers) != len(fulls[i]) {
					t.Fatalf("Get(%x): %d rows and markers, the scan %d", k, len(p.Rows)+len(p.Markers), len(fulls[i]))
				}
			}
			jumps := 0
			for n, full := range fulls {
				targets := seekTargets(full, 30)
				for ti, ck := range targets {
					want := expectedAfter(table, full, ck)
					sc := scanTo(t, r, keys[n])
					if err := sc.(sstables.ClusteringSeeker).SeekClustering(ck); err != nil {
						t.Fatalf("partition %d seek %x: %v", n, [][]byte(ck), err)
					}
					got := readItems(t, sc)
					jumps += sc.(interface{ Jumps() int }).Jumps()
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("partition %d seek %x: got\n%s\nwant\n%s", n, [][]byte(ck), describeItems(got), describeItems(want))
					}
					sc.Close()
					// Seeking twice forward is seeking once to the second.
					if ti+1 < len(targets) {
						ck1, ck2 := ck, targets[ti+1]
						if mutation.ComparePrefix(table, mutation.InclStartBound, ck2, mutation.InclStartBound, ck1) < 0 {
							ck1, ck2 = ck2, ck1
						}
						sc := scanTo(t, r, keys[n])
						s := sc.(sstables.ClusteringSeeker)
						if err := s.SeekClustering(ck1); err != nil {
							t.Fatal(err)
						}
						if err := s.SeekClustering(ck2); err != nil {
							t.Fatal(err)
						}
						if got, want := readItems(t, sc), expectedAfter(table, full, ck2); !reflect.DeepEqual(got, want) {
							t.Fatalf("partition %d seek %x then %x: got\n%s\nwant\n%s", n, [][]byte(ck1), [][]byte(ck2), describeItems(got), describeItems(want))
						}
						sc.Close()
					}
				}
			}
			t.Logf("%s: %d jumps through the row index", v, jumps)
			if jumps == 0 {
				t.Fatal("no seek jumped through the row index")
			}
		})
	}
}

// scanTo returns a scan (from ScanFrom) positioned in key's partition.
func scanTo(t testing.TB, r sstables.Reader, key []byte) sstables.Scanner {
	t.Helper()
	sc, err := r.ScanFrom(key)
	if err != nil || sc == nil {
		t.Fatalf("ScanFrom(%x): %v %v", key, sc, err)
	}
	if _, err := sc.NextPartition(); err != nil {
		t.Fatal(err)
	}
	return sc
}
