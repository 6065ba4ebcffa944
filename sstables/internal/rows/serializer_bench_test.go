package rows

import (
	"encoding/binary"
	"github.com/castable-db/castable/sstables"
	"testing"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// discardSink is a dataSink that drops the bytes.
type discardSink struct{ pos int64 }

func (d *discardSink) Position() int64 { return d.pos }
func (d *discardSink) Submit(buf []byte) ([]byte, error) {
	d.pos += int64(len(buf))
	return buf[:0], nil
}

// BenchmarkSerializeSmallPartition measures the row serializer alone on
// perf_fast_forward's small-part partitions (int key, one row without
// clustering, one 100-byte blob cell, no row marker): header, row, end of
// partition, with everything in cache.
func BenchmarkSerializeSmallPartition(b *testing.B) {
	table, err := schema.NewTable("ks", "small_part", []schema.ColumnDef{
		{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey},
		{Name: "value", Type: schema.Blob, Kind: schema.Regular},
	}, schema.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const ts = 1_700_000_000_000_000
	enc := EncodingStats{MinTimestamp: ts, MinLocalDeletionTime: DefaultEncodingStats.MinLocalDeletionTime, MinTTL: 0}
	h := sstables.NewSerializationHeader(table, enc, nil, table.Regular)
	coll := NewCollector(table, h.ClusteringTypes, CollectorOptions{WholePrefix: true})
	ser := NewSerializer(table, h, nil, table.Regular, SerializerOptions{BlockSize: 64 << 10, Sink: &discardSink{}, Collector: coll})
	row := mutation.NewRow(nil)
	row.Cells = []mutation.Cell{{Column: table.Regular[0], Value: make([]byte, 100), TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
	key := make([]byte, 4)
	static := mutation.NewRow(nil)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		binary.BigEndian.PutUint32(key, uint32(i))
		row.Cells[0].Timestamp = ts + int64(i)
		i++
		if err := ser.StartPartition(key, mutation.Live, &static); err != nil {
			b.Fatal(err)
		}
		if err := ser.WriteRow(&row); err != nil {
			b.Fatal(err)
		}
		if _, _, err = ser.FinishPartition(); err != nil {
			b.Fatal(err)
		}
	}
}
