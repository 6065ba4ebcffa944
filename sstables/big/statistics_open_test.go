package big

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

// TestOpenWithoutValidationMetadata: a Statistics.db without its
// VALIDATION component (partitioner, bloom filter chance) opens as
// Cassandra opens it, which then skips its partitioner check and uses its
// own (Murmur3 by default): every partition of a Murmur3 SSTable is found
// by key, Verify passes, and the reader warns about Statistics.db. Shown on
// ScyllaDB's cassandra/3.x/uncompressed/simple.
func TestOpenWithoutValidationMetadata(t *testing.T) {
	dir := testdata.Path(t, "cassandra", "3.x", "uncompressed", "simple")
	ref := refSSTable{name: "simple", dir: dir, prefix: "mc-1-big-", version: vmc}
	m, desc, _ := loadMem(t, ref)
	keys := scanKeys(t, m, desc)
	b, _ := m.Get(desc.Path(sstables.ComponentStatistics))
	n := int(binary.BigEndian.Uint32(b))
	out := binary.BigEndian.AppendUint32(nil, uint32(n-1))
	for i := 0; i < n; i++ {
		ty, off := binary.BigEndian.Uint32(b[4+8*i:]), binary.BigEndian.Uint32(b[8+8*i:])
		if ty != sstables.MetadataValidation {
			out = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(out, ty), off-8)
		}
	}
	m.Set(desc.Path(sstables.ComponentStatistics), append(out, b[4+8*n:]...))
	var warnings sstables.WarningList
	r, err := Open(desc, nil, sstables.ReaderOptions{FS: m, Warn: warnings.Add})
	if err != nil {
		t.Fatalf("without VALIDATION: %v", err)
	}
	defer r.Close()
	for _, k := range keys {
		if p, err := r.Get(k); err != nil || p == nil || !bytes.Equal(p.Key, k) {
			t.Fatalf("Get(%x) without VALIDATION: %v, %v", k, p, err)
		}
	}
	if err := r.Verify(); err != nil {
		t.Fatalf("Verify without VALIDATION: %v", err)
	}
	wantWarned(t, &warnings, sstables.ComponentStatistics, "no VALIDATION")
}
