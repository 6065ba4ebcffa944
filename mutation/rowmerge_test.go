package mutation

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/castable-db/castable/schema"
)

// TestMergeTwoSimpleMatchesGeneral: MergeVersions of two versions gives
// the same row with the two-way merge of simple cells (mergeTwoSimple) and
// with the general column loop, on random versions — simple and complex
// columns, counters, tombstones, TTLs expired and not, row, shadowable and
// complex deletions, active deletions — under both reconciliation rules.
func TestMergeTwoSimpleMatchesGeneral(t *testing.T) {
	for _, counters := range []bool{false, true} {
		cols := []schema.ColumnDef{{Name: "pk", Type: schema.Int, Kind: schema.PartitionKey}, {Name: "ck", Type: schema.Int, Kind: schema.ClusteringKey}}
		if counters {
			cols = append(cols, schema.ColumnDef{Name: "c1", Type: schema.Counter, Kind: schema.Regular}, schema.ColumnDef{Name: "c2", Type: schema.Counter, Kind: schema.Regular})
		} else {
			cols = append(cols, schema.ColumnDef{Name: "a", Type: schema.Text, Kind: schema.Regular}, schema.ColumnDef{Name: "b", Type: schema.Bigint, Kind: schema.Regular},
				schema.ColumnDef{Name: "s", Type: schema.SetOf(schema.Int, false), Kind: schema.Regular}, schema.ColumnDef{Name: "z", Type: schema.Blob, Kind: schema.Regular})
		}
		tab, err := schema.NewTable("ks", "t", cols, schema.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(7, 8))
		const now = 1000
		dt := func() DeletionTime {
			if r.IntN(4) != 0 {
				return Live
			}
			return DeletionTime{MarkedForDeleteAt: int64(r.IntN(20)), LocalDeletionTime: int64(900 + r.IntN(200))}
		}
		version := func(complex bool) *Row {
			v := &Row{Clustering: Clustering{{0, 0, 0, 1}}, Liveness: EmptyLiveness, Deletion: Live, ShadowableDeletion: Live}
			if r.IntN(2) == 0 {
				v.Liveness = LivenessInfo{Timestamp: int64(r.IntN(20)), TTL: NoTTL, LocalExpirationTime: NoDeletionTime}
			}
			if r.IntN(5) == 0 {
				v.Deletion, v.DeletionShadowable = dt(), r.IntN(2) == 0
			}
			if r.IntN(8) == 0 {
				v.ShadowableDeletion = dt()
			}
			for _, c := range tab.Regular {
				if r.IntN(3) == 0 {
					continue
				}
				if c.Type.IsComplex() {
					if !complex {
						continue
					}
					if r.IntN(3) == 0 {
						v.ComplexDeletions = append(v.ComplexDeletions, ComplexDeletion{Column: c, Deletion: dt()})
					}
					for p := 0; p < 3; p++ {
						if r.IntN(2) == 0 {
							v.Cells = append(v.Cells, Cell{Column: c, Path: []byte{0, 0, 0, byte(p)}, Value: []byte{}, Timestamp: int64(r.IntN(20)), TTL: NoTTL, LocalDeletionTime: NoDeletionTime})
						}
					}
					continue
				}
				cell := Cell{Column: c, Timestamp: int64(r.IntN(20)), TTL: NoTTL, LocalDeletionTime: NoDeletionTime, Value: []byte(fmt.Sprint(r.IntN(5)))}
				if counters {
					cell.Value = counterValueForTest(r)
				}
				switch r.IntN(6) {
				case 0:
					cell.LocalDeletionTime, cell.Value = int64(900+r.IntN(200)), nil // tombstone
				case 1:
					cell.TTL, cell.LocalDeletionTime = 50, int64(900+r.IntN(200)) // expiring, maybe expired
				}
				v.Cells = append(v.Cells, cell)
			}
			return v
		}
		for _, rules := range []Rules{Rules3, Rules4} {
			for i := 0; i < 20000; i++ {
				complex := r.IntN(3) == 0
				a, b := version(complex), version(complex && r.IntN(2) == 0)
				active := dt()
				fast, general := NewRowMerger(tab, rules, now), NewRowMerger(tab, rules, now)
				general.twoWay = false
				var fr, gr Row
				fok, ferr := fast.MergeVersions(&fr, []*Row{a, b}, active)
				gok, gerr := general.MergeVersions(&gr, []*Row{a, b}, active)
				if fmt.Sprint(ferr) != fmt.Sprint(gerr) || fok != gok || fmt.Sprintf("%+v", fr) != fmt.Sprintf("%+v", gr) {
					t.Fatalf("rules %v counters %v:\n%+v\n%+v\nunder %v:\ntwo-way %v %v %+v\ngeneral %v %v %+v", rules, counters, a, b, active, fok, ferr, fr, gok, gerr, gr)
				}
			}
		}
	}
}

// counterValueForTest is a context of one or two global shards with small
// clocks and counts (shared ids, so that merges reconcile shards).
func counterValueForTest(r *rand.Rand) []byte {
	var shards []CounterShard
	for id := byte(1); id <= 2; id++ {
		if r.IntN(2) == 0 || id == 2 && len(shards) == 0 {
			shards = append(shards, CounterShard{ID: [16]byte{15: id}, Clock: int64(r.IntN(4)), Count: int64(r.IntN(100)), Kind: CounterGlobal})
		}
	}
	v, err := AppendCounterContext(nil, shards)
	if err != nil {
		panic(err)
	}
	return v
}
