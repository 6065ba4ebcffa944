package la

import (
	"bytes"
	"github.com/castable-db/castable/sstables"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/castable-db/castable/mutation"
)

// TestSimpleRowPathMatchesGeneral writes random partitions twice — rows
// through addSimpleRow where it applies, and every row through the staging
// path — and requires identical Data.db bytes, index blocks and statistics.
// The partitions mix row markers (with and without TTL), live, expiring and
// deleted cells, partition deletions and range tombstones (which make the
// rows under them take the staging path in both runs), static rows, and
// partitions large enough for promoted-index blocks.
func TestSimpleRowPathMatchesGeneral(t *testing.T) {
	table := tableFromCQL(t, `CREATE TABLE ks.t (pk int, c1 int, c2 text, s text static, a blob, b bigint, c text, PRIMARY KEY (pk, c1, c2));`)
	type result struct {
		data   []byte
		blocks [][]indexInfo
		stats  *sstables.Statistics
	}
	run := func(simple bool, seed uint64) result {
		r := rand.New(rand.NewPCG(seed, 2))
		pw := newPartitionWriter(table, false)
		pw.ci.blockSize = 4096
		pw.noSimpleRows = !simple
		var res result
		cols := []string{"a", "b", "c"}
		for p := 0; p < 40; p++ {
			part := &mutation.Partition{Key: []byte{0, 0, 0, byte(p)}, Deletion: mutation.Live, Static: mutation.NewRow(nil)}
			if r.IntN(8) == 0 {
				part.Deletion = mutation.DeletionTime{MarkedForDeleteAt: 1000 + r.Int64N(1000), LocalDeletionTime: 500}
			}
			if r.IntN(4) == 0 {
				part.Static.Cells = []mutation.Cell{{Column: table.Column("s"), Value: []byte("static"), Timestamp: 1500, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
			}
			if err := pw.start(part); err != nil {
				t.Fatal(err)
			}
			open := false
			n := r.IntN(60)
			for i := 0; i < n; i++ {
				ck := mutation.Clustering{{0, 0, byte(i >> 8), byte(i)}, bytes.Repeat([]byte{'k'}, r.IntN(3))}
				if r.IntN(12) == 0 {
					m := &mutation.RangeTombstoneMarker{Clustering: ck}
					if open {
						m.Kind, m.Close = mutation.InclEndBound, mutation.DeletionTime{MarkedForDeleteAt: 1700, LocalDeletionTime: 600}
					} else {
						m.Kind, m.Open = mutation.InclStartBound, mutation.DeletionTime{MarkedForDeleteAt: 1700, LocalDeletionTime: 600}
					}
					open = !open
					if err := pw.addMarker(m); err != nil {
						t.Fatal(err)
					}
					continue
				}
				row := mutation.NewRow(ck)
				if r.IntN(2) == 0 {
					row.Liveness = mutation.LivenessInfo{Timestamp: 1000 + r.Int64N(2000), TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
					if r.IntN(3) == 0 {
						row.Liveness.TTL, row.Liveness.LocalExpirationTime = 60, 9000
					}
				}
				for _, name := range cols {
					if r.IntN(3) == 0 {
						continue
					}
					c := mutation.Cell{Column: table.Column(name), Timestamp: 1000 + r.Int64N(2000), TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}
					switch r.IntN(5) {
					case 0:
						c.LocalDeletionTime = 700 // tombstone
					case 1:
						c.TTL, c.LocalDeletionTime = 30, 8000
					}
					if !c.IsTombstone() {
						if name == "b" {
							c.Value = make([]byte, 8)
						} else {
							c.Value = bytes.Repeat([]byte{byte(i)}, r.IntN(200))
						}
					}
					row.Cells = append(row.Cells, c)
				}
				if len(row.Cells) == 0 && row.Liveness.IsEmpty() {
					row.Liveness = mutation.LivenessInfo{Timestamp: 1200, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
				}
				if err := pw.addRow(&row, false); err != nil {
					t.Fatal(err)
				}
			}
			if open {
				m := &mutation.RangeTombstoneMarker{Kind: mutation.InclEndBound, Clustering: mutation.Clustering{{0, 0, 1, 0}}, Close: mutation.DeletionTime{MarkedForDeleteAt: 1700, LocalDeletionTime: 600}}
				if err := pw.addMarker(m); err != nil {
					t.Fatal(err)
				}
			}
			blocks, _, err := pw.finish()
			if err != nil {
				t.Fatal(err)
			}
			cp := make([]indexInfo, len(blocks))
			for i, b := range blocks {
				cp[i] = b
				cp[i].first, cp[i].last = bytes.Clone(b.first), bytes.Clone(b.last)
			}
			res.blocks = append(res.blocks, cp)
		}
		res.data = bytes.Clone(pw.out)
		res.stats = pw.stats.statistics()
		return res
	}
	for seed := uint64(0); seed < 15; seed++ {
		fast, general := run(true, seed), run(false, seed)
		if !bytes.Equal(fast.data, general.data) {
			t.Fatalf("seed %d: Data.db differs (%d and %d bytes)", seed, len(fast.data), len(general.data))
		}
		if !reflect.DeepEqual(fast.blocks, general.blocks) {
			t.Fatalf("seed %d: index blocks differ", seed)
		}
		if !reflect.DeepEqual(fast.stats, general.stats) {
			t.Fatalf("seed %d: statistics differ:\n%+v\n%+v", seed, fast.stats, general.stats)
		}
	}
}
