package big

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/castable-db/castable/schema"
)

// firstDiff describes the first difference of two byte strings.
func firstDiff(got, want []byte) string {
	n := min(len(got), len(want))
	for i := 0; i < n; i++ {
		if got[i] != want[i] {
			lo := max(0, i-8)
			return fmt.Sprintf("first difference at offset %d: got % x, want % x (lengths %d, %d)",
				i, got[lo:min(len(got), i+8)], want[lo:min(len(want), i+8)], len(got), len(want))
		}
	}
	return fmt.Sprintf("lengths differ: got %d, want %d", len(got), len(want))
}

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
			static, _ := headerColumns(table, st.Header.Static, schema.Static)
			regular, _ := headerColumns(table, st.Header.Regular, schema.Regular)
			var sink memSink
			coll := newCollector(st.Header.ClusteringTypes, nil)
			ser := newSerializer(table, st.Header, static, regular, serializerOptions{
				scyllaShadowable: true,
				columnIndexSize:  defaultColumnIndexSize,
				sink:             &sink,
				coll:             coll,
			})
			var index []byte
			for _, dp := range parts {
				if dp.pos != ser.pos() {
					t.Fatalf("partition at %d re-encoded at %d", dp.pos, ser.pos())
				}
				if err := ser.startPartition(dp.p.Key, dp.p.Deletion, &dp.p.Static); err != nil {
					t.Fatal(err)
				}
				for _, u := range dp.items {
					var err error
					if u.row != nil {
						err = ser.writeRow(u.row, false)
					} else {
						err = ser.writeMarker(u.marker)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				var err error
				if index, _, err = ser.endPartition(index); err != nil {
					t.Fatal(err)
				}
			}
			if err := ser.flush(); err != nil {
				t.Fatal(err)
			}
			if got := sink.Bytes(); !bytes.Equal(got, data) {
				t.Errorf("Data.db: %s", firstDiff(got, data))
			}
			if want := ref.read(t, "Index.db"); !bytes.Equal(index, want) {
				t.Errorf("Index.db: %s", firstDiff(index, want))
			}
		})
	}
}
