package scrub

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

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
