package big

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

// scyllaSummary lays out a Summary.db as ScyllaDB writes one for the
// entries of an SSTable: sampled by Data.db bytes (sstables.cc
// maybe_add_summary_entry: an entry whenever the partition's Data.db offset
// reaches the next threshold, which then grows by summary_byte_cost, 2000,
// times 8+2+len(key)), min_index_interval 128, sampling level 128, and 0 as
// the size at full sampling; fullSampling, when not 0, is written instead
// (what a Cassandra-written summary would hold).
func scyllaSummary(entries []sstables.IndexEntryInfo, fullSampling uint32) []byte {
	var offs []uint32
	var body []byte
	next := int64(0)
	for _, e := range entries {
		if e.Position >= next {
			next += 2000 * int64(8+2+len(e.Key))
			offs = append(offs, uint32(len(body)))
			body = append(body, e.Key...)
			body = binary.LittleEndian.AppendUint64(body, uint64(e.IndexOffset))
		}
	}
	n := len(offs)
	b := binary.BigEndian.AppendUint32(nil, 128)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = binary.BigEndian.AppendUint64(b, uint64(4*n+len(body)))
	b = binary.BigEndian.AppendUint32(b, 128)
	b = binary.BigEndian.AppendUint32(b, fullSampling)
	for _, o := range offs {
		b = binary.LittleEndian.AppendUint32(b, uint32(4*n)+o)
	}
	b = append(b, body...)
	first, last := entries[0].Key, entries[len(entries)-1].Key
	b = binary.BigEndian.AppendUint32(b, uint32(len(first)))
	b = append(b, first...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(last)))
	return append(b, last...)
}

// TestScyllaByteSampledSummary: ScyllaDB samples Summary.db by Data.db
// bytes, not every 128th partition, and writes 0 as the size at full
// sampling. On ScyllaDB's own 65536-partition SSTable (mc-write
// many_deleted_partitions, which ships without Summary.db) given the
// summary ScyllaDB lays out for it, lookups find every partition and Verify
// passes: castable refused it before ("entry 1 samples index entry 1474; … it
// must sample entry 128"),
// although ScyllaDB and Cassandra read it. The same entries under a
// Cassandra header (size at full sampling 512) still fail Verify, as a
// Cassandra summary must sample every 128th entry.
func TestScyllaByteSampledSummary(t *testing.T) {
	dir := testdata.Path(t, "mc-write", "many_deleted_partitions")
	ref := refSSTable{name: "many_deleted_partitions", dir: dir, prefix: "mc-1-big-", version: vmc}
	m, desc, _ := loadMem(t, ref)
	r, err := Open(desc, nil, sstables.ReaderOptions{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	var entries []sstables.IndexEntryInfo
	if err := r.WalkIndex(func(e sstables.IndexEntryInfo) error {
		e.Key = bytes.Clone(e.Key)
		entries = append(entries, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if len(entries) != 65536 {
		t.Fatalf("%d partitions, want 65536", len(entries))
	}

	summary := scyllaSummary(entries, 0)
	m.Set(desc.Path(sstables.ComponentSummary), summary)
	s, err := sstables.ParseSummary(summary, "scylla", sstables.SummaryReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() < 2 || s.Len() == (len(entries)+127)/128 {
		t.Fatalf("the byte-sampled summary has %d entries: not what this test is about", s.Len())
	}
	r, err = Open(desc, nil, sstables.ReaderOptions{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; i < len(entries); i += 97 {
		p, err := r.Get(entries[i].Key)
		if err != nil || p == nil || !bytes.Equal(p.Key, entries[i].Key) {
			t.Fatalf("Get(%x) through ScyllaDB's summary: %v, %v", entries[i].Key, p, err)
		}
	}
	if err := r.Verify(); err != nil {
		t.Fatalf("Verify with ScyllaDB's byte-sampled Summary.db (%d entries): %v", s.Len(), err)
	}

	m.Set(desc.Path(sstables.ComponentSummary), scyllaSummary(entries, uint32((len(entries)+127)/128)))
	r2, err := Open(desc, nil, sstables.ReaderOptions{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	var ce *sstables.CorruptionError
	if err := r2.Verify(); !errors.As(err, &ce) || ce.Component != string(sstables.ComponentSummary) {
		t.Fatalf("the same entries under a Cassandra header: Verify %v, want a Summary.db CorruptionError", err)
	}
}
