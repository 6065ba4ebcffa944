package scrub

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
)

// readAll reads every partition of desc whole.
func readAll(t testing.TB, fsys sstables.FS, desc sstables.Descriptor, table *schema.Table) []*mutation.Partition {
	t.Helper()
	f, err := sstables.LookupVersion(desc.Version)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Open(desc, table, sstables.ReaderOptions{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var out []*mutation.Partition
	for {
		h, err := sc.NextPartition()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		p := &mutation.Partition{Key: cloneBytes(h.Key), Deletion: h.Deletion, Static: cloneRow(&h.Static)}
		for {
			row, m, err := sc.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil && m == nil {
				break
			}
			if row != nil {
				p.Rows = append(p.Rows, cloneRow(row))
			} else {
				p.Markers = append(p.Markers, cloneMarker(m))
			}
		}
		out = append(out, p)
	}
}

// verify opens and verifies the SSTable whose Data.db is path.
func verify(t testing.TB, fsys sstables.FS, path string) sstables.Descriptor {
	t.Helper()
	desc, _, _, err := sstables.ParseDescriptor(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sstables.LookupVersion(desc.Version)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Open(desc, nil, sstables.ReaderOptions{FS: fsys})
	if err != nil {
		t.Fatalf("%s: the scrubbed SSTable does not open: %v", path, err)
	}
	defer r.Close()
	if err := r.Verify(); err != nil {
		t.Fatalf("%s: the scrubbed SSTable does not verify: %v", path, err)
	}
	return desc
}

func legacyDesc(t *testing.T, table string) sstables.Descriptor {
	dir := testdata.Path(t, "cassandra-legacy", "other", "negative-local-expiration-test", table)
	desc, _, _, err := sstables.ParseDescriptor(filepath.Join(dir, "mc-1-big-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	return desc
}

// TestReinsertOverflowedTTL scrubs Cassandra's own files with overflowed
// expiration times (CASSANDRA-14092; the files of its TTLTest and
// LocalExpirationTimeOverflowTest) with ReinsertOverflowedTTL and checks
// Cassandra's repaired values: every expiring cell and liveness whose
// expiration time was negative now expires at 2038-01-19T03:14:06Z
// (Integer.MAX_VALUE − 1) with its timestamp + 1 and its TTL kept;
// everything else is unchanged. Cassandra's test then reads the rows back
// alive — (1, 1, 1) and (2, 2, null) — which these values make them.
func TestReinsertOverflowedTTL(t *testing.T) {
	for _, table := range []string{"table1", "table2"} {
		t.Run(table, func(t *testing.T) {
			desc := legacyDesc(t, table)
			in := readAll(t, nil, desc, nil)
			out := t.TempDir()
			rep, err := Scrub(context.Background(), desc, Options{Dir: out, Generation: 1, ReinsertOverflowedTTL: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Lost() || len(rep.Outputs) != 1 {
				t.Fatalf("lost %d partitions, outputs %v", rep.LostPartitions, rep.Outputs)
			}
			if rep.FixedRows != 2 {
				t.Errorf("fixed %d rows, want 2", rep.FixedRows)
			}
			odesc := verify(t, nil, rep.Outputs[0])
			got := readAll(t, nil, odesc, nil)
			if len(got) != len(in) {
				t.Fatalf("%d partitions, want %d", len(got), len(in))
			}
			fixed := 0
			for i := range in {
				for j := range in[i].Rows {
					a, b := &in[i].Rows[j], &got[i].Rows[j]
					if a.Liveness.IsExpiring() && a.Liveness.LocalExpirationTime < 0 {
						fixed++
						want := a.Liveness
						want.Timestamp++
						want.LocalExpirationTime = 2147483646
						if b.Liveness != want {
							t.Errorf("partition %d row %d liveness %+v, want %+v", i, j, b.Liveness, want)
						}
					} else if b.Liveness != a.Liveness {
						t.Errorf("partition %d row %d liveness changed: %+v -> %+v", i, j, a.Liveness, b.Liveness)
					}
					for k := range a.Cells {
						ca, cb := a.Cells[k], b.Cells[k]
						if ca.IsExpiring() && ca.LocalDeletionTime < 0 {
							fixed++
							ca.Timestamp++
							ca.LocalDeletionTime = 2147483646
						}
						if ca.Timestamp != cb.Timestamp || ca.TTL != cb.TTL || ca.LocalDeletionTime != cb.LocalDeletionTime || string(ca.Value) != string(cb.Value) {
							t.Errorf("partition %d row %d cell %s: got ts %d ttl %d ldt %d, want ts %d ttl %d ldt %d",
								i, j, ca.Column.Name, cb.Timestamp, cb.TTL, cb.LocalDeletionTime, ca.Timestamp, ca.TTL, ca.LocalDeletionTime)
						}
						if cb.IsExpiring() && cb.TTL != 630720000 {
							t.Errorf("TTL %d, want Cassandra's 630720000 (20 years) kept", cb.TTL)
						}
					}
				}
			}
			if fixed == 0 {
				t.Fatal("the input holds no overflowed expiration time")
			}
		})
	}
}

// TestOverflowedTTLWithoutRepair: without the option the times are copied
// as they are into mc, and an oa target (which cannot store a negative
// time) drops the partitions, saying what repairs them; with it, oa takes
// them.
func TestOverflowedTTLWithoutRepair(t *testing.T) {
	desc := legacyDesc(t, "table1")
	rep, err := Scrub(context.Background(), desc, Options{Dir: t.TempDir(), Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lost() || rep.FixedRows != 0 {
		t.Fatalf("mc without repair: lost %d, fixed %d", rep.LostPartitions, rep.FixedRows)
	}
	oa, err := sstables.Lookup("oa")
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Scrub(context.Background(), desc, Options{Dir: t.TempDir(), Generation: 1, Format: oa})
	if err != nil {
		t.Fatal(err)
	}
	if rep.LostPartitions != 2 || len(rep.Outputs) != 0 {
		t.Fatalf("oa without repair: lost %d, outputs %v; want both partitions dropped", rep.LostPartitions, rep.Outputs)
	}
	rep, err = Scrub(context.Background(), desc, Options{Dir: t.TempDir(), Generation: 1, Format: oa, ReinsertOverflowedTTL: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lost() || len(rep.Outputs) != 1 {
		t.Fatalf("oa with repair: lost %d, outputs %v", rep.LostPartitions, rep.Outputs)
	}
	verify(t, nil, rep.Outputs[0])
}

// TestOutOfOrderPartitions swaps the bytes of the first two partitions of
// an uncompressed SSTable without CRC.db (so that both still decode, in the
// wrong order): the one that comes second in token order is found after a
// greater one and written, as Cassandra's scrub writes its outOfOrder set,
// to a second SSTable; nothing is lost and both outputs verify.
func TestOutOfOrderPartitions(t *testing.T) {
	src := testdata.Path(t, "mc-write", "many_deleted_partitions", "mc-1-big-Data.db")
	sdesc, _, _, err := sstables.ParseDescriptor(src)
	if err != nil {
		t.Fatal(err)
	}
	in := readAll(t, nil, sdesc, nil)
	// The partition starts, from a scan.
	f, _ := sstables.LookupVersion(sdesc.Version)
	r, err := f.Open(sdesc, nil, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := r.Scan()
	var starts []int64
	for len(starts) < 3 {
		if _, err := sc.NextPartition(); err != nil {
			t.Fatal(err)
		}
		starts = append(starts, sc.Position())
	}
	sc.Close()
	r.Close()

	fsys := memfs.New()
	dir := filepath.Dir(src)
	desc := sdesc
	desc.Dir = "/in"
	for _, c := range []sstables.Component{sstables.ComponentData, sstables.ComponentIndex, sstables.ComponentStatistics, sstables.ComponentFilter, sstables.ComponentSummary} {
		b, err := os.ReadFile(filepath.Join(dir, sdesc.Filename(c)))
		if err != nil {
			continue
		}
		if c == sstables.ComponentData {
			a, b2 := slices.Clone(b[starts[0]:starts[1]]), slices.Clone(b[starts[1]:starts[2]])
			b = slices.Concat(b[:starts[0]], b2, a, b[starts[2]:])
		}
		fsys.Set(desc.Path(c), b)
	}
	rep, err := Scrub(context.Background(), desc, Options{Dir: "/out", FS: fsys, Generation: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lost() || rep.OutOfOrderPartitions != 1 || len(rep.Outputs) != 2 || rep.Partitions != int64(len(in)) {
		t.Fatalf("lost %d, out of order %d, outputs %v, partitions %d (want %d)", rep.LostPartitions, rep.OutOfOrderPartitions, rep.Outputs, rep.Partitions, len(in))
	}
	var n int
	for _, p := range rep.Outputs {
		n += len(readAll(t, fsys, verify(t, fsys, p), nil))
	}
	if n != len(in) {
		t.Fatalf("%d partitions in the outputs, want %d", n, len(in))
	}
}

// TestRowsOutOfOrder writes a partition of five rows, then rearranges the
// rows' bytes in Data.db to r0 r2 r1 r1 r3 r4 (out of order, r1 twice):
// scrub sorts them, merges the duplicate, reports the change, loses
// nothing, and the partition comes out as it was written.
func TestRowsOutOfOrder(t *testing.T) {
	sch, err := cql.ParseSchema(`CREATE TABLE ks.t (pk int, ck int, v text, PRIMARY KEY (pk, ck));`)
	if err != nil {
		t.Fatal(err)
	}
	table := sch.Tables[0]
	i32 := func(v int) []byte { return []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)} }
	var parts []*mutation.Partition
	for _, k := range []int{1, 2} {
		p := &mutation.Partition{Key: i32(k), Token: dht.Murmur3.Token(i32(k)), Deletion: mutation.Live,
			Static: mutation.Row{Liveness: mutation.EmptyLiveness, Deletion: mutation.Live, ShadowableDeletion: mutation.Live}}
		for ck := 0; ck < 5; ck++ {
			p.Rows = append(p.Rows, mutation.Row{Clustering: mutation.Clustering{i32(ck)},
				Liveness: mutation.LivenessInfo{Timestamp: 1000, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime},
				Deletion: mutation.Live, ShadowableDeletion: mutation.Live,
				Cells: []mutation.Cell{{Column: table.Column("v"), Value: []byte(fmt.Sprintf("value %d", ck)), Timestamp: 1000,
					TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}})
		}
		parts = append(parts, p)
	}
	slices.SortFunc(parts, func(a, b *mutation.Partition) int { return dht.ComparePartitions(a.Token, a.Key, b.Token, b.Key) })
	mc, err := sstables.Lookup("mc")
	if err != nil {
		t.Fatal(err)
	}
	fsys := memfs.New()
	w, err := mc.NewWriter(table, sstables.WriterOptions{Dir: "/in", FS: fsys, Generation: 1, Compression: &compress.Params{}})
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
	desc := res.Descriptor
	want := readAll(t, fsys, desc, nil)

	// The byte spans of the first partition's rows.
	r, err := mc.Open(desc, nil, sstables.ReaderOptions{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := r.Scan()
	if _, err := sc.NextPartition(); err != nil {
		t.Fatal(err)
	}
	ps, ok := sc.(positioner)
	if !ok {
		t.Skip("the mc scanner does not tell its position")
	}
	bounds := []int64{ps.Pos()}
	for k := 0; k < 5; k++ {
		if row, _, err := sc.Next(); err != nil || row == nil {
			t.Fatalf("row %d: %v", k, err)
		}
		bounds = append(bounds, ps.Pos())
	}
	sc.Close()
	r.Close()
	data, _ := fsys.Get(desc.Path(sstables.ComponentData))
	row := func(k int) []byte { return data[bounds[k]:bounds[k+1]] }
	damaged := slices.Concat(data[:bounds[0]], row(0), row(2), row(1), row(1), row(3), row(4), data[bounds[5]:])
	fsys.Set(desc.Path(sstables.ComponentData), damaged)

	rep, err := Scrub(context.Background(), desc, Options{Dir: "/out", FS: fsys, Generation: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lost() || len(rep.Outputs) != 1 || len(rep.Changed) != 1 || rep.Changed[0].What != "rows out of order: sorted, 1 duplicate rows merged" {
		t.Fatalf("lost %d, outputs %v, changed %+v", rep.LostPartitions, rep.Outputs, rep.Changed)
	}
	got := readAll(t, fsys, verify(t, fsys, rep.Outputs[0]), nil)
	if len(got) != len(want) {
		t.Fatalf("%d partitions, want %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i].Rows) != len(want[i].Rows) {
			t.Fatalf("partition %d: %d rows, want %d", i, len(got[i].Rows), len(want[i].Rows))
		}
		for j := range want[i].Rows {
			a, b := &want[i].Rows[j], &got[i].Rows[j]
			if string(a.Clustering[0]) != string(b.Clustering[0]) || string(a.Cells[0].Value) != string(b.Cells[0].Value) || a.Liveness != b.Liveness {
				t.Errorf("partition %d row %d: got %x %q, want %x %q", i, j, b.Clustering[0], b.Cells[0].Value, a.Clustering[0], a.Cells[0].Value)
			}
		}
	}
}

// TestRepairedAtClearedOnLoss: a repaired SSTable (repairedAt set) keeps
// its repair time through a scrub that loses nothing, and comes out
// unrepaired when the scrub lost partitions, as Cassandra's scrub marks it.
func TestRepairedAtClearedOnLoss(t *testing.T) {
	sch, err := cql.ParseSchema(`CREATE TABLE ks.t (pk int PRIMARY KEY, v text);`)
	if err != nil {
		t.Fatal(err)
	}
	table := sch.Tables[0]
	var parts []*mutation.Partition
	for k := 0; k < 50; k++ {
		key := []byte{0, 0, 0, byte(k)}
		parts = append(parts, &mutation.Partition{Key: key, Token: dht.Murmur3.Token(key), Deletion: mutation.Live,
			Static: mutation.Row{Liveness: mutation.EmptyLiveness, Deletion: mutation.Live, ShadowableDeletion: mutation.Live},
			Rows: []mutation.Row{{Liveness: mutation.LivenessInfo{Timestamp: 1000, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime},
				Deletion: mutation.Live, ShadowableDeletion: mutation.Live,
				Cells: []mutation.Cell{{Column: table.Column("v"), Value: []byte("some value"), Timestamp: 1000, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}}}})
	}
	slices.SortFunc(parts, func(a, b *mutation.Partition) int { return dht.ComparePartitions(a.Token, a.Key, b.Token, b.Key) })
	nb, err := sstables.Lookup("nb")
	if err != nil {
		t.Fatal(err)
	}
	fsys := memfs.New()
	w, err := nb.NewWriter(table, sstables.WriterOptions{Dir: "/in", FS: fsys, Generation: 1, Compression: &compress.Params{},
		Metadata: sstables.Metadata{RepairedAt: 1700000000000}})
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
	desc := res.Descriptor
	repairedAt := func(path string) int64 {
		d, _, _, err := sstables.ParseDescriptor(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := nb.Open(d, nil, sstables.ReaderOptions{FS: fsys})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return r.Statistics().Stats.RepairedAt
	}

	rep, err := Scrub(context.Background(), desc, Options{Dir: "/sound", FS: fsys, Generation: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lost() || rep.RepairedAtCleared || repairedAt(rep.Outputs[0]) != 1700000000000 {
		t.Fatalf("sound: lost %d, cleared %v, repairedAt %d", rep.LostPartitions, rep.RepairedAtCleared, repairedAt(rep.Outputs[0]))
	}
	data, _ := fsys.Get(desc.Path(sstables.ComponentData))
	fsys.Set(desc.Path(sstables.ComponentData), data[:len(data)/2])
	rep, err = Scrub(context.Background(), desc, Options{Dir: "/cut", FS: fsys, Generation: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Lost() || !rep.RepairedAtCleared || repairedAt(rep.Outputs[0]) != 0 {
		t.Fatalf("cut: lost %d, cleared %v, repairedAt %d", rep.LostPartitions, rep.RepairedAtCleared, repairedAt(rep.Outputs[0]))
	}
	verify(t, fsys, rep.Outputs[0])
}

// TestCapDeletionTimes: an oa SSTable with an expiration in 2050 scrubbed
// into mc loses the partition (mc cannot store the time), unless
// CapDeletionTimes caps it to 2038-01-19T03:14:06Z, as Cassandra's CAP
// policy does.
func TestCapDeletionTimes(t *testing.T) {
	sch, err := cql.ParseSchema(`CREATE TABLE ks.t (pk int PRIMARY KEY, v text);`)
	if err != nil {
		t.Fatal(err)
	}
	table := sch.Tables[0]
	key := []byte{0, 0, 0, 7}
	p := &mutation.Partition{Key: key, Token: dht.Murmur3.Token(key), Deletion: mutation.Live,
		Static: mutation.Row{Liveness: mutation.EmptyLiveness, Deletion: mutation.Live, ShadowableDeletion: mutation.Live},
		Rows: []mutation.Row{{Liveness: mutation.EmptyLiveness, Deletion: mutation.Live, ShadowableDeletion: mutation.Live,
			Cells: []mutation.Cell{{Column: table.Column("v"), Value: []byte("x"), Timestamp: 1000, TTL: 3600, LocalDeletionTime: 2524608000}}}}} // 2050-01-01
	oa, _ := sstables.Lookup("oa")
	mc, _ := sstables.Lookup("mc")
	fsys := memfs.New()
	w, err := oa.NewWriter(table, sstables.WriterOptions{Dir: "/in", FS: fsys, Generation: 1, Compression: &compress.Params{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(p); err != nil {
		t.Fatal(err)
	}
	res, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Scrub(context.Background(), res.Descriptor, Options{Dir: "/drop", FS: fsys, Generation: 1, Format: mc, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.LostPartitions != 1 || len(rep.Outputs) != 0 {
		t.Fatalf("without cap: lost %d, outputs %v", rep.LostPartitions, rep.Outputs)
	}
	rep, err = Scrub(context.Background(), res.Descriptor, Options{Dir: "/cap", FS: fsys, Generation: 1, Format: mc, CapDeletionTimes: true, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lost() || len(rep.Outputs) != 1 || len(rep.Changed) != 1 {
		t.Fatalf("with cap: lost %d, outputs %v, changed %v", rep.LostPartitions, rep.Outputs, rep.Changed)
	}
	got := readAll(t, fsys, verify(t, fsys, rep.Outputs[0]), nil)
	if ldt := got[0].Rows[0].Cells[0].LocalDeletionTime; ldt != mutation.MaxLegacyDeletionTime {
		t.Fatalf("capped to %d, want %d", ldt, mutation.MaxLegacyDeletionTime)
	}
}
