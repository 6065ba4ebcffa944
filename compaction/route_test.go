package compaction_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

// routeInputs writes two SSTables of 200 partitions (keys 0..199, three
// rows each; the second deletes every tenth partition at a later
// timestamp) in versions mc and oa.
func routeInputs(t *testing.T, dir string) (*schema.Table, []sstables.Reader) {
	t.Helper()
	sch, err := cql.ParseSchema("CREATE TABLE ks.t (k int, c int, v blob, PRIMARY KEY (k, c));")
	if err != nil {
		t.Fatal(err)
	}
	tab := sch.Table("ks.t")
	var rs []sstables.Reader
	for i, v := range []string{"mc", "oa"} {
		f, err := sstables.Lookup(v)
		if err != nil {
			t.Fatal(err)
		}
		var parts []*mutation.Partition
		for k := 0; k < 200; k++ {
			key := binary.BigEndian.AppendUint32(nil, uint32(k))
			p := &mutation.Partition{Key: key, Token: dht.Murmur3.Token(key), Deletion: mutation.Live, Static: mutation.NewRow(nil)}
			if i == 1 && k%10 == 0 {
				p.Deletion = mutation.DeletionTime{MarkedForDeleteAt: 100, LocalDeletionTime: 1700000000}
			}
			for c := 0; c < 3; c++ {
				r := mutation.NewRow(mutation.Clustering{binary.BigEndian.AppendUint32(nil, uint32(c+i))})
				r.Cells = []mutation.Cell{{Column: tab.Column("v"), Value: []byte{byte(k), byte(c)}, Timestamp: int64(1 + i), TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
				p.Rows = append(p.Rows, r)
			}
			parts = append(parts, p)
		}
		sortPartitions(parts)
		w, err := f.NewWriter(tab, sstables.WriterOptions{Dir: dir, Generation: i + 1})
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
		r, err := sstables.OpenAny(res.Descriptor, tab, sstables.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		rs = append(rs, r)
	}
	return tab, rs
}

func sortPartitions(ps []*mutation.Partition) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && dht.ComparePartitions(ps[j].Token, ps[j].Key, ps[j-1].Token, ps[j-1].Key) < 0; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// scanKeys lists the tokens of the partitions in SSTables and whether
// each has a partition deletion.
func scanKeys(t *testing.T, tab *schema.Table, ds []sstables.Descriptor) (tokens []dht.Token, deleted int) {
	t.Helper()
	set, err := table.Open(ds, nil, table.Options{Table: tab})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	sc, err := set.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			return tokens, deleted
		}
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, p.Token)
		if !p.Deletion.IsLive() {
			deleted++
		}
	}
}

func descsOf(rs []*sstables.WriteResult) []sstables.Descriptor {
	var out []sstables.Descriptor
	for _, r := range rs {
		out = append(out, r.Descriptor)
	}
	return out
}

