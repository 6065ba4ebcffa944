package schema_test

import (
	"fmt"
	"testing"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// BenchmarkBuildCells measures the value-building path a memtable insert
// takes: serialize the key with the (dst, ...) helpers into a reused
// buffer, append each value into a reused buffer, and assemble the
// partition with a reused mutation.Builder. Allocations per partition must
// not grow with the number of cells (cells=1 vs cells=16): only Finish's
// fixed set of allocations (partition, rows, cells, one byte arena for the
// copied key and values) remains.
func BenchmarkBuildCells(b *testing.B) {
	for _, cells := range []int{1, 16} {
		defs := []schema.ColumnDef{{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey}}
		for i := 0; i < cells; i++ {
			defs = append(defs, schema.ColumnDef{Name: fmt.Sprintf("value%02d", i), Type: schema.Blob, Kind: schema.Regular})
		}
		tab, err := schema.NewTable("ks", "t", defs, schema.Options{})
		if err != nil {
			b.Fatal(err)
		}
		payload := make([]byte, 100)
		b.Run(fmt.Sprintf("impl=append/cells=%d/size=100", cells), func(b *testing.B) {
			mb := mutation.NewBuilder(tab)
			var keyBuf, pkBuf []byte
			values := make([][]byte, cells)
			comps := make([][]byte, 1)
			b.SetBytes(int64(4 + cells*len(payload)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				pkBuf = schema.AppendInt(pkBuf[:0], int32(i))
				comps[0] = pkBuf
				keyBuf, err = tab.AppendPartitionKey(keyBuf[:0], comps)
				if err != nil {
					b.Fatal(err)
				}
				mb.Reset(keyBuf)
				mb.StartRow(nil)
				mb.SetLiveness(mutation.LivenessInfo{Timestamp: 1, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime})
				for c, col := range tab.Regular {
					values[c] = append(values[c][:0], payload...)
					mb.AddLiveCell(col, nil, values[c], 1)
				}
				if _, err := mb.Finish(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppendValues measures the (dst, v) serializers on a reused
// buffer: they must not allocate.
func BenchmarkAppendValues(b *testing.B) {
	b.Run("impl=append/size=53", func(b *testing.B) {
		var buf []byte
		b.SetBytes(53)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			buf = schema.AppendInt(buf[:0], int32(i))
			buf = schema.AppendBigint(buf, int64(i))
			buf = schema.AppendTimestamp(buf, int64(i))
			buf = schema.AppendDouble(buf, float64(i))
			buf = schema.AppendVarintInt64(buf, int64(i))
			buf = schema.AppendDuration(buf, 1, 2, int64(i))
			buf = schema.AppendDate(buf, int64(i))
			buf = schema.AppendCollectionValue(buf, buf[:8])
		}
	})
}

// BenchmarkJSON measures rendering and parsing the JSON form of an int,
// a text and a timestamp.
func BenchmarkJSON(b *testing.B) {
	cases := []struct {
		name string
		typ  *schema.Type
		v    []byte
	}{
		{"int", schema.Int, schema.AppendInt(nil, -123456)},
		{"text", schema.Text, []byte("variable length text 1")},
		{"timestamp", schema.Timestamp, schema.AppendTimestamp(nil, 1430472654234)},
		{"double", schema.Double, schema.AppendDouble(nil, 36.6)},
	}
	for _, c := range cases {
		b.Run("impl=AppendJSON/type="+c.name, func(b *testing.B) {
			var buf []byte
			b.SetBytes(int64(len(c.v)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = c.typ.AppendJSON(buf[:0], c.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
