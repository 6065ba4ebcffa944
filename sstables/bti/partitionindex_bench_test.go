package bti

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand"
	"sort"
	"testing"

	"github.com/castable-db/castable/dht"
)

// murmurKeys returns n raw keys sorted in Murmur3 partition order with
// their byte-comparable forms.
func murmurKeys(n int) (raw, comp [][]byte) {
	type kv struct {
		tok dht.Token
		key []byte
	}
	ks := make([]kv, n)
	for i := range ks {
		k := binary.BigEndian.AppendUint32(nil, uint32(i))
		ks[i] = kv{dht.Murmur3.Token(k), k}
	}
	sort.Slice(ks, func(i, j int) bool { return dht.ComparePartitions(ks[i].tok, ks[i].key, ks[j].tok, ks[j].key) < 0 })
	for _, k := range ks {
		raw = append(raw, k.key)
		comp = append(comp, AppendDecoratedKey(nil, dht.Murmur3, k.key))
	}
	return raw, comp
}

func BenchmarkPartitionIndexWrite(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		raw, comp := murmurKeys(n)
		total := 0
		for _, c := range comp {
			total += len(c)
		}
		b.Run(fmt.Sprintf("impl=bti/size=%d", n), func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w := NewPartitionIndexWriter(io.Discard, PartitionIndexOptions{})
				for j := range raw {
					if err := w.Add(comp[j], raw[j], HashByte(raw[j]), ^int64(j*100)); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.Finish(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "keys/s")
		})
	}
}

func BenchmarkPartitionIndexLookup(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		raw, comp := murmurKeys(n)
		var buf bytes.Buffer
		w := NewPartitionIndexWriter(&buf, PartitionIndexOptions{})
		for j := range raw {
			w.Add(comp[j], raw[j], HashByte(raw[j]), ^int64(j*100))
		}
		w.Finish()
		pi, err := OpenPartitionIndex(buf.Bytes(), "")
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewSource(1))
		b.Run(fmt.Sprintf("impl=bti/size=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				j := r.Intn(n)
				if _, ok, err := pi.Lookup(comp[j], HashByte(raw[j])); !ok || err != nil {
					b.Fatal("miss")
				}
			}
		})
	}
}
