package big

import (
	"errors"
	"fmt"
	"github.com/castable-db/castable/sstables/internal/rows"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

func openRef(t testing.TB, ref refSSTable) *Reader {
	t.Helper()
	desc, _, _, err := sstables.ParseDescriptor(ref.path("Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(desc, nil, sstables.ReaderOptions{})
	if err != nil {
		t.Fatalf("%s: %v", ref.name, err)
	}
	return r
}

// scanAll reads every partition of r into deep copies.
func scanAll(t testing.TB, r sstables.Reader) []*mutation.Partition {
	t.Helper()
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var out []*mutation.Partition
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		cp, err := rows.ReadWholePartition(sc.(*rows.Scanner), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cp)
	}
}

// TestReadEveryReference opens every mc/md/me SSTable of the corpus
// (compressed ones included) without a schema, scans it, looks every
// partition up with Get, and verifies the sound ones.
func TestReadEveryReference(t *testing.T) {
	for _, ref := range refSSTables(t, false) {
		t.Run(ref.name, func(t *testing.T) {
			r := openRef(t, ref)
			defer r.Close()
			parts := scanAll(t, r)
			if len(parts) == 0 {
				t.Fatal("no partitions")
			}
			for i, p := range parts {
				if i%4099 != 0 && i != len(parts)-1 {
					continue // Get a sample of the 65536-partition case
				}
				got, err := r.Get(p.Key)
				if err != nil {
					t.Fatalf("Get(%x): %v", p.Key, err)
				}
				if got == nil || !reflect.DeepEqual(got, p) {
					t.Fatalf("Get(%x) = %+v, want %+v", p.Key, got, p)
				}
			}
			if got, err := r.Get([]byte("no such key, surely")); err != nil || got != nil {
				t.Fatalf("Get(absent) = %v, %v", got, err)
			}
			if err := r.Verify(); err != nil {
				t.Fatalf("Verify: %v", err)
			}
		})
	}
}

// TestVerifyIntegrityCheckFiles requires Verify to fail on each
// deliberately corrupt SSTable, naming the broken chunk or the digest.
func TestVerifyIntegrityCheckFiles(t *testing.T) {
	n := 0
	for _, ref := range refSSTables(t, true) {
		if !strings.Contains(ref.name, "integrity_check") {
			continue
		}
		n++
		t.Run(ref.name, func(t *testing.T) {
			r := openRef(t, ref)
			defer r.Close()
			err := r.Verify()
			if err == nil {
				t.Fatal("Verify passed a corrupt SSTable")
			}
			if !errors.Is(err, sstables.ErrCorrupt) {
				t.Fatalf("error is not a CorruptionError: %v", err)
			}
			msg := err.Error()
			switch {
			case strings.HasSuffix(ref.name, "invalid_digest"):
				if !strings.Contains(msg, "Digest.crc32") || !strings.Contains(msg, "digest") {
					t.Fatalf("error does not name the digest: %v", err)
				}
			case strings.HasSuffix(ref.name, "invalid_checksums"):
				if !strings.Contains(msg, "chunk") {
					t.Fatalf("error does not name the chunk: %v", err)
				}
			}
			t.Logf("%v", err)
		})
	}
	if n != 4 {
		t.Fatalf("found %d integrity_check SSTables, want 4", n)
	}
}

// TestLayout checks the describer against facts of the real files: the
// partitions tile Data.db, the index entries tile Index.db, every
// unfiltered's stored previous size is the distance to the previous one,
// and the promoted index of many_range_tombstones has the blocks Index.db
// holds.
func TestLayout(t *testing.T) {
	for _, ref := range refSSTables(t, false) {
		if ref.name == "mc-write/many_deleted_partitions" {
			continue
		}
		t.Run(ref.name, func(t *testing.T) {
			r := openRef(t, ref)
			defer r.Close()
			var dataAt, indexAt int64
			blocks := 0
			err := r.Layout(func(pl *PartitionLayout) error {
				if pl.Offset != dataAt || pl.IndexOffset != indexAt {
					t.Fatalf("partition at %d/%d, want %d/%d", pl.Offset, pl.IndexOffset, dataAt, indexAt)
				}
				prev := pl.Offset
				at := pl.Offset + pl.HeaderSize
				for _, u := range pl.Unfiltereds {
					if u.Offset != at || u.PrevSize != uint64(u.Offset-prev) {
						t.Fatalf("unfiltered at %d (prev %d), want %d (prev %d)", u.Offset, u.PrevSize, at, u.Offset-prev)
					}
					prev, at = u.Offset, u.Offset+u.Size
				}
				if at+1 != pl.Offset+pl.Size {
					t.Fatalf("end of partition at %d, size says %d", at, pl.Offset+pl.Size-1)
				}
				blocks += len(pl.Blocks)
				dataAt += pl.Size
				indexAt += pl.IndexSize
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if dataAt != r.DataLength() {
				t.Fatalf("partitions cover %d of %d bytes", dataAt, r.DataLength())
			}
			if ref.name == "mc-write/many_range_tombstones" && blocks < 2 {
				t.Fatalf("%d promoted index blocks", blocks)
			}
			var out strings.Builder
			if err := WriteLayout(&out, r); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out.String(), "partition 0 key=") {
				t.Fatalf("layout text starts %q", out.String()[:min(40, out.Len())])
			}
		})
	}
}

// TestCRCCheckChance reads the lz4 SSTable whose chunk checksums are
// wrong: with checks on (the default) the scan fails naming the chunk; with
// crc_check_chance never it reads (the payloads are sound), and Verify
// still fails.
func TestCRCCheckChance(t *testing.T) {
	for _, ref := range refSSTables(t, true) {
		if ref.name != "cassandra/3.x/lz4/integrity_check/invalid_checksums" {
			continue
		}
		desc, _, _, err := sstables.ParseDescriptor(ref.path("Data.db"))
		if err != nil {
			t.Fatal(err)
		}
		scan := func(chance float64) error {
			r, err := Open(desc, nil, sstables.ReaderOptions{CRCCheckChance: chance})
			if err != nil {
				return err
			}
			defer r.Close()
			sc, _ := r.Scan()
			for {
				_, err := sc.NextPartition()
				if err == io.EOF {
					return r.Verify()
				}
				if err != nil {
					return err
				}
			}
		}
		err = scan(0)
		if err == nil || !strings.Contains(err.Error(), "chunk") {
			t.Fatalf("default check chance: %v", err)
		}
		r, err := Open(desc, nil, sstables.ReaderOptions{CRCCheckChance: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if parts := scanAll(t, r); len(parts) == 0 {
			t.Fatal("nothing read with checks off")
		}
		if err := r.Verify(); err == nil {
			t.Fatal("Verify ignored the checksums")
		}
		return
	}
	t.Fatal("invalid_checksums SSTable not found")
}

// TestConcurrentLookups: Get is safe for concurrent use (lookups borrow
// pooled streams and buffers and give them back): goroutines looking keys
// up at once get the partitions a scan returns.
func TestConcurrentLookups(t *testing.T) {
	table := benchTable(t)
	keys := benchKeys(5000)
	res := writeBench(t, table, keys, sstables.WriterOptions{Dir: t.TempDir(), Compression: &compress.Params{Codec: compress.LZ4, ChunkLength: 4096}})
	r, err := Open(res.Descriptor, table, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := map[string]string{}
	sc, _ := r.Scan()
	for {
		p, err := sc.NextPartition()
		if err != nil {
			break
		}
		whole, err := rows.ReadWholePartition(sc.(*rows.Scanner), p)
		if err != nil {
			t.Fatal(err)
		}
		want[string(whole.Key)] = fmt.Sprint(whole.Rows)
	}
	sc.Close()
	if len(want) != len(keys) {
		t.Fatalf("scan found %d partitions, want %d", len(want), len(keys))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(keys); i += 3 {
				p, err := r.Get(keys[i])
				if err != nil || p == nil {
					errs <- fmt.Errorf("Get(%x): %v, %v", keys[i], p, err)
					return
				}
				if got := fmt.Sprint(p.Rows); got != want[string(keys[i])] {
					errs <- fmt.Errorf("Get(%x) = %s, the scan read %s", keys[i], got, want[string(keys[i])])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
