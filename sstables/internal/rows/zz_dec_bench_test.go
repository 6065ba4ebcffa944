package rows

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

func BenchmarkZZDecode(b *testing.B) {
	tab, _ := schema.NewTable("ks", "t", []schema.ColumnDef{
		{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey},
		{Name: "ck", Type: schema.Int, Kind: schema.ClusteringKey},
		{Name: "v", Type: schema.Text, Kind: schema.Regular},
	}, schema.Options{})
	v, _ := version.Parse("nb")
	h := sstables.NewSerializationHeader(tab, EncodingStats{MinTimestamp: 1700000000000000}, nil, tab.Regular)
	coll := NewCollector(tab, h.ClusteringTypes, CollectorOptions{WholePrefix: true, DropTime: func(int64) {}})
	var sink memSink
	ser := NewSerializer(tab, h, nil, tab.Regular, SerializerOptions{Version: v, BlockSize: 65536, Sink: &sink, Collector: coll})
	for p := 0; p < 1000; p++ {
		ser.StartPartition(binary.BigEndian.AppendUint32(nil, uint32(p)), mutation.Live, nil)
		for i := 0; i < 100; i++ {
			r := mutation.NewRow(mutation.Clustering{binary.BigEndian.AppendUint32(nil, uint32(i))})
			r.Liveness = mutation.LivenessInfo{Timestamp: 1700000000000001, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
			r.Cells = []mutation.Cell{{Column: tab.Regular[0], Timestamp: 1700000000000001, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime, Value: []byte(fmt.Sprintf("value 1 of row %d-%d with some text", p, i))}}
			ser.WriteRow(&r)
		}
		ser.FinishPartition()
	}
	ser.flush()
	data := sink.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for i := 0; i < b.N; i++ {
		dec := NewDecoder(v, h, nil, tab.Regular, 0, 1, 0)
		s := NewScanner(dec, "x", dht.Murmur3, bytes.NewReader(data), 0, int64(len(data)), nil)
		for {
			_, err := s.NextPartition()
			if err == io.EOF {
				break
			}
			for {
				r, m, _ := s.Next()
				if r == nil && m == nil {
					break
				}
			}
		}
		s.Release()
	}
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(b.N)/100000, "cpu-ns/row")
}
