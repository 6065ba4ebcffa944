package big

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/faultfs"
	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// TestWriterUnknownStats writes every mc-write case without DataStats
// (epoch EncodingStats, every column in the header): the bytes differ from
// Cassandra's but the SSTable verifies and reads back the same content.
func TestWriterUnknownStats(t *testing.T) {
	for _, c := range mcWriteCases(t) {
		t.Run(c.name, func(t *testing.T) {
			table := c.table(t)
			parts := c.partitions(t, table)
			opts := c.writerOptions(table, parts, t.TempDir())
			opts.Stats = sstables.DataStats{}
			w, err := NewWriter(vmc, table, opts)
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
			r, err := Format(vmc).Open(res.Descriptor, table, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.Verify(); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(c.dir + "/data.json")
			if err != nil {
				t.Fatal(err)
			}
			if d, err := jsondump.DiffBytes(table, dumpCanonical(t, r), want, jsondump.DiffOptions{}); err != nil || d != "" {
				t.Fatalf("content differs: %s %v", d, err)
			}
		})
	}
}

// TestWriterStreamingAPI writes a case piece by piece and requires the
// same Data.db and Index.db as Append.
func TestWriterStreamingAPI(t *testing.T) {
	for _, c := range mcWriteCases(t) {
		if c.name != "many_range_tombstones" && c.name != "static_row_with_missing_columns" && c.name != "overlapped_range_tombstones" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			table := c.table(t)
			parts := c.partitions(t, table)
			write := func(streaming bool) sstables.Descriptor {
				w, err := NewWriter(vmc, table, c.writerOptions(table, parts, t.TempDir()))
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range parts {
					if !streaming {
						err = w.Append(p)
					} else {
						err = w.StartPartition(p)
						if err == nil {
							err = p.Unfiltered(table, func(r *mutation.Row, m *mutation.RangeTombstoneMarker) error {
								if r != nil {
									return w.AppendRow(r)
								}
								return w.AppendMarker(m)
							})
						}
						if err == nil {
							err = w.EndPartition()
						}
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				res, err := w.Finish()
				if err != nil {
					t.Fatal(err)
				}
				return res.Descriptor
			}
			a, b := write(false), write(true)
			for _, comp := range []sstables.Component{sstables.ComponentData, sstables.ComponentIndex, sstables.ComponentStatistics} {
				x, _ := os.ReadFile(a.Path(comp))
				y, _ := os.ReadFile(b.Path(comp))
				if string(x) != string(y) {
					t.Errorf("%s differs between Append and the streaming API", comp)
				}
			}
		})
	}
}

// TestWriterMisuse checks the sticky errors and that Abort leaves nothing.
func TestWriterMisuse(t *testing.T) {
	var c mcWriteCase
	for _, x := range mcWriteCases(t) {
		if x.name == "many_deleted_partitions" {
			c = x
		}
	}
	table := c.table(t)
	parts := c.partitions(t, table)[:3]
	dir := t.TempDir()
	w, err := NewWriter(vmc, table, c.writerOptions(table, parts, dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendRow(&mutation.Row{}); err == nil {
		t.Fatal("AppendRow outside a partition accepted")
	}
	if err := w.Append(parts[0]); err == nil || !errors.Is(err, errWriterState) {
		t.Fatalf("sticky error not returned: %v", err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Fatalf("Abort left %d files", len(names))
	}

	w, err = NewWriter(vmc, table, c.writerOptions(table, parts, dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(parts[1]); err != nil {
		t.Fatal(err)
	}
	err = w.Append(parts[0])
	if err == nil || !strings.Contains(err.Error(), "does not come after") {
		t.Fatalf("partition out of order: %v", err)
	}
	if _, err := w.Finish(); err == nil {
		t.Fatal("Finish after an error succeeded")
	}
	w.Abort()
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Fatalf("Abort left %d files", len(names))
	}

	w, err = NewWriter(vmc, table, c.writerOptions(table, parts, dir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Finish(); err == nil {
		t.Fatal("Finish of an empty SSTable succeeded")
	}
	w.Abort()
}

// TestWriterFaults fails every mutating filesystem operation in turn: the
// writer must report an error, no TOC.txt may be visible, and Abort must
// remove every file.
func TestWriterFaults(t *testing.T) {
	var c mcWriteCase
	for _, x := range mcWriteCases(t) {
		if x.name == "many_range_tombstones" {
			c = x
		}
	}
	table := c.table(t)
	parts := c.partitions(t, table)
	for n := 1; ; n++ {
		ffs := faultfs.New(memfs.New(), faultfs.Create|faultfs.Write|faultfs.Sync|faultfs.Rename|faultfs.SyncDir, n)
		opts := c.writerOptions(table, parts, "/w")
		opts.FS = ffs
		err := func() error {
			w, err := NewWriter(vmc, table, opts)
			if err != nil {
				return err
			}
			for _, p := range parts {
				if err := w.Append(p); err != nil {
					w.Abort()
					return err
				}
			}
			if _, err := w.Finish(); err != nil {
				w.Abort()
				return err
			}
			return nil
		}()
		if !ffs.Failed() {
			if err != nil {
				t.Fatalf("no fault injected but: %v", err)
			}
			if n < 5 {
				t.Fatalf("only %d operations", n)
			}
			return
		}
		if err == nil {
			t.Fatalf("fault %d: Finish succeeded", n)
		}
		if names, _ := ffs.ReadDir("/w"); len(names) != 0 {
			t.Fatalf("fault %d (%v): files left after Abort: %v", n, err, names)
		}
		if _, err := ffs.Open("/w/mc-1-big-TOC.txt"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("fault %d: TOC.txt visible", n)
		}
	}
}
