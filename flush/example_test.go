package flush_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/mc"
)

// A node embeds castable: writers apply mutations to a Store, full memtables
// are flushed in the background into mc SSTables, and every finished SSTable
// is handed to a callback (where a node would add it to its live set).
func Example() {
	dir, err := os.MkdirTemp("", "node-data")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := cql.ParseSchema(`CREATE TABLE ks.users (id int PRIMARY KEY, name text)`)
	if err != nil {
		log.Fatal(err)
	}
	table := s.Tables[0]

	ctx := context.Background()
	svc, err := flush.NewService(ctx, flush.ServiceOptions{
		Options: flush.Options{Format: mc.Format, WriterOptions: sstables.WriterOptions{Dir: dir}},
		OnFlushed: func(r *flush.Result) {
			fmt.Printf("flushed %s: %d partitions\n", r.Descriptor.Filename(sstables.ComponentData), r.Partitions)
		},
		OnError: func(_ *memtable.Frozen, err error) { log.Printf("flush failed, memtable kept: %v", err) },
	})
	if err != nil {
		log.Fatal(err)
	}
	store := flush.NewStore(table, svc, flush.StoreOptions{MemtableSize: 64 << 20})

	b := mutation.NewBuilder(table)
	name := table.Column("name")
	for id := int32(1); id <= 1000; id++ {
		key := schema.AppendInt(nil, id)
		b.Reset(key)
		b.StartRow(nil)
		b.AddLiveCell(name, nil, []byte(fmt.Sprintf("user %d", id)), 1700000000000000)
		p, err := b.Finish()
		if err != nil {
			log.Fatal(err)
		}
		if err := store.Apply(ctx, p); err != nil {
			log.Fatal(err)
		}
	}
	// On shutdown: flush what is left and wait for the service.
	if err := store.Flush(ctx); err != nil {
		log.Fatal(err)
	}
	svc.Wait()
	svc.Close()
	// Output: flushed mc-1-big-Data.db: 1000 partitions
}
