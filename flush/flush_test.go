package flush

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/internal/faultfs"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/la"
	"github.com/castable-db/castable/sstables/mc"
)

var formats = []sstables.Format{mc.Format, la.Format{}}

var codecs = []compress.Codec{compress.LZ4, compress.None}

func testTable(t testing.TB) *schema.Table {
	t.Helper()
	tbl, err := schema.NewTable("ks", "t", []schema.ColumnDef{
		{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey},
		{Name: "ck", Type: schema.Int, Kind: schema.ClusteringKey},
		{Name: "v", Type: schema.Blob, Kind: schema.Regular},
	}, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// update returns a one-row update of partition pk at clustering ck.
func update(tbl *schema.Table, pk, ck int32, value string, ts int64) *mutation.Partition {
	row := mutation.NewRow(mutation.Clustering{binary.BigEndian.AppendUint32(nil, uint32(ck))})
	row.Liveness = mutation.LivenessInfo{Timestamp: ts, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
	row.Cells = []mutation.Cell{{Column: tbl.Regular[0], Value: []byte(value), Timestamp: ts, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
	return &mutation.Partition{
		Key:      binary.BigEndian.AppendUint32(nil, uint32(pk)),
		Deletion: mutation.Live,
		Static:   mutation.NewRow(nil),
		Rows:     []mutation.Row{row},
	}
}

func fill(t testing.TB, tbl *schema.Table, partitions, rows int) *memtable.Frozen {
	t.Helper()
	m := memtable.New(tbl, memtable.Options{})
	for pk := 0; pk < partitions; pk++ {
		for ck := 0; ck < rows; ck++ {
			if err := m.Apply(update(tbl, int32(pk), int32(ck), fmt.Sprintf("value-%d-%d", pk, ck), 1000+int64(ck))); err != nil {
				t.Fatal(err)
			}
		}
	}
	return m.Freeze()
}

// rowsOf reads every row of an SSTable as "pk/ck=value" strings, in order.
func rowsOf(t testing.TB, f sstables.Format, desc sstables.Descriptor, tbl *schema.Table) []string {
	t.Helper()
	r, err := f.Open(desc, tbl, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Verify(); err != nil {
		t.Fatalf("verify %s: %v", desc, err)
	}
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var out []string
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		pk := int32(binary.BigEndian.Uint32(p.Key))
		for {
			row, marker, err := sc.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil && marker == nil {
				break
			}
			if row != nil {
				out = append(out, fmt.Sprintf("%d/%d=%s", pk, int32(binary.BigEndian.Uint32(row.Clustering[0])), row.Cells[0].Value))
			}
		}
	}
	return out
}

func TestFlushEveryFormatAndCodec(t *testing.T) {
	tbl := testTable(t)
	frozen := fill(t, tbl, 300, 3)
	var want []string
	if err := frozen.Ascend(func(p *mutation.Partition) error {
		for _, r := range p.Rows {
			want = append(want, fmt.Sprintf("%d/%d=%s", int32(binary.BigEndian.Uint32(p.Key)), int32(binary.BigEndian.Uint32(r.Clustering[0])), r.Cells[0].Value))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, f := range formats {
		for _, codec := range codecs {
			for _, jobs := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s/%s/jobs=%d", f.Version(), codec, jobs), func(t *testing.T) {
					dir := t.TempDir()
					res, err := Flush(context.Background(), frozen, Options{
						Format: f,
						WriterOptions: sstables.WriterOptions{
							Dir:         dir,
							Generation:  7,
							Jobs:        jobs,
							Compression: &compress.Params{Codec: codec, ChunkLength: 4096},
						},
					})
					if err != nil {
						t.Fatal(err)
					}
					if res.Partitions != 300 || res.Rows != 900 || res.Fragments != 900 {
						t.Fatalf("result %+v", res)
					}
					if got := rowsOf(t, f, res.Descriptor, tbl); !slices.Equal(got, want) {
						t.Fatalf("read back %d rows, differ from the %d written", len(got), len(want))
					}
				})
			}
		}
	}
}

// TestFlushJobsDoNotChangeBytes: compressing on several workers writes the
// same files as compressing inline.
func TestFlushJobsDoNotChangeBytes(t *testing.T) {
	tbl := testTable(t)
	frozen := fill(t, tbl, 2000, 2)
	for _, f := range formats {
		var ref map[string][]byte
		for _, jobs := range []int{1, 2, 4} {
			dir := t.TempDir()
			if _, err := Flush(context.Background(), frozen, Options{
				Format: f,
				WriterOptions: sstables.WriterOptions{
					Dir:         dir,
					Generation:  1,
					Jobs:        jobs,
					Compression: &compress.Params{Codec: compress.LZ4, ChunkLength: 4096},
				},
			}); err != nil {
				t.Fatal(err)
			}
			files := readDir(t, dir)
			if ref == nil {
				ref = files
				continue
			}
			for name, b := range ref {
				if !bytes.Equal(files[name], b) && name != f.Version().String()+"-1-big-TOC.txt" {
					t.Fatalf("%s: jobs=%d changes %s", f.Version(), jobs, name)
				}
			}
		}
	}
}

func readDir(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// TestFlushFaults fails the N-th write, sync, rename, close, create and
// directory sync of a flush, for every N, and with a full disk: each failed
// flush leaves no file at all, and the same frozen memtable then flushes to
// exactly the bytes of an undisturbed flush.
func TestFlushFaults(t *testing.T) {
	tbl := testTable(t)
	frozen := fill(t, tbl, 500, 4)
	injected := map[faultfs.Op]int{}
	for _, f := range formats {
		for _, codec := range codecs {
			opts := Options{Format: f, WriterOptions: sstables.WriterOptions{Generation: 3, Jobs: 2, Compression: &compress.Params{Codec: codec, ChunkLength: 4096}}}
			opts.Dir = t.TempDir()
			if _, err := Flush(context.Background(), frozen, opts); err != nil {
				t.Fatal(err)
			}
			want := readDir(t, opts.Dir)
			for _, op := range []faultfs.Op{faultfs.Create, faultfs.Write, faultfs.Sync, faultfs.Close, faultfs.Rename, faultfs.SyncDir} {
				for _, noSpace := range []bool{false, true} {
					if noSpace && op != faultfs.Write {
						continue
					}
					for n := 1; ; n++ {
						dir := t.TempDir()
						ffs := faultfs.New(nil, op, n)
						ffs.NoSpace = noSpace
						o := opts
						o.Dir, o.FS = dir, ffs
						_, err := Flush(context.Background(), frozen, o)
						if !ffs.Failed() {
							if err != nil {
								t.Fatalf("%s/%s: no fault injected but flush failed: %v", f.Version(), codec, err)
							}
							break // n is past the last operation of this kind
						}
						injected[op]++
						name := fmt.Sprintf("%s/%s: %s #%d (nospace=%v)", f.Version(), codec, op, n, noSpace)
						if err == nil {
							// A failure the flush could not see (e.g. a
							// directory sync after the TOC rename it
							// tolerates) must still leave a complete SSTable.
							t.Fatalf("%s: flush succeeded despite the fault", name)
						}
						if left := readDir(t, dir); len(left) != 0 {
							t.Fatalf("%s: failed flush left %v (error %v)", name, keys(left), err)
						}
						o.FS = nil
						if _, err := Flush(context.Background(), frozen, o); err != nil {
							t.Fatalf("%s: retry: %v", name, err)
						}
						got := readDir(t, dir)
						for file, b := range want {
							if !bytes.Equal(got[file], b) && !bytes.HasSuffix([]byte(file), []byte("TOC.txt")) {
								t.Fatalf("%s: retry wrote a different %s", name, file)
							}
						}
					}
				}
			}
		}
	}
	for _, op := range []faultfs.Op{faultfs.Create, faultfs.Write, faultfs.Sync, faultfs.Close, faultfs.Rename, faultfs.SyncDir} {
		if injected[op] < 4 {
			t.Errorf("only %d %s faults injected: the sweep does not reach the flush's operations", injected[op], op)
		}
	}
	t.Logf("faults injected: %v", injected)
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestFlushCancelled(t *testing.T) {
	tbl := testTable(t)
	frozen := fill(t, tbl, 20000, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if _, err := Flush(ctx, frozen, Options{Format: mc.Format, WriterOptions: sstables.WriterOptions{Dir: dir, Generation: 1}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if left := readDir(t, dir); len(left) != 0 {
		t.Fatalf("cancelled flush left %v", keys(left))
	}
}
