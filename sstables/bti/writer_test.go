package bti

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"slices"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/sorted"
	"github.com/castable-db/castable/sstables/version"
)

func parseTable(t testing.TB, ddl string, part dht.Partitioner) *schema.Table {
	t.Helper()
	s, err := cql.ParseSchema(ddl)
	if err != nil {
		t.Fatal(err)
	}
	tb := s.Tables[0]
	tb.Options.Partitioner = part.Name()
	return tb
}

// textPartitions makes n one-row partitions of (pk text PRIMARY KEY, v
// int), sorted in part's order; the keys share long prefixes so that
// their shortest unique byte-comparable prefixes are long under the
// key-ordered partitioners.
func textPartitions(table *schema.Table, part dht.Partitioner, n int) []*mutation.Partition {
	parts := make([]*mutation.Partition, n)
	for i := range parts {
		key := []byte(fmt.Sprintf("key-%07d-%d", i*7919%n, i%3))
		p := &mutation.Partition{Key: key, Token: part.Token(key), Deletion: mutation.Live, Static: mutation.NewRow(nil)}
		r := mutation.NewRow(mutation.Clustering{})
		r.Liveness = mutation.LivenessInfo{Timestamp: 1, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
		r.Cells = []mutation.Cell{{Column: table.Regular[0], Value: []byte{0, 0, byte(i >> 8), byte(i)}, Timestamp: 1, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
		p.Rows = []mutation.Row{r}
		parts[i] = p
	}
	slices.SortFunc(parts, func(a, b *mutation.Partition) int { return dht.ComparePartitions(a.Token, a.Key, b.Token, b.Key) })
	return parts
}

func writeAll(t testing.TB, v string, table *schema.Table, parts []*mutation.Partition, dir string) sstables.Descriptor {
	t.Helper()
	w, err := NewWriter(version.MustParse(v), table, sstables.WriterOptions{Dir: dir, Generation: 1, Jobs: 1,
		Compression: &compress.Params{Codec: compress.LZ4}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if err := w.Append(p); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return res.Descriptor
}

// TestManyPartitions writes 100,000 partitions under each partitioner (a
// Partitions.db trie of many pages) in da and ms: they verify, scan in the
// partitioner's order, and every key is found by Get through the trie
// read page by page with a small cache; keys that share a stored prefix
// with one present (a hash byte collision away from a false match) are
// absent.
func TestManyPartitions(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 30_000 // still a Partitions.db of more than 50 pages
	}
	for _, part := range []dht.Partitioner{dht.Murmur3, dht.ByteOrdered, dht.Random} {
		for _, v := range []string{"da", "ms"} {
			t.Run(fmt.Sprintf("%s/%s", part.Name()[len("org.apache.cassandra.dht."):], v), func(t *testing.T) {
				table := parseTable(t, "CREATE TABLE ks.t (pk text PRIMARY KEY, v int)", part)
				parts := textPartitions(table, part, n)
				desc := writeAll(t, v, table, parts, t.TempDir())
				st, err := os.Stat(desc.Path(sstables.ComponentPartitions))
				if err != nil {
					t.Fatal(err)
				}
				if st.Size() < 50*4096 {
					t.Fatalf("Partitions.db of %d bytes: not a trie of many pages", st.Size())
				}
				r, err := Open(desc, nil, sstables.ReaderOptions{IndexCacheBytes: 4 * 4096})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if err := r.Verify(); err != nil {
					t.Fatal(err)
				}
				sc, err := r.Scan()
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; ; i++ {
					p, err := sc.NextPartition()
					if err == io.EOF {
						if i != n {
							t.Fatalf("scanned %d partitions of %d", i, n)
						}
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(p.Key, parts[i].Key) {
						t.Fatalf("partition %d is %q, want %q", i, p.Key, parts[i].Key)
					}
				}
				sc.Close()
				rnd := rand.New(rand.NewSource(1))
				b0, _ := r.IndexBytesRead()
				const gets = 2000
				for k := 0; k < gets; k++ {
					want := parts[rnd.Intn(n)]
					p, err := r.Get(want.Key)
					if err != nil || p == nil || !slices.Equal(p.Key, want.Key) || len(p.Rows) != 1 {
						t.Fatalf("Get(%q): %v, %v", want.Key, p, err)
					}
					for _, absent := range [][]byte{append(slices.Clone(want.Key), 'x'), want.Key[:len(want.Key)-1], append(slices.Clone(want.Key[:len(want.Key)-1]), '9')} {
						if p, err := r.Get(absent); p != nil || err != nil {
							t.Fatalf("Get(%q) of an absent key: %v, %v", absent, p, err)
						}
					}
				}
				b1, reads := r.IndexBytesRead()
				t.Logf("Partitions.db %d bytes; %d lookups (a quarter present) read %d index bytes in %d reads", st.Size(), 4*gets, b1-b0, reads)
			})
		}
	}
}

// TestSolePartition: one partition, whose Partitions.db key is Cassandra's
// empty key (da) or ScyllaDB's first byte (ms), reads back.
func TestSolePartition(t *testing.T) {
	for _, v := range []string{"da", "ms"} {
		table := parseTable(t, "CREATE TABLE ks.t (pk text PRIMARY KEY, v int)", dht.Murmur3)
		parts := textPartitions(table, dht.Murmur3, 1)
		desc := writeAll(t, v, table, parts, t.TempDir())
		r, err := Open(desc, nil, sstables.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Verify(); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if p, err := r.Get(parts[0].Key); err != nil || p == nil {
			t.Fatalf("%s: Get: %v %v", v, p, err)
		}
		if p, err := r.Get([]byte("other")); err != nil || p != nil {
			t.Fatalf("%s: Get of an absent key: %v %v", v, p, err)
		}
		r.Close()
	}
}

// TestWriterMisuse: errors are sticky, and Abort leaves no file.
func TestWriterMisuse(t *testing.T) {
	table := parseTable(t, "CREATE TABLE ks.t (pk text PRIMARY KEY, v int)", dht.Murmur3)
	parts := textPartitions(table, dht.Murmur3, 10)
	dir := t.TempDir()
	w, err := NewWriter(version.MustParse("da"), table, sstables.WriterOptions{Dir: dir, Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(parts[5]); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(parts[2]); err == nil {
		t.Fatal("a partition out of order was accepted")
	}
	if err := w.Append(parts[7]); err == nil {
		t.Fatal("the error is not sticky")
	}
	if _, err := w.Finish(); err == nil {
		t.Fatal("Finish after a failure succeeded")
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Fatalf("Abort left %d files", len(names))
	}
	w, err = NewWriter(version.MustParse("da"), table, sstables.WriterOptions{Dir: dir, Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.EndPartition(); !errors.Is(err, sorted.ErrWriterState) {
		t.Fatalf("EndPartition outside a partition: %v", err)
	}
	w.Abort()
	if _, err := NewWriter(version.MustParse("oa"), table, sstables.WriterOptions{Dir: dir, Generation: 2}); err == nil {
		t.Fatal("the BTI writer wrote oa")
	}
}
