package reliability

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// workloadSchema is the table the fault and crash tests write: a clustering
// key, a static column, a blob and a set, so rows, static rows and complex
// cells all go through the writers.
const workloadSchema = `CREATE TABLE ks.events (pk int, ck int, s text static, v blob, tags set<text>,
	PRIMARY KEY (pk, ck));`

// workloadNow is the fixed clock of the workload's statements.
var workloadNow = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func workloadTable(t testing.TB) (*cql.Schema, *schema.Table) {
	t.Helper()
	sch, err := parseWorkloadSchema()
	if err != nil {
		t.Fatal(err)
	}
	return sch, sch.Tables[0]
}

func parseWorkloadSchema() (*cql.Schema, error) { return cql.ParseSchema(workloadSchema) }

// workloadStatements returns the CQL of batch number batch: partitions
// partitions of rows rows each (a few deletions among them), deterministic
// for a seed and batch.
func workloadStatements(seed uint64, batch, partitions, rows int) string {
	rng := rand.New(rand.NewPCG(seed, uint64(batch)))
	var b strings.Builder
	for p := 0; p < partitions; p++ {
		pk := batch*partitions + p
		fmt.Fprintf(&b, "UPDATE ks.events SET s = 'static-%d-%d' WHERE pk = %d;\n", batch, rng.IntN(1000), pk)
		for r := 0; r < rows; r++ {
			v := make([]byte, 16+rng.IntN(48))
			for i := range v {
				v[i] = byte('a' + rng.IntN(6)) // compressible, not trivially
			}
			fmt.Fprintf(&b, "INSERT INTO ks.events (pk, ck, v, tags) VALUES (%d, %d, 0x%x, {'t%d', 'u%d'});\n",
				pk, r, v, rng.IntN(50), rng.IntN(50))
		}
		if rng.IntN(8) == 0 {
			fmt.Fprintf(&b, "DELETE FROM ks.events WHERE pk = %d AND ck = %d;\n", pk, rng.IntN(rows+2))
		}
	}
	return b.String()
}

// workloadMemtable applies batch number batch to a new memtable and
// freezes it.
func workloadMemtable(t testing.TB, seed uint64, batch, partitions, rows int) *memtable.Frozen {
	t.Helper()
	f, err := buildWorkload(seed, batch, partitions, rows)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func buildWorkload(seed uint64, batch, partitions, rows int) (*memtable.Frozen, error) {
	sch, err := parseWorkloadSchema()
	if err != nil {
		return nil, err
	}
	m := memtable.New(sch.Tables[0], memtable.Options{Now: func() time.Time { return workloadNow }})
	b := cql.NewBuilder(sch, cql.Options{DefaultTimestamp: workloadNow.UnixMicro() + int64(batch)*1_000_000, Now: workloadNow})
	muts, err := b.Exec(workloadStatements(seed, batch, partitions, rows))
	if err != nil {
		return nil, err
	}
	for _, mu := range muts {
		if err := m.Apply(mu.Partition); err != nil {
			return nil, err
		}
	}
	return m.Freeze(), nil
}

// fingerprintFrozen hashes everything a frozen memtable holds.
func fingerprintFrozen(t testing.TB, f *memtable.Frozen) uint64 {
	t.Helper()
	h := fnv.New64a()
	err := f.Ascend(func(p *mutation.Partition) error {
		hashPartition(h, p)
		for i := range p.Rows {
			hashRow(h, &p.Rows[i])
		}
		for i := range p.Markers {
			hashMarker(h, &p.Markers[i])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return h.Sum64()
}

// dataStatsOf returns the writer statistics of a frozen memtable, as a
// flush passes them.
func dataStatsOf(f *memtable.Frozen) sstables.DataStats {
	return flush.DataStats(f)
}
