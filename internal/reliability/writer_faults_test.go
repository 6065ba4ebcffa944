package reliability

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/internal/faultfs"
	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/la"
	"github.com/castable-db/castable/sstables/mc"
)

// writeFrozen writes f through a Writer of format, whole partitions
// (Append) or piece by piece (StartPartition, AppendRow/AppendMarker,
// EndPartition), and Aborts on any error.
func writeFrozen(format sstables.Format, f *memtable.Frozen, opts sstables.WriterOptions, streaming bool) (*sstables.WriteResult, error) {
	w, err := format.NewWriter(f.Table(), opts)
	if err != nil {
		return nil, err
	}
	table := f.Table()
	err = f.Ascend(func(p *mutation.Partition) error {
		if !streaming {
			return w.Append(p)
		}
		if err := w.StartPartition(p); err != nil {
			return err
		}
		if err := p.Unfiltered(table, func(r *mutation.Row, m *mutation.RangeTombstoneMarker) error {
			if r != nil {
				return w.AppendRow(r)
			}
			return w.AppendMarker(m)
		}); err != nil {
			return err
		}
		return w.EndPartition()
	})
	var res *sstables.WriteResult
	if err == nil {
		res, err = w.Finish()
	}
	if err != nil {
		if aerr := w.Abort(); aerr != nil {
			err = errors.Join(err, fmt.Errorf("abort: %w", aerr))
		}
		return nil, err
	}
	return res, nil
}

// snapshot returns the content of every file of m.
func snapshot(m *memfs.FS) map[string][]byte {
	out := map[string][]byte{}
	for _, name := range m.Names() {
		b, _ := m.Get(name)
		out[name] = bytes.Clone(b)
	}
	return out
}

// writerFaultCase is one writer configuration the sweep runs.
type writerFaultCase struct {
	format    sstables.Format
	codec     compress.Codec
	streaming bool
}

func (c writerFaultCase) String() string {
	api := "Append"
	if c.streaming {
		api = "streaming"
	}
	return fmt.Sprintf("%s/%s/%s", c.format.Version(), c.codec, api)
}

// TestWriterFaults fails, for the mc and la Writers directly, the N-th
// create, write, sync, close, rename and directory sync for every N, and
// runs out of space halfway through the N-th write for every N. Each failed
// write must return the error, leave no visible SSTable (no TOC.txt) and,
// after Abort, no file at all; the frozen memtable must be unchanged; and
// writing it again must give exactly the bytes of an undisturbed write.
func TestWriterFaults(t *testing.T) {
	frozen := workloadMemtable(t, 1, 0, 120, 4)
	cases := []writerFaultCase{
		{mc.Format, compress.LZ4, false}, {mc.Format, compress.None, false}, {mc.Format, compress.LZ4, true},
		{la.Format{}, compress.LZ4, false}, {la.Format{}, compress.None, false}, {la.Format{}, compress.Deflate, true},
	}
	kinds := []faultfs.Op{faultfs.Create, faultfs.Write, faultfs.Sync, faultfs.Close, faultfs.Rename, faultfs.SyncDir}
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) { sweepWriterFaults(t, c, frozen, kinds, []bool{false, true}) })
	}
}

// TestWriterFaultsMidData writes more than the Data.db writer's 1 MiB
// buffer, so that Data.db takes several writes, and runs out of space in
// each write: the disk fills up in the middle of the data (half of a write
// holding many chunks lands).
func TestWriterFaultsMidData(t *testing.T) {
	if testing.Short() {
		t.Skip("writes several MiB per fault")
	}
	frozen := workloadMemtable(t, 2, 0, 1500, 12)
	for _, c := range []writerFaultCase{{mc.Format, compress.None, false}, {la.Format{}, compress.LZ4, true}} {
		t.Run(c.String(), func(t *testing.T) { sweepWriterFaults(t, c, frozen, []faultfs.Op{faultfs.Write}, []bool{true}) })
	}
}

