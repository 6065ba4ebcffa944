package big

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/castable-db/castable/sstables/internal/rows"
	"io"
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
)

// SeekClustering is cross-checked against the simple path: for a target
// prefix ck, seeking then reading to the partition's end must give the full
// scan's sequence without what sorts at or before the inclusive start bound
// of ck, preceded by an inclusive start marker at ck when a deletion is open
// there (computed here from the full scan, independently of the index).

// readItems reads the rest of the current partition as deep copies.
func readItems(t testing.TB, sc sstables.Scanner) []unfiltered {
	t.Helper()
	var out []unfiltered
	for {
		r, m, err := sc.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r != nil:
			c := rows.CloneRow(r)
			out = append(out, unfiltered{row: &c})
		case m != nil:
			c := rows.CloneMarker(m)
			out = append(out, unfiltered{marker: &c})
		default:
			return out
		}
	}
}

func itemPos(u unfiltered) (mutation.BoundKind, mutation.Clustering) {
	if u.row != nil {
		return mutation.ClusteringKind, u.row.Clustering
	}
	return u.marker.Kind, u.marker.Clustering
}

// expectedAfter is the reference: full filtered to after the inclusive
// start bound of ck, with the deletion open there as a leading marker.
func expectedAfter(table *schema.Table, full []unfiltered, ck mutation.Clustering) []unfiltered {
	open := mutation.Live
	i := 0
	for ; i < len(full); i++ {
		k, c := itemPos(full[i])
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
	var out []unfiltered
	if !open.IsLive() {
		m := mutation.RangeTombstoneMarker{Kind: mutation.InclStartBound, Clustering: rows.CloneClustering(ck), Close: mutation.Live, Open: open}
		if m.Clustering == nil {
			m.Clustering = mutation.Clustering{}
		}
		out = append(out, unfiltered{marker: &m})
	}
	return append(out, full[i:]...)
}

func describeItems(items []unfiltered) string {
	var b strings.Builder
	for _, u := range items {
		k, c := itemPos(u)
		fmt.Fprintf(&b, " %s%x", k, [][]byte(c))
		if u.marker != nil {
			fmt.Fprintf(&b, "(close %v open %v)", u.marker.Close, u.marker.Open)
		}
	}
	return b.String()
}

// seekTargets are prefixes to seek to in a partition: the empty prefix,
// every row's and marker's clustering and its shorter prefixes, and the
// blocks' first and last prefixes; at most max of them (evenly sampled).
func seekTargets(full []unfiltered, pi *PromotedIndex, max int) []mutation.Clustering {
	out := []mutation.Clustering{{}}
	add := func(c mutation.Clustering) {
		for n := 1; n <= len(c); n++ {
			out = append(out, rows.CloneClustering(c[:n]))
		}
	}
	for _, u := range full {
		_, c := itemPos(u)
		add(c)
	}
	if pi != nil {
		for _, b := range pi.Blocks {
			add(b.First)
			add(b.Last)
		}
	}
	if len(out) > max {
		step := float64(len(out)) / float64(max)
		var s []mutation.Clustering
		for i := 0; i < max; i++ {
			s = append(s, out[int(float64(i)*step)])
		}
		s = append(s, out[len(out)-1])
		out = s
	}
	return out
}

// scanTo returns a new scan (from ScanFrom) positioned in key's partition.
func scanTo(t testing.TB, r *Reader, key []byte) *rows.Scanner {
	t.Helper()
	sc, err := r.ScanFrom(key)
	if err != nil || sc == nil {
		t.Fatalf("ScanFrom(%x): %v %v", key, sc, err)
	}
	if _, err := sc.NextPartition(); err != nil {
		t.Fatal(err)
	}
	return sc.(*rows.Scanner)
}

// promotedIndexes returns every partition's promoted index (nil when none),
// in Data.db order.
func promotedIndexes(t testing.TB, r *Reader) []*PromotedIndex {
	t.Helper()
	var out []*PromotedIndex
	if err := r.Index(func(e *IndexEntry) error {
		out = append(out, e.Promoted)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkSeeks cross-checks SeekClustering on every partition of r and
// returns the number of jumps through the promoted index.
func checkSeeks(t *testing.T, r *Reader, maxTargets int) (jumps int) {
	t.Helper()
	table := r.Table()
	var fulls [][]unfiltered
	var keys [][]byte
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
		keys = append(keys, append([]byte(nil), p.Key...))
		fulls = append(fulls, readItems(t, sc))
	}
	sc.Close()
	pis := promotedIndexes(t, r)
	if len(pis) != len(fulls) {
		t.Fatalf("%d index entries, %d partitions", len(pis), len(fulls))
	}
	for n, full := range fulls {
		// Every partition with a promoted index; of the others (each
		// ScanFrom costs an Index.db lookup, which is a scan of Index.db
		// where Summary.db is missing) the first few and a sample.
		if pis[n] == nil && n > 4 && n%(len(fulls)/8+1) != 0 {
			continue
		}
		targets := seekTargets(full, pis[n], maxTargets)
		for ti, ck := range targets {
			want := expectedAfter(table, full, ck)
			sc := scanTo(t, r, keys[n])
			if err := sc.SeekClustering(ck); err != nil {
				t.Fatalf("partition %d seek %x: %v", n, [][]byte(ck), err)
			}
			got := readItems(t, sc)
			jumps += sc.Jumps()
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("partition %d seek %x: got\n%s\nwant\n%s", n, [][]byte(ck), describeItems(got), describeItems(want))
			}
			// Seeking twice forward is seeking once to the second target;
			// then the next partition is the full scan's.
			if ti+1 < len(targets) {
				ck2 := targets[ti+1]
				if mutation.ComparePrefix(table, mutation.InclStartBound, ck2, mutation.InclStartBound, ck) < 0 {
					ck, ck2 = ck2, ck
				}
				sc := scanTo(t, r, keys[n])
				if err := sc.SeekClustering(ck); err != nil {
					t.Fatal(err)
				}
				if err := sc.SeekClustering(ck2); err != nil {
					t.Fatal(err)
				}
				if got, want := readItems(t, sc), expectedAfter(table, full, ck2); !reflect.DeepEqual(got, want) {
					t.Fatalf("partition %d seek %x then %x: got\n%s\nwant\n%s", n, [][]byte(ck), [][]byte(ck2), describeItems(got), describeItems(want))
				}
				sc.Close()
			}
			// Reading one item, seeking on and taking the next partition.
			if len(want) > 1 && ti%3 == 0 {
				sc := scanTo(t, r, keys[n])
				if err := sc.SeekClustering(ck); err != nil {
					t.Fatal(err)
				}
				if _, _, err := sc.Next(); err != nil {
					t.Fatal(err)
				}
				if n+1 < len(fulls) {
					if _, err := sc.NextPartition(); err != nil {
						t.Fatal(err)
					}
					if got := readItems(t, sc); !reflect.DeepEqual(got, fulls[n+1]) {
						t.Fatalf("partition %d after a seek in partition %d differs", n+1, n)
					}
				} else if _, err := sc.NextPartition(); err != io.EOF {
					t.Fatalf("NextPartition after the last partition: %v", err)
				}
				sc.Close()
			}
			sc.Close()
		}
	}
	return jumps
}

// TestSeekClusteringReference checks SeekClustering on every partition of
// the 3.x reference SSTables, several of which have promoted indexes.
func TestSeekClusteringReference(t *testing.T) {
	withPromoted, jumps := 0, 0
	for _, ref := range refSSTables(t, false) {
		t.Run(ref.name, func(t *testing.T) {
			r := openRef(t, ref)
			defer r.Close()
			for _, pi := range promotedIndexes(t, r) {
				if pi != nil {
					withPromoted++
				}
			}
			jumps += checkSeeks(t, r, 60)
		})
	}
	t.Logf("%d partitions with a promoted index, %d jumps", withPromoted, jumps)
	if withPromoted == 0 || jumps == 0 {
		t.Fatalf("%d partitions with a promoted index, %d jumps through it: the index path was not exercised", withPromoted, jumps)
	}
}

const seekTestSchema = `CREATE TABLE ks.seek (pk int, ck1 int, ck2 int, v text, PRIMARY KEY (pk, ck1, ck2)) WITH CLUSTERING ORDER BY (ck1 ASC, ck2 DESC)`

func seekInt(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// seekPartition builds a partition of nRows*3 rows (ck1 in [0, nRows),
// ck2 in 2, 1, 0; ck1 ≡ 3 mod 7 has no rows) with range deletions on ck1
// prefixes and on whole clusterings: inclusive and exclusive bounds, both
// kinds of boundary, deletions open across many blocks.
func seekPartition(t testing.TB, table *schema.Table, pk int, nRows int) *mutation.Partition {
	p := &mutation.Partition{Key: seekInt(pk), Deletion: mutation.Live, Static: mutation.NewRow(nil)}
	p.Token = dht.Murmur3.Token(p.Key)
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
	s := nRows / 300 // scale the ranges with the partition
	if s == 0 {
		s = 1
	}
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

// writeSeekSSTable writes partitions of the sizes given (in rows of ck1)
// with a promoted index block every blockSize bytes, LZ4 with chunkLen
// chunks.
func writeSeekSSTable(t testing.TB, sizes []int, blockSize, chunkLen int) *Reader {
	t.Helper()
	s, err := cql.ParseSchema(seekTestSchema)
	if err != nil {
		t.Fatal(err)
	}
	table := s.Tables[0]
	var parts []*mutation.Partition
	for i, n := range sizes {
		parts = append(parts, seekPartition(t, table, i, n))
	}
	slices.SortFunc(parts, func(a, b *mutation.Partition) int { return dht.ComparePartitions(a.Token, a.Key, b.Token, b.Key) })
	dir := t.TempDir()
	w, err := NewWriter(vmc, table, sstables.WriterOptions{
		Dir: dir, Generation: 1, Jobs: 1, ColumnIndexSize: blockSize,
		Compression: &compress.Params{Codec: compress.LZ4, ChunkLength: chunkLen},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if err := w.Append(p); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(res.Descriptor, table, sstables.ReaderOptions{ReadAhead: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSeekClusteringWritten checks SeekClustering on SSTables written with
// small promoted index blocks: large partitions with range deletions open
// across blocks, beside small partitions without a promoted index.
func TestSeekClusteringWritten(t *testing.T) {
	for _, c := range []struct {
		name              string
		sizes             []int
		block, chunk, max int
	}{
		{"blocks256", []int{300, 2, 300, 1}, 256, 4096, 400},
		{"blocks1k", []int{600, 5}, 1024, 16384, 250},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := writeSeekSSTable(t, c.sizes, c.block, c.chunk)
			defer r.Close()
			n := 0
			for _, pi := range promotedIndexes(t, r) {
				if pi != nil && len(pi.Blocks) >= 20 {
					n++
				}
			}
			if n == 0 {
				t.Fatal("no promoted index of 20 blocks or more written")
			}
			if jumps := checkSeeks(t, r, c.max); jumps == 0 {
				t.Fatal("no seek jumped through the promoted index")
			}
		})
	}
}

// TestSeekClusteringMisuse: seeking backwards, before NextPartition and
// after the partition's end.
func TestSeekClusteringMisuse(t *testing.T) {
	r := writeSeekSSTable(t, []int{300}, 256, 4096)
	defer r.Close()
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	seeker := sc.(sstables.ClusteringSeeker)
	if err := seeker.SeekClustering(mutation.Clustering{seekInt(5)}); err == nil {
		t.Fatal("SeekClustering before NextPartition succeeded")
	}
	if _, err := sc.NextPartition(); err != nil {
		t.Fatal(err)
	}
	if err := seeker.SeekClustering(mutation.Clustering{seekInt(100)}); err != nil {
		t.Fatal(err)
	}
	// The same target again is allowed (nothing returned yet) …
	if err := seeker.SeekClustering(mutation.Clustering{seekInt(100)}); err != nil {
		t.Fatal(err)
	}
	// ck1 100 lies in the deletion of [60, 120]: its open marker first.
	_, m, err := sc.Next()
	if err != nil || m == nil || m.Kind != mutation.InclStartBound || binary.BigEndian.Uint32(m.Clustering[0]) != 100 || m.Open.MarkedForDeleteAt != 2003 {
		t.Fatalf("after seeking to 100: %v %v", m, err)
	}
	row, _, err := sc.Next()
	if err != nil || row == nil || binary.BigEndian.Uint32(row.Clustering[0]) != 100 {
		t.Fatalf("after seeking to 100: %v %v", row, err)
	}
	// … an earlier one is not.
	if err := seeker.SeekClustering(mutation.Clustering{seekInt(99)}); err == nil {
		t.Fatal("backward seek succeeded")
	}
	if err := seeker.SeekClustering(mutation.Clustering{seekInt(100), seekInt(3)}); err == nil {
		t.Fatal("seek before the row returned (ck2 is descending) succeeded")
	}
	if err := seeker.SeekClustering(mutation.Clustering{seekInt(1 << 30)}); err != nil {
		t.Fatal(err)
	}
	for {
		row, m, err := sc.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row != nil {
			t.Fatalf("row %x after seeking past the end", [][]byte(row.Clustering))
		}
		if m == nil {
			break
		}
	}
	if err := seeker.SeekClustering(mutation.Clustering{seekInt(5)}); err != nil {
		t.Fatalf("seek after the partition's end: %v", err)
	}
	if _, err := sc.NextPartition(); err != io.EOF {
		t.Fatalf("NextPartition: %v", err)
	}
}

// entrySource is a rows.RowIndexSource that gives every partition the
// promoted index of one Index.db entry (as Reader.RowIndex checks it).
type entrySource struct {
	r *Reader
	e IndexEntry
}

func (s *entrySource) RowIndex(key []byte, start, headerLength int64, deletion mutation.DeletionTime, dataLength int64) (rows.RowIndex, error) {
	return s.r.rowIndexFor(&s.e, start, headerLength, deletion, dataLength)
}

// TestSeekClusteringCorruptIndex: a promoted index that does not describe
// the partition gives a CorruptionError naming Index.db, never a panic or
// rows of another place.
func TestSeekClusteringCorruptIndex(t *testing.T) {
	r := writeSeekSSTable(t, []int{300}, 256, 4096)
	defer r.Close()
	start := func() (*rows.Scanner, IndexEntry) {
		sc := scanTo(t, r, seekInt(0))
		e, found, err := r.findEntry(seekInt(0))
		if err != nil || !found || e.Promoted == nil || len(e.Promoted.Blocks) < 20 {
			t.Fatalf("entry: %v %v %+v", found, err, e)
		}
		return sc, e
	}
	isCorrupt := func(err error, what string) {
		t.Helper()
		var ce *sstables.CorruptionError
		if !errors.As(err, &ce) || ce.Component != string(sstables.ComponentIndex) || !strings.HasSuffix(ce.Path, "Index.db") {
			t.Fatalf("%s: %v, want a CorruptionError naming Index.db", what, err)
		}
	}
	for _, c := range []struct {
		name   string
		change func(pi *PromotedIndex)
	}{
		{"offset shifted", func(pi *PromotedIndex) { pi.Blocks[7].Offset++ }},
		{"gap", func(pi *PromotedIndex) { pi.Blocks[7].Width-- }},
		{"beyond Data.db", func(pi *PromotedIndex) { pi.Blocks[len(pi.Blocks)-1].Width = 1 << 40 }},
		{"header length", func(pi *PromotedIndex) { pi.HeaderLength++ }},
		{"deletion", func(pi *PromotedIndex) { pi.Deletion.MarkedForDeleteAt = 5 }},
	} {
		sc, e := start()
		c.change(e.Promoted)
		sc.SetRowIndexSource(&entrySource{r, e})
		isCorrupt(sc.SeekClustering(mutation.Clustering{seekInt(200)}), c.name)
		sc.Close()
	}
	sc, e := start()
	e.Position++
	sc.SetRowIndexSource(&entrySource{r, e})
	isCorrupt(sc.SeekClustering(mutation.Clustering{seekInt(200)}), "position")
	sc.Close()

	// Blocks that are consistent but name other first unfiltereds than
	// the ones where they start: the jump notices.
	sc, e = start()
	b := &e.Promoted.Blocks[10]
	b.First = mutation.Clustering{seekInt(12345), seekInt(0)}
	sc.SetRowIndexSource(&entrySource{r, e})
	err := sc.SeekClustering(b.Last)
	isCorrupt(err, "first unfiltered")
	if _, _, err2 := sc.Next(); err2 != err {
		t.Fatalf("the error is not sticky: %v", err2)
	}
	sc.Close()
}
