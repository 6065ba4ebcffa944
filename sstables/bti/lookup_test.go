package bti_test

import (
	"io"
	"math/rand"
	"os"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// TestPointLookupReadsOnlyThePartition: Get of a partition among large
// ones reads from Data.db only the compressed chunks that hold it (da
// and ms), and the index bytes of a few trie nodes.
func TestPointLookupReadsOnlyThePartition(t *testing.T) {
	s, err := cql.ParseSchema("CREATE TABLE ks.t (pk int, ck int, v text, PRIMARY KEY (pk, ck));")
	if err != nil {
		t.Fatal(err)
	}
	table := s.Tables[0]
	rnd := rand.New(rand.NewSource(3))
	var parts []*mutation.Partition
	for k := 0; k < 5; k++ {
		key := []byte{0, 0, 0, byte(k)}
		p := &mutation.Partition{Key: key, Token: dht.Murmur3.Token(key), Deletion: mutation.Live, Static: mutation.NewRow(nil)}
		for c := 0; c < 2000; c++ {
			r := mutation.NewRow(mutation.Clustering{{0, 0, byte(c >> 8), byte(c)}})
			r.Liveness = mutation.LivenessInfo{Timestamp: 1, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
			v := make([]byte, 100)
			for i := range v {
				v[i] = 'a' + byte(rnd.Intn(26))
			}
			r.Cells = []mutation.Cell{{Column: table.Regular[0], Value: v, Timestamp: 1, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
			p.Rows = append(p.Rows, r)
		}
		parts = append(parts, p)
	}
	sortPartitions(parts)
	for _, v := range []string{"da", "ms"} {
		t.Run(v, func(t *testing.T) {
			f, err := sstables.Lookup(v)
			if err != nil {
				t.Fatal(err)
			}
			w, err := f.NewWriter(table, sstables.WriterOptions{Dir: t.TempDir(), Generation: 1, Compression: &compress.Params{Codec: compress.LZ4, ChunkLength: 16 << 10}})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				if err := w.Append(p); err != nil {
					t.Fatal(err)
				}
			}
			res, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			desc := res.Descriptor
			b, err := os.ReadFile(desc.Path(sstables.ComponentCompressionInfo))
			if err != nil {
				t.Fatal(err)
			}
			ci, err := sstables.ParseCompressionInfo(b, "", desc.Version)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(desc.Path(sstables.ComponentData))
			if err != nil {
				t.Fatal(err)
			}
			// The partitions' uncompressed extents.
			r0, err := sstables.OpenAny(desc, table, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := r0.Scan()
			if err != nil {
				t.Fatal(err)
			}
			var starts []int64
			for {
				if _, err := sc.NextPartition(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				starts = append(starts, sc.Position())
			}
			sc.Close()
			r0.Close()
			starts = append(starts, ci.DataLength)
			for i := 1; i < len(parts)-1; i++ {
				fsys := newCountingFS()
				r, err := sstables.OpenAny(desc, table, sstables.ReaderOptions{FS: fsys})
				if err != nil {
					t.Fatal(err)
				}
				d0, i0 := fsys.total("Data.db"), fsys.total("Partitions.db", "Rows.db")
				p, err := r.Get(parts[i].Key)
				if err != nil || p == nil || len(p.Rows) != 2000 {
					t.Fatalf("Get: %v, %v", p, err)
				}
				r.Close()
				// The compressed bytes of the chunks overlapping the
				// partition's extent.
				first, last := starts[i]/int64(ci.ChunkLength), (starts[i+1]-1)/int64(ci.ChunkLength)
				end := st.Size()
				if int(last)+1 < len(ci.ChunkOffsets) {
					end = ci.ChunkOffsets[last+1]
				}
				want := end - ci.ChunkOffsets[first]
				got := fsys.total("Data.db") - d0
				if got > want {
					t.Errorf("partition %d ([%d, %d) uncompressed, chunks %d..%d, %d bytes on disk): Get read %d bytes of Data.db", i, starts[i], starts[i+1], first, last, want, got)
				}
				if idx := fsys.total("Partitions.db", "Rows.db") - i0; idx > 2*4096 {
					t.Errorf("partition %d: Get read %d index bytes", i, idx)
				}
				t.Logf("partition %d: %s Get read %d of the %d bytes of its chunks in Data.db", i, v, got, want)
			}
		})
	}
}

func sortPartitions(parts []*mutation.Partition) {
	for i := 1; i < len(parts); i++ {
		for j := i; j > 0 && dht.ComparePartitions(parts[j].Token, parts[j].Key, parts[j-1].Token, parts[j-1].Key) < 0; j-- {
			parts[j], parts[j-1] = parts[j-1], parts[j]
		}
	}
}