// sweepWriterFaults runs the fault sweep of TestWriterFaults for one
// writer configuration and the given kinds of operation; a write fails
// outright, or half-writes and returns ENOSPC, as noSpaces says.
func sweepWriterFaults(t *testing.T, c writerFaultCase, frozen *memtable.Frozen, kinds []faultfs.Op, noSpaces []bool) {
	before := fingerprintFrozen(t, frozen)
	opts := sstables.WriterOptions{
		Dir: "/data/ks/events", Generation: 4, Jobs: 2,
		Compression:        &compress.Params{Codec: c.codec, ChunkLength: 4096},
		ExpectedPartitions: frozen.Len(),
		Stats:              dataStatsOf(frozen),
	}
	ref := memfs.New()
	counter := faultfs.New(ref, faultfs.All, 0)
	opts.FS = counter
	if _, err := writeFrozen(c.format, frozen, opts, c.streaming); err != nil {
		t.Fatal(err)
	}
	want := snapshot(ref)
	ops := map[faultfs.Op]int{}
	for _, line := range counter.Log {
		for _, k := range kinds {
			if strings.HasPrefix(line, k.String()+" ") {
				ops[k]++
			}
		}
	}
	injected := 0
	for _, k := range kinds {
		for _, noSpace := range noSpaces {
			if noSpace && k != faultfs.Write {
				continue
			}
			for n := 1; n <= ops[k]; n++ {
				name := fmt.Sprintf("%s #%d of %d (ENOSPC %v)", k, n, ops[k], noSpace)
				m := memfs.New()
				ffs := faultfs.New(m, k, n)
				ffs.NoSpace = noSpace
				o := opts
				o.FS = ffs
				_, err := writeFrozen(c.format, frozen, o, c.streaming)
				if !ffs.Failed() {
					t.Fatalf("%s: no fault injected (the write does fewer operations than the undisturbed one)", name)
				}
				injected++
				if err == nil {
					t.Fatalf("%s: the write succeeded despite the fault", name)
				}
				if noSpace && !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("%s: error %v does not carry ENOSPC", name, err)
				}
				if !noSpace && !errors.Is(err, faultfs.ErrInjected) {
					t.Fatalf("%s: error %v does not carry the injected fault", name, err)
				}
				if left := m.Names(); len(left) != 0 {
					t.Fatalf("%s: the aborted write left %v (error %v)", name, left, err)
				}
				if got := fingerprintFrozen(t, frozen); got != before {
					t.Fatalf("%s: the memtable changed", name)
				}
				o.FS = m
				if _, err := writeFrozen(c.format, frozen, o, c.streaming); err != nil {
					t.Fatalf("%s: retry: %v", name, err)
				}
				if diff := diffFiles(want, snapshot(m)); diff != "" {
					t.Fatalf("%s: the retry wrote different files: %s", name, diff)
				}
			}
		}
	}
	t.Logf("%d faults injected over %v; Data.db %d bytes", injected, ops, len(want[filepath.Join(opts.Dir, c.format.Version().String()+"-4-big-Data.db")]))
}

// TestWriterFaultsAbortCannotRemove: when the disk keeps failing (sticky
// faults on writes and removes), Abort cannot clean up; what it leaves must
// be invisible (no TOC.txt, no SSTable listed) and exactly what
// sstables.CleanupTemporary removes at the next start.
func TestWriterFaultsAbortCannotRemove(t *testing.T) {
	frozen := workloadMemtable(t, 1, 0, 40, 3)
	for _, format := range []sstables.Format{mc.Format, la.Format{}} {
		for _, op := range []faultfs.Op{faultfs.Write, faultfs.Sync, faultfs.Rename, faultfs.SyncDir} {
			for n := 1; n <= 12; n++ {
				m := memfs.New()
				ffs := faultfs.New(m, op|faultfs.Remove, n)
				ffs.Sticky = true
				opts := sstables.WriterOptions{Dir: "/d", Generation: 1, FS: ffs, Jobs: 1,
					Compression: &compress.Params{Codec: compress.LZ4, ChunkLength: 4096}, Stats: dataStatsOf(frozen)}
				_, err := writeFrozen(format, frozen, opts, false)
				if !ffs.Failed() {
					break
				}
				name := fmt.Sprintf("%s: %s|remove #%d sticky", format.Version(), op, n)
				if err == nil {
					t.Fatalf("%s: the write succeeded", name)
				}
				// Visible means complete: a TOC.txt whose directory sync
				// failed and that could not be removed again (the error
				// says the abort failed) stands for a whole, sound SSTable.
				var complete []string
				descs, _ := sstables.ListSSTables(m, "/d")
				for _, d := range descs {
					if !strings.Contains(err.Error(), "abort") {
						t.Fatalf("%s: a visible SSTable %v, and the error does not say the abort failed: %v", name, d, err)
					}
					r, err := format.Open(d, frozen.Table(), sstables.ReaderOptions{FS: m})
					if err == nil {
						err = r.Verify()
						r.Close()
					}
					if err != nil {
						t.Fatalf("%s: the SSTable left visible is not sound: %v", name, err)
					}
					for _, f := range m.Names() {
						if strings.HasPrefix(filepath.Base(f), d.Filename("")) {
							complete = append(complete, f)
						}
					}
				}
				left := m.Names()
				removed, err := sstables.CleanupTemporary(m, "/d")
				if err != nil {
					t.Fatalf("%s: cleanup: %v", name, err)
				}
				if rest := m.Names(); !slices.Equal(rest, complete) {
					t.Fatalf("%s: cleanup left %v of %v (complete SSTables: %v)", name, rest, left, complete)
				}
				for i := range removed {
					removed[i] = filepath.Join("/d", removed[i])
				}
				removed = append(removed, complete...)
				slices.Sort(removed)
				if !slices.Equal(removed, left) {
					t.Fatalf("%s: cleanup removed %v, the write left %v", name, removed, left)
				}
			}
		}
	}
}

// diffFiles describes how two snapshots differ ("" when equal).
func diffFiles(want, got map[string][]byte) string {
	var out []string
	for name, b := range want {
		g, ok := got[name]
		switch {
		case !ok:
			out = append(out, name+" missing")
		case !bytes.Equal(g, b):
			i := 0
			for i < len(g) && i < len(b) && g[i] == b[i] {
				i++
			}
			out = append(out, fmt.Sprintf("%s differs at byte %d", name, i))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			out = append(out, name+" unexpected")
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
