package bti_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
)

// countingFS counts the bytes read from each component's files.
type countingFS struct {
	sstables.FS
	read map[string]*atomic.Int64 // by component suffix
}

func newCountingFS() *countingFS {
	c := &countingFS{FS: sstables.OSFS, read: map[string]*atomic.Int64{}}
	for _, comp := range []string{"Data.db", "Index.db", "Summary.db", "Partitions.db", "Rows.db", "Filter.db", "Statistics.db"} {
		c.read[comp] = new(atomic.Int64)
	}
	return c
}

func (c *countingFS) Open(name string) (sstables.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	for comp, n := range c.read {
		if strings.HasSuffix(name, "-"+comp) {
			return &countingFile{File: f, n: n}, nil
		}
	}
	return f, nil
}

type countingFile struct {
	sstables.File
	n *atomic.Int64
}

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.n.Add(int64(n))
	return n, err
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.n.Add(int64(n))
	return n, err
}

func (c *countingFS) total(comps ...string) int64 {
	var t int64
	for _, comp := range comps {
		t += c.read[comp].Load()
	}
	return t
}

// benchKeys returns n random 16-byte keys in Murmur3 partition order.
func benchKeys(n int) [][]byte {
	r := rand.New(rand.NewSource(42))
	keys := make([][]byte, n)
	toks := make([]dht.Token, n)
	idx := make([]int, n)
	for i := range keys {
		keys[i] = make([]byte, 16)
		r.Read(keys[i])
		toks[i] = dht.Murmur3.Token(keys[i])
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return dht.ComparePartitions(toks[a], keys[a], toks[b], keys[b]) })
	out := make([][]byte, n)
	for i, j := range idx {
		out[i] = keys[j]
	}
	return out
}

func benchTable(b *testing.B) *schema.Table {
	s, err := cql.ParseSchema("CREATE TABLE ks.t (pk blob PRIMARY KEY, v bigint);")
	if err != nil {
		b.Fatal(err)
	}
	return s.Tables[0]
}

// writeBench writes one single-row partition per key in version v.
func writeBench(b *testing.B, v string, table *schema.Table, keys [][]byte, dir string) (sstables.Descriptor, time.Duration) {
	f, err := sstables.Lookup(v)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	w, err := f.NewWriter(table, sstables.WriterOptions{Dir: dir, Generation: 1, Jobs: 1, ExpectedPartitions: int64(len(keys)),
		Compression: &compress.Params{Codec: compress.LZ4}})
	if err != nil {
		b.Fatal(err)
	}
	p := &mutation.Partition{Deletion: mutation.Live, Static: mutation.NewRow(nil)}
	row := mutation.NewRow(mutation.Clustering{})
	row.Liveness = mutation.LivenessInfo{Timestamp: 1, TTL: mutation.NoTTL, LocalExpirationTime: mutation.NoDeletionTime}
	val := make([]byte, 8)
	row.Cells = []mutation.Cell{{Column: table.Regular[0], Value: val, Timestamp: 1, TTL: mutation.NoTTL, LocalDeletionTime: mutation.NoDeletionTime}}
	p.Rows = []mutation.Row{row}
	for i, k := range keys {
		p.Key, p.Token = k, dht.Murmur3.Token(k)
		val[7] = byte(i)
		if err := w.Append(p); err != nil {
			w.Abort()
			b.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		b.Fatal(err)
	}
	return res.Descriptor, time.Since(start)
}

// BenchmarkBTIAgainstBig is the benchmark: 1M partitions of
// random 16-byte keys (Murmur3, one row each, LZ4) written as da and as oa,
// then Get of random present keys through Partitions.db (da) and through
// Summary.db + Index.db (oa) in one run, reporting the latency (ns/op) and
// the bytes each lookup read from the index components and from Data.db;
// and the write cost of each format in fragments (rows) per second (the
// faster of two writes each, alternating). oa's index bytes include its
// Summary.db, read once by the first lookup and kept in memory.
// BTI_BENCH_PARTITIONS changes the count (default 1,000,000).
//
//	go test -run XXX -bench BTIAgainstBig -benchtime 200000x ./sstables/bti/
func BenchmarkBTIAgainstBig(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("BTI_BENCH_PARTITIONS"); s != "" {
		fmt.Sscan(s, &n)
	}
	table := benchTable(b)
	keys := benchKeys(n)
	dir := b.TempDir()
	descs := map[string]sstables.Descriptor{}
	for _, v := range []string{"da", "oa"} { // warm up: code, allocator, page cache
		writeBench(b, v, table, keys[:min(n, 50_000)], filepath.Join(dir, "warm-"+v))
	}
	// Each format twice, alternating; the faster write counts.
	best := map[string]time.Duration{}
	for round := 0; round < 2; round++ {
		for _, v := range []string{"da", "oa"} {
			out := filepath.Join(dir, fmt.Sprintf("%s-%d", v, round))
			desc, d := writeBench(b, v, table, keys, out)
			if round == 0 {
				descs[v] = desc
			} else if err := os.RemoveAll(out); err != nil {
				b.Fatal(err)
			}
			if best[v] == 0 || d < best[v] {
				best[v] = d
			}
		}
	}
	for _, v := range []string{"da", "oa"} {
		d := best[v]
		var size int64
		for _, c := range []sstables.Component{sstables.ComponentPartitions, sstables.ComponentRows, sstables.ComponentIndex, sstables.ComponentSummary} {
			if st, err := os.Stat(descs[v].Path(c)); err == nil {
				size += st.Size()
			}
		}
		b.Logf("write %s: %d partitions in %v: %.0f frag/s; index components %d bytes", v, n, d.Round(time.Millisecond), float64(n)/d.Seconds(), size)
		b.Run("write/format="+v, func(b *testing.B) {
			// The writes above, reported as a result (b.N is ignored:
			// the faster of two writes of n partitions).
			b.ReportMetric(float64(n)/d.Seconds(), "frag/s")
			b.ReportMetric(float64(d.Nanoseconds())/float64(n), "ns/frag")
		})
	}
	for _, v := range []string{"da", "oa"} {
		b.Run("get/format="+v, func(b *testing.B) {
			fsys := newCountingFS()
			r, err := sstables.OpenAny(descs[v], table, sstables.ReaderOptions{FS: fsys})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			rnd := rand.New(rand.NewSource(7))
			idx0, data0 := fsys.total("Partitions.db", "Rows.db", "Index.db", "Summary.db"), fsys.total("Data.db")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := keys[rnd.Intn(n)]
				p, err := r.Get(k)
				if err != nil || p == nil || len(p.Rows) != 1 {
					b.Fatalf("Get(%x): %v, %v", k, p, err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(fsys.total("Partitions.db", "Rows.db", "Index.db", "Summary.db")-idx0)/float64(b.N), "index-B/op")
			b.ReportMetric(float64(fsys.total("Data.db")-data0)/float64(b.N), "data-B/op")
		})
	}
}
