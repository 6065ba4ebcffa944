package sstables

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables/version"
)

// scrambleStatistics rewrites the Statistics.db b (a version without
// metadata checksums) as some ScyllaDB files are laid out: the components
// listed in the order given by order (indexes into the original table of
// contents), their bodies in the reverse of that order, with gap bytes of
// junk before each body.
func scrambleStatistics(t *testing.T, b []byte, order []int, gap int) []byte {
	t.Helper()
	n := int(binary.BigEndian.Uint32(b))
	type entry struct{ typ, off, end int }
	es := make([]entry, n)
	for i := range es {
		es[i] = entry{typ: int(binary.BigEndian.Uint32(b[4+8*i:])), off: int(binary.BigEndian.Uint32(b[8+8*i:]))}
	}
	for i := range es {
		es[i].end = len(b)
		for _, o := range es {
			if o.off > es[i].off && o.off < es[i].end {
				es[i].end = o.off
			}
		}
	}
	out := make([]byte, 4+8*n)
	binary.BigEndian.PutUint32(out, uint32(n))
	offs := make([]int, n)
	for k := len(order) - 1; k >= 0; k-- {
		e := es[order[k]]
		for j := 0; j < gap; j++ {
			out = append(out, 0xA5)
		}
		offs[k] = len(out)
		out = append(out, b[e.off:e.end]...)
	}
	for k, i := range order {
		binary.BigEndian.PutUint32(out[4+8*k:], uint32(es[i].typ))
		binary.BigEndian.PutUint32(out[8+8*k:], uint32(offs[k]))
	}
	return append(out, 1, 2, 3) // and bytes after the last component
}

// TestStatisticsOutOfOrderWithGaps: a Statistics.db whose components are
// listed out of order with bytes between them (as ScyllaDB writes some)
// decodes, before na, to exactly what the original decodes to — Cassandra
// 3.x and ScyllaDB read each component at its offset — with oddities that
// readers report as warnings. From na on (Cassandra 4.0+ derives lengths
// from consecutive offsets) and for a type the version does not have, it is
// a CorruptionError.
func TestStatisticsOutOfOrderWithGaps(t *testing.T) {
	for _, name := range []string{"cassandra/3.x/uncompressed/simple", "cassandra/uncompressed", "cassandra-legacy/me/legacy_me_clust"} {
		ts := testdata.Supported(t, name)[0]
		v := version.MustParse(ts.Version)
		b := readTestFile(t, ts.Path("Statistics.db"))
		want, err := DecodeStatistics(b, v, "orig")
		if err != nil {
			t.Fatal(err)
		}
		n := int(binary.BigEndian.Uint32(b))
		order := []int{n - 1, 1, 0}
		if n == 4 {
			order = append(order, 2)
		} else {
			order = []int{2, 0, 1}
		}
		got, err := DecodeStatistics(scrambleStatistics(t, b, order, 7), v, "scrambled")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got.Oddities) < 2 || !strings.Contains(got.Oddities[0], "out of offset order") {
			t.Errorf("%s: oddities %q, want the order and the gaps", name, got.Oddities)
		}
		ge, err1 := AppendStatistics(nil, got, v)
		we, err2 := AppendStatistics(nil, want, v)
		if err1 != nil || err2 != nil || !bytes.Equal(ge, we) {
			t.Errorf("%s: the scrambled Statistics.db decodes differently (%v, %v)", name, err1, err2)
		}
		// A type the version does not have.
		bad := append([]byte(nil), b...)
		binary.BigEndian.PutUint32(bad[4:], 9)
		if _, err := DecodeStatistics(bad, v, "bad"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "unknown type 9") {
			t.Errorf("%s: unknown type: %v, want a CorruptionError", name, err)
		}
	}

	// na+: the checksummed table must be in offset order.
	ts := testdata.Supported(t, "cassandra-legacy/nb/legacy_nb_simple")[0]
	v := version.MustParse("nb")
	st, err := DecodeStatistics(readTestFile(t, ts.Path("Statistics.db")), v, "nb")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := AppendStatistics(nil, st, v)
	if err != nil {
		t.Fatal(err)
	}
	// Swap the first two entries (type and offset) and fix the checksum.
	swapped := append([]byte(nil), enc...)
	copy(swapped[8:16], enc[16:24])
	copy(swapped[16:24], enc[8:16])
	n := int(binary.BigEndian.Uint32(enc))
	binary.BigEndian.PutUint32(swapped[8+8*n:], uint32(statsCRCTable(swapped[:4], swapped[8:8+8*n])))
	if _, err := DecodeStatistics(swapped, v, "nb"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "offset order") {
		t.Errorf("nb listed out of order: %v, want a CorruptionError", err)
	}
}

func statsCRCTable(count, toc []byte) uint32 {
	return crc32.Update(statsCRC(count), crc32.IEEETable, toc)
}

