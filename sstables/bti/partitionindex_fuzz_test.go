package bti

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

func seedIndexFiles(f *testing.F, component string) {
	root := testdata.Root()
	for _, g := range []string{"cassandra-legacy/da/*/*-" + component, "scylla-bti/*/*-" + component} {
		ms, _ := filepath.Glob(filepath.Join(root, g))
		for _, m := range ms {
			if b, err := os.ReadFile(m); err == nil {
				f.Add(b, []byte("0"))
			}
		}
	}
}

// checkCorrupt requires err to be nil or a CorruptionError of component at
// an offset inside the file (or its end).
func checkCorrupt(t *testing.T, err error, component string, size int) {
	t.Helper()
	if err == nil {
		return
	}
	var ce *sstables.CorruptionError
	if !errors.As(err, &ce) || !errors.Is(err, sstables.ErrCorrupt) {
		t.Fatalf("error is not a CorruptionError: %v", err)
	}
	if ce.Component != component {
		t.Fatalf("error names %s, want %s: %v", ce.Component, component, err)
	}
	if ce.Offset < 0 || ce.Offset > int64(size) {
		t.Fatalf("error offset %d outside the %d-byte file: %v", ce.Offset, size, err)
	}
}

func FuzzPartitionIndex(f *testing.F) {
	seedIndexFiles(f, "Partitions.db")
	f.Fuzz(func(t *testing.T, data []byte, key []byte) {
		pi, err := OpenPartitionIndex(data, "Partitions.db")
		checkCorrupt(t, err, ComponentPartitions, len(data))
		if err != nil {
			return
		}
		checkCorrupt(t, pi.Verify(), ComponentPartitions, len(data))
		n := 0
		err = pi.Iterate(func(e PartitionEntry) error {
			n++
			if n > len(data) {
				t.Fatalf("%d entries from %d bytes", n, len(data))
			}
			return nil
		})
		checkCorrupt(t, err, ComponentPartitions, len(data))
		for _, k := range [][]byte{AppendDecoratedKey(nil, dht.ByteOrdered, key), AppendDecoratedKey(nil, dht.Murmur3, key)} {
			_, _, err = pi.Lookup(k, HashByte(key))
			checkCorrupt(t, err, ComponentPartitions, len(data))
			_, _, err = pi.Ceiling(k)
			checkCorrupt(t, err, ComponentPartitions, len(data))
		}
	})
}
