package compaction_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/castable-db/castable/compaction"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
	"github.com/castable-db/castable/table"
)

// An embedded node flushes four memtables; the compaction service, told
// of each flush, merges the four SSTables (size-tiered: min_threshold 4)
// into one in the background, and a view reads the table merged.
func ExampleService() {
	dir, err := os.MkdirTemp("", "node-data")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := cql.ParseSchema(`CREATE TABLE ks.users (id int PRIMARY KEY, name text)`)
	if err != nil {
		log.Fatal(err)
	}
	tab := s.Tables[0]
	ctx := context.Background()

	gens, err := sstables.NewGenerations(sstables.OSFS, dir)
	if err != nil {
		log.Fatal(err)
	}
	comp, err := compaction.NewService(ctx, compaction.ServiceOptions{Dir: dir, Table: tab, Generations: gens})
	if err != nil {
		log.Fatal(err)
	}
	defer comp.Close()
	svc, err := flush.NewService(ctx, flush.ServiceOptions{
		Options:     flush.Options{WriterOptions: sstables.WriterOptions{Dir: dir}},
		Generations: gens,
		OnFlushed: func(r *flush.Result) {
			if err := comp.Add(r.Descriptor); err != nil {
				log.Print(err)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	store := flush.NewStore(tab, svc, flush.StoreOptions{MemtableSize: 64 << 20})

	b := mutation.NewBuilder(tab)
	name := tab.Column("name")
	for batch := 0; batch < 4; batch++ {
		for id := int32(1); id <= 100; id++ {
			b.Reset(schema.AppendInt(nil, id))
			b.StartRow(nil)
			b.AddLiveCell(name, nil, []byte(fmt.Sprintf("user %d, version %d", id, batch)), 1700000000000000+int64(batch))
			p, err := b.Finish()
			if err != nil {
				log.Fatal(err)
			}
			if err := store.Apply(ctx, p); err != nil {
				log.Fatal(err)
			}
		}
		if err := store.Flush(ctx); err != nil {
			log.Fatal(err)
		}
	}
	if err := svc.Close(); err != nil {
		log.Fatal(err)
	}
	if err := comp.Idle(ctx); err != nil {
		log.Fatal(err)
	}

	view := comp.Acquire()
	defer view.Release()
	set, err := table.NewSet(view.Readers(), nil, table.Options{Table: tab})
	if err != nil {
		log.Fatal(err)
	}
	sc, err := set.Scan()
	if err != nil {
		log.Fatal(err)
	}
	defer sc.Close()
	partitions := 0
	for {
		if _, err := sc.NextPartition(); err != nil {
			break
		}
		partitions++
	}
	fmt.Printf("%d SSTable after compaction, %d partitions\n", len(view.Readers()), partitions)
	// Output: 1 SSTable after compaction, 100 partitions
}