// TestStatisticsBooleanAsJava: a boolean of Statistics.db holding a byte
// other than 0 or 1 is read as true, as Java's readBoolean (Cassandra's
// MetadataSerializer) reads it, with an oddity that readers warn about; it
// was a CorruptionError. Shown on Cassandra 3.11's own legacy_me_simple
// with its has_legacy_counter_shards byte set to 7.
func TestStatisticsBooleanAsJava(t *testing.T) {
	ts := testdata.Supported(t, "cassandra-legacy/me/legacy_me_simple")[0]
	v := version.MustParse(ts.Version)
	b := readTestFile(t, ts.Path("Statistics.db"))
	st, err := DecodeStatistics(b, v, "orig")
	if err != nil {
		t.Fatal(err)
	}
	if st.Stats.HasLegacyCounterShards {
		t.Fatal("legacy_me_simple has legacy counter shards: pick another file")
	}
	st.Stats.HasLegacyCounterShards = true
	flipped, err := AppendStatistics(nil, st, v)
	if err != nil || len(flipped) != len(b) {
		t.Fatalf("re-encoding: %v (%d bytes, want %d)", err, len(flipped), len(b))
	}
	at := -1
	for i := range b {
		if b[i] != flipped[i] {
			if at >= 0 || b[i] != 0 || flipped[i] != 1 {
				t.Fatalf("setting has_legacy_counter_shards changes more than one 0 byte into 1 (offset %d)", i)
			}
			at = i
		}
	}
	if at < 0 {
		t.Fatal("has_legacy_counter_shards not found")
	}
	odd := append([]byte(nil), b...)
	odd[at] = 7
	got, err := DecodeStatistics(odd, v, "odd")
	if err != nil {
		t.Fatalf("a boolean byte 7: %v, want it read as true", err)
	}
	if !got.Stats.HasLegacyCounterShards || len(got.Oddities) != 1 || !strings.Contains(got.Oddities[0], "readBoolean") {
		t.Fatalf("a boolean byte 7: has_legacy_counter_shards %v, oddities %q", got.Stats.HasLegacyCounterShards, got.Oddities)
	}
}

// dropStatisticsComponent returns the (pre-na) Statistics.db b without the
// table-of-contents entry of metadata type typ; the bodies stay where they
// were, so the dropped one becomes bytes between components.
func dropStatisticsComponent(t *testing.T, b []byte, typ int) []byte {
	t.Helper()
	n := int(binary.BigEndian.Uint32(b))
	out := binary.BigEndian.AppendUint32(nil, uint32(n-1))
	found := false
	for i := 0; i < n; i++ {
		ty, off := binary.BigEndian.Uint32(b[4+8*i:]), binary.BigEndian.Uint32(b[8+8*i:])
		if int(ty) == typ {
			found = true
			continue
		}
		out = binary.BigEndian.AppendUint32(out, ty)
		out = binary.BigEndian.AppendUint32(out, off-8)
	}
	if !found {
		t.Fatalf("no metadata component %d", typ)
	}
	return append(out, b[4+8*n:]...)
}

// TestStatisticsWithoutValidationOrCompaction: Cassandra's
// SSTableReader.open deserializes only VALIDATION, STATS and HEADER and
// skips its partitioner check without VALIDATION, so a Statistics.db
// lacking COMPACTION, or VALIDATION, is read (the partitioner taken to be
// Murmur3, the fp chance 0.01), with an oddity; one lacking STATS is still
// a CorruptionError. Shown on Cassandra 3.11's legacy_me_simple.
func TestStatisticsWithoutValidationOrCompaction(t *testing.T) {
	ts := testdata.Supported(t, "cassandra-legacy/me/legacy_me_simple")[0]
	v := version.MustParse(ts.Version)
	b := readTestFile(t, ts.Path("Statistics.db"))
	want, err := DecodeStatistics(b, v, "orig")
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeStatistics(dropStatisticsComponent(t, b, MetadataCompaction), v, "no-compaction")
	if err != nil {
		t.Fatalf("without COMPACTION: %v", err)
	}
	if got.Partitioner != want.Partitioner || got.Cardinality != nil || !strings.Contains(strings.Join(got.Oddities, "\n"), "no COMPACTION") {
		t.Fatalf("without COMPACTION: partitioner %q, cardinality %d bytes, oddities %q", got.Partitioner, len(got.Cardinality), got.Oddities)
	}
	got, err = DecodeStatistics(dropStatisticsComponent(t, b, MetadataValidation), v, "no-validation")
	if err != nil {
		t.Fatalf("without VALIDATION: %v", err)
	}
	if got.Partitioner != Murmur3Partitioner || got.BloomFilterFPChance != 0.01 || !strings.Contains(strings.Join(got.Oddities, "\n"), "no VALIDATION") {
		t.Fatalf("without VALIDATION: partitioner %q, fp %g, oddities %q", got.Partitioner, got.BloomFilterFPChance, got.Oddities)
	}
	if _, err := DecodeStatistics(dropStatisticsComponent(t, b, MetadataStats), v, "no-stats"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("without STATS: %v, want a CorruptionError", err)
	}
}
