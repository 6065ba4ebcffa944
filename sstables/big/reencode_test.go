package big

import (
	"bytes"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables/internal/rows"
	"testing"

	"github.com/castable-db/castable/schema"
)

// TestReencodeReferenceSSTables decodes every uncompressed reference
// Data.db with the header of its Statistics.db, serializes the decoded
// content again with the same header and requires Data.db and Index.db to
// come out byte for byte.
func TestReencodeReferenceSSTables(t *testing.T) {
	for _, ref := range refSSTables(t, true) {
		if ref.has("CompressionInfo.db") {
			continue
		}
		t.Run(ref.name, func(t *testing.T) {
			data := ref.read(t, "Data.db")
			st, table, parts := decodeReference(t, ref, data)
			static, _ := rows.HeaderColumns(table, st.Header.Static, schema.Static)
			regular, _ := rows.HeaderColumns(table, st.Header.Regular, schema.Regular)
			var sink memSink
			coll := rows.NewCollector(table, st.Header.ClusteringTypes, rows.CollectorOptions{WholePrefix: ref.version.HasAccurateMinMax()})
			ser := rows.NewSerializer(table, st.Header, static, regular, rows.SerializerOptions{
				Version:          ref.version,
				ScyllaShadowable: true,
				BlockSize:        defaultColumnIndexSize,
				Sink:             &sink,
				Collector:        coll,
			})
			var index []byte
			for _, dp := range parts {
				if err := ser.StartPartition(dp.p.Key, dp.p.Deletion, &dp.p.Static); err != nil {
					t.Fatal(err)
				}
				if dp.pos != ser.PartitionStart() {
					t.Fatalf("partition at %d re-encoded at %d", dp.pos, ser.PartitionStart())
				}
				for _, u := range dp.items {
					var err error
					if u.row != nil {
						err = ser.WriteRow(u.row)
					} else {
						err = ser.WriteMarker(u.marker)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				_, blocks, err := ser.FinishPartition()
				if err != nil {
					t.Fatal(err)
				}
				if len(blocks) > 0 {
					index = appendIndexEntry(index, ser.Key(), ser.PartitionStart(), ser.HeaderLength(), ser.Deletion(), blocks, ref.version)
				} else {
					index = appendSimpleIndexEntry(index, ser.Key(), ser.PartitionStart())
				}
			}
			sink.Write(ser.TakeOut())
			if got := sink.Bytes(); !bytes.Equal(got, data) {
				t.Errorf("Data.db: %s", testdata.FirstDiff(got, data))
			}
			if want := ref.read(t, "Index.db"); !bytes.Equal(index, want) {
				t.Errorf("Index.db: %s", testdata.FirstDiff(index, want))
			}
		})
	}
}
