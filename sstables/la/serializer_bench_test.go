package la

import (
	"encoding/binary"
	"testing"

	"github.com/castable-db/castable/mutation"
)

// BenchmarkSerializeSmallPartition measures the partition writer alone on
// perf_fast_forward's small-part partitions (int key, one row, one 100-byte
// blob cell, no row marker): header, cell, end of partition, statistics and
// Index.db entry, with everything in cache.
func BenchmarkSerializeSmallPartition(b *testing.B) {
	table := tableFromCQL(b, `CREATE TABLE ks.small_part (pk int PRIMARY KEY, value blob);`)
	pw := newPartitionWriter(table, false)
	pw.ci.blockSize = defaultColumnIndexSize
	p := &mutation.Partition{Key: make([]byte, 4), Deletion: mutation.Live, Static: mutation.NewRow(nil), Rows: []mutation.Row{mutation.NewRow(nil)}}
	p.Rows[0].Cells = []mutation.Cell{{Column: table.Column("value"), Value: make([]byte, 100), TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
	var entry []byte
	var pos int64
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		binary.BigEndian.PutUint32(p.Key, uint32(i))
		p.Rows[0].Cells[0].Timestamp = benchTS + int64(i)
		i++
		if err := pw.start(p); err != nil {
			b.Fatal(err)
		}
		if err := pw.addRow(&p.Rows[0], false); err != nil {
			b.Fatal(err)
		}
		blocks, size, err := pw.finish()
		if err != nil {
			b.Fatal(err)
		}
		entry = appendIndexEntry(entry[:0], p.Key, pos, pw.deletion, blocks)
		pos += size
		if len(pw.out) > 64<<10 {
			pw.out = pw.out[:0]
		}
	}
}