// TestRoutes: Options.Ranges writes each range's partitions (a wrapping
// range's from both ends of the ring) into its own directory, together
// every partition once; Keep leaves partitions out before they are
// merged; Move keeps the partition deletions a purging Compact drops;
// overlapping ranges are an error; a failure removes every output of
// every range.
func TestRoutes(t *testing.T) {
	dir := t.TempDir()
	tab, rs := routeInputs(t, dir+"/in")
	ranges, err := dht.RingRanges([]dht.Token{dht.Murmur3Token(-5e18), dht.Murmur3Token(0), dht.Murmur3Token(4e18)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := compaction.Move(context.Background(), rs, tab, compaction.Options{Out: dir + "/ranges", Ranges: ranges})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ranges) != 3 || !ranges[0].Wraps() {
		t.Fatalf("%d ranges", len(res.Ranges))
	}
	total, deleted := 0, 0
	for i, rr := range res.Ranges {
		if rr.Dir != dir+"/ranges/"+compaction.RangeDirName(i, 3) || len(rr.Outputs) != 1 || rr.Outputs[0].Descriptor.Generation != 1 {
			t.Fatalf("range %d: %s %d outputs", i, rr.Dir, len(rr.Outputs))
		}
		toks, del := scanKeys(t, tab, descsOf(rr.Outputs))
		for _, tok := range toks {
			if !rr.Range.Contains(tok) {
				t.Errorf("range %s holds %s", rr.Range.Format(dht.Murmur3), dht.Murmur3.String(tok))
			}
		}
		if int64(len(toks)) != rr.Partitions || rr.Rows == 0 {
			t.Errorf("range %d: %d partitions, %d reported", i, len(toks), rr.Partitions)
		}
		total += len(toks)
		deleted += del
	}
	if total != 200 || deleted != 20 {
		t.Errorf("the ranges hold %d partitions (%d deleted), want 200 (20)", total, deleted)
	}
	// A purging Compact drops the deleted partitions (gc grace 0, long
	// after the deletion); Keep takes the even keys only.
	res, err = compaction.Compact(context.Background(), rs, tab, compaction.Options{Out: dir + "/keep", GCGraceSeconds: 0,
		Keep: func(_ dht.Token, key []byte) bool { return binary.BigEndian.Uint32(key)%2 == 0 }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Partitions != 80 { // 100 even keys, 20 of them deleted
		t.Errorf("Keep even keys, purged: %d partitions, want 80", res.Partitions)
	}
	// Overlapping ranges.
	overlap := []dht.Range{{Left: dht.Murmur3Token(0), Right: dht.Murmur3Token(10)}, {Left: dht.Murmur3Token(5), Right: dht.Murmur3Token(20)}}
	if _, err := compaction.Move(context.Background(), rs, tab, compaction.Options{Out: dir + "/bad", Ranges: overlap}); err == nil {
		t.Error("overlapping ranges accepted")
	}
	// A failure after some outputs were finished removes them all.
	ctx, cancel := context.WithCancel(context.Background())
	_, err = compaction.Move(ctx, rs, tab, compaction.Options{Out: dir + "/cancelled", Ranges: ranges,
		Progress: func(n int64) {
			if n == 150 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	for i := range ranges {
		d := dir + "/cancelled/" + compaction.RangeDirName(i, 3)
		if descs, _ := sstables.ListSSTables(nil, d); len(descs) > 0 {
			t.Errorf("%s keeps %v after the failure", d, descs)
		}
		if ents, _ := os.ReadDir(d); len(ents) > 0 {
			t.Errorf("%s keeps %d files", d, len(ents))
		}
	}
}

// TestMaxSSTableSizeKeys: with MaxSSTableSize, each output's bloom filter
// is sized as MaxSSTableSizeWriter sizes it: the inputs' estimate divided
// by the number of SSTables the inputs' Data.db bytes (scaled by the
// estimated compaction ratio) make at that size.
func TestMaxSSTableSizeKeys(t *testing.T) {
	tab, rs := routeInputs(t, t.TempDir())
	whole, err := compaction.Compact(context.Background(), rs, tab, compaction.Options{Out: t.TempDir(), GCGraceSeconds: -1})
	if err != nil {
		t.Fatal(err)
	}
	var onDisk, before int64
	for _, r := range rs {
		onDisk += r.(sstables.DataFileReader).DataFile().FileSize()
		n, err := r.(sstables.KeyEstimator).EstimatedKeys()
		if err != nil {
			t.Fatal(err)
		}
		before += n
	}
	total := int64(float64(whole.EstimatedKeys)/float64(before)*float64(onDisk) + 0.5)
	for _, div := range []int64{1, 2, 3} {
		maxSize := total / div
		res, err := compaction.Compact(context.Background(), rs, tab, compaction.Options{Out: t.TempDir(), GCGraceSeconds: -1, MaxSSTableSize: maxSize})
		if err != nil {
			t.Fatal(err)
		}
		want := whole.EstimatedKeys / max(1, total/maxSize)
		if res.EstimatedKeys != want || (div > 1 && want >= whole.EstimatedKeys) {
			t.Errorf("max size %d (1/%d of the %d bytes expected): filters sized for %d keys, want %d (of %d)", maxSize, div, total, res.EstimatedKeys, want, whole.EstimatedKeys)
		}
	}
}
