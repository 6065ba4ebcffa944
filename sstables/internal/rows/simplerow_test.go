package rows

import (
	"bytes"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// TestSimpleRowPathMatchesGeneral serializes random partitions of a table
// with clustering columns (fixed and variable length) and several simple
// regular columns twice — with writeSimpleRow and with the general writeRow
// path only — and requires identical Data.db bytes, Index.db entries and
// collected statistics.
func TestSimpleRowPathMatchesGeneral(t *testing.T) {
	table, err := schema.NewTable("ks", "t", []schema.ColumnDef{
		{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey},
		{Name: "c1", Type: schema.Int, Kind: schema.ClusteringKey},
		{Name: "c2", Type: schema.Text, Kind: schema.ClusteringKey},
		{Name: "a", Type: schema.Blob, Kind: schema.Regular},
		{Name: "b", Type: schema.Bigint, Kind: schema.Regular},
		{Name: "c", Type: schema.Text, Kind: schema.Regular},
	}, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enc := EncodingStats{MinTimestamp: 1000, MinLocalDeletionTime: 100, MinTTL: 0}
	type result struct {
		data, index []byte
		coll        Collector
		cells       int64
	}
	run := func(simple bool, seed uint64) result {
		r := rand.New(rand.NewPCG(seed, 1))
		h := sstables.NewSerializationHeader(table, enc, nil, table.Regular)
		coll := NewCollector(table, h.ClusteringTypes, CollectorOptions{WholePrefix: true, DropTime: func(int64) {}})
		var sink memSink
		ser := NewSerializer(table, h, nil, table.Regular, SerializerOptions{BlockSize: 2048, Sink: &sink, Collector: coll})
		ser.simpleRegular = simple
		var index []byte
		var cells int64
		for p := 0; p < 50; p++ {
			if err := ser.StartPartition([]byte{0, 0, 0, byte(p)}, mutation.Live, nil); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < r.IntN(80); i++ {
				row := mutation.NewRow(mutation.Clustering{{0, 0, byte(i >> 8), byte(i)}, bytes.Repeat([]byte{'x'}, r.IntN(3))})
				if r.IntN(3) == 0 {
					row.Liveness = mutation.LivenessInfo{Timestamp: 1000 + r.Int64N(1<<30), TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
					if r.IntN(2) == 0 {
						row.Liveness.TTL, row.Liveness.LocalExpirationTime = 60, 5000
					}
				}
				for ci, col := range table.Regular {
					if r.IntN(3) == 0 {
						continue
					}
					c := mutation.Cell{Column: col, Timestamp: 1000 + r.Int64N(1<<40), TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}
					switch r.IntN(6) {
					case 0:
						c.LocalDeletionTime = 4000 // tombstone
					case 1:
						c.TTL, c.LocalDeletionTime = 60, 5000
					case 2:
						if !row.Liveness.IsEmpty() {
							c.Timestamp = row.Liveness.Timestamp
							c.TTL, c.LocalDeletionTime = row.Liveness.TTL, row.Liveness.LocalExpirationTime
						}
					}
					if !c.IsTombstone() {
						switch ci {
						case 1:
							c.Value = make([]byte, 8)
						default:
							c.Value = bytes.Repeat([]byte{byte(i)}, []int{0, 5, 120, 300}[r.IntN(4)])
						}
					}
					row.Cells = append(row.Cells, c)
				}
				if len(row.Cells) == 0 && row.Liveness.IsEmpty() {
					continue
				}
				if err := ser.WriteRow(&row); err != nil {
					t.Fatal(err)
				}
			}
			_, blocks, err := ser.FinishPartition()
			if err != nil {
				t.Fatal(err)
			}
			index = appendBlocks(index, blocks)
			cells += ser.Cells()
		}
		if err := ser.flush(); err != nil {
			t.Fatal(err)
		}
		return result{data: sink.Bytes(), index: index, coll: *coll, cells: cells}
	}
	for seed := uint64(0); seed < 20; seed++ {
		fast, general := run(true, seed), run(false, seed)
		if !bytes.Equal(fast.data, general.data) {
			t.Fatalf("seed %d: Data.db: %s", seed, testdata.FirstDiff(fast.data, general.data))
		}
		if !bytes.Equal(fast.index, general.index) {
			t.Fatalf("seed %d: Index.db: %s", seed, testdata.FirstDiff(fast.index, general.index))
		}
		fast.coll.dropTime, general.coll.dropTime = nil, nil
		if !reflect.DeepEqual(fast.coll, general.coll) || fast.cells != general.cells {
			t.Fatalf("seed %d: statistics differ:\n%+v\n%+v", seed, fast.coll, general.coll)
		}
	}
}
