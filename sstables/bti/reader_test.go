package bti

import (
	"io"
	"reflect"
	"slices"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
)

// readAll returns r's partitions, deep-copied.
func readAll(t testing.TB, r sstables.Reader) []*mutation.Partition {
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
		cp := &mutation.Partition{Key: slices.Clone(p.Key), Token: r.Partitioner().Token(slices.Clone(p.Key)), Deletion: p.Deletion, Static: rows.CloneRow(&p.Static)}
		for {
			row, m, err := sc.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil && m == nil {
				break
			}
			if row != nil {
				cp.Rows = append(cp.Rows, rows.CloneRow(row))
			} else {
				cp.Markers = append(cp.Markers, rows.CloneMarker(m))
			}
		}
		out = append(out, cp)
	}
}

// samePartition compares partitions by content (not token).
func samePartition(a, b *mutation.Partition) bool {
	a2, b2 := *a, *b
	a2.Token, b2.Token = mutation.Partition{}.Token, mutation.Partition{}.Token
	return reflect.DeepEqual(&a2, &b2)
}

// TestRealFilesThroughTheFormat: every da, ms and mt SSTable of the shared
// corpus opens through the registry, verifies, scans, and every partition
// is found by Get (through Partitions.db and Rows.db) equal to what the
// scan read, at the position the scan saw; ScanFrom starts there; keys it
// does not hold are absent.
func TestRealFilesThroughTheFormat(t *testing.T) {
	n := 0
	for _, s := range testdata.Supported(t, "cassandra-legacy/da", "scylla-bti") {
		n++
		t.Run(s.Name, func(t *testing.T) {
			desc, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := sstables.OpenAny(desc, nil, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, ok := r.(*Reader); !ok {
				t.Fatalf("opened as %T", r)
			}
			if err := r.Verify(); err != nil {
				t.Fatal(err)
			}
			parts := readAll(t, r)
			if len(parts) == 0 {
				t.Fatal("no partition")
			}
			for _, p := range parts {
				got, pos, err := r.Lookup(p.Key)
				if err != nil || got == nil {
					t.Fatalf("Lookup(%x): %v, %v", p.Key, got, err)
				}
				if !samePartition(got, p) {
					t.Fatalf("Lookup(%x) differs from the scan", p.Key)
				}
				sc, err := r.ScanFrom(p.Key)
				if err != nil || sc == nil {
					t.Fatalf("ScanFrom(%x): %v", p.Key, err)
				}
				first, err := sc.NextPartition()
				if err != nil || !slices.Equal(first.Key, p.Key) || sc.Position() != pos {
					t.Fatalf("ScanFrom(%x) starts at %x (%d), want %d: %v", p.Key, first.Key, sc.Position(), pos, err)
				}
				sc.Close()
			}
			for _, k := range [][]byte{[]byte("absent"), {0, 0, 0, 77}, {}, []byte("00"), []byte("5")} {
				present := false
				for _, p := range parts {
					present = present || slices.Equal(p.Key, k)
				}
				if present {
					continue
				}
				if got, pos, err := r.Lookup(k); got != nil || pos != -1 || err != nil {
					t.Fatalf("Lookup of absent %x: %v %d %v", k, got, pos, err)
				}
				if sc, err := r.ScanFrom(k); sc != nil || err != nil {
					t.Fatalf("ScanFrom of absent %x: %v", k, err)
				}
			}
			t.Logf("%d partitions", len(parts))
		})
	}
	if n < 8 {
		t.Fatalf("only %d BTI SSTables found", n)
	}
}
